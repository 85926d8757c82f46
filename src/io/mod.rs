//! Files: Parquet (polars) and CSV (csv crate) part files of [`crate::sim::table::Table`]s.
//!
//! Every write is atomic ([`atomic`]): a file either has its complete contents or does not
//! exist. Every read checks the file against a [`TableSpec`] (same column names, same types)
//! and errors name the file and what is wrong with it.

pub mod atomic;
pub mod csv;
pub mod datapackage;
pub mod dataset;
pub mod lock;
pub mod parquet;
mod parquet_pages;
pub mod rows;
pub mod verify;

use std::path::{Path, PathBuf};

use crate::sim::schema::TableSpec;
use crate::sim::table::Table;

pub use self::atomic::{write_atomically, write_string_atomically};
pub use self::csv::{read_csv, write_csv};
pub use self::dataset::{Dataset, DatasetError, DatasetWriter, Formats, Manifest, RunStatus};
pub use self::parquet::{read_parquet, write_parquet};
pub use self::verify::FileDigest;

/// A table file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    Parquet,
    Csv,
}

impl Format {
    pub const ALL: [Format; 2] = [Format::Parquet, Format::Csv];

    /// The file name extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Parquet => "parquet",
            Format::Csv => "csv",
        }
    }
}

/// Writes a table file in `format`, atomically; returns the file's size and SHA-256.
pub fn write_table(table: &Table, path: &Path, format: Format) -> Result<FileDigest, IoError> {
    match format {
        Format::Parquet => write_parquet(table, path),
        Format::Csv => write_csv(table, path),
    }
}

