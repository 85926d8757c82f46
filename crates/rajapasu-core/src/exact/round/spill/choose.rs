//! The best moves and a perfect player's move in a spilled round ([`crate::exact::Solution`]'s
//! `best_moves` and `choose` of the in-memory round): the layers are not stored, so a mover
//! with a positive value and no exit achieving it computes them around its position
//! ([`LocalLayers`]), within a memory bound.
//! The level files are untrusted: values that are missing or that contradict each other are
//! a [`SpillError::BadFile`] naming the file and the level, never a panic.

use crate::engine::{Pit, PitSet, Position};
use crate::exact::files::level_files::{positions_path, values_path};
use crate::exact::round::layers::{
    best_moves, progress_moves, ClosureError, LayersCache, LocalLayers,
};
use crate::exact::round::solver::TieBreak;

use super::{SpillError, SpilledRound};

impl SpilledRound {
    /// The moves a perfect player may make, before the tie-break: the best moves, and with a
    /// positive value only those that make progress (an exit achieving the value, or else an
    /// in-level move to the least layer); the layers' closure may take `max_bytes`. Empty for
    /// a position the files do not hold.
    pub fn progress_moves(&self, pos: &Position, max_bytes: u64) -> Result<PitSet, SpillError> {
        self.progress_moves_cached(pos, max_bytes, &mut LayersCache::default())
    }

    /// [`SpilledRound::progress_moves`] with the layers taken from `cache` where it holds
    /// them (a cache of this round only).
    pub(crate) fn progress_moves_cached(
        &self,
        pos: &Position,
        max_bytes: u64,
        cache: &mut LayersCache,
    ) -> Result<PitSet, SpillError> {
        let Some(value) = self.value(pos) else { return Ok(PitSet::EMPTY) };
        self.progress_moves_of(pos, value, max_bytes, cache)
    }

    /// [`SpilledRound::progress_moves_cached`] of a position whose value (`value`) the caller
    /// has read: each lookup is a search in the level's file.
    fn progress_moves_of(
        &self,
        pos: &Position,
        value: i32,
        max_bytes: u64,
        cache: &mut LayersCache,
    ) -> Result<PitSet, SpillError> {
        let value_of =
            |child: &Position| self.value(child).ok_or_else(|| self.not_held(child, pos));
        let layers = move || {
            // The cache moved in: the layers borrowed from it outlive this call.
            let cache = cache;
            let layers = cache.around(&self.codec, pos, || self.layers_around(pos, max_bytes))?;
            Ok(move |c: &Position| layers.layer(&self.codec, c))
        };
        let set = progress_moves(pos, value, value_of, layers)?;
        if set.is_empty() && pos.has_legal_move() {
            return Err(self.no_move_achieves(pos, value));
        }
        Ok(set)
    }

    /// The move a perfect player makes ([`SpilledRound::progress_moves`], then `tie`); None
    /// when there is no legal move. A position with a legal move that the files do not hold
    /// is an error.
    pub fn choose(
        &self,
        pos: &Position,
        tie: TieBreak,
        max_bytes: u64,
    ) -> Result<Option<Pit>, SpillError> {
        self.choose_cached(pos, tie, max_bytes, &mut LayersCache::default())
    }

    /// [`SpilledRound::choose`] with the layers taken from `cache` where it holds them (a
    /// cache of this round only).
    pub(crate) fn choose_cached(
        &self,
        pos: &Position,
        tie: TieBreak,
        max_bytes: u64,
        cache: &mut LayersCache,
    ) -> Result<Option<Pit>, SpillError> {
        match self.value(pos) {
            Some(value) => Ok(tie.pick(self.progress_moves_of(pos, value, max_bytes, cache)?)),
            None if pos.has_legal_move() => Err(self.not_held(pos, pos)),
            None => Ok(None),
        }
    }

    /// Each legal move of a position the files hold with its value for the mover: its
    /// captures minus the opponent's, then minus the value of the position after it. A child
    /// the files do not hold is an error naming its file.
    pub fn move_values(&self, pos: &Position) -> Result<Vec<(Pit, i32)>, SpillError> {
        let mover = pos.turn();
        pos.legal_children()
            .map(|(pit, child, summary)| {
                let after = self.value(&child).ok_or_else(|| self.not_held(&child, pos))?;
                Ok((pit, summary.net_gain(mover) - after))
            })
            .collect()
    }

    /// The moves that achieve the value (R15); empty for a position the files do not hold or
    /// one without a legal move. A child the files do not hold, or a value no move achieves,
    /// is an error naming the file.
    pub fn best_moves(&self, pos: &Position) -> Result<PitSet, SpillError> {
        let Some(value) = self.value(pos) else { return Ok(PitSet::EMPTY) };
        self.moves_achieving(pos, value)
    }

    /// The moves of `pos` that achieve `value`, its value ([`SpilledRound::reached_value`]):
    /// [`SpilledRound::best_moves`] without reading the value again.
    pub fn moves_achieving(&self, pos: &Position, value: i32) -> Result<PitSet, SpillError> {
        let value_of =
            |child: &Position| self.value(child).ok_or_else(|| self.not_held(child, pos));
        let set = best_moves(pos, value, value_of)?;
        if set.is_empty() && pos.has_legal_move() {
            return Err(self.no_move_achieves(pos, value));
        }
        Ok(set)
    }

    /// The value of a position the round's play reaches (such as a root), or an error naming
    /// the level file that should hold it.
    pub fn reached_value(&self, pos: &Position) -> Result<i32, SpillError> {
        self.value(pos).ok_or_else(|| self.not_held(pos, pos))
    }

    /// The files do not hold `missing`, reached in play from `from`.
    fn not_held(&self, missing: &Position, from: &Position) -> SpillError {
        SpillError::BadFile(format!(
            "{} holds no value of a position of level {} that play reaches from level {}: the \
             level files are damaged or not this solve's; remove them",
            positions_path(&self.dir, missing.on_board()).display(),
            missing.on_board(),
            from.on_board()
        ))
    }

    /// No move of `pos`, worth `value` by the files, achieves that value.
    fn no_move_achieves(&self, pos: &Position, value: i32) -> SpillError {
        SpillError::BadFile(format!(
            "{}: a position of level {} worth {value} has no move achieving it by the values \
             of its level and those below: the level files are damaged or not this solve's; \
             remove them",
            values_path(&self.dir, pos.on_board()).display(),
            pos.on_board()
        ))
    }

    /// The layers of the positions around `pos` (value nonzero), from the level files' values.
    pub(crate) fn layers_around(
        &self,
        pos: &Position,
        max_bytes: u64,
    ) -> Result<LocalLayers, SpillError> {
        match LocalLayers::around(&self.codec, &|p| self.value(p), pos, max_bytes) {
            Ok(Some(layers)) => Ok(layers),
            Ok(None) => Err(SpillError::BadFile(format!(
                "{}: no layers around a position of level {} of value 0",
                self.dir.display(),
                pos.on_board()
            ))),
            Err(ClosureError::NoValue(missing)) => Err(self.not_held(&missing, pos)),
            Err(ClosureError::TooLarge(e)) => Err(SpillError::ClosureLimit {
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

#[cfg(test)]
#[path = "choose_tests.rs"]
mod tests;
