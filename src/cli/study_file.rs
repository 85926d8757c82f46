//! What experiment files (`rajapasu run`) and tournament files (`rajapasu tournament`) share:
//! reading one (bounded, regular files only), the names they give, and where an error is.

use std::path::Path;

use super::CliError;

/// The largest experiment or tournament file read (the real ones are a few KB).
pub const MAX_STUDY_FILE_BYTES: u64 = 1 << 20;

/// The text of an experiment or tournament file: a regular file (a FIFO or device is refused,
/// never waited on or read without end) of at most [`MAX_STUDY_FILE_BYTES`].
pub fn read_study_file(path: &Path) -> Result<String, CliError> {
    crate::files::read_regular_file(path, MAX_STUDY_FILE_BYTES).map_err(|e| CliError::usage(format!("{}: {e}", path.display())))
}

/// The file at `path` read and parsed by `parse`; its errors are prefixed with the path.
pub fn load<T>(path: &Path, parse: impl FnOnce(&str) -> Result<T, String>) -> Result<T, CliError> {
    let text = read_study_file(path)?;
    parse(&text).map_err(|e| CliError::usage(format!("{}: {e}", path.display())))
}

/// The line (1-based) of byte `offset` in `text`.
pub fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// A study's, arm's or player's name: letters, digits, `_ - .`, not starting with a dot, at
/// most 64 characters (it names a directory).
pub fn valid_name(s: &str) -> bool {
    !s.is_empty() && s.len() <= 64 && s.chars().all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c)) && !s.starts_with('.')
}
