//! The chain of rounds under perfect round play ([`play_chain`]) with each round solved with
//! its levels on disk ([`SpilledRound`]), for rounds too large for memory: a round's files are
//! reused where a directory already holds them.

use std::collections::HashMap;
use std::path::PathBuf;

use crate::engine::{BySide, Pit, Position, Ruleset, Side};
use crate::exact::matches::chain::{play_chain, ChainRound, ChainRounds, PerfectMatch};
use crate::exact::round::solver::{Progress, TieBreak};
use crate::exact::round::spill::{SpillError, SpillOptions, SpilledRound};
use crate::exact::round_start;

/// A spilled round with the memory its perfect player's choices may take.
pub struct SpilledChainRound {
    round: SpilledRound,
    max_bytes: u64,
}

impl ChainRound for SpilledChainRound {
    type Error = SpillError;
    fn round_value(&self, pos: &Position) -> Option<i32> {
        self.round.value(pos)
    }
    fn choose_move(&self, pos: &Position, tie: TieBreak) -> Result<Option<Pit>, SpillError> {
        self.round.choose(pos, tie, self.max_bytes)
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

    /// Plays a match from round 1 ([`play_chain`]) over these rounds.
    pub fn play(&mut self, first: Side, tie: TieBreak) -> Result<PerfectMatch, SpillError> {
        play_chain(self.rules, first, tie, self)
    }
}

impl ChainRounds for SpilledRounds<'_> {
    type Round = SpilledChainRound;
    fn round(&mut self, open: BySide<u8>) -> Result<&SpilledChainRound, SpillError> {
        if !self.rounds.contains_key(&open) {
            let roots = Side::ALL.map(|s| round_start(self.rules, open, s));
            let progress = &mut *self.progress;
            let round = SpilledRound::solve(&roots, &(self.dir_of)(open), self.opts, &mut |p| {
                progress(open, p)
            })?;
            let max_bytes = self.opts.max_memory;
            self.rounds.insert(open, SpilledChainRound { round, max_bytes });
        }
        Ok(&self.rounds[&open])
    }
}
