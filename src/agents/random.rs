//! The random player: uniform over the legal moves.

use crate::engine::{Endless, MoveObserver, MoveSummary, Pit, Position, Rng};

/// Draws a candidate uniformly and plays it on a copy; under `endless = forbid` an endless
/// candidate (R9) is struck out and another drawn. This is uniform over the legal moves and
/// costs one simulation per move in the common case. None: no legal move (R10).
#[inline]
pub(crate) fn play<O: MoveObserver>(pos: &Position, rng: &mut Rng, obs: &mut O) -> Option<(Pit, Position, MoveSummary)> {
    let forbid = pos.rules().endless == Endless::Forbid;
    let mut candidates = pos.candidates();
    while !candidates.is_empty() {
        let pit = super::pick(candidates, rng);
        let mut after = *pos;
        let summary = after.play_unchecked_observed(pit, obs);
        if forbid && summary.endless {
            candidates.remove(pit);
            continue;
        }
        return Some((pit, after, summary));
    }
    None
}
