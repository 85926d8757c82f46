//! The greedy player: the best immediate net gain, ties at random.

use crate::engine::{Pit, PitSet, Position, Rng};

/// Net gain of a move = the mover's captures minus the opponent's during the move, fours
/// included (R6, R8); when the move leaves the opponent without a legal move, the remainder
/// the mover then collects (R10) counts too.
pub(crate) fn choose(pos: &Position, rng: &mut Rng) -> Option<Pit> {
    let mover = pos.turn();
    let mut best = i32::MIN;
    let mut ties = PitSet::EMPTY;
    for (pit, child, summary) in pos.legal_children() {
        let mut gain = summary.net_gain(mover);
        if !child.has_legal_move() {
            gain += child.on_board() as i32;
        }
        if gain > best {
            best = gain;
            ties = PitSet::EMPTY;
        }
        if gain == best {
            ties.insert(pit);
        }
    }
    (!ties.is_empty()).then(|| super::random::pick(ties, rng))
}
