//! CSV files through the csv crate: a header row of column names, then one line per row.
//!
//! Values are written in Rust's `Display` form (floats in their shortest round-trip form,
//! booleans as `true`/`false`); a null symbol is an empty field.

use std::fmt::Write as _;
use std::fs::File;
use std::path::Path;

use super::atomic::{write_unsynced_hashed, Unsynced};
use super::columns::{check_table, match_columns};
use super::error::IoError;
use super::verify::FileDigest;
use crate::sim::schema::{empty_table, intern_sym, TableSpec};
use crate::sim::table::{ColumnData, ColumnType, Table};

/// Writes `table` to `path` as CSV with a header row, atomically; returns the file's size and
/// SHA-256.
pub fn write_csv(table: &Table, path: &Path) -> Result<FileDigest, IoError> {
    let (unsynced, digest) = write_csv_unsynced(table, path)?;
    unsynced.commit()?;
    Ok(digest)
}

/// [`write_csv`], the file left for the caller to commit (see [`Unsynced`]).
pub fn write_csv_unsynced(table: &Table, path: &Path) -> Result<(Unsynced, FileDigest), IoError> {
    check_table(table, path)?;
    let csv_error = |error| IoError::Csv { path: path.to_path_buf(), error };
    write_unsynced_hashed(path, |file| {
        let mut out = ::csv::WriterBuilder::new().buffer_capacity(1 << 20).from_writer(file);
        out.write_record(table.columns.iter().map(|c| c.name)).map_err(csv_error)?;
        let mut field = String::new();
        for row in 0..table.rows() {
            for c in &table.columns {
                field.clear();
                write_value(&mut field, &c.data, row);
                out.write_field(&field).map_err(csv_error)?;
            }
            out.write_record(None::<&[u8]>).map_err(csv_error)?;
        }
        out.flush().map_err(|e| IoError::file(path, "cannot write", e))
    })
}

/// Row `row` of `data` as its CSV cell, into `field`: an absent value is an empty cell.
fn write_value(field: &mut String, data: &ColumnData, row: usize) {
    match data {
        ColumnData::U32(v) => write!(field, "{}", v[row]),
        ColumnData::U64(v) => write!(field, "{}", v[row]),
        ColumnData::I64(v) => write!(field, "{}", v[row]),
        ColumnData::F64(v) => write!(field, "{}", v[row]),
        ColumnData::Bool(v) => write!(field, "{}", v[row]),
        ColumnData::Sym(v) => write!(field, "{}", v[row].unwrap_or("")),
        ColumnData::Text(v) => write!(field, "{}", v[row]),
        ColumnData::OrNull(n) => {
            if n.is_present(row) {
                write_value(field, n.values(), row);
            }
            Ok(())
        }
    }
    .expect("formatting into a String cannot fail");
}

