//! Parquet files (zstd-compressed), written with polars's Parquet crates (integer and symbol
//! columns as dictionary pages built in [`super::parquet_pages`]) and read with polars.
//!
//! Column types: U32 → UInt32, U64 → UInt64, I64 → Int64, F64 → Float64, Bool → Boolean,
//! Sym and Text → String (Sym nullable; Text and every other type never null).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use polars::error::{to_compute_err, PolarsError, PolarsResult};
use polars::prelude::{DataType, ParquetReader, PlSmallStr, SerReader};
use polars_arrow::array::{Array, BooleanArray, PrimitiveArray, Utf8ViewArray};
use polars_arrow::datatypes::{ArrowDataType, ArrowSchema, Field};
use polars_parquet::parquet::error::ParquetError;
use polars_parquet::write::{
    array_to_columns, CompressionOptions, Compressor, DynIter, DynStreamingIterator, Encoding,
    FallibleStreamingIterator, FileWriter, StatisticsOptions, Version, WriteOptions, ZstdLevel,
};

use polars_parquet::parquet::page::CompressedPage;
use polars_parquet::parquet::schema::types::ParquetType;

use super::atomic::{write_unsynced_hashed, Unsynced};
use super::columns::{check_table, match_columns};
use super::error::IoError;
use super::parquet_pages::{dictionary_pages, symbol_pages, PageCompressor};
use super::verify::FileDigest;
use crate::sim::schema::{intern_sym, symbols, TableSpec};
use crate::sim::table::{Column, ColumnData, ColumnType, Nullable, NullableValue, Table};

/// How columns are encoded (the test `encodings` compares the choices on a real batch).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Encodings {
    /// Integer columns of small range and symbol columns as dictionary pages built in
    /// `parquet_pages`; otherwise everything goes through polars's encoder.
    pub direct: bool,
    /// The encoding polars is asked for, for integer columns it encodes.
    pub ints: Encoding,
    pub zstd_level: i32,
}

/// Level 1: the bit-packed pages compress as well as at zstd's default level 3, in half the time.
pub(crate) const ENCODINGS: Encodings =
    Encodings { direct: true, ints: Encoding::RleDictionary, zstd_level: 1 };

/// Writes `table` to `path` as a zstd-compressed Parquet file, atomically; returns the file's
/// size and SHA-256.
///
/// The columns are encoded on the calling thread: part files are written by many simulation
/// threads at once, so polars's own thread pool would only add contention.
pub fn write_parquet(table: &Table, path: &Path) -> Result<FileDigest, IoError> {
    let (unsynced, digest) = write_parquet_unsynced(table, path)?;
    unsynced.commit()?;
    Ok(digest)
}

/// [`write_parquet`], the file left for the caller to commit (see [`Unsynced`]).
pub fn write_parquet_unsynced(
    table: &Table,
    path: &Path,
) -> Result<(Unsynced, FileDigest), IoError> {
    check_table(table, path)?;
    write_unsynced_hashed(path, |file| {
        let mut out = BufWriter::with_capacity(1 << 20, file);
        encode_parquet(table, ENCODINGS, &mut out).map_err(|error| parquet_error(path, error))?;
        out.flush().map_err(|e| IoError::file(path, "cannot write", e))
    })
}

/// Encodes `table` as one Parquet file (one row group) into `out`.
pub(crate) fn encode_parquet<W: Write>(table: &Table, enc: Encodings, out: W) -> PolarsResult<()> {
    let fields: Vec<Field> = table.columns.iter().map(arrow_field).collect();
    let schema: ArrowSchema = fields.into_iter().map(|f| (f.name.clone(), f)).collect();
    let compression = CompressionOptions::Zstd(Some(ZstdLevel::try_new(enc.zstd_level)?));
    let options = WriteOptions {
        statistics: StatisticsOptions::default(),
        version: Version::V1,
        compression,
        data_page_size: None,
    };
    let mut writer = FileWriter::try_new(out, schema, options)?;
    let types = writer.parquet_schema().fields().to_vec();
    let level = enc.zstd_level;
    let mut columns = Vec::with_capacity(table.columns.len());
    COMPRESSOR.with_borrow_mut(|compressor| -> PolarsResult<()> {
        if compressor.as_ref().is_none_or(|c| c.level() != level) {
            *compressor = Some(PageCompressor::new(level)?);
        }
        let zstd = compressor.as_mut().expect("made above");
        for (column, type_) in table.columns.iter().zip(types) {
            let direct = match (&type_, &column.data, enc.direct) {
                (ParquetType::PrimitiveType(t), ColumnData::U32(v), true) => {
                    dictionary_pages(v, t, zstd)?
                }
                (ParquetType::PrimitiveType(t), ColumnData::U64(v), true) => {
                    dictionary_pages(v, t, zstd)?
                }
                (ParquetType::PrimitiveType(t), ColumnData::I64(v), true) => {
                    dictionary_pages(v, t, zstd)?
                }
                (ParquetType::PrimitiveType(t), ColumnData::Sym(v), true) => {
                    symbol_pages(v, symbols(), t, zstd)?
                }
                _ => None,
            };
            if let Some(pages) = direct {
                columns.push(Ok(DynStreamingIterator::new(Pages {
                    pages: pages.into_iter(),
                    current: None,
                })));
                continue;
            }
            let (array, encoding) = arrow_array(column, enc);
            for pages in array_to_columns(array, type_, options, &[encoding])? {
                let pages = DynIter::new(pages.map(|page| page.map_err(ParquetError::from)));
                let compressed =
                    Compressor::new(pages, options.compression, vec![]).map_err(to_compute_err);
                columns.push(Ok(DynStreamingIterator::new(compressed)));
            }
        }
        Ok(())
    })?;
    writer.write(table.rows() as u64, DynIter::new(columns.into_iter()))?;
    writer.end(None)?;
    Ok(())
}

