//! A dense level's positions as a bitmap over their ids (side x boards + rank): the
//! enumeration's duplicate check for the levels whose boards are few enough
//! (crates/rajapasu-core/src/exact/enumerate.rs), and, once the level is finished, the map from
//! an id to its node (the number of ids below it), which is the solver's order of the level:
//! South to move first, each side by rank.
//!
//! Setting a bit replaces a hash table's lookup (a miss on a table of hundreds of megabytes,
//! and the pages of its slots cleared by the kernel), and numbering by a popcount replaces the
//! renumbering's sort by rank.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use rayon::prelude::*;

use crate::exact::index::Key;
use crate::exact::prefetch::prefetch;

/// Words of a cache line.
const BLOCK_WORDS: usize = 8;
/// Words of the bitmap a parallel task counts or lists.
const TASK_WORDS: usize = 1 << 14;

/// `values` for threads that each write their own elements (a permutation's scatter), so
/// that what is written does not depend on the threads.
pub(crate) fn shared_u32s(values: &mut [u32]) -> &[AtomicU32] {
    const { assert!(std::mem::align_of::<AtomicU32>() == std::mem::align_of::<u32>()) };
    // SAFETY: `AtomicU32` has the size and bit validity of `u32` and (asserted above) its
    // alignment; the exclusive borrow lasts as long as the shared atomic view.
    unsafe { &*(values as *mut [u32] as *const [AtomicU32]) }
}

/// Words `vec![0; words + BLOCK_WORDS - 1]` and where in it the bitmap starts: at a cache
/// line, so that a rank reads one line of the bitmap.
fn aligned_zeroed(words: usize) -> (Vec<u64>, usize) {
    let v = vec![0u64; words + BLOCK_WORDS - 1];
    let start = v.as_ptr().align_offset(BLOCK_WORDS * 8).min(BLOCK_WORDS - 1);
    (v, start)
}

/// The id of `key` in a level of `boards` boards a side: South's ranks first, then North's.
#[inline]
pub(crate) fn id_of(key: u64, boards: u64) -> u64 {
    let key = Key::from_word(key);
    key.side() as u64 * boards + key.rank()
}

/// A level's bitmap while it is filled: one bit an id, allocated zeroed when first needed.
pub(crate) struct LevelBits {
    pub boards: u64,
    words: Vec<u64>,
    /// The bitmap is `words[start..]`.
    start: usize,
}

impl LevelBits {
    pub(crate) fn new(boards: u64) -> LevelBits {
        LevelBits { boards, words: Vec::new(), start: 0 }
    }

    pub(crate) fn bytes(&self) -> u64 {
        self.words.capacity() as u64 * 8
    }

    /// Bytes [`Self::open`] would allocate: the bitmap's, if not yet allocated.
    pub(crate) fn opening_bytes(&self) -> u64 {
        if self.words.is_empty() {
            ((2 * self.boards).div_ceil(64) + BLOCK_WORDS as u64 - 1) * 8
        } else {
            0
        }
    }

    /// Allocates the bitmap (zeroed: its pages are cleared as they are first touched).
    pub(crate) fn open(&mut self) {
        if self.words.is_empty() {
            (self.words, self.start) = aligned_zeroed((2 * self.boards).div_ceil(64) as usize);
        }
    }

    /// The bitmap, for threads that each set the bits of their own ids.
    pub(crate) fn shared(&mut self) -> SharedBits<'_> {
        const { assert!(std::mem::align_of::<AtomicU64>() == std::mem::align_of::<u64>()) };
        let words: &mut [u64] = &mut self.words[self.start..];
        // SAFETY: `AtomicU64` has the size and bit validity of `u64` and (asserted above) its
        // alignment; the exclusive borrow lasts as long as the shared atomic view.
        let words = unsafe { &*(words as *mut [u64] as *const [AtomicU64]) };
        SharedBits { boards: self.boards, words }
    }

    /// The finished bitmap as a rank table.
    pub(crate) fn finish(self) -> RankBitmap {
        RankBitmap::new(self.words, self.start, self.boards)
    }
}

/// A level's bitmap set from several threads.
#[derive(Clone, Copy)]
pub(crate) struct SharedBits<'a> {
    pub boards: u64,
    words: &'a [AtomicU64],
}

