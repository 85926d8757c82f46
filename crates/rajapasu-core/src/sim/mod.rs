//! Seeded batch simulation: plays matches and turns them into record batches. No file formats.

mod batch;
pub mod bench;
pub mod config;
mod error;
mod laps;
mod match_play;
pub mod quality;
pub mod record;
mod recorders;
pub mod runner;
pub mod schema;
pub mod table;

pub use batch::Batch;
pub use config::{
    check_batch_size, check_matches, Detail, FirstPolicy, RunConfig, Shard, MAX_BATCH_SIZE,
    MAX_MATCHES,
};
pub use error::{MatchError, MoveError};
pub use laps::Histograms;
pub use match_play::{
    match_agents, play_match, play_match_observed, replay_match, MAX_ROUND_MOVES,
};
pub use record::{CaptureCounts, HistogramMetric, MatchOutcome, RoundResult, Symbol};
pub use runner::{
    run, simulate_batch, simulate_batch_for_bench, simulate_batch_into, BatchSink, RunCounts,
    RunError,
};

#[cfg(test)]
mod tests;