thread_local! {
    /// This thread's zstd context, kept from one part file to the next.
    static COMPRESSOR: std::cell::RefCell<Option<PageCompressor>> = const { std::cell::RefCell::new(None) };
}

/// Compressed pages handed to the file writer one at a time.
struct Pages {
    pages: std::vec::IntoIter<CompressedPage>,
    current: Option<CompressedPage>,
}

impl FallibleStreamingIterator for Pages {
    type Item = CompressedPage;
    type Error = PolarsError;
    fn advance(&mut self) -> PolarsResult<()> {
        self.current = self.pages.next();
        Ok(())
    }
    fn get(&self) -> Option<&CompressedPage> {
        self.current.as_ref()
    }
}

/// The column's type in the file: symbols are strings; symbols and the columns whose values may
/// be absent are nullable, everything else is required.
fn arrow_field(column: &Column) -> Field {
    let (dtype, nullable) = match &column.data {
        ColumnData::U32(_) => (ArrowDataType::UInt32, false),
        ColumnData::U64(_) => (ArrowDataType::UInt64, false),
        ColumnData::I64(_) => (ArrowDataType::Int64, false),
        ColumnData::F64(_) => (ArrowDataType::Float64, false),
        ColumnData::Bool(_) => (ArrowDataType::Boolean, false),
        ColumnData::Text(_) => (ArrowDataType::Utf8View, false),
        ColumnData::Sym(_) => (ArrowDataType::Utf8View, true),
        ColumnData::OrNull(n) => match n.values().column_type() {
            ColumnType::U32 => (ArrowDataType::UInt32, true),
            ColumnType::I64 => (ArrowDataType::Int64, true),
            ColumnType::F64 => (ArrowDataType::Float64, true),
            _ => (ArrowDataType::Utf8View, true),
        },
    };
    Field::new(PlSmallStr::from_static(column.name), dtype, nullable)
}

/// The column as an arrow array for polars's encoder, and the encoding to ask for.
fn arrow_array(column: &Column, enc: Encodings) -> (Box<dyn Array>, Encoding) {
    match &column.data {
        ColumnData::U32(v) => (PrimitiveArray::from_vec(v.clone()).boxed(), enc.ints),
        ColumnData::U64(v) => (PrimitiveArray::from_vec(v.clone()).boxed(), enc.ints),
        ColumnData::I64(v) => (PrimitiveArray::from_vec(v.clone()).boxed(), enc.ints),
        ColumnData::F64(v) => (PrimitiveArray::from_vec(v.clone()).boxed(), Encoding::Plain),
        ColumnData::Bool(v) => (BooleanArray::from_slice(v).boxed(), Encoding::Plain),
        ColumnData::Text(v) => {
            (Utf8ViewArray::from_slice_values(v).boxed(), Encoding::RleDictionary)
        }
        ColumnData::Sym(v) => (Utf8ViewArray::from_slice(v).boxed(), Encoding::RleDictionary),
        // Built from the values with their absences, as arrow makes a nullable array.
        ColumnData::OrNull(n) => match n.values().column_type() {
            ColumnType::U32 => (PrimitiveArray::from(copied::<u32>(n)).boxed(), enc.ints),
            ColumnType::I64 => (PrimitiveArray::from(copied::<i64>(n)).boxed(), enc.ints),
            ColumnType::F64 => (PrimitiveArray::from(copied::<f64>(n)).boxed(), Encoding::Plain),
            _ => {
                let text: Vec<Option<&String>> = n.iter::<String>().collect();
                (Utf8ViewArray::from_slice(&text).boxed(), Encoding::RleDictionary)
            }
        },
    }
}