impl SharedBits<'_> {
    /// Sets the bit of `id`; true if it was not set.
    #[inline]
    pub(crate) fn insert(&self, id: u64) -> bool {
        let word = &self.words[(id / 64) as usize];
        let bit = 1u64 << (id % 64);
        // Most children are found again: a plain read spares them the locked write.
        word.load(Ordering::Relaxed) & bit == 0 && word.fetch_or(bit, Ordering::Relaxed) & bit == 0
    }

    #[inline]
    pub(crate) fn prefetch(&self, id: u64) {
        if let Some(word) = self.words.get((id / 64) as usize) {
            prefetch(word);
        }
    }
}

/// A finished level's ids: a bitmap and, for each word, the ids set before it (a count a
/// word rather than a block of words: the solver ranks every move's child, and a rank is
/// then a popcount of one word).
#[derive(Default)]
pub(crate) struct RankBitmap {
    pub boards: u64,
    /// The bitmap is `words[start..]`, from a cache line.
    words: Vec<u64>,
    start: usize,
    before: Vec<u32>,
    len: usize,
}

impl RankBitmap {
    /// The counts a word are made on both cores (a task's words counted, then its counts
    /// written from the tasks before), so that their fresh pages are cleared on both.
    fn new(words: Vec<u64>, start: usize, boards: u64) -> RankBitmap {
        // The bitmap's own words, not the alignment's spare ones after them: how many those are
        // depends on the address the allocator gave, and the counts' bytes must not.
        let bitmap_words = (2 * boards).div_ceil(64) as usize;
        let bits = words.get(start..).unwrap_or_default();
        let bits = &bits[..bitmap_words.min(bits.len())];
        let sums: Vec<u64> = bits
            .par_chunks(TASK_WORDS)
            .map(|task| task.iter().map(|w| w.count_ones() as u64).sum())
            .collect();
        let mut firsts = Vec::with_capacity(sums.len());
        let mut count = 0u64;
        for sum in sums {
            firsts.push(count);
            count += sum;
        }
        u32::try_from(count).expect("a level's positions fit 32 bits");
        let mut before = vec![0u32; bits.len()];
        before.par_chunks_mut(TASK_WORDS).zip(bits.par_chunks(TASK_WORDS)).zip(firsts).for_each(
            |((out, task), first)| {
                let mut count = first as u32;
                for (o, word) in out.iter_mut().zip(task) {
                    *o = count;
                    count += word.count_ones();
                }
            },
        );
        RankBitmap { boards, words, start, before, len: count as usize }
    }

    #[inline]
    fn bits(&self) -> &[u64] {
        &self.words[self.start..][..self.before.len()]
    }

    /// Ids set.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The ids set below `id` (the node of `id` when it is set).
    #[inline]
    pub(crate) fn rank(&self, id: u64) -> usize {
        let w = (id / 64) as usize;
        let part = (self.bits()[w] & ((1u64 << (id % 64)) - 1)).count_ones();
        (self.before[w] + part) as usize
    }

    #[inline]
    pub(crate) fn prefetch(&self, id: u64) {
        let w = (id / 64) as usize;
        prefetch(&self.before[w]);
        prefetch(&self.bits()[w]);
    }

