//! Parquet files (zstd-compressed) through polars.
//!
//! Column types: U32 → UInt32, U64 → UInt64, I64 → Int64, F64 → Float64, Bool → Boolean,
//! Sym and Text → String (Sym nullable; Text and every other type never null).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use polars::prelude::{
    BooleanChunked, DataFrame, DataType, Float64Chunked, Int64Chunked, IntoColumn, IntoSeries, NewChunkedArray, ParquetCompression,
    ParquetReader, ParquetWriter, PlSmallStr, SerReader, StringChunked, UInt32Chunked, UInt64Chunked,
};

use super::atomic::write_atomically;
use super::{check_table, match_columns, IoError};
use crate::sim::schema::{intern_sym, TableSpec};
use crate::sim::table::{Column, ColumnData, ColumnType, Table};

/// Zstd level 0 lets zstd choose its default level (3); see the module tests for its speed.
const COMPRESSION: ParquetCompression = ParquetCompression::Zstd(None);

/// Writes `table` to `path` as a zstd-compressed Parquet file, atomically.
///
/// The columns are encoded on the calling thread: part files are written by many simulation
/// threads at once, so polars's own thread pool would only add contention.
pub fn write_parquet(table: &Table, path: &Path) -> Result<(), IoError> {
    check_table(table, path)?;
    let columns = table.columns.iter().map(to_polars).collect();
    let mut df = DataFrame::new(table.rows(), columns).map_err(|error| parquet_error(path, error))?;
    write_atomically(path, |file| {
        let mut out = BufWriter::with_capacity(1 << 20, file);
        ParquetWriter::new(&mut out)
            .with_compression(COMPRESSION)
            .set_parallel(false)
            .finish(&mut df)
            .map_err(|error| parquet_error(path, error))?;
        out.flush().map_err(|e| IoError::file(path, "cannot write", e))
    })
}

/// Reads a Parquet file written by [`write_parquet`], checking it has exactly the columns of
/// `spec` (in any order) with their types; the table's columns are in the spec's order.
pub fn read_parquet(path: &Path, spec: &TableSpec) -> Result<Table, IoError> {
    let file = File::open(path).map_err(|e| IoError::file(path, "cannot open", e))?;
    let df = ParquetReader::new(file).finish().map_err(|error| parquet_error(path, error))?;
    let found: Vec<&str> = df.columns().iter().map(|c| c.name().as_str()).collect();
    let index = match_columns(path, spec, &found)?;
    let mut columns = Vec::with_capacity(spec.columns.len());
    for (c, &i) in spec.columns.iter().zip(&index) {
        let data = from_polars(path, c.name, c.ty, &df.columns()[i])?;
        columns.push(Column { name: c.name, data });
    }
    Ok(Table { name: spec.name, columns })
}

fn parquet_error(path: &Path, error: polars::error::PolarsError) -> IoError {
    IoError::Parquet { path: path.to_path_buf(), error }
}

fn polars_type(ty: ColumnType) -> DataType {
    match ty {
        ColumnType::U32 => DataType::UInt32,
        ColumnType::U64 => DataType::UInt64,
        ColumnType::I64 => DataType::Int64,
        ColumnType::F64 => DataType::Float64,
        ColumnType::Bool => DataType::Boolean,
        ColumnType::Sym | ColumnType::Text => DataType::String,
    }
}

fn to_polars(column: &Column) -> polars::prelude::Column {
    let name = PlSmallStr::from_static(column.name);
    let series = match &column.data {
        ColumnData::U32(v) => UInt32Chunked::from_vec(name, v.clone()).into_series(),
        ColumnData::U64(v) => UInt64Chunked::from_vec(name, v.clone()).into_series(),
        ColumnData::I64(v) => Int64Chunked::from_vec(name, v.clone()).into_series(),
        ColumnData::F64(v) => Float64Chunked::from_vec(name, v.clone()).into_series(),
        ColumnData::Bool(v) => BooleanChunked::from_slice(name, v).into_series(),
        ColumnData::Sym(v) => StringChunked::from_slice_options(name, v).into_series(),
        ColumnData::Text(v) => StringChunked::from_slice(name, v).into_series(),
    };
    series.into_column()
}

