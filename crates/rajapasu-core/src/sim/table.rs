//! Columnar record batches: the simulator's output, independent of any file format.
//!
//! A [`Table`] is a set of equally long typed columns. The `io` layer writes tables to Parquet
//! and CSV and reads them back; the schemas in [`super::schema`] name every column and its meaning.

/// The type of a column, as recorded in the manifest's schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ColumnType {
    U32,
    U64,
    I64,
    F64,
    Bool,
    /// A small set of fixed strings ("south", "north", ...), possibly null.
    Sym,
    /// Free text (player specifications).
    Text,
    /// The same types where a value may be absent (null in Parquet, an empty CSV cell).
    #[serde(rename = "u32_or_null")]
    NullU32,
    #[serde(rename = "i64_or_null")]
    NullI64,
    #[serde(rename = "f64_or_null")]
    NullF64,
    #[serde(rename = "text_or_null")]
    NullText,
}

impl ColumnType {
    /// Whether a value of the column may be absent.
    pub fn nullable(self) -> bool {
        matches!(
            self,
            ColumnType::Sym
                | ColumnType::NullU32
                | ColumnType::NullI64
                | ColumnType::NullF64
                | ColumnType::NullText
        )
    }
}

/// One column's values.
#[derive(Clone, Debug, PartialEq)]
pub enum ColumnData {
    U32(Vec<u32>),
    U64(Vec<u64>),
    I64(Vec<i64>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
    Sym(Vec<Option<&'static str>>),
    Text(Vec<String>),
    NullU32(Vec<Option<u32>>),
    NullI64(Vec<Option<i64>>),
    NullF64(Vec<Option<f64>>),
    NullText(Vec<Option<String>>),
}

impl ColumnData {
    pub fn new(ty: ColumnType) -> ColumnData {
        match ty {
            ColumnType::U32 => ColumnData::U32(Vec::new()),
            ColumnType::U64 => ColumnData::U64(Vec::new()),
            ColumnType::I64 => ColumnData::I64(Vec::new()),
            ColumnType::F64 => ColumnData::F64(Vec::new()),
            ColumnType::Bool => ColumnData::Bool(Vec::new()),
            ColumnType::Sym => ColumnData::Sym(Vec::new()),
            ColumnType::Text => ColumnData::Text(Vec::new()),
            ColumnType::NullU32 => ColumnData::NullU32(Vec::new()),
            ColumnType::NullI64 => ColumnData::NullI64(Vec::new()),
            ColumnType::NullF64 => ColumnData::NullF64(Vec::new()),
            ColumnType::NullText => ColumnData::NullText(Vec::new()),
        }
    }

    pub fn column_type(&self) -> ColumnType {
        match self {
            ColumnData::U32(_) => ColumnType::U32,
            ColumnData::U64(_) => ColumnType::U64,
            ColumnData::I64(_) => ColumnType::I64,
            ColumnData::F64(_) => ColumnType::F64,
            ColumnData::Bool(_) => ColumnType::Bool,
            ColumnData::Sym(_) => ColumnType::Sym,
            ColumnData::Text(_) => ColumnType::Text,
            ColumnData::NullU32(_) => ColumnType::NullU32,
            ColumnData::NullI64(_) => ColumnType::NullI64,
            ColumnData::NullF64(_) => ColumnType::NullF64,
            ColumnData::NullText(_) => ColumnType::NullText,
        }
    }

    pub fn len(&self) -> usize {
        match self {
            ColumnData::U32(v) => v.len(),
            ColumnData::U64(v) => v.len(),
            ColumnData::I64(v) => v.len(),
            ColumnData::F64(v) => v.len(),
            ColumnData::Bool(v) => v.len(),
            ColumnData::Sym(v) => v.len(),
            ColumnData::Text(v) => v.len(),
            ColumnData::NullU32(v) => v.len(),
            ColumnData::NullI64(v) => v.len(),
            ColumnData::NullF64(v) => v.len(),
            ColumnData::NullText(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends all of `other` (same type).
    pub fn extend(&mut self, other: &ColumnData) {
        match (self, other) {
            (ColumnData::U32(a), ColumnData::U32(b)) => a.extend_from_slice(b),
            (ColumnData::U64(a), ColumnData::U64(b)) => a.extend_from_slice(b),
            (ColumnData::I64(a), ColumnData::I64(b)) => a.extend_from_slice(b),
            (ColumnData::F64(a), ColumnData::F64(b)) => a.extend_from_slice(b),
            (ColumnData::Bool(a), ColumnData::Bool(b)) => a.extend_from_slice(b),
            (ColumnData::Sym(a), ColumnData::Sym(b)) => a.extend_from_slice(b),
            (ColumnData::Text(a), ColumnData::Text(b)) => a.extend_from_slice(b),
            (ColumnData::NullU32(a), ColumnData::NullU32(b)) => a.extend_from_slice(b),
            (ColumnData::NullI64(a), ColumnData::NullI64(b)) => a.extend_from_slice(b),
            (ColumnData::NullF64(a), ColumnData::NullF64(b)) => a.extend_from_slice(b),
            (ColumnData::NullText(a), ColumnData::NullText(b)) => a.extend_from_slice(b),
            (a, b) => {
                panic!("column type mismatch: {:?} vs {:?}", a.column_type(), b.column_type())
            }
        }
    }

    /// Row `i` alone, as a column of one value.
    pub fn row(&self, i: usize) -> ColumnData {
        match self {
            ColumnData::U32(v) => ColumnData::U32(vec![v[i]]),
            ColumnData::U64(v) => ColumnData::U64(vec![v[i]]),
            ColumnData::I64(v) => ColumnData::I64(vec![v[i]]),
            ColumnData::F64(v) => ColumnData::F64(vec![v[i]]),
            ColumnData::Bool(v) => ColumnData::Bool(vec![v[i]]),
            ColumnData::Sym(v) => ColumnData::Sym(vec![v[i]]),
            ColumnData::Text(v) => ColumnData::Text(vec![v[i].clone()]),
            ColumnData::NullU32(v) => ColumnData::NullU32(vec![v[i]]),
            ColumnData::NullI64(v) => ColumnData::NullI64(vec![v[i]]),
            ColumnData::NullF64(v) => ColumnData::NullF64(vec![v[i]]),
            ColumnData::NullText(v) => ColumnData::NullText(vec![v[i].clone()]),
        }
    }

    /// Row `i`'s value as a message shows it: text quoted, an absent value `null`.
    pub fn show(&self, i: usize) -> String {
        fn or_null<T: ToString>(value: Option<T>) -> String {
            value.map_or_else(|| "null".to_string(), |x| x.to_string())
        }
        match self {
            ColumnData::U32(v) => v[i].to_string(),
            ColumnData::U64(v) => v[i].to_string(),
            ColumnData::I64(v) => v[i].to_string(),
            ColumnData::F64(v) => v[i].to_string(),
            ColumnData::Bool(v) => v[i].to_string(),
            ColumnData::Sym(v) => or_null(v[i]),
            ColumnData::Text(v) => format!("'{}'", v[i]),
            ColumnData::NullU32(v) => or_null(v[i]),
            ColumnData::NullI64(v) => or_null(v[i]),
            ColumnData::NullF64(v) => or_null(v[i]),
            ColumnData::NullText(v) => or_null(v[i].as_ref().map(|t| format!("'{t}'"))),
        }
    }

    /// Numeric values as u64 (for analysis); None for non-numeric columns.
    pub fn as_u64(&self) -> Option<Vec<u64>> {
        match self {
            ColumnData::U32(v) => Some(v.iter().map(|&x| x as u64).collect()),
            ColumnData::U64(v) => Some(v.clone()),
            ColumnData::I64(v) => Some(v.iter().map(|&x| x.max(0) as u64).collect()),
            _ => None,
        }
    }
}

/// A named column.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    pub name: &'static str,
    pub data: ColumnData,
}

/// Equally long columns under a table name.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub name: &'static str,
    pub columns: Vec<Column>,
}

impl Table {
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |c| c.data.len())
    }

    pub fn column(&self, name: &str) -> Option<&ColumnData> {
        self.columns.iter().find(|c| c.name == name).map(|c| &c.data)
    }

    /// Appends the rows of a table with the same columns.
    pub fn append(&mut self, other: &Table) {
        assert_eq!(
            self.columns.len(),
            other.columns.len(),
            "appending table {} with other columns",
            other.name
        );
        for (a, b) in self.columns.iter_mut().zip(&other.columns) {
            assert_eq!(a.name, b.name);
            a.data.extend(&b.data);
        }
    }
}
