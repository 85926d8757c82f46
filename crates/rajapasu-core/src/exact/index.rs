//! Compact position indexing: a board of n counters in k open pits is one of the
//! C(n+k-1, k-1) compositions of n into k parts, numbered by its combinatorial rank
//! ([`Compositions`]); the reachable boards of one level and side are a sorted set of ranks,
//! stored as an Elias-Fano-like [`RankSet`] (a bucket table on the high bits, the low bits
//! packed), whose index of a member is the member's slot in the value array. [`Codec`] turns a
//! position into its key within its level and back.

use crate::engine::{Position, Side};

/// Ranks of the compositions of n counters into k open pits (k ≤ 18, n ≤ 127), by the
/// combinatorial number system over the "bars" of stars and bars.
#[derive(Clone, Debug)]
pub struct Compositions {
    k: usize,
    /// `binom[b][a]` = C(a, b) for b < 18, saturating at u64::MAX: a row per term's lower
    /// index, so that ranking (57.5 million children on the real board's round 1) and the
    /// searches of unranking read one contiguous row a bar.
    binom: Box<[[u64; BINOM_ROW]; 18]>,
}

/// Entries of a row of binomials: a bar is below 127 + 18, and a power of two lets a masked
/// index go unchecked.
const BINOM_ROW: usize = 256;

impl Compositions {
    pub fn new(k: usize) -> Compositions {
        assert!((1..=18).contains(&k), "1..=18 open pits");
        let mut binom = Box::new([[0u64; BINOM_ROW]; 18]);
        for a in 0..BINOM_ROW {
            binom[0][a] = 1;
            for b in 1..18.min(a + 1) {
                let below = if b < a { binom[b][a - 1] } else { 0 };
                binom[b][a] = binom[b - 1][a - 1].saturating_add(below);
            }
        }
        Compositions { k, binom }
    }

    /// Number of compositions of n into k parts, None if it does not fit 63 bits.
    pub fn count(&self, n: usize) -> Option<u64> {
        let c = self.binom[self.k - 1][n + self.k - 1];
        (c < 1 << 63).then_some(c)
    }

    /// C(a, b): a rank's term for a bar at `a` (b ≤ 17).
    #[inline]
    pub(crate) fn term(&self, a: usize, b: usize) -> u64 {
        self.binom[b][a % BINOM_ROW]
    }

    /// The rank of `parts` (k counts summing to n) among the compositions of n.
    #[inline]
    pub fn rank(&self, parts: &[u8]) -> u64 {
        debug_assert_eq!(parts.len(), self.k);
        self.rank_of(parts[..self.k - 1].iter().copied())
    }

    /// The rank of a composition from its first k - 1 parts (the last is what is left).
    #[inline]
    fn rank_of(&self, parts: impl Iterator<Item = u8>) -> u64 {
        let mut rank = 0;
        let mut bar = 0usize;
        for (j, (c, row)) in parts.zip(&self.binom[1..]).enumerate() {
            bar += c as usize;
            debug_assert!(bar + j < BINOM_ROW, "at most 127 counters");
            rank += row[(bar + j) % BINOM_ROW];
        }
        rank
    }

    /// The composition of n with rank `rank`, into `parts` (k counts).
    #[inline]
    pub fn unrank(&self, n: usize, rank: u64, parts: &mut [u8]) {
        debug_assert_eq!(parts.len(), self.k);
        let (mut bars, mut lefts) = ([0u8; 18], [0u64; 18]);
        let top = n + self.k - 1;
        self.search_bars(self.k - 1, rank, top, &mut bars, &mut lefts);
        parts_of_bars(&bars[..self.k - 1], top, parts);
    }

    /// Chooses the bars j = `below` - 1 down to 0 for what is left of a rank, `left`, under
    /// the bar `upper`: each the largest below the one above whose term C(bar, j + 1) fits.
    /// `lefts[j]` keeps what bar j was chosen from.
    #[inline]
    pub(crate) fn search_bars(
        &self,
        below: usize,
        mut left: u64,
        mut upper: usize,
        bars: &mut [u8; 18],
        lefts: &mut [u64; 18],
    ) {
        for j in (0..below).rev() {
            let row = &self.binom[j + 1];
            let mut bar = upper - 1;
            while row[bar % BINOM_ROW] > left {
                bar -= 1;
            }
            bars[j] = bar as u8;
            lefts[j] = left;
            left -= row[bar % BINOM_ROW];
            upper = bar;
        }
    }
}

