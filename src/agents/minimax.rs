//! The minimax player: alpha-beta (negamax) on the capture difference within the round.

use crate::engine::{Pit, PitSet, Position, Rng};

/// Value of `pos` for the side to move: its captures minus the opponent's over the next `depth`
/// plies of the round. A position without a legal move ends the round (R10): the opponent
/// collects the remainder. Fail-hard alpha-beta over the window (alpha, beta).
fn negamax(pos: &Position, depth: u32, mut alpha: i32, beta: i32) -> i32 {
    if depth == 0 {
        return if pos.has_legal_move() { 0 } else { -(pos.on_board() as i32) };
    }
    let mover = pos.turn();
    let mut best = i32::MIN;
    for (_, child, summary) in pos.legal_children() {
        let gain = summary.net_gain(mover);
        // v = gain - x, so v in (alpha, beta) iff x in (gain - beta, gain - alpha).
        let v = gain - negamax(&child, depth - 1, gain.saturating_sub(beta), gain.saturating_sub(alpha));
        best = best.max(v);
        alpha = alpha.max(v);
        if alpha >= beta {
            break;
        }
    }
    if best == i32::MIN {
        -(pos.on_board() as i32)
    } else {
        best
    }
}

/// The root searches each move with alpha one below the best so far, so every move that ties
/// the best gets an exact value; the choice among them is random.
pub(crate) fn choose(pos: &Position, depth: u32, rng: &mut Rng) -> Option<Pit> {
    let mover = pos.turn();
    let mut best = i32::MIN;
    let mut ties = PitSet::EMPTY;
    const INF: i32 = 1 << 20;
    for (pit, child, summary) in pos.legal_children() {
        let gain = summary.net_gain(mover);
        let alpha = if best == i32::MIN { -INF } else { best - 1 };
        let v = gain - negamax(&child, depth - 1, gain - INF, gain - alpha);
        if v > best {
            best = v;
            ties = PitSet::EMPTY;
        }
        if v == best {
            ties.insert(pit);
        }
    }
    (!ties.is_empty()).then(|| super::pick(ties, rng))
}

/// Plain minimax without pruning, for tests.
#[cfg(test)]
pub(crate) fn minimax_value(pos: &Position, depth: u32) -> i32 {
    if depth == 0 {
        return if pos.has_legal_move() { 0 } else { -(pos.on_board() as i32) };
    }
    let mover = pos.turn();
    pos.legal_children().map(|(_, child, s)| s.net_gain(mover) - minimax_value(&child, depth - 1)).max().unwrap_or(-(pos.on_board() as i32))
}

#[cfg(test)]
pub(crate) fn root_values(pos: &Position, depth: u32) -> Vec<(Pit, i32)> {
    let mover = pos.turn();
    pos.legal_children().map(|(pit, child, s)| (pit, s.net_gain(mover) - minimax_value(&child, depth - 1))).collect()
}
