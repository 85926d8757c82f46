//! A level's keys turned back into positions in ascending order ([`Unranker`]): the positions
//! a level's files or rank sets hold are read in rank order, and consecutive ranks share their
//! high bars, so each key continues from the last one's bars rather than searching every bar
//! again from the top ([`Compositions::unrank`] spends a mispredicted search a bar, 18 % of a
//! spilled level's enumeration when measured).

use crate::engine::{Position, Side};
use crate::exact::index::{parts_of_bars, Codec, Key};

/// Turns keys of one level into positions ([`Codec::position`] is one key's); fastest when each
/// key's rank is at least the last one's on the same side (any order is answered correctly).
pub(crate) struct Unranker<'c> {
    codec: &'c Codec,
    level: usize,
    /// The side and rank of the last key, None before the first.
    last: Option<(usize, u64)>,
    /// The last rank's bars: `bars[j]` is the bar of term j (C(bars[j], j + 1)), bars[k-2] the
    /// highest.
    bars: [u8; 18],
    /// `left[j]`: the last rank less the terms of the bars above j (what bar j is chosen from).
    left: [u64; 18],
}

impl Codec {
    /// An [`Unranker`] of level `level`'s keys.
    pub(crate) fn unranker(&self, level: u32) -> Unranker<'_> {
        Unranker { codec: self, level: level as usize, last: None, bars: [0; 18], left: [0; 18] }
    }
}

impl Unranker<'_> {
    /// The position of `key` in this level.
    #[inline]
    pub(crate) fn position(&mut self, key: Key) -> Position {
        let (side, rank) = (key.side(), key.rank());
        let k = self.codec.pits.len();
        let top = self.level + k - 1;
        match self.last {
            Some((s, last)) if s == side && rank >= last => self.advance(rank - last, top),
            _ => self.search_from(k.saturating_sub(1), rank, top),
        }
        self.last = Some((side, rank));
        let mut parts = [0u8; 18];
        parts_of_bars(&self.bars[..k.saturating_sub(1)], top, &mut parts[..k]);
        let mut board = [0u8; 18];
        for (&g, &part) in self.codec.pits.iter().zip(&parts) {
            board[g] = part;
        }
        let template = &self.codec.template;
        template.with_board(&board[..template.rules().pits()], Side::from_index(side))
    }

    /// Moves the bars on to a rank `step` above the last: the high bars stay while the next
    /// term above each would still exceed what is left; the first that moves is searched upward
    /// from where it was, and those below it afresh.
    #[inline]
    fn advance(&mut self, step: u64, top: usize) {
        let k = self.codec.pits.len();
        let comps = &self.codec.comps;
        let mut upper = top;
        for j in (0..k.saturating_sub(1)).rev() {
            let left = self.left[j] + step;
            let mut bar = self.bars[j] as usize;
            if bar + 1 < upper && comps.term(bar + 1, j + 1) <= left {
                bar += 1;
                while bar + 1 < upper && comps.term(bar + 1, j + 1) <= left {
                    bar += 1;
                }
                self.bars[j] = bar as u8;
                self.left[j] = left;
                self.search_from(j, left - comps.term(bar, j + 1), bar);
                return;
            }
            self.left[j] = left;
            upper = bar;
        }
    }

    /// Chooses the bars below `below` afresh for what is left, `left`, under the bar `upper`.
    #[inline]
    fn search_from(&mut self, below: usize, left: u64, upper: usize) {
        self.codec.comps.search_bars(below, left, upper, &mut self.bars, &mut self.left);
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::{BySide, Position, Ruleset, Side};
    use crate::exact::index::{Codec, Key};

    fn codec(pits: u32, holdings: [u32; 2]) -> Codec {
        let mut rules = Ruleset::default();
        rules.set("pits_per_row", &pits.to_string()).unwrap();
        let start = BySide::new(holdings[0], holdings[1]);
        Codec::new(Position::round_start(rules, start, Side::South).0)
    }

    /// Every key of the ranks given, in their order and each side's, is the position whose
    /// rank (`Codec::key`, written apart from unranking) is the key, in the level asked for, and
    /// the one a fresh search gives (`Codec::position`).
    fn check(codec: &Codec, level: u32, ranks: &[u64]) {
        for side in 0..2 {
            let mut unranker = codec.unranker(level);
            for &rank in ranks {
                let key = Key::new(rank, side);
                let (got, want) = (unranker.position(key), codec.position(level, key));
                assert_eq!(got, want, "level {level} rank {rank} side {side}");
                assert_eq!(codec.key(&got), key);
                assert_eq!(got.on_board(), level);
            }
        }
    }

    #[test]
    fn every_rank_of_small_levels_in_order() {
        // Every open pit; one open pit a side; a single open pit in all.
        let mut open = Vec::new();
        for (pits, holdings) in [(3, [21, 21]), (4, [7, 49]), (2, [14, 14]), (2, [7, 6])] {
            let codec = codec(pits, holdings);
            open.push(codec.pits.len());
            for level in 0..=20u32 {
                let count = codec.comps.count(level as usize).unwrap();
                let ranks: Vec<u64> = (0..count.min(20_000)).collect();
                check(&codec, level, &ranks);
            }
        }
        assert_eq!(open, [6, 5, 4, 1]);
    }

    #[test]
    fn sparse_ascending_descending_and_shuffled_ranks_of_the_real_board() {
        let codec = codec(7, [49, 49]);
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for level in [1u32, 13, 26, 49, 98, 127] {
            let count = codec.comps.count(level as usize).unwrap();
            let mut ranks: Vec<u64> = (0..3000)
                .map(|i| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    // Runs of neighbours among far jumps, and both ends.
                    match i % 4 {
                        0 => 0,
                        1 => count - 1,
                        _ => x % count,
                    }
                })
                .collect();
            check(&codec, level, &ranks);
            ranks.sort_unstable();
            let runs: Vec<u64> =
                ranks.iter().flat_map(|&r| (r..count.min(r + 5)).collect::<Vec<_>>()).collect();
            check(&codec, level, &runs);
            ranks.reverse();
            check(&codec, level, &ranks);
        }
    }
}
