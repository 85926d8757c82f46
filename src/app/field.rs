//! The error of a request's field, shared by every job.

/// A request's field that is not what it should be (exit 2, HTTP 400, Python's UsageError):
/// the field as the request names it, and what is wrong and what is allowed. The front ends
/// name the field their own way (a flag, a keyword argument, a JSON key).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct FieldError {
    pub field: &'static str,
    pub message: String,
}

impl FieldError {
    pub fn new(field: &'static str, message: impl std::fmt::Display) -> FieldError {
        FieldError { field, message: message.to_string() }
    }
}
