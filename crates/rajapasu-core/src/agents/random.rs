//! The random player: uniform over the legal moves.

use crate::engine::{MoveObserver, MoveSummary, Pit, Position, Rng};

/// Draws a candidate uniformly and plays it in place; an illegal one (endless under
/// `endless = forbid`, R9) leaves the position unchanged and is struck out before the next draw.
/// This is uniform over the legal moves and costs one simulation per move in the common case.
/// None: no legal move (R10), and `pos` is unchanged.
#[inline(always)]
pub(crate) fn play<O: MoveObserver>(pos: &mut Position, rng: &mut Rng, obs: &mut O) -> Option<(Pit, MoveSummary)> {
    let mut candidates = pos.candidates();
    while !candidates.is_empty() {
        let pit = super::pick(candidates, rng);
        if let Some(summary) = pos.play_if_legal_observed(pit, obs) {
            return Some((pit, summary));
        }
        candidates.remove(pit);
    }
    None
}
