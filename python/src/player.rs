//! Built-in players from Python: `BuiltinPlayer(spec).choose(match)` asks rajapasu's own player
//! (random, greedy, minimax, mcts, perfect:round, perfect:match, external) for its move, as
//! the simulator does for a seat. The Gymnasium environment's opponent is one.

use pyo3::prelude::*;

use rajapasu::agents::{seat_rng, Agent, AgentSpec};

use super::{parse_side, usage, PyMatch, RajapasuError};

/// A built-in player in one seat, with its search state kept between decisions (as in a
/// simulated match) and the seat's random stream of (seed, match_index, seat).
#[pyclass(module = "rajapasu", name = "BuiltinPlayer", unsendable)]
pub struct PyAgent {
    agent: Agent,
}

#[pymethods]
impl PyAgent {
    #[new]
    #[pyo3(signature = (spec, seed=1, match_index=0, seat="south"))]
    fn new(spec: &str, seed: u64, match_index: u64, seat: &str) -> PyResult<Self> {
        let parsed: AgentSpec = spec.parse().map_err(|e| usage(format!("player {e}")))?;
        if matches!(parsed, AgentSpec::Host(_)) {
            return Err(usage(format!(
                "player {spec}: a python: player is a callable; call it yourself"
            )));
        }
        Ok(PyAgent {
            agent: Agent::new(parsed, seat_rng(seed, match_index, parse_side(seat, "seat")?)),
        })
    }

    /// The local pit this player plays in `match`'s position (the side to move), or None when
    /// that side has no legal move. The match itself is not changed.
    fn choose(&mut self, m: &PyMatch) -> PyResult<Option<usize>> {
        let mut game = m.game;
        let played = self
            .agent
            .play(&mut game, &mut ())
            .map_err(|e| RajapasuError::new_err(e.to_string()))?;
        Ok(played.map(|(pit, _)| pit.index()))
    }

    /// The canonical specification, every parameter spelled out.
    #[getter]
    fn spec(&self) -> String {
        self.agent.spec().to_string()
    }

    fn __repr__(&self) -> String {
        format!("BuiltinPlayer({:?})", self.agent.spec().to_string())
    }
}
