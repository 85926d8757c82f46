//! The command line's error and the exit code each kind maps to (mapped in `cli::main`). The
//! kind comes from the error: a typed error says whether it is bad input
//! ([`crate::app::BadInput`]), and [`CliError::of`] and the `From` impls (here, beside the
//! wording of a field in flags.rs and of a dataset or study in dataset_errors.rs) keep its word.

use crate::app::BadInput;

/// A failure, with the exit code it maps to.
#[derive(Debug)]
pub enum CliError {
    /// Bad input: arguments, rules, players, moves, files that are not what they should be (exit 2).
    Usage(String),
    /// Something failed while working (exit 1).
    Failed(String),
    /// The reader of our output went away (`| head`): not an error (exit 0).
    BrokenPipe,
}

impl CliError {
    pub fn usage(msg: impl std::fmt::Display) -> CliError {
        CliError::Usage(msg.to_string())
    }
    pub fn failed(msg: impl std::fmt::Display) -> CliError {
        CliError::Failed(msg.to_string())
    }
    /// `e` as the command line words it (`message`): bad input exits 2, a failure while
    /// working exits 1, as the error itself says.
    pub fn of(e: &impl BadInput, message: impl std::fmt::Display) -> CliError {
        if e.is_bad_input() {
            CliError::usage(message)
        } else {
            CliError::failed(message)
        }
    }
    /// What to tell the user; None: nothing (a closed pipe).
    pub fn message(&self) -> Option<&str> {
        match self {
            CliError::Usage(msg) | CliError::Failed(msg) => Some(msg),
            CliError::BrokenPipe => None,
        }
    }
    /// The exit code of the error.
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::Usage(_) => 2,
            CliError::Failed(_) => 1,
            CliError::BrokenPipe => 0,
        }
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> CliError {
        CliError::Failed(e.to_string())
    }
}

/// An experiment or tournament file that cannot be read or is not a valid one (exit 2).
impl From<crate::app::study::source_file::StudyFileError> for CliError {
    fn from(e: crate::app::study::source_file::StudyFileError) -> CliError {
        CliError::of(&e, &e)
    }
}

/// An error writing to stdout; a closed pipe (`| head`) ends the output quietly.
pub(crate) fn stdout_error(e: std::io::Error) -> CliError {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        CliError::BrokenPipe
    } else {
        CliError::Failed(format!("cannot write to stdout: {e}"))
    }
}