/// The parts of a composition from its bars (`bars[j]` the bar of term j, the highest last)
/// under the top bar `top` (n + k - 1).
#[inline]
pub(crate) fn parts_of_bars(bars: &[u8], top: usize, parts: &mut [u8]) {
    let mut upper = top;
    for (j, &bar) in bars.iter().enumerate().rev() {
        parts[j + 1] = (upper - bar as usize - 1) as u8;
        upper = bar as usize;
    }
    parts[0] = upper as u8;
}

/// A sorted set of distinct ranks below a universe size, about `log2(universe/len) + 2` bits
/// per member; [`RankSet::index`] gives a member's position in sorted order.
#[derive(Clone, Debug, Default)]
pub struct RankSet {
    len: usize,
    /// Members with high part h are at positions bucket[h]..bucket[h+1].
    bucket: Vec<u32>,
    /// Bits of a member below its high part.
    low_bits: u32,
    /// The low parts, `low_bits` each, packed into words.
    lows: Vec<u64>,
}

/// Members per bucket on average: few enough for a short search, enough to make the bucket
/// table small (32 bits per 16 members).
const PER_BUCKET: usize = 16;

impl RankSet {
    /// Builds the set from sorted distinct `ranks`, all below `universe`.
    pub fn new(ranks: &[u64], universe: u64) -> RankSet {
        debug_assert!(ranks.windows(2).all(|w| w[0] < w[1]));
        debug_assert!(ranks.last().is_none_or(|&r| r < universe));
        let mut shape = RankSetShape::new(ranks.len(), universe);
        for &r in ranks {
            shape.count(r);
        }
        shape.finish_counts();
        let low_bits = shape.low_bits;
        let mut lows = vec![0u64; shape.lows_words()];
        for (i, &r) in ranks.iter().enumerate() {
            put_bits(&mut lows, i * low_bits as usize, low_bits, r & low_mask(low_bits));
        }
        RankSet { len: ranks.len(), bucket: shape.bucket, low_bits, lows }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The position of `rank` in the set, None if it is not a member.
    #[inline]
    pub fn index(&self, rank: u64) -> Option<usize> {
        self.view().index(rank)
    }

    /// The set as borrowed parts, the form a level file maps from disk.
    pub(crate) fn view(&self) -> RankSetRef<'_> {
        RankSetRef {
            len: self.len,
            bucket: &self.bucket,
            low_bits: self.low_bits,
            lows: &self.lows,
        }
    }

    /// The member at position `i` (sorted order).
    pub fn get(&self, i: usize) -> u64 {
        self.view().get(i)
    }

    /// The members at positions `start..end`, in increasing order.
    pub fn range(&self, start: usize, end: usize) -> impl Iterator<Item = u64> + '_ {
        self.view().range(start, end)
    }

    /// Every member in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.view().range(0, self.len)
    }

    /// Bytes of memory the set holds.
    pub fn bytes(&self) -> usize {
        self.bucket.len() * 4 + self.lows.len() * 8
    }
}

/// The shape of a [`RankSet`] of `len` members below a universe, fixed before its members are
/// seen: the bits of a member below its bucket and the bucket table, counted member by member.
/// With [`LowsPacker`] it writes a set too large for memory as its members stream by, to the
/// same words as [`RankSet::new`].
#[derive(Clone, Debug)]
pub(crate) struct RankSetShape {
    pub len: usize,
    pub low_bits: u32,
    /// Counts by high part (shifted by one) until [`RankSetShape::finish_counts`], then starts.
    pub bucket: Vec<u32>,
}

impl RankSetShape {
    pub(crate) fn new(len: usize, universe: u64) -> RankSetShape {
        assert!(len < u32::MAX as usize, "a level holds fewer than 2^32 positions");
        let universe_bits = 64 - universe.saturating_sub(1).leading_zeros();
        let high_bits = (len / PER_BUCKET).max(1).ilog2().min(universe_bits);
        RankSetShape {
            len,
            low_bits: universe_bits - high_bits,
            bucket: vec![0u32; (1usize << high_bits) + 1],
        }
    }

    #[inline]
    pub(crate) fn count(&mut self, rank: u64) {
        self.bucket[(rank >> self.low_bits) as usize + 1] += 1;
    }

