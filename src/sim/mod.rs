//! Seeded batch simulation: plays matches and turns them into record batches. No file formats.

pub mod bench;
pub mod config;
pub mod runner;
pub mod schema;
pub mod table;

pub use config::{Detail, FirstPolicy, RunConfig, Shard};
pub use runner::{play_match, run, simulate_batch, simulate_batch_into, Batch, BatchSink, Histograms, RunCounts};

#[cfg(test)]
mod tests;