/// Reads a CSV file written by [`write_csv`], checking its header names exactly the columns of
/// `spec` (in any order) and parsing every field by its column's type; the table's columns are
/// in the spec's order. Errors name the file, the line and the column.
pub fn read_csv(path: &Path, spec: &TableSpec) -> Result<Table, IoError> {
    let file = File::open(path).map_err(|e| IoError::file(path, "cannot open", e))?;
    let csv_error = |error| IoError::Csv { path: path.to_path_buf(), error };
    let mut input = ::csv::ReaderBuilder::new().has_headers(true).from_reader(file);
    let header = input.headers().map_err(csv_error)?.clone();
    let found: Vec<&str> = header.iter().collect();
    let index = match_columns(path, spec, &found)?;
    let mut columns = empty_table(spec).columns;
    let mut record = ::csv::StringRecord::new();
    while input.read_record(&mut record).map_err(csv_error)? {
        let line = record.position().map_or(0, |p| p.line());
        for (column, &i) in columns.iter_mut().zip(&index) {
            let field = &record[i];
            let bad = |what: String| IoError::Value {
                path: path.to_path_buf(),
                at: format!("line {line}"),
                column: column.name.to_string(),
                what,
            };
            let parse_error =
                |ty: ColumnType| bad(format!("cannot read {field:?} as {}", type_name(ty)));
            match &mut column.data {
                ColumnData::U32(v) => {
                    v.push(field.parse().map_err(|_| parse_error(ColumnType::U32))?)
                }
                ColumnData::U64(v) => {
                    v.push(field.parse().map_err(|_| parse_error(ColumnType::U64))?)
                }
                ColumnData::I64(v) => {
                    v.push(field.parse().map_err(|_| parse_error(ColumnType::I64))?)
                }
                ColumnData::F64(v) => {
                    v.push(field.parse().map_err(|_| parse_error(ColumnType::F64))?)
                }
                ColumnData::Bool(v) => {
                    v.push(field.parse().map_err(|_| parse_error(ColumnType::Bool))?)
                }
                ColumnData::Sym(v) => v.push(match field {
                    "" => None,
                    s => Some(intern_sym(s).ok_or_else(|| bad(format!("unknown symbol {s:?}")))?),
                }),
                ColumnData::Text(v) => v.push(field.to_string()),
                ColumnData::OrNull(n) => {
                    let ty = n.values().column_type();
                    let error = || parse_error(ty.or_null().unwrap_or(ty));
                    match ty {
                        ColumnType::U32 => {
                            n.push(absent_or(field, str::parse::<u32>).map_err(|_| error())?)
                        }
                        ColumnType::I64 => {
                            n.push(absent_or(field, str::parse::<i64>).map_err(|_| error())?)
                        }
                        ColumnType::F64 => {
                            n.push(absent_or(field, str::parse::<f64>).map_err(|_| error())?)
                        }
                        _ => n.push((!field.is_empty()).then(|| field.to_string())),
                    }
                }
            }
        }
    }
    Ok(Table { name: spec.name, columns })
}

/// An empty cell is an absent value; any other is read.
fn absent_or<T, E>(field: &str, read: impl FnOnce(&str) -> Result<T, E>) -> Result<Option<T>, E> {
    if field.is_empty() {
        Ok(None)
    } else {
        read(field).map(Some)
    }
}