    pub(crate) fn finish_counts(&mut self) {
        for h in 0..self.bucket.len() - 1 {
            self.bucket[h + 1] += self.bucket[h];
        }
    }

    /// Words of packed low parts, with the spare word the reader may touch.
    pub(crate) fn lows_words(&self) -> usize {
        (self.len * self.low_bits as usize).div_ceil(64) + 1
    }
}

/// Packs the low parts of members in order into words, each word handed out once full.
pub(crate) struct LowsPacker {
    bits: u32,
    word: u64,
    at: u32,
    pub words: Vec<u64>,
}

impl LowsPacker {
    pub(crate) fn new(low_bits: u32) -> LowsPacker {
        LowsPacker { bits: low_bits, word: 0, at: 0, words: Vec::new() }
    }

    #[inline]
    pub(crate) fn push(&mut self, rank: u64) {
        if self.bits == 0 {
            return;
        }
        let v = rank & low_mask(self.bits);
        self.word |= v << self.at;
        let end = self.at + self.bits;
        if end >= 64 {
            self.words.push(self.word);
            self.word = if end > 64 { v >> (64 - self.at) } else { 0 };
            self.at = end - 64;
        } else {
            self.at = end;
        }
    }

    /// The last words: the partial one, then zeros up to `total` words in all (`written` so far).
    pub(crate) fn finish(&mut self, written: usize, total: usize) {
        if self.at > 0 {
            self.words.push(self.word);
            self.word = 0;
            self.at = 0;
        }
        while written + self.words.len() < total {
            self.words.push(0);
        }
    }
}

/// A [`RankSet`] whose parts are borrowed (from memory or a mapped level file).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RankSetRef<'a> {
    len: usize,
    bucket: &'a [u32],
    low_bits: u32,
    lows: &'a [u64],
}

impl<'a> RankSetRef<'a> {
    /// Parts read from an untrusted file, checked so that no lookup can index out of bounds:
    /// the bucket table starts at 0, never decreases, ends at `len`, and the lows hold `len`
    /// members of `low_bits` (plus the spare word the writer adds).
    pub(crate) fn from_parts(
        len: usize,
        bucket: &'a [u32],
        low_bits: u32,
        lows: &'a [u64],
    ) -> Result<RankSetRef<'a>, String> {
        if low_bits > 63 {
            return Err(format!("{low_bits} low bits a member; at most 63"));
        }
        if bucket.len() < 2 || !bucket.len().saturating_sub(1).is_power_of_two() {
            return Err(format!(
                "a bucket table of {} entries; expected a power of two plus one",
                bucket.len()
            ));
        }
        if bucket[0] != 0
            || bucket[bucket.len() - 1] as usize != len
            || bucket.windows(2).any(|w| w[0] > w[1])
        {
            return Err(format!("the bucket table is not a count of {len} members"));
        }
        if lows.len() != (len * low_bits as usize).div_ceil(64) + 1 {
            return Err(format!(
                "{} words of low bits; {len} members of {low_bits} bits need {}",
                lows.len(),
                (len * low_bits as usize).div_ceil(64) + 1
            ));
        }
        Ok(RankSetRef { len, bucket, low_bits, lows })
    }

    /// Parts already checked by [`RankSetRef::from_parts`].
    pub(crate) fn from_checked_parts(
        len: usize,
        bucket: &'a [u32],
        low_bits: u32,
        lows: &'a [u64],
    ) -> RankSetRef<'a> {
        RankSetRef { len, bucket, low_bits, lows }
    }

    /// The parts: members, bucket table, low bits a member, packed lows.
    #[cfg(test)]
    pub(crate) fn parts(&self) -> (usize, &'a [u32], u32, &'a [u64]) {
        (self.len, self.bucket, self.low_bits, self.lows)
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The position of `rank` in the set, None if it is not a member.
    #[inline]
    pub(crate) fn index(&self, rank: u64) -> Option<usize> {
        let h = (rank >> self.low_bits) as usize;
        if h + 1 >= self.bucket.len() {
            return None;
        }
        let low = rank & low_mask(self.low_bits);
        let (mut lo, mut hi) = (self.bucket[h] as usize, self.bucket[h + 1] as usize);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.low(mid).cmp(&low) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// The member at position `i` (sorted order).
    pub(crate) fn get(&self, i: usize) -> u64 {
        let h = self.bucket.partition_point(|&start| start as usize <= i) - 1;
        (h as u64) << self.low_bits | self.low(i)
    }

    /// The members at positions `start..end`, in increasing order.
    pub(crate) fn range(&self, start: usize, end: usize) -> impl Iterator<Item = u64> + 'a {
        let this = *self;
        let mut h = this.bucket.partition_point(|&b| b as usize <= start).saturating_sub(1);
        (start..end).map(move |i| {
            while this.bucket[h + 1] as usize <= i {
                h += 1;
            }
            (h as u64) << this.low_bits | this.low(i)
        })
    }

    #[inline]
    fn low(&self, i: usize) -> u64 {
        get_bits(self.lows, i * self.low_bits as usize, self.low_bits)
    }
}

