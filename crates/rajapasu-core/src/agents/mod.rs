//! Players. Each seat of each match has its own random stream (see [`seat_rng`]) and its own
//! search state, so the choices of one player never depend on the other player, the thread,
//! the batch or the shard.

mod error;
mod external;
mod greedy;
mod heuristic;
pub mod host;
mod mcts;
mod minimax;
mod move_scores;
mod random;
mod spec;

pub use error::PlayerError;
pub use external::{ExternalError, PROTOCOL};
pub use heuristic::{Eval, MATCH_WIN};
pub use move_scores::{evaluate, evaluate_until, Evaluation, MoveScore, NotASearchPlayer};
pub use spec::{
    AgentSpec, ExternalParams, MctsParams, MinimaxParams, SpecError, ALLOWED, MAX_MCTS_PLAYOUTS,
    MAX_MINIMAX_DEPTH, MAX_MINIMAX_NODES,
};

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use crate::engine::{Game, MoveObserver, MoveSummary, Pit, PitSet, Position, Rng, Side};
use crate::exact::{ExactStore, StoreSettings};

/// What the players of a run share, created by whoever starts the run and passed down: the
/// store of exact results that the perfect players read, and the host players by name.
#[derive(Clone)]
pub struct Resources {
    pub exact: Arc<ExactStore>,
    pub hosts: host::HostPlayers,
}

impl Resources {
    /// With `exact`, and no host players.
    pub fn new(exact: Arc<ExactStore>) -> Resources {
        Resources { exact, hosts: host::HostPlayers::default() }
    }
}

impl Default for Resources {
    /// A store of exact results of their own, with the default settings.
    fn default() -> Resources {
        Resources::new(Arc::new(ExactStore::new(StoreSettings::default())))
    }
}

/// The random stream of a seat: a pure function of (master seed, match index, seat).
pub fn seat_rng(seed: u64, match_index: u64, seat: Side) -> Rng {
    Rng::for_stream(seed, match_index, 1 + seat.index() as u64)
}

/// The search state of a player, kept between its decisions in one match.
enum State {
    Stateless,
    Minimax(minimax::Searcher),
    Mcts(mcts::Tree),
    External(external::External),
    Perfect(crate::exact::PerfectPlayer),
    Host(host::Host),
}

/// A player in one seat of one match.
pub struct Agent {
    spec: AgentSpec,
    rng: Rng,
    state: State,
}

impl Agent {
    /// A player on its own: a perfect player gets a store of exact results of its own, with the
    /// default settings, and no host player is known. The players of a run share the run's
    /// resources ([`Agent::seated`]).
    pub fn new(spec: AgentSpec, rng: Rng) -> Agent {
        // The store is made only for a perfect player: the benchmarks seat players by the million.
        Agent::with(
            spec,
            rng,
            || Arc::new(ExactStore::new(StoreSettings::default())),
            &host::HostPlayers::default(),
        )
    }

    /// A player of a run, sharing the run's `resources`.
    pub fn seated(spec: AgentSpec, rng: Rng, resources: &Resources) -> Agent {
        Agent::with(spec, rng, || resources.exact.clone(), &resources.hosts)
    }

    fn with(
        spec: AgentSpec,
        rng: Rng,
        exact: impl FnOnce() -> Arc<ExactStore>,
        hosts: &host::HostPlayers,
    ) -> Agent {
        let state = match spec.clone() {
            AgentSpec::Random | AgentSpec::Greedy => State::Stateless,
            AgentSpec::Minimax(p) => State::Minimax(minimax::Searcher::new(p)),
            AgentSpec::Mcts(p) => State::Mcts(mcts::Tree::new(p)),
            AgentSpec::External(p) => State::External(external::External::new(p)),
            AgentSpec::Perfect(kind) => {
                State::Perfect(crate::exact::PerfectPlayer::new(kind, exact()))
            }
            AgentSpec::Host(p) => State::Host(host::Host::new(p, hosts)),
        };
        Agent { spec, rng, state }
    }

    pub fn spec(&self) -> &AgentSpec {
        &self.spec
    }

