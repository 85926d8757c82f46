//! A board in 128 bits, carried beside a position's key through the enumeration
//! (crates/rajapasu-core/src/exact/round/enumerate.rs) so that expanding the position rebuilds it
//! from the board rather than by unranking its key (a search over binomials, a tenth of the
//! enumeration's time on the real board).
//!
//! The board's at most 18 pits (global order, R2) hold at most 127 counters each (the solver's
//! bound, `MAX_COUNTERS`), so each count takes 7 bits: 126 bits in all. The board's first 24
//! bytes, read as three little-endian words ([`Position::board_words`]), are squeezed eight
//! bytes at a time by halving the gaps between counts.

use crate::engine::{Position, Side};

/// Bits of one pit's count.
const BITS: u32 = 7;

/// Eight counts of at most 7 bits, one a byte, as 56 bits.
#[inline(always)]
fn squeeze(x: u64) -> u64 {
    let x = (x & 0x007f_007f_007f_007f) | (x & 0x7f00_7f00_7f00_7f00) >> 1;
    let x = (x & 0x0000_3fff_0000_3fff) | (x & 0x3fff_0000_3fff_0000) >> 2;
    (x & 0x0000_0000_0fff_ffff) | (x & 0x0fff_ffff_0000_0000) >> 4
}

/// The inverse of [`squeeze`].
#[inline(always)]
fn spread(x: u64) -> u64 {
    let x = (x & 0x0000_0000_0fff_ffff) | (x & 0x00ff_ffff_f000_0000) << 4;
    let x = (x & 0x0000_3fff_0000_3fff) | (x & 0x0fff_c000_0fff_c000) << 2;
    (x & 0x007f_007f_007f_007f) | (x & 0x3f80_3f80_3f80_3f80) << 1
}

/// `pos`'s board, 7 bits a pit (global order); the board holds at most 127 counters.
#[inline]
pub(crate) fn pack(pos: &Position) -> u128 {
    debug_assert!(pos.board().iter().all(|&n| n < 1 << BITS));
    pack_words(pos.board_words())
}

/// [`pack`] of a board read as three words ([`Position::board_words`]): a child's board is
/// kept so, and packed only if the child is new.
#[inline]
pub(crate) fn pack_words([w0, w1, w2]: [u64; 3]) -> u128 {
    debug_assert_eq!(w2 >> 16, 0, "at most 18 pits");
    squeeze(w0) as u128 | (squeeze(w1) as u128) << 56 | (squeeze(w2) as u128) << 112
}

/// The position of `template`'s round (rules, open pits, reserves) with the packed `board` and
/// `side` to move (0 South, 1 North).
#[inline]
pub(crate) fn unpack(template: &Position, board: u128, side: usize) -> Position {
    let mask = (1u128 << 56) - 1;
    let mut bytes = [0u8; 24];
    bytes[..8].copy_from_slice(&spread((board & mask) as u64).to_le_bytes());
    bytes[8..16].copy_from_slice(&spread((board >> 56 & mask) as u64).to_le_bytes());
    bytes[16..].copy_from_slice(&spread((board >> 112) as u64).to_le_bytes());
    template.with_board(&bytes[..template.rules().pits()], Side::from_index(side))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{BySide, PitSet, Ruleset, Setup};

    /// The packing written plainly: pit g's count at bits 7g..7g+7.
    fn plain_pack(board: &[u8]) -> u128 {
        board.iter().enumerate().map(|(g, &n)| (n as u128) << (BITS as usize * g)).sum()
    }

    #[test]
    fn packs_as_seven_bits_a_pit_and_unpacks_to_the_same_position() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for p in [2u8, 3, 7, 9] {
            let mut rules = Ruleset::default();
            rules.set("pits_per_row", &p.to_string()).unwrap();
            // As many counters as the solver allows (127) or the rules do (12 a pit).
            let seeds = (127 / (2 * p as u32)).min(12);
            rules.set("seeds_per_pit", &seeds.to_string()).unwrap();
            let pits = 2 * p as usize;
            let total = rules.total_counters();
            let template = Position::opening(rules, Side::South);
            for round in 0..2000 {
                // Counters thrown into the pits at random, or all in one pit (the largest count).
                let mut board = vec![0u8; pits];
                if round == 0 {
                    board[pits - 1] = total as u8;
                } else {
                    for _ in 0..total {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        board[(x % pits as u64) as usize] += 1;
                    }
                }
                let on_board: u32 = board.iter().map(|&n| n as u32).sum();
                let setup = Setup {
                    rules,
                    board: board.clone(),
                    open: BySide::splat(PitSet((1u16 << p) - 1)),
                    reserve: BySide::new(total - on_board, 0),
                    turn: Side::from_index(round % 2),
                };
                let pos = Position::from_setup(setup).unwrap();
                let packed = pack(&pos);
                assert_eq!(packed, plain_pack(&board), "p={p} {board:?}");
                assert_eq!(pack_words(pos.board_words()), packed);
                let back = unpack(&template, packed, round % 2);
                assert_eq!(back.board(), &board[..], "p={p}");
                assert_eq!(back.turn(), pos.turn());
            }
        }
    }
}
