//! The random player: uniform over the legal moves.

use crate::engine::{Endless, MoveObserver, MoveSummary, Pit, Position, Rng};

/// Draws a candidate uniformly and plays it in place; under `endless = forbid` an endless
/// candidate (R9) is undone, struck out and another drawn. This is uniform over the legal moves
/// and costs one simulation per move in the common case. None: no legal move (R10), and `pos`
/// is unchanged.
#[inline]
pub(crate) fn play<O: MoveObserver>(pos: &mut Position, rng: &mut Rng, obs: &mut O) -> Option<(Pit, MoveSummary)> {
    let mut candidates = pos.candidates();
    if candidates.is_empty() {
        return None;
    }
    if pos.rules().endless == Endless::Stop {
        let pit = super::pick(candidates, rng);
        return Some((pit, pos.play_unchecked_observed(pit, obs)));
    }
    let before = *pos;
    while !candidates.is_empty() {
        let pit = super::pick(candidates, rng);
        let summary = pos.play_unchecked_observed(pit, obs);
        if !summary.endless {
            return Some((pit, summary));
        }
        *pos = before;
        candidates.remove(pit);
    }
    None
}
