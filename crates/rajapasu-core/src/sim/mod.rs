//! Seeded batch simulation: plays matches and turns them into record batches. No file formats.

pub mod bench;
pub mod config;
mod error;
mod laps;
pub mod quality;
pub mod record;
pub mod runner;
pub mod schema;
pub mod table;

pub use config::{
    check_batch_size, check_matches, Detail, FirstPolicy, RunConfig, Shard, MAX_BATCH_SIZE,
    MAX_MATCHES,
};
pub use error::{MatchError, MoveError};
pub use laps::Histograms;
pub use record::{CaptureCounts, HistogramMetric, MatchOutcome, RoundResult, Symbol};
pub use runner::{
    match_agents, play_match, play_match_observed, replay_match, run, simulate_batch,
    simulate_batch_for_bench, simulate_batch_into, Batch, BatchSink, RunCounts, RunError,
    MAX_ROUND_MOVES,
};

#[cfg(test)]
mod tests;
