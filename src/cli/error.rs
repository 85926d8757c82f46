//! The command line's error and the exit code each kind maps to (mapped in `cli::main`).

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
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> CliError {
        CliError::Failed(e.to_string())
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
