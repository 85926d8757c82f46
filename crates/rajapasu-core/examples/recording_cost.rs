//! A benchmark: what recording costs, without any file. The bare engine (`bench_engine`)
//! against `simulate_batch` at each detail (match, round, move), on the same 20,000 random
//! matches, three times over; prints each one's matches per second, and the recorded ones as
//! a share of the bare engine's, to standard error.
//!
//! ```text
//! cargo run --release -p rajapasu-core --example recording_cost
//! ```

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use rajapasu_core::agents::{AgentSpec, Resources};
use rajapasu_core::engine::Ruleset;
use rajapasu_core::sim::bench::bench_engine;
use rajapasu_core::sim::{simulate_batch, Detail, FirstPolicy, RunConfig, Shard};

const MATCHES: u64 = 20_000;
/// The seed of `bench_engine`, so that both play the same matches.
const SEED: u64 = 1;

fn main() -> ExitCode {
    let players = Resources::default();
    for _ in 0..3 {
        let engine = bench_engine(Ruleset::default(), MATCHES, SEED);
        let bare = engine.matches_per_second;
        let mut line = format!("bare {bare:.0}/s");
        for detail in [Detail::Match, Detail::Round, Detail::Move] {
            let cfg = RunConfig {
                rules: Ruleset::default(),
                south: AgentSpec::Random,
                north: AgentSpec::Random,
                first: FirstPolicy::Alternate,
                seed: SEED,
                matches: MATCHES,
                detail,
                batch_size: MATCHES,
                shard: Shard::WHOLE,
            };
            let start = Instant::now();
            let batch = match simulate_batch(&cfg, &players, 0) {
                Ok(batch) => black_box(batch),
                Err(e) => {
                    eprintln!("{e}");
                    return ExitCode::FAILURE;
                }
            };
            let rate = MATCHES as f64 / start.elapsed().as_secs_f64();
            let moves = batch.matches.moves.iter().map(|&m| m as u64).sum::<u64>();
            if moves != engine.moves {
                eprintln!("{detail:?}: {moves} moves recorded, {} played bare", engine.moves);
                return ExitCode::FAILURE;
            }
            drop(batch);
            line += &format!(", {detail:?} {rate:.0}/s ({:.0}%)", 100.0 * rate / bare);
        }
        eprintln!("{line}");
    }
    ExitCode::SUCCESS
}