fn from_polars(path: &Path, name: &'static str, ty: ColumnType, column: &polars::prelude::Column) -> Result<ColumnData, IoError> {
    let want = polars_type(ty);
    if column.dtype() != &want {
        return Err(IoError::schema(path, name, format!("has type {}, expected {want}", column.dtype())));
    }
    let nulls = column.null_count();
    if nulls > 0 && ty != ColumnType::Sym {
        return Err(IoError::schema(path, name, format!("has {nulls} null values; only symbol columns may be null")));
    }
    const NO_NULLS: &str = "null count checked above";
    let wrong_type = |error| parquet_error(path, error);
    Ok(match ty {
        ColumnType::U32 => ColumnData::U32(column.u32().map_err(wrong_type)?.into_no_null_iter().collect()),
        ColumnType::U64 => ColumnData::U64(column.u64().map_err(wrong_type)?.into_no_null_iter().collect()),
        ColumnType::I64 => ColumnData::I64(column.i64().map_err(wrong_type)?.into_no_null_iter().collect()),
        ColumnType::F64 => ColumnData::F64(column.f64().map_err(wrong_type)?.into_no_null_iter().collect()),
        ColumnType::Bool => ColumnData::Bool(column.bool().map_err(wrong_type)?.iter().map(|v| v.expect(NO_NULLS)).collect()),
        ColumnType::Text => ColumnData::Text(column.str().map_err(wrong_type)?.iter().map(|v| v.expect(NO_NULLS).to_string()).collect()),
        ColumnType::Sym => {
            let values = column.str().map_err(wrong_type)?;
            let mut out = Vec::with_capacity(values.len());
            for (row, value) in values.iter().enumerate() {
                out.push(match value {
                    None | Some("") => None,
                    Some(s) => Some(intern_sym(s).ok_or_else(|| IoError::Value {
                        path: path.to_path_buf(),
                        at: format!("row {}", row + 1),
                        column: name.to_string(),
                        what: format!("unknown symbol {s:?}"),
                    })?),
                });
            }
            ColumnData::Sym(out)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::tests::{all_types_table, names, rounds_table, ALL_TYPES};
    use crate::sim::schema::{empty_table, LAPS, ROUNDS};

    #[test]
    fn round_trip_every_column_type() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        let t = all_types_table();
        write_parquet(&t, &path).unwrap();
        assert_eq!(names(dir.path()), ["t.parquet"], "no temporary file is left");
        let back = read_parquet(&path, &ALL_TYPES).unwrap();
        assert_eq!(back, t);
        let ColumnData::F64(f) = back.column("an_f64").unwrap() else { panic!() };
        assert!(f[3].is_sign_negative(), "-0.0 keeps its sign");
        // The file really is Parquet with zstd pages, not something that only this module reads.
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[..4], b"PAR1");
        assert_eq!(&bytes[bytes.len() - 4..], b"PAR1");
        let mut reader = ParquetReader::new(File::open(&path).unwrap());
        let metadata = reader.get_metadata().unwrap();
        assert_eq!(metadata.num_rows, 5);
        let chunks: Vec<_> = metadata.row_groups.iter().flat_map(|g| g.parquet_columns()).collect();
        assert_eq!(chunks.len(), 7);
        assert!(chunks.iter().all(|c| format!("{:?}", c.compression()) == "Zstd"));
    }

    #[test]
    fn round_trip_rounds_and_empty_tables() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rounds.parquet");
        let t = rounds_table(1000);
        write_parquet(&t, &path).unwrap();
        assert_eq!(read_parquet(&path, &ROUNDS).unwrap(), t);
        let empty = empty_table(&LAPS);
        write_parquet(&empty, &path).unwrap();
        assert_eq!(read_parquet(&path, &LAPS).unwrap(), empty);
    }

    #[test]
    fn columns_may_come_in_any_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        let t = all_types_table();
        let mut shuffled = t.clone();
        shuffled.columns.reverse();
        write_parquet(&shuffled, &path).unwrap();
        assert_eq!(read_parquet(&path, &ALL_TYPES).unwrap(), t);
    }

    #[test]
    fn schema_mismatches_are_errors_naming_the_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.parquet");
        let check = |t: &Table, column: &str, words: &str| {
            write_parquet(t, &path).unwrap();
            let err = read_parquet(&path, &ALL_TYPES).unwrap_err();
            let msg = err.to_string();
            assert!(matches!(&err, IoError::Schema { column: c, .. } if c == column), "{msg}");
            assert!(msg.contains("bad.parquet") && msg.contains(column) && msg.contains(words), "{msg}");
        };
        // Missing column.
        let mut t = all_types_table();
        t.columns.remove(4);
        check(&t, "a_bool", "missing");
        // Unexpected column.
        let mut t = all_types_table();
        t.columns.push(Column { name: "extra", data: ColumnData::U32(vec![0; 5]) });
        check(&t, "extra", "not a column");
        // Wrong type: u64 where u32 is expected.
        let mut t = all_types_table();
        t.columns[0].data = ColumnData::U64(vec![0; 5]);
        check(&t, "a_u32", "expected u32");
        // Wrong type: text where a bool is expected.
        let mut t = all_types_table();
        t.columns[4].data = ColumnData::Text(vec!["true".into(); 5]);
        check(&t, "a_bool", "expected bool");
    }

    #[test]
    fn nulls_outside_symbol_columns_and_unknown_symbols_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        // A Text column written as a nullable symbol column.
        let mut t = all_types_table();
        t.columns[6].data = ColumnData::Sym(vec![None, Some("north"), None, None, None]);
        write_parquet(&t, &path).unwrap();
        let err = read_parquet(&path, &ALL_TYPES).unwrap_err();
        assert!(matches!(&err, IoError::Schema { column, .. } if column == "a_text"), "{err}");
        assert!(err.to_string().contains("4 null values"), "{err}");
        // A symbol column holding a string that is no symbol.
        let mut t = all_types_table();
        t.columns[5].data = ColumnData::Text(vec!["south".into(), "sideways".into(), "".into(), "tie".into(), "north".into()]);
        write_parquet(&t, &path).unwrap();
        let err = read_parquet(&path, &ALL_TYPES).unwrap_err();
        let msg = err.to_string();
        assert!(matches!(&err, IoError::Value { column, .. } if column == "a_sym"), "{msg}");
        assert!(msg.contains("t.parquet") && msg.contains("row 2") && msg.contains("\"sideways\""), "{msg}");
    }

    #[test]
    fn failed_write_leaves_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing").join("t.parquet");
        let err = write_parquet(&all_types_table(), &path).unwrap_err();
        assert!(err.to_string().contains("t.parquet"), "{err}");
        assert!(!path.exists());
        assert!(names(dir.path()).is_empty());
    }

    #[test]
    fn unreadable_files_are_errors_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("garbage.parquet");
        std::fs::write(&path, "this is not parquet").unwrap();
        let err = read_parquet(&path, &ALL_TYPES).unwrap_err();
        assert!(matches!(err, IoError::Parquet { .. }), "{err}");
        assert!(err.to_string().contains("garbage.parquet"), "{err}");
        let err = read_parquet(&dir.path().join("absent.parquet"), &ALL_TYPES).unwrap_err();
        assert!(matches!(err, IoError::File { .. }), "{err}");
        assert!(err.to_string().contains("absent.parquet"), "{err}");
    }
}
