//! Statistics of play from a position (an "opening explorer"): each legal move's results over
//! seeded continuations played by a pair of players, on the machine's threads.

use rayon::prelude::*;
use serde_json::{json, Value};

use crate::agents::{seat_rng, Agent, AgentSpec};
use crate::analysis::stats::wilson;
use crate::engine::{Game, Side};

/// Each legal move of `game`'s side to move, then `matches` continuations by `players` (South,
/// North), continuation i seeded by (`seed`, i, seat): the first player's and the mover's wins
/// with 95% Wilson intervals. A continuation still going after `max_plies` moves, or unfinished
/// at `max_rounds` (R14), counts as a win for neither.
pub fn run(game: &Game, first: Side, players: [AgentSpec; 2], matches: u64, seed: u64, max_plies: u32) -> Result<Vec<Value>, String> {
    let mover = game.position().turn();
    game.legal_moves()
        .iter()
        .map(|pit| {
            let mut after = *game;
            after.play(pit.index()).map_err(|e| e.to_string())?;
            let winners: Vec<Option<Side>> =
                (0..matches).into_par_iter().map(|i| continuation(after, players, seed, i, max_plies)).collect::<Result<_, _>>()?;
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

/// One continuation to its end: the winner, None if unfinished.
fn continuation(mut game: Game, players: [AgentSpec; 2], seed: u64, index: u64, max_plies: u32) -> Result<Option<Side>, String> {
    let mut agents = Side::ALL.map(|side| Agent::new(players[side.index()], seat_rng(seed, index, side)));
    let start = game.ply();
    while !game.is_over() && game.ply() - start < max_plies {
        let side = game.position().turn();
        if agents[side.index()].play(&mut game, &mut ()).map_err(|e| e.to_string())?.is_none() {
            game.end_round();
        }
    }
    Ok(game.outcome().and_then(|o| o.winner()))
}
