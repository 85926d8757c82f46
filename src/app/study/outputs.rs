//! How the jobs over a study's directory (`run`, `tournament`, `metrics`, a summary) write their
//! own files: a directory created, CSV text, JSON and text written atomically; each failure a
//! [`StudyError::Failed`] naming the path.

use std::path::Path;

use crate::io::write_string_atomically;

use super::error::StudyError;

/// Creates `dir` and its parents.
pub fn create_dir(dir: &Path) -> Result<(), StudyError> {
    std::fs::create_dir_all(dir)
        .map_err(|e| StudyError::failed(format!("{}: cannot create: {e}", dir.display())))
}

/// A CSV file's text: the header, then one record per row.
pub fn csv_text<H, R>(header: H, rows: impl IntoIterator<Item = R>) -> Result<String, StudyError>
where
    H: IntoIterator,
    H::Item: AsRef<[u8]>,
    R: IntoIterator,
    R::Item: AsRef<[u8]>,
{
    let mut w = ::csv::Writer::from_writer(Vec::new());
    w.write_record(header).map_err(StudyError::failed)?;
    for row in rows {
        w.write_record(row).map_err(StudyError::failed)?;
    }
    String::from_utf8(w.into_inner().map_err(StudyError::failed)?).map_err(StudyError::failed)
}

/// Writes `text` to `path`, atomically.
pub fn write_text(path: &Path, text: &str) -> Result<(), StudyError> {
    write_string_atomically(path, text).map_err(StudyError::failed)
}

/// Writes `value` to `path` as indented JSON with a final newline, atomically.
pub fn write_json(path: &Path, value: &impl serde::Serialize) -> Result<(), StudyError> {
    let json = serde_json::to_string_pretty(value).map_err(StudyError::failed)? + "\n";
    write_text(path, &json)
}
