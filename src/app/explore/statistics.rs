//! Statistics of play from a position (an "opening explorer"): each legal move's results over
//! seeded continuations played by a pair of players, on the machine's threads.

use rayon::prelude::*;
use serde_json::{json, Value};

use crate::agents::{seat_rng, Agent, AgentSpec, PlayerError, Resources};
use crate::analysis::stats::wilson;
use crate::app::job::Job;
use crate::engine::{Game, Side};

/// Why statistics were not computed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StatisticsError {
    /// A player could not move.
    #[error("{0}")]
    Player(#[from] PlayerError),
    /// A move of the continuation could not be played (its message).
    #[error("{0}")]
    Move(String),
    #[error("cancelled")]
    Cancelled,
}

/// A validated statistics request: continuations of `game` by `players` (South, North).
#[derive(Clone, Debug)]
pub struct StatisticsRequest {
    pub game: Game,
    /// Who started the match (whose win rate is the first player's).
    pub first: Side,
    pub players: [AgentSpec; 2],
    /// Continuations of each legal move.
    pub matches: u64,
    pub seed: u64,
    /// Moves a continuation may take before it counts as unfinished.
    pub max_plies: u32,
}

/// Each legal move of the game's side to move, then the request's continuations, seated with
/// `resources`, continuation i seeded by (`seed`, i, seat): the first player's and the mover's
/// wins with 95% Wilson intervals. A continuation still going after `max_plies` moves, or
/// unfinished at `max_rounds` (R14), counts as a win for neither. The job counts the
/// continuations played and stops them once cancelled.
pub fn run(
    request: &StatisticsRequest,
    resources: &Resources,
    job: &Job,
) -> Result<Vec<Value>, StatisticsError> {
    let StatisticsRequest { game, first, ref players, matches, seed, max_plies } = *request;
    let mover = game.position().turn();
    let legal = game.legal_moves();
    job.stage("continuations", matches * legal.len() as u64);
    legal
        .iter()
        .map(|pit| {
            let mut after = game;
            after.play(pit.index()).map_err(|e| StatisticsError::Move(e.to_string()))?;
            let winners: Vec<Option<Side>> = (0..matches)
                .into_par_iter()
                .map(|i| {
                    job.check().map_err(|_| StatisticsError::Cancelled)?;
                    let winner = continuation(after, players, seed, i, max_plies, resources, job);
                    job.advance(1);
                    winner
                })
                .collect::<Result<_, _>>()?;
            let count = |side: Side| winners.iter().filter(|w| **w == Some(side)).count() as u64;
            let rate = |side: Side| {
                let (lo, hi) = wilson(count(side), matches, 0.95);
                json!({ "wins": count(side), "rate": count(side) as f64 / matches as f64, "interval": [lo, hi] })
            };
            Ok(json!({
                "pit": pit.index(),
                "first_player": rate(first),
                "mover": rate(mover),
                "undecided": winners.iter().filter(|w| w.is_none()).count(),
            }))
        })
        .collect()
}

/// One continuation to its end: the winner, None if unfinished. The players' searches and the
/// moves stop once the job is cancelled (what was played then is dropped).
fn continuation(
    mut game: Game,
    players: &[AgentSpec; 2],
    seed: u64,
    index: u64,
    max_plies: u32,
    resources: &Resources,
    job: &Job,
) -> Result<Option<Side>, StatisticsError> {
    let seat = |side: Side| {
        Agent::seated(players[side.index()].clone(), seat_rng(seed, index, side), resources)
    };
    let mut agents = Side::ALL.map(|side| seat(side).stopped_by(job.stop_flag()));
    let start = game.ply();
    while !game.is_over() && game.ply() - start < max_plies {
        job.check().map_err(|_| StatisticsError::Cancelled)?;
        let side = game.position().turn();
        if agents[side.index()].play(&mut game, &mut ())?.is_none() {
            game.end_round();
        }
    }
    job.check().map_err(|_| StatisticsError::Cancelled)?;
    Ok(game.outcome().and_then(|o| o.winner()))
}