#[inline]
fn low_mask(bits: u32) -> u64 {
    if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

fn put_bits(words: &mut [u64], at: usize, bits: u32, value: u64) {
    if bits == 0 {
        return;
    }
    let (w, s) = (at / 64, (at % 64) as u32);
    words[w] |= value << s;
    if s + bits > 64 {
        words[w + 1] |= value >> (64 - s);
    }
}

#[inline]
fn get_bits(words: &[u64], at: usize, bits: u32) -> u64 {
    if bits == 0 {
        return 0;
    }
    let (w, s) = (at / 64, (at % 64) as u32);
    let mut v = words[w] >> s;
    if s + bits > 64 {
        v |= words[w + 1] << (64 - s);
    }
    v & low_mask(bits)
}

/// A position within its level: the composition rank of its board and the side to move. Its
/// word (`rank << 1 | side`) is what the enumeration hashes and pending files hold;
/// [`Key::ordered`] sorts as a level's positions are kept (South to move first, each side by rank).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Key(u64);

impl Key {
    #[inline]
    pub(crate) fn new(rank: u64, side: usize) -> Key {
        Key(rank << 1 | side as u64)
    }
    #[inline]
    pub(crate) fn rank(self) -> u64 {
        self.0 >> 1
    }
    /// 0 South to move, 1 North.
    #[inline]
    pub(crate) fn side(self) -> usize {
        (self.0 & 1) as usize
    }
    #[inline]
    pub(crate) fn word(self) -> u64 {
        self.0
    }
    #[inline]
    pub(crate) fn from_word(word: u64) -> Key {
        Key(word)
    }
    /// The key as a word that sorts in a level's order: the side above the rank.
    #[inline]
    pub(crate) fn ordered(self) -> u64 {
        (self.0 & 1) << 63 | self.0 >> 1
    }
    #[inline]
    pub(crate) fn from_ordered(word: u64) -> Key {
        Key((word & (u64::MAX >> 1)) << 1 | word >> 63)
    }
}

/// The positions of one set of open pits as keys within their level: the composition rank of the
/// open pits' counters, shifted, with the side to move below it (key = rank << 1 | side).
pub(crate) struct Codec {
    pub template: Position,
    /// Global indices of the open pits, in order.
    pub pits: Vec<usize>,
    pub comps: Compositions,
}

impl Codec {
    pub fn new(template: Position) -> Codec {
        let p = template.rules().pits_per_row;
        let pits: Vec<usize> = Side::ALL
            .iter()
            .flat_map(|&s| template.open()[s].iter().map(move |pit| pit.global(s, p)))
            .collect();
        let comps = Compositions::new(pits.len());
        Codec { template, pits, comps }
    }

    #[inline]
    pub fn key(&self, pos: &Position) -> Key {
        // Compositions::rank, with the open pits' counts read in place.
        let board = pos.board();
        let k = self.pits.len();
        let rank = self.comps.rank_of(self.pits[..k - 1].iter().map(|&g| board[g]));
        Key::new(rank, pos.turn().index())
    }

    /// The position of `key` in level `level` (one key: an [`Codec::unranker`] is faster for
    /// many in ascending order).
    #[inline]
    pub fn position(&self, level: u32, key: Key) -> Position {
        self.unranker(level).position(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_number_every_composition_once_in_order() {
        for k in 1..=5 {
            let c = Compositions::new(k);
            for n in 0..=7usize {
                let count = c.count(n).unwrap();
                let mut parts = vec![0u8; k];
                let mut seen = vec![false; count as usize];
                // Every composition of n into k parts, by brute force.
                let mut all = Vec::new();
                let mut stack = vec![(Vec::<u8>::new(), n)];
                while let Some((prefix, left)) = stack.pop() {
                    if prefix.len() == k - 1 {
                        let mut p = prefix.clone();
                        p.push(left as u8);
                        all.push(p);
                        continue;
                    }
                    for x in 0..=left {
                        let mut p = prefix.clone();
                        p.push(x as u8);
                        stack.push((p, left - x));
                    }
                }
                assert_eq!(all.len() as u64, count, "k={k} n={n}");
                for p in all {
                    let r = c.rank(&p);
                    assert!(r < count && !seen[r as usize], "k={k} n={n} {p:?}");
                    seen[r as usize] = true;
                    c.unrank(n, r, &mut parts);
                    assert_eq!(parts, p);
                }
            }
        }
        // The real board: 14 pits, 98 counters, fits 63 bits.
        assert!(Compositions::new(14).count(98).is_some());
    }

    #[test]
    fn a_positions_key_is_the_rank_of_its_open_pits_counts() {
        use crate::engine::{BySide, Ruleset};
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        // The real board with every pit open, and boards with closed pits (fewer holdings).
        for (p, holdings) in [(7u32, [49u32, 49]), (7, [21, 35]), (9, [14, 56]), (2, [7, 14])] {
            let mut rules = Ruleset::default();
            rules.set("pits_per_row", &p.to_string()).unwrap();
            let template =
                Position::round_start(rules, BySide::new(holdings[0], holdings[1]), Side::South).0;
            let codec = Codec::new(template);
            let k = codec.pits.len();
            for round in 0..500 {
                // Up to 127 counters thrown into the open pits (all in the last one first).
                let total = if round == 0 { 127 } else { (x >> 33) as usize % 128 };
                let mut board = vec![0u8; template.rules().pits()];
                for _ in 0..total {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let i = if round == 0 { k - 1 } else { (x % k as u64) as usize };
                    board[codec.pits[i]] += 1;
                }
                let parts: Vec<u8> = codec.pits.iter().map(|&g| board[g]).collect();
                let side = Side::from_index(round % 2);
                let pos = template.with_board(&board, side);
                let key = codec.key(&pos);
                assert_eq!((key.rank(), key.side()), (codec.comps.rank(&parts), round % 2));
                assert_eq!(codec.position(total as u32, key).board(), &board[..], "p={p}");
            }
        }
    }

    #[test]
    fn keys_keep_rank_and_side_and_order_south_first() {
        for (rank, side) in [
            (0u64, 0usize),
            (0, 1),
            (1, 0),
            (12345, 1),
            ((u64::MAX >> 2) - 1, 0),
            (u64::MAX >> 2, 1),
        ] {
            let key = Key::new(rank, side);
            assert_eq!((key.rank(), key.side()), (rank, side));
            assert_eq!(Key::from_word(key.word()), key);
            assert_eq!(Key::from_ordered(key.ordered()), key);
        }
        assert!(Key::new(7, 0).ordered() < Key::new(1, 1).ordered());
        assert!(Key::new(1, 1).ordered() < Key::new(2, 1).ordered());
    }

    #[test]
    fn rank_set_finds_members_and_only_them() {
        let mut x = 12345u64;
        for (len, universe) in [
            (0usize, 10u64),
            (1, 1),
            (5, 100),
            (1000, 1 << 40),
            (5000, 6000),
            (3000, u64::MAX >> 1),
        ] {
            let mut ranks: Vec<u64> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x % universe
                })
                .collect();
            ranks.sort_unstable();
            ranks.dedup();
            let set = RankSet::new(&ranks, universe);
            assert_eq!(set.len(), ranks.len());
            assert_eq!(set.iter().collect::<Vec<_>>(), ranks);
            assert_eq!(set.range(0, ranks.len()).collect::<Vec<_>>(), ranks);
            for (i, &r) in ranks.iter().enumerate() {
                assert_eq!(set.index(r), Some(i));
                assert_eq!(set.get(i), r);
                assert_eq!(set.range(i, ranks.len()).next(), Some(r));
                if r + 1 < universe && ranks.get(i + 1) != Some(&(r + 1)) {
                    assert_eq!(set.index(r + 1), None);
                }
            }
        }
    }
}
