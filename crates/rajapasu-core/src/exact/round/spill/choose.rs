//! A perfect player's move in a spilled round ([`crate::exact::Solution::choose`] of the
//! in-memory round): the layers are not stored, so a mover with a positive value and no exit
//! achieving it computes them around its position ([`LocalLayers`]), within a memory bound.

use crate::engine::{Pit, PitSet, Position};
use crate::exact::round::layers::LocalLayers;
use crate::exact::round::solver::TieBreak;

use super::{SpillError, SpilledRound};

impl SpilledRound {
    /// The moves a perfect player may make, before the tie-break: the best moves, and with a
    /// positive value only those that make progress (an exit achieving the value, or else an
    /// in-level move to the least layer); the layers' closure may take `max_bytes`.
    pub fn progress_moves(&self, pos: &Position, max_bytes: u64) -> Result<PitSet, SpillError> {
        let Some(value) = self.value(pos) else { return Ok(PitSet::EMPTY) };
        let level = pos.on_board();
        let (mut exits, mut quiet) = (PitSet::EMPTY, Vec::new());
        for (pit, child, summary) in pos.legal_children() {
            let v = self.value(&child).expect("the children of a reachable position are reachable");
            if summary.net_gain(pos.turn()) - v != value {
                continue;
            }
            if child.on_board() == level {
                quiet.push((pit, child));
            } else {
                exits.insert(pit);
            }
        }
        if value <= 0 {
            quiet.iter().for_each(|&(pit, _)| exits.insert(pit));
            return Ok(exits);
        }
        if !exits.is_empty() || quiet.is_empty() {
            return Ok(exits);
        }
        let layers = self.layers_around(pos, max_bytes)?;
        let layer_of = |c: &Position| {
            layers.layer(&self.codec, c).expect("a move that counts stays in the closure")
        };
        let least = quiet.iter().map(|(_, c)| layer_of(c)).min().expect("some in-level move");
        let mut set = PitSet::EMPTY;
        quiet.iter().filter(|(_, c)| layer_of(c) == least).for_each(|&(pit, _)| set.insert(pit));
        Ok(set)
    }

    /// The move a perfect player makes ([`SpilledRound::progress_moves`], then `tie`); None
    /// when there is no legal move.
    pub fn choose(
        &self,
        pos: &Position,
        tie: TieBreak,
        max_bytes: u64,
    ) -> Result<Option<Pit>, SpillError> {
        Ok(tie.pick(self.progress_moves(pos, max_bytes)?))
    }

    /// The layers of the positions around `pos` (value nonzero), from the level files' values.
    pub(crate) fn layers_around(
        &self,
        pos: &Position,
        max_bytes: u64,
    ) -> Result<LocalLayers, SpillError> {
        let value = |p: &Position| self.value(p).expect("the positions around are reachable");
        match LocalLayers::around(&self.codec, &value, pos, max_bytes) {
            Ok(Some(layers)) => Ok(layers),
            Ok(None) => Err(SpillError::BadFile(format!(
                "{}: no layers around a position of value 0",
                self.dir.display()
            ))),
            Err(e) => Err(SpillError::ClosureLimit {
                limit: max_bytes,
                needed: e.needed,
                positions: e.positions,
                level: pos.on_board(),
            }),
        }
    }

    /// The layer of a reachable position of nonzero value ([`crate::exact::Solution::layer`]).
    #[cfg(test)]
    pub(crate) fn layer(&self, pos: &Position, max_bytes: u64) -> Result<u32, SpillError> {
        let layers = self.layers_around(pos, max_bytes)?;
        Ok(layers.layer(&self.codec, pos).expect("the root is in its closure"))
    }
}
