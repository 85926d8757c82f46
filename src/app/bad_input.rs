//! Whether an error is the input's (a request, a board, a directory that is not what it should
//! be: exit 2, HTTP 400, Python's UsageError) or a failure while working (exit 1, HTTP 500,
//! Python's RuntimeError). The front ends map an error's kind here, not at each call.

use crate::exact::{MatchError, SolveError, SpillError};
use crate::io::DatasetError;

/// An error that knows whether it is bad input.
pub trait BadInput {
    /// Whether the error is the input's, not a failure of the system while working.
    fn is_bad_input(&self) -> bool;
}

/// A board beyond the solver's limits, or an allowance too small for it; not a solve stopped
/// by its caller.
impl BadInput for SolveError {
    fn is_bad_input(&self) -> bool {
        !matches!(self, SolveError::Cancelled)
    }
}

/// A board too large, or a tables directory that is not one's own; not a failure to read or
/// write, nor a stop as asked.
impl BadInput for MatchError {
    fn is_bad_input(&self) -> bool {
        match self {
            MatchError::Spill(e) => e.is_bad_input(),
            e => !matches!(e, MatchError::Io(_) | MatchError::Interrupted { .. }),
        }
    }
}

/// A board or a disk allowance too small, a directory or file that is not this solve's; not a
/// failure while working, nor a stop as asked.
impl BadInput for SpillError {
    fn is_bad_input(&self) -> bool {
        matches!(
            self,
            SpillError::Solve(_)
                | SpillError::BadFile(_)
                | SpillError::OtherSolve { .. }
                | SpillError::DiskLimit { .. }
                | SpillError::ClosureLimit { .. }
        )
    }
}

impl BadInput for DatasetError {
    fn is_bad_input(&self) -> bool {
        DatasetError::is_bad_input(self)
    }
}

impl BadInput for super::FieldError {
    fn is_bad_input(&self) -> bool {
        true
    }
}
