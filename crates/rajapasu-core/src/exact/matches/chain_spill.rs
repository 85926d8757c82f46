//! The chain of rounds under perfect round play ([`play_chain`]) with each round solved with
//! its levels on disk ([`SpilledRound`]), for rounds too large for memory: a round's files are
//! reused where a directory already holds them.

use std::collections::HashMap;
use std::path::PathBuf;

use crate::engine::{BySide, Pit, Position, Ruleset, Side};
use crate::exact::matches::chain::{play_chain, ChainRound, ChainRounds, PerfectMatch};
use crate::exact::round::layers::LayersCache;
use crate::exact::round::solver::{Progress, TieBreak};
use crate::exact::round::spill::{SpillError, SpillOptions, SpilledRound};
use crate::exact::round_start;

/// A spilled round with the memory its perfect player's choices may take, and the layers
/// its last choice computed (play stays in a closure for many moves of a level).
pub struct SpilledChainRound {
    round: SpilledRound,
    max_bytes: u64,
    layers: LayersCache,
}

impl ChainRound for SpilledChainRound {
    type Error = SpillError;
    fn round_value(&self, pos: &Position) -> Result<i32, SpillError> {
        self.round.reached_value(pos)
    }
    fn choose_move(&mut self, pos: &Position, tie: TieBreak) -> Result<Option<Pit>, SpillError> {
        self.round.choose_cached(pos, tie, self.max_bytes, &mut self.layers)
    }
}

/// The rounds of chains, each solved (both starters as roots) in the directory `dir_of` names
/// for its open pits, within `opts`; `opts.max_memory` also bounds each choice's closure.
pub struct SpilledRounds<'a> {
    rules: Ruleset,
    opts: SpillOptions,
    dir_of: &'a dyn Fn(BySide<u8>) -> PathBuf,
    progress: &'a mut dyn FnMut(BySide<u8>, Progress),
    rounds: HashMap<BySide<u8>, SpilledChainRound>,
}

impl<'a> SpilledRounds<'a> {
    pub fn new(
        rules: Ruleset,
        opts: SpillOptions,
        dir_of: &'a dyn Fn(BySide<u8>) -> PathBuf,
        progress: &'a mut dyn FnMut(BySide<u8>, Progress),
    ) -> SpilledRounds<'a> {
        SpilledRounds { rules, opts, dir_of, progress, rounds: HashMap::new() }
    }

    /// The layers' closures the choices computed, and how many times they reused the last.
    #[cfg(test)]
    pub(crate) fn closures(&self) -> (u64, u64) {
        self.rounds.values().map(|r| r.layers.counts()).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    }

    /// Plays a match from round 1 ([`play_chain`]) over these rounds.
    pub fn play(&mut self, first: Side, tie: TieBreak) -> Result<PerfectMatch, SpillError> {
        play_chain(self.rules, first, tie, self)
    }
}

impl ChainRounds for SpilledRounds<'_> {
    type Round = SpilledChainRound;
    fn round(&mut self, open: BySide<u8>) -> Result<&mut SpilledChainRound, SpillError> {
        if !self.rounds.contains_key(&open) {
            let roots = Side::ALL.map(|s| round_start(self.rules, open, s));
            let progress = &mut *self.progress;
            let round = SpilledRound::solve(&roots, &(self.dir_of)(open), self.opts, &mut |p| {
                progress(open, p)
            })?;
            let max_bytes = self.opts.max_memory;
            let layers = LayersCache::default();
            self.rounds.insert(open, SpilledChainRound { round, max_bytes, layers });
        }
        Ok(self.rounds.get_mut(&open).expect("inserted just above"))
    }
}
