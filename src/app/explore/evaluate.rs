//! The `evaluate` job: a search player's evaluation of every legal move of one position (the
//! page offers it where a board is beyond the exact solver's budget). One JSON object.

use serde_json::{json, Value};

use super::analyse::{position_of, AnalyseError, PositionSpec};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use crate::agents::{evaluate_until, seat_rng, AgentSpec};
use crate::engine::{Pit, Ruleset};

/// The most moves a minimax evaluation plays in its search (a bound on its work).
pub const MAX_EVALUATION_NODES: u64 = 20_000_000;

/// A validated evaluation request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvaluateRequest {
    pub rules: Ruleset,
    pub position: PositionSpec,
    /// minimax or mcts, with their parameters.
    pub player: AgentSpec,
    /// MCTS's playouts are drawn from the stream of (seed, 0, the side to move).
    pub seed: u64,
}

/// Evaluates the request's position: `{"player", "to_move", "moves": [{"pit", "value",
/// "visits"}], "best", "depth", "max_nodes"}` (value: minimax's in its evaluation's units,
/// MCTS's mean reward for the mover).
/// The search ends soon after `stop` is set (its evaluation is then cut short: not an answer).
pub fn run(
    request: &EvaluateRequest,
    stop: Option<Arc<AtomicBool>>,
) -> Result<Value, AnalyseError> {
    let pos = position_of(request.rules, &request.position)?;
    let mut rng = seat_rng(request.seed, 0, pos.turn());
    let e = evaluate_until(request.player.clone(), &pos, &mut rng, MAX_EVALUATION_NODES, stop)
        .map_err(|e| AnalyseError::Field { field: "player", message: e.to_string() })?;
    let moves: Vec<Value> = e
        .moves
        .iter()
        .map(|m| json!({ "pit": m.pit.index(), "value": m.value, "visits": m.visits }))
        .collect();
    Ok(json!({
        "player": request.player.to_string(),
        "to_move": pos.turn(),
        "moves": moves,
        "best": e.best.iter().map(Pit::index).collect::<Vec<_>>(),
        "depth": e.depth,
        "max_nodes": MAX_EVALUATION_NODES,
    }))
}
