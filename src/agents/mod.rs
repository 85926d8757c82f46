//! Players. Each seat of each match has its own random stream (see [`seat_rng`]), so the choices of
//! one player never depend on the other player, the thread, the batch or the shard.

mod greedy;
mod mcts;
mod minimax;
mod random;
mod spec;

pub use spec::{AgentSpec, SpecError};

use crate::engine::{Game, MoveObserver, MoveSummary, Pit, PitSet, Position, Rng, Side};

/// The random stream of a seat: a pure function of (master seed, match index, seat).
pub fn seat_rng(seed: u64, match_index: u64, seat: Side) -> Rng {
    Rng::for_stream(seed, match_index, 1 + seat.index() as u64)
}

/// A player in one seat of one match.
pub struct Agent {
    spec: AgentSpec,
    rng: Rng,
    mcts: mcts::Tree,
}

impl Agent {
    pub fn new(spec: AgentSpec, rng: Rng) -> Agent {
        Agent { spec, rng, mcts: mcts::Tree::default() }
    }

    /// Plays a move for the side to move, or returns None when it has no legal move (R10).
    /// The observer sees only the move that is played.
    pub fn play<O: MoveObserver>(&mut self, game: &mut Game, obs: &mut O) -> Option<(Pit, MoveSummary)> {
        if let AgentSpec::Random = self.spec {
            // Fast path: the move is drawn and played in place, in one simulation.
            return game.play_in_place(|pos| random::play(pos, &mut self.rng, obs));
        }
        let pit = self.choose(game.position())?;
        Some((pit, game.play_unchecked_observed(pit, obs)))
    }

    /// The move this player would choose, or None when there is no legal move.
    pub fn choose(&mut self, pos: &Position) -> Option<Pit> {
        match self.spec {
            AgentSpec::Random => random::play(&mut { *pos }, &mut self.rng, &mut ()).map(|(pit, _)| pit),
            AgentSpec::Greedy => greedy::choose(pos, &mut self.rng),
            AgentSpec::Minimax { depth } => minimax::choose(pos, depth, &mut self.rng),
            AgentSpec::Mcts { playouts } => self.mcts.choose(pos, playouts, &mut self.rng),
        }
    }
}

/// A uniformly random member of a non-empty set.
#[inline]
pub(crate) fn pick(set: PitSet, rng: &mut Rng) -> Pit {
    set.nth(rng.below(set.len() as u32) as usize)
}

#[cfg(test)]
mod tests;
