//! perft: legal move sequences inside round 1 (docs/rules.md, "Perft"), the move generator's check.

use super::{Pit, Position};

/// Number of legal move sequences of length `depth` from `pos`, inside the round: a sequence
/// that ends the round (R10) before `depth` moves counts nothing.
///
/// ```
/// use rajapasu_core::engine::{perft, Position, Ruleset, Side};
///
/// // The golden counts of the default rules (docs/rules.md, "Perft").
/// let opening = Position::opening(Ruleset::default(), Side::South);
/// let counts: Vec<u64> = (1..=4).map(|depth| perft(&opening, depth)).collect();
/// assert_eq!(counts, [7, 34, 133, 547]);
/// ```
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.legal_moves().len() as u64,
        _ => pos.legal_children().map(|(_, child, _)| perft(&child, depth - 1)).sum(),
    }
}

/// perft of each legal move's subtree (depth ≥ 1).
pub fn perft_divide(pos: &Position, depth: u32) -> Vec<(Pit, u64)> {
    pos.legal_children()
        .map(|(pit, child, _)| (pit, perft(&child, depth.saturating_sub(1))))
        .collect()
}