    /// This player, its searches (minimax, MCTS) and its tables' solves (perfect players)
    /// ending soon after `stop` is set: for a caller
    /// that may stop waiting for a choice (a server whose client went away). A choice made
    /// after the flag was set is cut short, so the caller must not use it.
    pub fn stopped_by(mut self, stop: Arc<AtomicBool>) -> Agent {
        match &mut self.state {
            State::Minimax(searcher) => searcher.stop_on(stop),
            State::Mcts(tree) => tree.stop_on(stop),
            State::Perfect(player) => player.stop_on(stop),
            _ => {}
        }
        self
    }

    /// Plays a move for the side to move, or returns None when it has no legal move (R10).
    /// The observer sees only the move that is played. Only an external, a perfect or a host
    /// player can fail.
    pub fn play<O: MoveObserver>(
        &mut self,
        game: &mut Game,
        obs: &mut O,
    ) -> Result<Option<(Pit, MoveSummary)>, PlayerError> {
        if let AgentSpec::Random = self.spec {
            // Fast path: the move is drawn and played in place, in one simulation.
            return Ok(game.play_in_place(|pos| random::play(pos, &mut self.rng, obs)));
        }
        self.play_deciding(game, obs)
    }

    /// [`Agent::play`] when the caller has counted the position's candidates (R4) already: the
    /// random player draws from `candidates` instead of finding them again. `candidates` must
    /// be `game.position().candidates()`.
    pub fn play_among<O: MoveObserver>(
        &mut self,
        game: &mut Game,
        candidates: PitSet,
        obs: &mut O,
    ) -> Result<Option<(Pit, MoveSummary)>, PlayerError> {
        debug_assert_eq!(candidates, game.position().candidates());
        if let AgentSpec::Random = self.spec {
            return Ok(
                game.play_in_place(|pos| random::play_among(pos, candidates, &mut self.rng, obs))
            );
        }
        self.play_deciding(game, obs)
    }

    /// [`Agent::play`] for every player but the random one.
    fn play_deciding<O: MoveObserver>(
        &mut self,
        game: &mut Game,
        obs: &mut O,
    ) -> Result<Option<(Pit, MoveSummary)>, PlayerError> {
        if let State::Perfect(player) = &self.state {
            // The round's start (kept reserves, starter) is part of a match position (R17).
            let pit = player.choose_in_game(game, &mut self.rng)?;
            return Ok(pit.map(|pit| (pit, game.play_unchecked_observed(pit, obs))));
        }
        let (round, ply) = (game.round(), game.ply() + 1);
        let Some(pit) = self.decide(game.position(), Some(round), Some(ply))? else {
            return Ok(None);
        };
        Ok(Some((pit, game.play_unchecked_observed(pit, obs))))
    }

    /// The move this player would choose, or None when there is no legal move.
    pub fn choose(&mut self, pos: &Position) -> Result<Option<Pit>, PlayerError> {
        self.decide(pos, None, None)
    }

    fn decide(
        &mut self,
        pos: &Position,
        round: Option<u32>,
        ply: Option<u32>,
    ) -> Result<Option<Pit>, PlayerError> {
        Ok(match &mut self.state {
            State::Stateless if self.spec == AgentSpec::Greedy => {
                greedy::choose(pos, &mut self.rng)
            }
            State::Stateless => {
                random::play(&mut { *pos }, &mut self.rng, &mut ()).map(|(pit, _)| pit)
            }
            State::Minimax(searcher) => searcher.choose(pos, &mut self.rng),
            State::Mcts(tree) => tree.choose(pos, &mut self.rng),
            State::External(program) => {
                return Ok(program.choose(pos, round, ply, &mut self.rng)?)
            }
            State::Perfect(player) => player.choose(pos, &mut self.rng)?,
            State::Host(player) => return Ok(player.choose(pos, round, ply, &mut self.rng)?),
        })
    }

    /// Moves played in search so far (minimax and MCTS; 0 for the others): the benchmark's nodes.
    pub fn search_nodes(&self) -> u64 {
        match &self.state {
            State::Minimax(s) => s.nodes,
            State::Mcts(t) => t.moves,
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests;