/// [`write_table`], the file left for the caller to commit ([`atomic::Unsynced`]): written
/// in full, not yet synced nor renamed.
pub fn write_table_unsynced(table: &Table, path: &Path, format: Format) -> Result<(atomic::Unsynced, FileDigest), IoError> {
    match format {
        Format::Parquet => parquet::write_parquet_unsynced(table, path),
        Format::Csv => csv::write_csv_unsynced(table, path),
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
pub fn read_table_columns(path: &Path, spec: &TableSpec, names: &[&'static str]) -> Result<Table, IoError> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    match Format::ALL.into_iter().find(|f| f.extension().eq_ignore_ascii_case(ext)) {
        Some(Format::Parquet) => parquet::read_parquet_columns(path, spec, names),
        Some(Format::Csv) => {
            let mut t = read_csv(path, spec)?;
            t.columns.retain(|c| names.contains(&c.name));
            Ok(t)
        }
        None => Err(IoError::UnknownFormat { path: path.to_path_buf() }),
    }
}

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
    /// [`read_table`] was given a file that is neither `.parquet` nor `.csv`.
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

/// Checks that a table about to be written has equally long columns with distinct names.
fn check_table(table: &Table, path: &Path) -> Result<(), IoError> {
    let rows = table.rows();
    for (i, c) in table.columns.iter().enumerate() {
        if c.data.len() != rows {
            return Err(IoError::schema(
                path,
                c.name,
                format!("has {} rows but column `{}` has {rows}", c.data.len(), table.columns[0].name),
            ));
        }
        if table.columns[..i].iter().any(|d| d.name == c.name) {
            return Err(IoError::schema(path, c.name, "appears twice in the table"));
        }
    }
    Ok(())
}

/// Maps the columns found in a file to the spec's columns: `result[i]` is the file's index of
/// the spec's column `i`. Any missing, unexpected or repeated column is an error naming it.
fn match_columns(path: &Path, spec: &TableSpec, found: &[&str]) -> Result<Vec<usize>, IoError> {
    for (i, name) in found.iter().enumerate() {
        if found[..i].contains(name) {
            return Err(IoError::schema(path, name, "appears twice in the file"));
        }
        if !spec.columns.iter().any(|c| c.name == *name) {
            return Err(IoError::schema(
                path,
                name,
                format!("is not a column of table `{}` (its columns: {})", spec.name, column_list(spec)),
            ));
        }
    }
    spec.columns
        .iter()
        .map(|c| {
            found.iter().position(|n| *n == c.name).ok_or_else(|| {
                IoError::schema(path, c.name, format!("is missing (table `{}` has columns: {})", spec.name, column_list(spec)))
            })
        })
        .collect()
}

fn column_list(spec: &TableSpec) -> String {
    spec.columns.iter().map(|c| c.name).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::sim::schema::{ColumnSpec, ROUNDS};
    use crate::sim::table::{Column, ColumnData, ColumnType};

    /// A schema with every column type.
    pub const ALL_TYPES: TableSpec = TableSpec {
        name: "all_types",
        row: "a test row",
        columns: &[
            ColumnSpec { name: "a_u32", ty: ColumnType::U32, meaning: "u32" },
            ColumnSpec { name: "a_u64", ty: ColumnType::U64, meaning: "u64" },
            ColumnSpec { name: "an_i64", ty: ColumnType::I64, meaning: "i64" },
            ColumnSpec { name: "an_f64", ty: ColumnType::F64, meaning: "f64" },
            ColumnSpec { name: "a_bool", ty: ColumnType::Bool, meaning: "bool" },
            ColumnSpec { name: "a_sym", ty: ColumnType::Sym, meaning: "sym, nullable" },
            ColumnSpec { name: "a_text", ty: ColumnType::Text, meaning: "text" },
        ],
    };

    /// A table of [`ALL_TYPES`] with extreme values, null symbols and awkward text.
    /// The file names in `dir`, sorted.
    pub fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    }

    pub fn all_types_table() -> Table {
        let col = |name, data| Column { name, data };
        Table {
            name: "all_types",
            columns: vec![
                col("a_u32", ColumnData::U32(vec![0, 1, u32::MAX, 7, 42])),
                col("a_u64", ColumnData::U64(vec![u64::MAX, 0, 1 << 40, 3, 9])),
                col("an_i64", ColumnData::I64(vec![i64::MIN, -1, 0, i64::MAX, 12345])),
                col("an_f64", ColumnData::F64(vec![0.1, -2.5e-300, 1e300, -0.0, f64::MAX])),
                col("a_bool", ColumnData::Bool(vec![true, false, false, true, true])),
                col("a_sym", ColumnData::Sym(vec![Some("south"), None, Some("north"), Some("tie"), None])),
                col(
                    "a_text",
                    ColumnData::Text(vec![
                        "random".into(),
                        "minimax:2".into(),
                        String::new(),
                        "comma, \"quote\"\nnewline".into(),
                        "unicode: rāja pasu".into(),
                    ]),
                ),
            ],
        }
    }

    #[test]
    fn read_table_dispatches_on_extension() {
        let dir = tempfile::tempdir().unwrap();
        let t = all_types_table();
        for format in Format::ALL {
            let path = dir.path().join(format!("t.{}", format.extension()));
            write_table(&t, &path, format).unwrap();
            assert_eq!(read_table(&path, &ALL_TYPES).unwrap(), t, "{format:?}");
        }
        let bad = dir.path().join("t.txt");
        std::fs::write(&bad, "x").unwrap();
        let err = read_table(&bad, &ALL_TYPES).unwrap_err();
        assert!(matches!(err, IoError::UnknownFormat { .. }));
        assert!(err.to_string().contains("t.txt"), "{err}");
    }

    #[test]
    fn writing_a_ragged_table_is_an_error_naming_the_column() {
        let dir = tempfile::tempdir().unwrap();
        let mut t = all_types_table();
        t.columns[2].data = ColumnData::I64(vec![1]);
        for name in ["t.parquet", "t.csv"] {
            let path = dir.path().join(name);
            let err = if name.ends_with("csv") { write_csv(&t, &path) } else { write_parquet(&t, &path) }.unwrap_err();
            assert!(matches!(&err, IoError::Schema { column, .. } if column == "an_i64"), "{err}");
            assert!(!path.exists());
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    /// A ROUNDS-shaped table of `rows` rows with plausible values.
    pub fn rounds_table(rows: usize) -> Table {
        let mut t = crate::sim::schema::empty_table(&ROUNDS);
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        let syms = [Some("south"), Some("north"), Some("tie"), None];
        for c in &mut t.columns {
            let name = c.name;
            match &mut c.data {
                ColumnData::U64(v) => v.extend((0..rows).map(|i| if name == "match_id" { i as u64 / 8 } else { next(5000) })),
                ColumnData::I64(v) => v.extend((0..rows).map(|i| if name == "round" { (i % 8) as i64 + 1 } else { next(48) as i64 })),
                ColumnData::Sym(v) => v.extend((0..rows).map(|_| syms[next(4) as usize])),
                other => panic!("unexpected ROUNDS column type {:?}", other.column_type()),
            }
        }
        t
    }

    /// Write speed of a ROUNDS-shaped table: `cargo test --release --lib io::tests::write_speed -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn write_speed() {
        let rows = 1_000_000;
        let t = rounds_table(rows);
        let dir = tempfile::tempdir().unwrap();
        for format in Format::ALL {
            let path = dir.path().join(format!("rounds.{}", format.extension()));
            let start = std::time::Instant::now();
            write_table(&t, &path, format).unwrap();
            let secs = start.elapsed().as_secs_f64();
            let size = std::fs::metadata(&path).unwrap().len();
            let start = std::time::Instant::now();
            let back = read_table(&path, &ROUNDS).unwrap();
            let read_secs = start.elapsed().as_secs_f64();
            assert_eq!(back, t);
            println!(
                "{format:?}: write {rows} rows in {secs:.3} s = {:.0} rows/s, {:.1} MB; read {:.0} rows/s",
                rows as f64 / secs,
                size as f64 / 1e6,
                rows as f64 / read_secs
            );
        }
    }
}
