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
            (a, b) => panic!("column type mismatch: {:?} vs {:?}", a.column_type(), b.column_type()),
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
        assert_eq!(self.columns.len(), other.columns.len(), "appending table {} with other columns", other.name);
        for (a, b) in self.columns.iter_mut().zip(&other.columns) {
            assert_eq!(a.name, b.name);
            a.data.extend(&b.data);
        }
    }
}
