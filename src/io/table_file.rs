//! Table files in either format: written atomically, read by their extension.

use std::path::{Path, PathBuf};

use super::atomic::Unsynced;
use super::csv::{read_csv, write_csv, write_csv_unsynced};
use super::dataset::Formats;
use super::error::IoError;
use super::format::Format;
use super::parquet::{read_parquet, read_parquet_columns, write_parquet, write_parquet_unsynced};
use super::verify::FileDigest;
use crate::sim::schema::TableSpec;
use crate::sim::table::Table;

/// Writes a table file in `format`, atomically; returns the file's size and SHA-256.
pub fn write_table(table: &Table, path: &Path, format: Format) -> Result<FileDigest, IoError> {
    match format {
        Format::Parquet => write_parquet(table, path),
        Format::Csv => write_csv(table, path),
    }
}

/// Writes `table` as DIR/NAME.parquet and/or DIR/NAME.csv; returns the files written.
pub fn write_table_formats(
    table: &Table,
    dir: &Path,
    formats: Formats,
) -> Result<Vec<PathBuf>, IoError> {
    let mut written = Vec::new();
    for format in formats.list() {
        let path = dir.join(format!("{}.{}", table.name, format.extension()));
        write_table(table, &path, format)?;
        written.push(path);
    }
    Ok(written)
}

/// [`write_table`], the file left for the caller to commit ([`Unsynced`]): written
/// in full, not yet synced nor renamed.
pub fn write_table_unsynced(
    table: &Table,
    path: &Path,
    format: Format,
) -> Result<(Unsynced, FileDigest), IoError> {
    match format {
        Format::Parquet => write_parquet_unsynced(table, path),
        Format::Csv => write_csv_unsynced(table, path),
    }
}

/// Reads a table file, choosing the format by the file's extension (`.parquet` or `.csv`).
pub fn read_table(path: &Path, spec: &TableSpec) -> Result<Table, IoError> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    match Format::ALL.into_iter().find(|f| f.extension().eq_ignore_ascii_case(ext)) {
        Some(Format::Parquet) => read_parquet(path, spec),
        Some(Format::Csv) => read_csv(path, spec),
        None => Err(IoError::UnknownFormat { path: path.to_path_buf() }),
    }
}

/// Reads only the columns `names` of a table file (each a column of `spec`): the rest of a
/// Parquet file is not decoded; a CSV file is read whole and checked, then narrowed.
pub fn read_table_columns(
    path: &Path,
    spec: &TableSpec,
    names: &[&'static str],
) -> Result<Table, IoError> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    match Format::ALL.into_iter().find(|f| f.extension().eq_ignore_ascii_case(ext)) {
        Some(Format::Parquet) => read_parquet_columns(path, spec, names),
        Some(Format::Csv) => {
            let mut t = read_csv(path, spec)?;
            t.columns.retain(|c| names.contains(&c.name));
            Ok(t)
        }
        None => Err(IoError::UnknownFormat { path: path.to_path_buf() }),
    }
}
