//! The API's errors: a status and a JSON object naming the field at fault (docs/serve.md).

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use super::params::BadRequest;
use crate::app::FieldError;

/// An API error: status and JSON `{"error": ..., "field": ..., "kind": ...}`.
#[derive(Clone, Debug)]
pub struct ApiError {
    status: StatusCode,
    field: Option<String>,
    message: String,
    /// What kind of refusal, for the page: "budget" (the board is beyond the budget),
    /// "cancelled", or none.
    kind: Option<&'static str>,
    /// Whether the connection is closed after the answer (what is left of it cannot be read).
    close: bool,
}

impl ApiError {
    pub fn bad(field: &str, message: impl std::fmt::Display) -> ApiError {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            field: Some(field.to_string()),
            message: message.to_string(),
            kind: None,
            close: false,
        }
    }
    pub fn status(status: StatusCode, message: impl std::fmt::Display) -> ApiError {
        ApiError { status, field: None, message: message.to_string(), kind: None, close: false }
    }
    /// A refusal of another status that names what was at fault (a header, the query...).
    pub fn refused(status: StatusCode, field: &str, message: impl std::fmt::Display) -> ApiError {
        ApiError { field: Some(field.to_string()), ..ApiError::status(status, message) }
    }
    pub fn budget(field: &str, message: impl std::fmt::Display) -> ApiError {
        ApiError { kind: Some("budget"), ..ApiError::bad(field, message) }
    }
    pub fn cancelled() -> ApiError {
        ApiError {
            kind: Some("cancelled"),
            ..ApiError::status(StatusCode::SERVICE_UNAVAILABLE, "the job was cancelled")
        }
    }
    /// The same error, the connection closed after it.
    pub fn closing(self) -> ApiError {
        ApiError { close: true, ..self }
    }
    pub fn json(&self) -> Value {
        json!({ "error": self.message, "field": self.field, "kind": self.kind, "status": self.status.as_u16() })
    }
}

impl From<BadRequest> for ApiError {
    fn from(e: BadRequest) -> ApiError {
        ApiError::bad(&e.field, e.message)
    }
}

impl From<FieldError> for ApiError {
    fn from(e: FieldError) -> ApiError {
        ApiError::bad(e.field, e.message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status, axum::Json(self.json())).into_response();
        if self.close {
            response.headers_mut().insert(
                axum::http::header::CONNECTION,
                axum::http::HeaderValue::from_static("close"),
            );
        }
        response
    }
}