fn type_name(ty: ColumnType) -> &'static str {
    match ty {
        ColumnType::U32 => "u32",
        ColumnType::U64 => "u64",
        ColumnType::I64 => "i64",
        ColumnType::F64 => "f64",
        ColumnType::Bool => "a boolean (true or false)",
        ColumnType::Sym => "a symbol",
        ColumnType::Text => "text",
        ColumnType::NullU32 => "u32 (or empty)",
        ColumnType::NullI64 => "i64 (or empty)",
        ColumnType::NullF64 => "f64 (or empty)",
        ColumnType::NullText => "text (or empty)",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::parquet::{read_parquet, write_parquet};
    use crate::io::tests::{all_types_table, names, rounds_table, ALL_TYPES};
    use crate::sim::schema::{empty_table, HISTOGRAMS, ROUNDS};

    #[test]
    fn round_trip_every_column_type() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.csv");
        let t = all_types_table();
        write_csv(&t, &path).unwrap();
        assert_eq!(names(dir.path()), ["t.csv"], "no temporary file is left");
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some("a_u32,a_u64,an_i64,an_f64,a_bool,a_sym,a_text,a_null_u32,a_null_i64,a_null_f64,a_null_text"));
        assert_eq!(lines.next(), Some("0,18446744073709551615,-9223372036854775808,0.1,true,south,random,,-9223372036854775808,,\"2,3\""));
        assert!(
            lines.next().unwrap().ends_with(",false,,minimax:2,0,,-0.5,"),
            "a null symbol or value is an empty field"
        );
        let back = read_csv(&path, &ALL_TYPES).unwrap();
        assert_eq!(back, t);
        let ColumnData::F64(f) = back.column("an_f64").unwrap() else { panic!() };
        assert!(f[3].is_sign_negative(), "-0.0 keeps its sign");
    }

    #[test]
    fn parquet_and_csv_read_back_equal() {
        let dir = tempfile::tempdir().unwrap();
        for (t, spec) in [
            (all_types_table(), ALL_TYPES),
            (rounds_table(2000), ROUNDS),
            (empty_table(&HISTOGRAMS), HISTOGRAMS),
        ] {
            let (p, c) = (dir.path().join("t.parquet"), dir.path().join("t.csv"));
            write_parquet(&t, &p).unwrap();
            write_csv(&t, &c).unwrap();
            let from_parquet = read_parquet(&p, &spec).unwrap();
            let from_csv = read_csv(&c, &spec).unwrap();
            assert_eq!(from_parquet, from_csv);
            assert_eq!(from_csv, t);
            assert_eq!(from_csv.rows(), t.rows());
        }
    }

    #[test]
    fn header_mismatches_are_errors_naming_the_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.csv");
        let check = |header: &str, column: &str, words: &str| {
            std::fs::write(&path, format!("{header}\n")).unwrap();
            let err = read_csv(&path, &HISTOGRAMS).unwrap_err();
            let msg = err.to_string();
            assert!(matches!(&err, IoError::Schema { column: c, .. } if c == column), "{msg}");
            assert!(
                msg.contains("bad.csv") && msg.contains(column) && msg.contains(words),
                "{msg}"
            );
        };
        check("metric,value", "count", "missing");
        check("metric,value,count,extra", "extra", "not a column");
        check("metric,value,value,count", "value", "twice");
        check("metric,Value,count", "Value", "not a column");
        std::fs::write(&path, "count,metric,value\n3,lap_length,7\n").unwrap();
        let t = read_csv(&path, &HISTOGRAMS).unwrap();
        assert_eq!(
            t.columns.iter().map(|c| c.name).collect::<Vec<_>>(),
            ["metric", "value", "count"]
        );
        assert_eq!(t.column("count"), Some(&ColumnData::I64(vec![3])));
        assert_eq!(t.column("metric"), Some(&ColumnData::Sym(vec![Some("lap_length")])));
    }

    #[test]
    fn bad_values_are_errors_naming_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.csv");
        let check = |body: &str, line: usize, column: &str, words: &str| {
            std::fs::write(&path, format!("metric,value,count\n{body}")).unwrap();
            let err = read_csv(&path, &HISTOGRAMS).unwrap_err();
            let msg = err.to_string();
            assert!(matches!(&err, IoError::Value { column: c, .. } if c == column), "{msg}");
            assert!(
                msg.contains("bad.csv")
                    && msg.contains(&format!("line {line},"))
                    && msg.contains(words),
                "{msg}"
            );
        };
        check("lap_length,1,2\nlap_length,x,2\n", 3, "value", "cannot read \"x\" as i64");
        check("lap_length,1,2.5\n", 2, "count", "\"2.5\"");
        check(
            "lap_length,1,2\nlap_length,1,2\nsideways,1,2\n",
            4,
            "metric",
            "unknown symbol \"sideways\"",
        );
        check("lap_length,1,\n", 2, "count", "\"\"");
        // A record with the wrong number of fields is a csv error naming the file and line.
        std::fs::write(&path, "metric,value,count\nlap_length,1\n").unwrap();
        let err = read_csv(&path, &HISTOGRAMS).unwrap_err();
        assert!(matches!(err, IoError::Csv { .. }), "{err}");
        assert!(
            err.to_string().contains("bad.csv") && err.to_string().contains("line: 2"),
            "{err}"
        );
    }

    #[test]
    fn failed_write_leaves_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing").join("t.csv");
        let err = write_csv(&all_types_table(), &path).unwrap_err();
        assert!(matches!(err, IoError::File { .. }), "{err}");
        assert!(err.to_string().contains("t.csv"), "{err}");
        assert!(!path.exists());
        assert!(names(dir.path()).is_empty());
    }
}
