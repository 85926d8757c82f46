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

    /// The type of the values of a column of this type where a value may be absent (`NullU32`:
    /// `U32`); None for a type whose values are all present (and for `Sym`, whose absent
    /// value is one of its symbols).
    pub fn present(self) -> Option<ColumnType> {
        match self {
            ColumnType::NullU32 => Some(ColumnType::U32),
            ColumnType::NullI64 => Some(ColumnType::I64),
            ColumnType::NullF64 => Some(ColumnType::F64),
            ColumnType::NullText => Some(ColumnType::Text),
            _ => None,
        }
    }

    /// This type where a value may be absent (`U32`: `NullU32`), if it has one.
    pub fn or_null(self) -> Option<ColumnType> {
        match self {
            ColumnType::U32 => Some(ColumnType::NullU32),
            ColumnType::I64 => Some(ColumnType::NullI64),
            ColumnType::F64 => Some(ColumnType::NullF64),
            ColumnType::Text => Some(ColumnType::NullText),
            _ => None,
        }
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
    /// Values that may be absent (`NullU32`, `NullI64`, `NullF64`, `NullText`).
    OrNull(Nullable),
}

/// A column whose values may be absent: the values, and beside them which are present. An
/// absent value's place holds its type's default (0, empty text), never read.
#[derive(Clone, Debug, PartialEq)]
pub struct Nullable {
    present: Vec<bool>,
    /// A column of `U32`, `I64`, `F64` or `Text`.
    values: Box<ColumnData>,
}

impl Nullable {
    /// An empty column of `ty` (`U32`, `I64`, `F64` or `Text`).
    fn new(ty: ColumnType) -> Nullable {
        assert!(ty.or_null().is_some(), "{ty:?} has no type where a value may be absent");
        Nullable { present: Vec::new(), values: Box::new(ColumnData::new(ty)) }
    }

    /// Whether row `i` has a value.
    pub fn is_present(&self, i: usize) -> bool {
        self.present[i]
    }

    /// The values, an absent one's place holding its type's default.
    pub fn values(&self) -> &ColumnData {
        &self.values
    }

    /// Which rows have a value.
    pub fn present(&self) -> &[bool] {
        &self.present
    }

    pub fn len(&self) -> usize {
        self.present.len()
    }

    pub fn is_empty(&self) -> bool {
        self.present.is_empty()
    }

    /// Appends a value, or an absent one.
    pub fn push<T: NullableValue>(&mut self, value: Option<T>) {
        self.present.push(value.is_some());
        T::values(&mut self.values).push(value.unwrap_or_default());
    }

    /// The value of row `i`, None where absent.
    pub fn get<T: NullableValue>(&self, i: usize) -> Option<&T> {
        let values: &[T] = T::slice(&self.values);
        self.present[i].then(|| &values[i])
    }

    /// Every value in order, None where absent.
    pub fn iter<T: NullableValue>(&self) -> impl Iterator<Item = Option<&T>> + '_ {
        T::slice(&self.values).iter().zip(&self.present).map(|(v, &p)| p.then_some(v))
    }
}

/// A type whose values a [`Nullable`] column may hold: u32, i64, f64 or text.
pub trait NullableValue: Default + Sized + 'static {
    /// The column type of these values (`U32`, ...).
    const TYPE: ColumnType;
    /// The values of `column`; panics when it holds another type.
    fn values(column: &mut ColumnData) -> &mut Vec<Self>;
    /// [`NullableValue::values`], to read.
    fn slice(column: &ColumnData) -> &[Self];
}

macro_rules! nullable_value {
    ($t:ty, $variant:ident) => {
        impl NullableValue for $t {
            const TYPE: ColumnType = ColumnType::$variant;
            fn values(column: &mut ColumnData) -> &mut Vec<$t> {
                match column {
                    ColumnData::$variant(v) => v,
                    other => {
                        panic!("a {:?} column holds no {}", other.column_type(), stringify!($t))
                    }
                }
            }
            fn slice(column: &ColumnData) -> &[$t] {
                match column {
                    ColumnData::$variant(v) => v,
                    other => {
                        panic!("a {:?} column holds no {}", other.column_type(), stringify!($t))
                    }
                }
            }
        }
    };
}
nullable_value!(u32, U32);
nullable_value!(i64, I64);
nullable_value!(f64, F64);
nullable_value!(String, Text);

impl<T: NullableValue> FromIterator<Option<T>> for Nullable {
    fn from_iter<I: IntoIterator<Item = Option<T>>>(iter: I) -> Nullable {
        let mut column = Nullable::new(T::TYPE);
        for value in iter {
            column.push(value);
        }
        column
    }
}

impl ColumnData {
    pub fn new(ty: ColumnType) -> ColumnData {
        if let Some(present) = ty.present() {
            return ColumnData::OrNull(Nullable::new(present));
        }
        match ty {
            ColumnType::U32 => ColumnData::U32(Vec::new()),
            ColumnType::U64 => ColumnData::U64(Vec::new()),
            ColumnType::I64 => ColumnData::I64(Vec::new()),
            ColumnType::F64 => ColumnData::F64(Vec::new()),
            ColumnType::Bool => ColumnData::Bool(Vec::new()),
            ColumnType::Sym => ColumnData::Sym(Vec::new()),
            ColumnType::Text => ColumnData::Text(Vec::new()),
            nullable => unreachable!("{nullable:?} is made above"),
        }
    }

    /// A column of values that may be absent.
    pub fn or_null<T: NullableValue>(values: impl IntoIterator<Item = Option<T>>) -> ColumnData {
        ColumnData::OrNull(values.into_iter().collect())
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
            ColumnData::OrNull(n) => {
                n.values.column_type().or_null().expect("a nullable column's values have a type")
            }
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
            ColumnData::OrNull(n) => n.len(),
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
            (ColumnData::OrNull(a), ColumnData::OrNull(b))
                if a.values.column_type() == b.values.column_type() =>
            {
                a.present.extend_from_slice(&b.present);
                a.values.extend(&b.values);
            }
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
            ColumnData::OrNull(n) => ColumnData::OrNull(Nullable {
                present: vec![n.present[i]],
                values: Box::new(n.values.row(i)),
            }),
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
            ColumnData::OrNull(n) if n.present[i] => n.values.show(i),
            ColumnData::OrNull(_) => "null".into(),
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
