//! The engine benchmark: random full matches on one thread, nothing recorded.

use std::time::Instant;

use crate::agents::{seat_rng, Agent, AgentSpec};
use crate::engine::{Game, Ruleset, Side};

#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct EngineBench {
    pub matches: u64,
    pub moves: u64,
    pub rounds: u64,
    pub seconds: f64,
    pub matches_per_second: f64,
    pub moves_per_second: f64,
}

/// Plays `matches` random-vs-random matches (first player alternating) on the calling thread.
pub fn bench_engine(rules: Ruleset, matches: u64, seed: u64) -> EngineBench {
    let start = Instant::now();
    let (mut moves, mut rounds) = (0u64, 0u64);
    for i in 0..matches {
        let mut game = Game::new(rules, Side::from_index((i % 2) as usize));
        let mut agents =
            [Agent::new(AgentSpec::Random, seat_rng(seed, i, Side::South)), Agent::new(AgentSpec::Random, seat_rng(seed, i, Side::North))];
        while !game.is_over() {
            let side = game.position().turn();
            if agents[side.index()].play(&mut game, &mut ()).is_some() {
                moves += 1;
            } else {
                game.end_round();
                rounds += 1;
            }
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    EngineBench { matches, moves, rounds, seconds, matches_per_second: matches as f64 / seconds, moves_per_second: moves as f64 / seconds }
}
