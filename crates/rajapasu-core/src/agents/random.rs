//! The random player: uniform over the legal moves.

use crate::engine::{MoveObserver, MoveSummary, Pit, PitSet, Position, Rng};

/// Draws a candidate uniformly and plays it in place; an illegal one (endless under
/// `endless = forbid`, R9) leaves the position unchanged and is struck out before the next draw.
/// This is uniform over the legal moves and costs one simulation per move in the common case.
/// None: no legal move (R10), and `pos` is unchanged.
#[inline(always)]
pub(crate) fn play<O: MoveObserver>(
    pos: &mut Position,
    rng: &mut Rng,
    obs: &mut O,
) -> Option<(Pit, MoveSummary)> {
    play_among(pos, pos.candidates(), rng, obs)
}

/// [`play`] from the position's candidates (R4), already found by the caller.
#[inline(always)]
pub(crate) fn play_among<O: MoveObserver>(
    pos: &mut Position,
    mut candidates: PitSet,
    rng: &mut Rng,
    obs: &mut O,
) -> Option<(Pit, MoveSummary)> {
    while !candidates.is_empty() {
        let pit = pick(candidates, rng);
        if let Some(summary) = pos.play_if_legal_observed(pit, obs) {
            return Some((pit, summary));
        }
        candidates.remove(pit);
    }
    None
}

/// A uniformly random member of a non-empty set.
#[inline]
pub(crate) fn pick(set: PitSet, rng: &mut Rng) -> Pit {
    set.nth(rng.below(set.len() as u32) as usize)
}
