//! Files: Parquet (polars) and CSV (csv crate) part files of [`crate::sim::table::Table`]s.
//!
//! Every write is atomic ([`atomic`]): a file either has its complete contents or does not
//! exist. Every read checks the file against a [`TableSpec`](crate::sim::schema::TableSpec) (same column names, same types)
//! and errors name the file and what is wrong with it.

pub mod atomic;
mod columns;
pub mod csv;
pub mod datapackage;
pub mod dataset;
mod error;
mod format;
pub mod lock;
pub mod parquet;
mod parquet_pages;
pub mod rows;
mod table_file;
pub mod verify;

pub use self::atomic::{write_atomically, write_string_atomically};
pub use self::csv::{read_csv, write_csv};
pub use self::dataset::{Dataset, DatasetError, DatasetWriter, Formats, Manifest, RunStatus};
pub use self::error::IoError;
pub use self::format::Format;
pub use self::parquet::{read_parquet, write_parquet};
pub use self::table_file::{
    read_table, read_table_columns, write_table, write_table_formats, write_table_unsynced,
};
pub use self::verify::FileDigest;

#[cfg(test)]
pub(crate) mod tests {
    use std::path::Path;

    use super::*;
    use crate::sim::schema::{ColumnSpec, TableSpec, ROUNDS};
    use crate::sim::table::{Column, ColumnData, ColumnType, Table};

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
            ColumnSpec { name: "a_null_u32", ty: ColumnType::NullU32, meaning: "u32, nullable" },
            ColumnSpec { name: "a_null_i64", ty: ColumnType::NullI64, meaning: "i64, nullable" },
            ColumnSpec { name: "a_null_f64", ty: ColumnType::NullF64, meaning: "f64, nullable" },
            ColumnSpec { name: "a_null_text", ty: ColumnType::NullText, meaning: "text, nullable" },
        ],
    };

    /// A table of [`ALL_TYPES`] with extreme values, null symbols and awkward text.
    /// The file names in `dir`, sorted.
    pub fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
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
                col(
                    "a_sym",
                    ColumnData::Sym(vec![Some("south"), None, Some("north"), Some("tie"), None]),
                ),
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
                col(
                    "a_null_u32",
                    ColumnData::or_null(vec![None, Some(0), Some(u32::MAX), None, Some(3)]),
                ),
                col(
                    "a_null_i64",
                    ColumnData::or_null(vec![Some(i64::MIN), None, Some(0), Some(-4), None]),
                ),
                col(
                    "a_null_f64",
                    ColumnData::or_null(vec![None, Some(-0.5), Some(1e300), None, Some(0.0)]),
                ),
                col(
                    "a_null_text",
                    ColumnData::or_null::<String>(vec![
                        Some("2,3".into()),
                        None,
                        Some("a, \"b\"".into()),
                        None,
                        Some("x".into()),
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
            let err =
                if name.ends_with("csv") { write_csv(&t, &path) } else { write_parquet(&t, &path) }
                    .unwrap_err();
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
                ColumnData::U64(v) => v.extend((0..rows).map(|i| {
                    if name == "match_id" {
                        i as u64 / 8
                    } else {
                        next(5000)
                    }
                })),
                ColumnData::I64(v) => v.extend((0..rows).map(|i| {
                    if name == "round" {
                        (i % 8) as i64 + 1
                    } else {
                        next(48) as i64
                    }
                })),
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
