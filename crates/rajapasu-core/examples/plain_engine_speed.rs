//! A benchmark: the engine's speed against a plain fixed-array engine of the default rules
//! (src/sim/plain.rs), the two playing the same 100,000 random matches from the same seat
//! streams, three times over; prints each one's matches per second and moves per match to
//! standard error.
//!
//! ```text
//! cargo run --release -p rajapasu-core --example plain_engine_speed
//! ```

use std::process::ExitCode;
use std::time::Instant;

use rajapasu_core::agents::seat_rng;
use rajapasu_core::engine::{Ruleset, Side};
use rajapasu_core::sim::bench::bench_engine;

#[path = "../src/sim/plain.rs"]
mod plain;

const MATCHES: u64 = 100_000;
/// The seed of `bench_engine`'s seat streams, which the plain engine draws from too.
const SEED: u64 = 1;

fn main() -> ExitCode {
    for _ in 0..3 {
        let t = Instant::now();
        let mut moves = 0;
        for i in 0..MATCHES {
            let mut streams = [seat_rng(SEED, i, Side::South), seat_rng(SEED, i, Side::North)];
            moves += plain::random_match((i % 2) as usize, &mut |seat, n| streams[seat].below(n));
        }
        let plain = MATCHES as f64 / t.elapsed().as_secs_f64();
        let ours = bench_engine(Ruleset::default(), MATCHES, SEED);
        if moves != ours.moves {
            eprintln!("the engines played different matches: {moves} moves against {}", ours.moves);
            return ExitCode::FAILURE;
        }
        eprintln!(
            "plain: {plain:.0} matches/s ({:.0} moves/match); rajapasu: {:.0} matches/s ({:.0} moves/match)",
            moves as f64 / MATCHES as f64,
            ours.matches_per_second,
            ours.moves as f64 / MATCHES as f64
        );
    }
    ExitCode::SUCCESS
}