    /// The ids set, in increasing order.
    #[cfg(test)]
    pub(crate) fn ids(&self) -> impl Iterator<Item = u64> + '_ {
        self.bits().iter().enumerate().flat_map(|(w, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let bit = rest.trailing_zeros() as u64;
                    rest &= rest - 1;
                    w as u64 * 64 + bit
                })
            })
        })
    }

    /// Replaces `out` with the ids set, in increasing order, listed on both cores.
    pub(crate) fn ids_into(&self, out: &mut Vec<u64>) {
        out.clear();
        out.par_extend(self.bits().par_chunks(TASK_WORDS).enumerate().flat_map_iter(
            |(task, words)| {
                let first = (task * TASK_WORDS) as u64 * 64;
                words.iter().enumerate().flat_map(move |(w, &word)| {
                    let mut rest = word;
                    std::iter::from_fn(move || {
                        (rest != 0).then(|| {
                            let bit = rest.trailing_zeros() as u64;
                            rest &= rest - 1;
                            first + w as u64 * 64 + bit
                        })
                    })
                })
            },
        ));
    }

    pub(crate) fn bytes(&self) -> u64 {
        self.words.capacity() as u64 * 8 + self.before.capacity() as u64 * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn xorshift(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    #[test]
    fn ranks_count_the_ids_below_as_a_plain_count_does() {
        for (boards, wanted) in [(1u64, 1usize), (37, 20), (700, 5), (5_000, 4_000), (20_000, 900)]
        {
            let mut bits = LevelBits::new(boards);
            bits.open();
            let mut x = 0x9e37_79b9_7f4a_7c15 ^ boards;
            let mut set = BTreeSet::new();
            let shared = bits.shared();
            for _ in 0..wanted {
                let id = xorshift(&mut x) % (2 * boards);
                assert_eq!(shared.insert(id), set.insert(id), "id {id} new once");
            }
            let table = bits.finish();
            assert_eq!(table.len(), set.len());
            assert_eq!(table.ids().collect::<Vec<_>>(), set.iter().copied().collect::<Vec<_>>());
            let mut listed = vec![7u64];
            table.ids_into(&mut listed);
            assert_eq!(listed, set.iter().copied().collect::<Vec<_>>(), "ids listed in parallel");
            for id in 0..2 * boards {
                assert_eq!(table.rank(id), set.range(..id).count(), "rank of {id} of {boards}");
            }
        }
    }

    /// A rank table's bytes are the same wherever the allocator put its bitmap: a solve's
    /// memory figures must not depend on the addresses it was given.
    #[test]
    fn a_rank_tables_bytes_and_ranks_do_not_depend_on_where_its_bitmap_starts() {
        let boards = 1_000u64;
        let words = (2 * boards).div_ceil(64) as usize;
        let tables: Vec<RankBitmap> = (0..BLOCK_WORDS)
            .map(|start| {
                let mut v = vec![0u64; words + BLOCK_WORDS - 1];
                for id in (0..2 * boards).step_by(7) {
                    v[start + (id / 64) as usize] |= 1 << (id % 64);
                }
                RankBitmap::new(v, start, boards)
            })
            .collect();
        for t in &tables {
            assert_eq!(t.bytes(), tables[0].bytes(), "bytes starting at word {}", t.start);
            assert_eq!(t.len(), (2 * boards).div_ceil(7) as usize);
            assert_eq!(t.rank(2 * boards - 1), tables[0].rank(2 * boards - 1));
            assert_eq!(t.ids().collect::<Vec<_>>(), tables[0].ids().collect::<Vec<_>>());
        }
    }

    #[test]
    fn counts_and_ids_spanning_several_tasks_match_a_sorted_list() {
        // Three tasks' words and more, ids dense in places and sparse in others.
        let boards = 2 * TASK_WORDS as u64 * 64;
        let mut bits = LevelBits::new(boards);
        bits.open();
        let shared = bits.shared();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut set = BTreeSet::new();
        for i in 0..300_000u64 {
            let id = if i % 3 == 0 { i % 70_000 } else { xorshift(&mut x) % (2 * boards) };
            shared.insert(id);
            set.insert(id);
        }
        let table = bits.finish();
        let sorted: Vec<u64> = set.iter().copied().collect();
        let mut listed = Vec::new();
        table.ids_into(&mut listed);
        assert_eq!(listed, sorted);
        assert_eq!(table.len(), sorted.len());
        for _ in 0..20_000 {
            let id = xorshift(&mut x) % (2 * boards);
            assert_eq!(table.rank(id), sorted.partition_point(|&s| s < id), "rank of {id}");
        }
        for (node, &id) in sorted.iter().enumerate().step_by(97) {
            assert_eq!(table.rank(id), node, "node of {id}");
        }
    }

    #[test]
    fn ids_order_south_first_then_by_rank() {
        let boards = 1_000;
        let keys = [Key::new(999, 0), Key::new(0, 1), Key::new(3, 0), Key::new(999, 1)];
        let ids: Vec<u64> = keys.iter().map(|k| id_of(k.word(), boards)).collect();
        assert_eq!(ids, [999, 1_000, 3, 1_999]);
        let ordered: Vec<u64> = keys.iter().map(|k| k.ordered()).collect();
        for (i, j) in [(0usize, 1usize), (2, 0), (1, 3)] {
            assert_eq!(ids[i] < ids[j], ordered[i] < ordered[j], "keys {i} and {j}");
        }
    }
}
