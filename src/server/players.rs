//! The players the server offers: built-in ones only, each search within the server's budget.

use serde_json::{json, Value};

use super::error::ApiError;
use super::state::{MAX_SEARCH_NODES, MAX_SEARCH_PLAYOUTS};
use crate::agents::{AgentSpec, MctsParams, MinimaxParams};

/// A player of the server: any built-in one; external and embedded players are not offered.
/// Their names are refused before the spec is parsed, so nothing is built from such a request
/// (and the message does not echo a command line of any length).
pub fn player(text: &str, field: &str) -> Result<AgentSpec, ApiError> {
    let name = text.split_once(':').map_or(text, |(name, _)| name);
    if name == "external" || name == "python" {
        return Err(ApiError::bad(field, format!("{name} players are not offered by the server")));
    }
    let spec: AgentSpec = text.parse().map_err(|e| ApiError::bad(field, e))?;
    match spec {
        AgentSpec::External(_) | AgentSpec::Host(_) => {
            Err(ApiError::bad(field, "external players are not offered by the server"))
        }
        spec => Ok(bounded(spec)),
    }
}

/// A player as the server plays it: a search within the server's budget of one decision
/// ([`MAX_SEARCH_NODES`] moves of minimax, [`MAX_SEARCH_PLAYOUTS`] playouts of MCTS), so no
/// request can ask for a search without end. The budget is part of the spec, so the answer,
/// a dataset's manifest and a replay elsewhere name the player that really played.
pub fn bounded(spec: AgentSpec) -> AgentSpec {
    match spec {
        AgentSpec::Minimax(p) => AgentSpec::Minimax(MinimaxParams {
            nodes: Some(p.nodes.map_or(MAX_SEARCH_NODES, |n| n.min(MAX_SEARCH_NODES))),
            ..p
        }),
        AgentSpec::Mcts(p) => {
            AgentSpec::Mcts(MctsParams { playouts: p.playouts.min(MAX_SEARCH_PLAYOUTS), ..p })
        }
        spec => spec,
    }
}

/// What bounds a job of these players, for `/api/status`.
pub fn players_bound(specs: &[&AgentSpec]) -> Value {
    let players: Vec<String> = specs.iter().map(|s| s.to_string()).collect();
    json!({ "players": players, "nodes_per_move": MAX_SEARCH_NODES, "playouts_per_move": MAX_SEARCH_PLAYOUTS })
}

/// The seats the page offers, `human` (a person at the page) first, then the engine's players
/// within the server's budget.
pub const OFFERED: [&str; 7] =
    ["human", "random", "greedy", "minimax:4", "mcts:400", "perfect:round", "perfect:match"];
