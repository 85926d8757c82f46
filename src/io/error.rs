//! The error of reading or writing a table file.

use std::path::{Path, PathBuf};

/// An error reading or writing a file; the message names the file and what was wrong.
#[derive(Debug, thiserror::Error)]
pub enum IoError {
    /// An operating-system error (`action` says what was being done, e.g. "cannot open").
    #[error("{}: {action}: {error}", path.display())]
    File { path: PathBuf, action: String, error: std::io::Error },
    /// Polars could not write or read the Parquet file.
    #[error("{}: parquet: {error}", path.display())]
    Parquet { path: PathBuf, error: polars::error::PolarsError },
    /// The csv crate could not write or read the CSV file (malformed record, ...).
    #[error("{}: csv: {error}", path.display())]
    Csv { path: PathBuf, error: ::csv::Error },
    /// The file's columns do not match the table's schema (missing, unexpected, wrong type).
    #[error("{}: column `{column}`: {what}", path.display())]
    Schema { path: PathBuf, column: String, what: String },
    /// A value that cannot be read as its column's type; `at` is "line N" (CSV) or "row N" (Parquet).
    #[error("{}: {at}, column `{column}`: {what}", path.display())]
    Value { path: PathBuf, at: String, column: String, what: String },
    /// [`super::read_table`] was given a file that is neither `.parquet` nor `.csv`.
    #[error("{}: unknown table file extension (expected .parquet or .csv)", path.display())]
    UnknownFormat { path: PathBuf },
}

impl IoError {
    pub(crate) fn file(path: &Path, action: impl Into<String>, error: std::io::Error) -> IoError {
        IoError::File { path: path.to_path_buf(), action: action.into(), error }
    }

    pub(crate) fn schema(path: &Path, column: &str, what: impl Into<String>) -> IoError {
        IoError::Schema { path: path.to_path_buf(), column: column.to_string(), what: what.into() }
    }
}
