//! Files: Parquet (polars) and CSV (csv crate) part files of [`crate::sim::table::Table`]s.
