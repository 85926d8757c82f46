//! The table file formats.

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