/// The values of a column that may be absent, None where absent.
fn copied<T: NullableValue + Copy>(n: &Nullable) -> Vec<Option<T>> {
    n.iter::<T>().map(|v| v.copied()).collect()
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

/// Reads only the columns `names` of a Parquet file of table `spec` (each a column of `spec`,
/// present in the file with its type); the others are not decoded. The table's columns are in
/// the order of `names`.
pub fn read_parquet_columns(
    path: &Path,
    spec: &TableSpec,
    names: &[&'static str],
) -> Result<Table, IoError> {
    let specs = names
        .iter()
        .map(|&n| {
            spec.columns.iter().find(|c| c.name == n).ok_or_else(|| {
                IoError::schema(path, n, format!("is not a column of table `{}`", spec.name))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let file = File::open(path).map_err(|e| IoError::file(path, "cannot open", e))?;
    let wanted: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let df = ParquetReader::new(file)
        .with_columns(Some(wanted))
        .finish()
        .map_err(|error| parquet_error(path, error))?;
    let mut columns = Vec::with_capacity(names.len());
    for c in specs {
        let column = df.column(c.name).map_err(|_| {
            IoError::schema(path, c.name, format!("is missing (table `{}`)", spec.name))
        })?;
        columns.push(Column { name: c.name, data: from_polars(path, c.name, c.ty, column)? });
    }
    Ok(Table { name: spec.name, columns })
}

fn parquet_error(path: &Path, error: polars::error::PolarsError) -> IoError {
    IoError::Parquet { path: path.to_path_buf(), error }
}

fn polars_type(ty: ColumnType) -> DataType {
    match ty {
        ColumnType::U32 | ColumnType::NullU32 => DataType::UInt32,
        ColumnType::U64 => DataType::UInt64,
        ColumnType::I64 | ColumnType::NullI64 => DataType::Int64,
        ColumnType::F64 | ColumnType::NullF64 => DataType::Float64,
        ColumnType::Bool => DataType::Boolean,
        ColumnType::Sym | ColumnType::Text | ColumnType::NullText => DataType::String,
    }
}

fn from_polars(
    path: &Path,
    name: &'static str,
    ty: ColumnType,
    column: &polars::prelude::Column,
) -> Result<ColumnData, IoError> {
    let want = polars_type(ty);
    if column.dtype() != &want {
        return Err(IoError::schema(
            path,
            name,
            format!("has type {}, expected {want}", column.dtype()),
        ));
    }
    let nulls = column.null_count();
    if nulls > 0 && !ty.nullable() {
        return Err(IoError::schema(
            path,
            name,
            format!("has {nulls} null values; this column's values are never absent"),
        ));
    }
    const NO_NULLS: &str = "null count checked above";
    let wrong_type = |error| parquet_error(path, error);
    Ok(match ty {
        ColumnType::U32 => {
            ColumnData::U32(column.u32().map_err(wrong_type)?.into_no_null_iter().collect())
        }
        ColumnType::U64 => {
            ColumnData::U64(column.u64().map_err(wrong_type)?.into_no_null_iter().collect())
        }
        ColumnType::I64 => {
            ColumnData::I64(column.i64().map_err(wrong_type)?.into_no_null_iter().collect())
        }
        ColumnType::F64 => {
            ColumnData::F64(column.f64().map_err(wrong_type)?.into_no_null_iter().collect())
        }
        ColumnType::Bool => ColumnData::Bool(
            column.bool().map_err(wrong_type)?.iter().map(|v| v.expect(NO_NULLS)).collect(),
        ),
        ColumnType::Text => ColumnData::Text(
            column
                .str()
                .map_err(wrong_type)?
                .iter()
                .map(|v| v.expect(NO_NULLS).to_string())
                .collect(),
        ),
        ColumnType::NullU32 => ColumnData::or_null(column.u32().map_err(wrong_type)?.iter()),
        ColumnType::NullI64 => ColumnData::or_null(column.i64().map_err(wrong_type)?.iter()),
        ColumnType::NullF64 => ColumnData::or_null(column.f64().map_err(wrong_type)?.iter()),
        ColumnType::NullText => ColumnData::or_null(
            column.str().map_err(wrong_type)?.iter().map(|v| v.map(str::to_string)),
        ),
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
    use crate::sim::schema::{empty_table, ColumnSpec, LAPS, ROUNDS};
    use polars_parquet::parquet::statistics::Statistics;

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
        assert_eq!(chunks.len(), 11);
        assert!(chunks.iter().all(|c| format!("{:?}", c.compression()) == "Zstd"));
        // Absent values are the file's nulls, not zeros.
        let df = ParquetReader::new(File::open(&path).unwrap()).finish().unwrap();
        let nulls: Vec<usize> = ["a_null_u32", "a_null_i64", "a_null_f64", "a_null_text"]
            .iter()
            .map(|c| df.column(c).unwrap().null_count())
            .collect();
        assert_eq!(nulls, [2, 2, 2, 2]);
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
            assert!(
                msg.contains("bad.parquet") && msg.contains(column) && msg.contains(words),
                "{msg}"
            );
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
        t.columns[5].data = ColumnData::Text(vec![
            "south".into(),
            "sideways".into(),
            "".into(),
            "tie".into(),
            "north".into(),
        ]);
        write_parquet(&t, &path).unwrap();
        let err = read_parquet(&path, &ALL_TYPES).unwrap_err();
        let msg = err.to_string();
        assert!(matches!(&err, IoError::Value { column, .. } if column == "a_sym"), "{msg}");
        assert!(
            msg.contains("t.parquet") && msg.contains("row 2") && msg.contains("\"sideways\""),
            "{msg}"
        );
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

    /// Columns shaped to take every path of `parquet_pages` (dictionary pages built here, or
    /// polars's encoder for wide ranges), with several data pages, read back by polars.
    #[test]
    fn dictionary_pages_round_trip_with_their_statistics() {
        const SPEC: TableSpec = TableSpec {
            name: "pages",
            row: "a test row",
            columns: &[
                ColumnSpec { name: "constant", ty: ColumnType::U32, meaning: "" },
                ColumnSpec { name: "small", ty: ColumnType::U32, meaning: "" },
                ColumnSpec { name: "wide", ty: ColumnType::U32, meaning: "" },
                ColumnSpec { name: "beyond_i32", ty: ColumnType::U32, meaning: "" },
                ColumnSpec { name: "big_u64", ty: ColumnType::U64, meaning: "" },
                ColumnSpec { name: "negative", ty: ColumnType::I64, meaning: "" },
                ColumnSpec { name: "sym", ty: ColumnType::Sym, meaning: "" },
                ColumnSpec { name: "sym_full", ty: ColumnType::Sym, meaning: "" },
                ColumnSpec { name: "sym_null", ty: ColumnType::Sym, meaning: "" },
            ],
        };
        // More rows than one data page holds, so the last page is partial.
        let n = (1 << 20) + 1000;
        let mix = |i: usize| (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40;
        let col = |name, data| Column { name, data };
        let syms = [Some("tie"), Some("north"), None, Some("south")];
        let t = Table {
            name: "pages",
            columns: vec![
                col("constant", ColumnData::U32(vec![7; n])),
                col(
                    "small",
                    ColumnData::U32((0..n).map(|i| 1000 + (mix(i) % 300) as u32).collect()),
                ),
                col("wide", ColumnData::U32((0..n).map(|i| (mix(i) % 1_000_000) as u32).collect())),
                col(
                    "beyond_i32",
                    ColumnData::U32((0..n).map(|i| u32::MAX - (mix(i) % 5) as u32).collect()),
                ),
                col(
                    "big_u64",
                    ColumnData::U64((0..n).map(|i| (1 << 62) + mix(i) % 1000).collect()),
                ),
                col(
                    "negative",
                    ColumnData::I64((0..n).map(|i| (mix(i) % 100) as i64 - 50).collect()),
                ),
                col("sym", ColumnData::Sym((0..n).map(|i| syms[(mix(i) % 4) as usize]).collect())),
                col(
                    "sym_full",
                    ColumnData::Sym(
                        (0..n)
                            .map(|i| if i < 1 << 20 { Some("win") } else { Some("unfinished") })
                            .collect(),
                    ),
                ),
                col("sym_null", ColumnData::Sym(vec![None; n])),
            ],
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pages.parquet");
        write_parquet(&t, &path).unwrap();
        assert_eq!(read_parquet(&path, &SPEC).unwrap(), t);

        // Statistics of the column chunks, as a reader using them for pruning sees them.
        let metadata =
            ParquetReader::new(File::open(&path).unwrap()).get_metadata().unwrap().clone();
        let group = &metadata.row_groups[0];
        let chunks: Vec<_> = group.parquet_columns().iter().collect();
        let stats = |i: usize| {
            chunks[i].statistics(&metadata.footer_buf).expect("statistics are written").unwrap()
        };
        let ints = |i: usize| match stats(i) {
            Statistics::Int32(s) => {
                (s.min_value.unwrap() as i64, s.max_value.unwrap() as i64, s.null_count)
            }
            Statistics::Int64(s) => (s.min_value.unwrap(), s.max_value.unwrap(), s.null_count),
            other => panic!("{other:?}"),
        };
        assert_eq!(ints(0), (7, 7, Some(0)));
        assert_eq!(ints(1), (1000, 1299, Some(0)));
        assert_eq!(ints(4), ((1 << 62), (1 << 62) + 999, Some(0)));
        assert_eq!(ints(5), (-50, 49, Some(0)));
        let Statistics::Binary(s) = stats(6) else { panic!() };
        assert_eq!(
            (s.min_value.as_deref(), s.max_value.as_deref()),
            (Some(&b"north"[..]), Some(&b"tie"[..]))
        );
        assert!(s.null_count.unwrap() > n as i64 / 5);
        let Statistics::Binary(s) = stats(7) else { panic!() };
        assert_eq!(
            (s.min_value.as_deref(), s.max_value.as_deref(), s.null_count),
            (Some(&b"unfinished"[..]), Some(&b"win"[..]), Some(0))
        );
        // Small ranges and symbols are dictionary-encoded (wide ranges are polars's choice).
        for i in [0, 1, 4, 5, 6, 7] {
            assert!(chunks[i].dictionary_page_offset().is_some(), "column {i}");
        }
    }

    /// Time and size of each integer encoding on real batches:
    /// `cargo test --release --lib io::parquet::tests::encodings -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn encodings() {
        use crate::agents::AgentSpec;
        use crate::engine::Ruleset;
        use crate::sim::config::{Detail, FirstPolicy, RunConfig, Shard};
        let cfg = RunConfig {
            rules: Ruleset::default(),
            south: AgentSpec::Random,
            north: AgentSpec::Random,
            first: FirstPolicy::Alternate,
            seed: 1,
            matches: 5000,
            detail: Detail::Move,
            batch_size: 5000,
            shard: Shard::WHOLE,
        };
        let tables = crate::sim::runner::simulate_batch(&cfg, &Default::default(), 0)
            .unwrap()
            .into_tables(Detail::Move);
        let dir = tempfile::tempdir().unwrap();
        let variants = [
            (
                "direct zstd3",
                Encodings { direct: true, ints: Encoding::RleDictionary, zstd_level: 3 },
            ),
            ("direct zstd1", ENCODINGS),
            (
                "polars dictionary zstd3",
                Encodings { direct: false, ints: Encoding::RleDictionary, zstd_level: 3 },
            ),
            (
                "polars dictionary zstd1",
                Encodings { direct: false, ints: Encoding::RleDictionary, zstd_level: 1 },
            ),
            (
                "polars plain zstd3",
                Encodings { direct: false, ints: Encoding::Plain, zstd_level: 3 },
            ),
            (
                "polars plain zstd1",
                Encodings { direct: false, ints: Encoding::Plain, zstd_level: 1 },
            ),
            (
                "polars delta zstd3",
                Encodings { direct: false, ints: Encoding::DeltaBinaryPacked, zstd_level: 3 },
            ),
            (
                "polars delta zstd1",
                Encodings { direct: false, ints: Encoding::DeltaBinaryPacked, zstd_level: 1 },
            ),
        ];
        for t in &tables {
            for (name, enc) in variants {
                let path = dir.path().join("t.parquet");
                let reps = 5;
                let mut bytes = Vec::new();
                let start = std::time::Instant::now();
                for _ in 0..reps {
                    bytes.clear();
                    encode_parquet(t, enc, &mut bytes).unwrap();
                }
                let per = start.elapsed().as_secs_f64() / reps as f64;
                let size = bytes.len();
                std::fs::write(&path, &bytes).unwrap();
                let spec = crate::sim::schema::table_spec(t.name).unwrap();
                assert_eq!(&read_parquet(&path, spec).unwrap(), t);
                println!(
                    "{:>10} {:>23}: {:>8} rows {:7.2} ms = {:6.2} us/match, {:9} bytes = {:6.1} B/match",
                    t.name,
                    name,
                    t.rows(),
                    per * 1e3,
                    per * 1e6 / 5000.0,
                    size,
                    size as f64 / 5000.0
                );
            }
        }
    }
}
