//! Analysis of simulated data: statistics over records and tables.

pub mod metrics;
pub mod stats;
pub mod summarize;
pub mod summary;
