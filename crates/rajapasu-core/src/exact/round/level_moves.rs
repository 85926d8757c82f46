//! The moves the enumeration (crates/rajapasu-core/src/exact/round/enumerate.rs) records for the
//! solver (solver.rs): kept a block a wave while a level is expanded, then laid out in the
//! solver's order of the level's positions, so that the solver reads them in one sweep.
//!
//! Blocks rather than one growing array: on a doubling array every move was copied again and
//! its new pages faulted in and cleared by the kernel (the commands bounded by `--max-memory`
//! hand freed pages back at once, src/main.rs), and the solver read each node's moves through
//! two lookups in the order of expansion. The blocks are kept for the next level.

use rayon::prelude::*;

use crate::exact::index::RankSet;
use crate::exact::prefetch::prefetch;
use crate::exact::round::rank_bitmap::RankBitmap;

/// A recorded move: the child's number in its level, its level, the mover's net captures and
/// the local pit played, packed into one word. Once its level is finished, a move within the level names the child's
/// node instead (its place in the solver's order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Move(u64);

impl Move {
    pub(crate) fn new(number: u32, level: u8, gain: i8, pit: u8) -> Move {
        Move(number as u64 | (level as u64) << 32 | (gain as u8 as u64) << 40 | (pit as u64) << 48)
    }
    /// The child's number in its level (as found), or its node when the child is in the
    /// mover's own level.
    pub(crate) fn number(self) -> usize {
        self.0 as u32 as usize
    }
    pub(crate) fn level(self) -> usize {
        (self.0 >> 32) as u8 as usize
    }
    pub(crate) fn gain(self) -> i32 {
        (self.0 >> 40) as u8 as i8 as i32
    }
    /// The local pit played.
    pub(crate) fn pit(self) -> u8 {
        (self.0 >> 48) as u8
    }
    fn with_number(self, number: u32) -> Move {
        Move(self.0 & !(u32::MAX as u64) | number as u64)
    }
}

/// One finished level: its positions in the solver's order, and the moves of each.
#[derive(Default)]
pub(crate) struct FoundLevel {
    /// By side to move.
    pub sets: [RankSet; 2],
    /// The number of each node (South's positions first, by rank; then North's).
    pub number_of: Vec<u32>,
    /// Numbers are below this (a number is local x shards + shard).
    pub span: usize,
    /// Moves of node x: `moves[move_start[x]..move_start[x + 1]]`, in the order of
    /// `Position::legal_children`. Empty when moves are not recorded.
    pub move_start: Vec<u64>,
    pub moves: Vec<Move>,
    /// The value of each number for its side to move, once the level is solved (of each node
    /// when the level is numbered by `ids`).
    pub values: Vec<i8>,
    /// The ids of a level numbered by a bitmap ([`RankBitmap`]): a move into the level names
    /// its child by id, whose node is its rank here.
    pub ids: Option<RankBitmap>,
}

impl FoundLevel {
    pub(crate) fn len(&self) -> usize {
        self.number_of.len()
    }

    /// The moves of the position with node `x`.
    #[inline]
    pub(crate) fn moves_of_node(&self, x: usize) -> &[Move] {
        &self.moves[self.move_start[x] as usize..self.move_start[x + 1] as usize]
    }

    pub(crate) fn bytes(&self) -> u64 {
        (self.sets[0].bytes() + self.sets[1].bytes()) as u64
            + self.number_of.capacity() as u64 * 4
            + self.move_start.capacity() as u64 * 8
            + self.moves.capacity() as u64 * 8
            + self.values.capacity() as u64
            + self.ids.as_ref().map_or(0, RankBitmap::bytes)
    }

    /// The value of the child a move from another level names by `number`, once solved.
    #[inline]
    pub(crate) fn value(&self, number: usize) -> i8 {
        match &self.ids {
            Some(ids) => self.values[ids.rank(number as u64)],
            None => self.values[number],
        }
    }

    /// Fetches into the cache what [`FoundLevel::value`] of `number` first reads: the value,
    /// or the bitmap's line that finds it.
    #[inline]
    pub(crate) fn prefetch_place(&self, number: usize) {
        match &self.ids {
            Some(ids) => ids.prefetch(number as u64),
            None => prefetch(&self.values[number]),
        }
    }

    /// Fetches into the cache the value of `number` in a level of a bitmap, once the bitmap's
    /// line is there ([`FoundLevel::prefetch_place`]).
    #[inline]
    pub(crate) fn prefetch_value(&self, number: usize) {
        if let Some(ids) = &self.ids {
            prefetch(&self.values[ids.rank(number as u64)]);
        }
    }

    /// Forgets everything but the positions (for a caller that wants them alone).
    pub(crate) fn keep_positions(&mut self) {
        let sets = std::mem::take(&mut self.sets);
        *self = FoundLevel { sets, ..FoundLevel::default() };
    }

    /// Keeps the values of a solved level by number (`node_values` by node), for the levels
    /// above, and forgets its moves.
    pub(crate) fn solved(&mut self, node_values: impl Fn(usize) -> i8) {
        let ids = self.ids.take();
        let values = if ids.is_some() {
            (0..self.len()).map(node_values).collect()
        } else {
            let mut values = vec![0i8; self.span];
            for (x, &number) in self.number_of.iter().enumerate() {
                values[number as usize] = node_values(x);
            }
            values
        };
        *self = FoundLevel { values, ids, ..FoundLevel::default() };
    }
}

/// The moves of the level being expanded, a block a wave, in the order expanded.
#[derive(Default)]
pub(crate) struct MovesByWave {
    /// Blocks `..used` hold this level's waves; the rest are kept for reuse.
    blocks: Vec<Vec<Move>>,
    used: usize,
    /// Of each number of the level in hand: its block << 40 | where its moves start there << 8
    /// | its moves. Indexed by number, so that laying out a node's moves takes one lookup;
    /// kept from level to level (every number of a level is written when it is expanded).
    at: Vec<u64>,
}

/// Nodes a parallel task lays out.
const NODES: usize = 4096;
/// Nodes ahead of the one in hand whose moves' place, then moves, are fetched into the cache.
const AHEAD: usize = 8;

impl MovesByWave {
    pub(crate) fn bytes(&self) -> u64 {
        self.blocks.iter().map(|b| b.capacity() as u64 * 8).sum::<u64>()
            + self.at.capacity() as u64 * 8
    }

    /// The bytes [`MovesByWave::next_block`] and [`MovesByWave::push`] may add for `len` moves
    /// of positions numbered below `numbers`.
    pub(crate) fn growth(&self, len: usize, numbers: usize) -> u64 {
        let block = match self.blocks.get(self.used) {
            Some(b) if b.capacity() >= len => 0,
            Some(b) => len.max(2 * b.capacity()) as u64 * 8,
            None => len as u64 * 8,
        };
        let at = if numbers > self.at.capacity() {
            numbers.max(2 * self.at.capacity()) as u64 * 8
        } else {
            0
        };
        block + at
    }

    /// Moves recorded in all.
    pub(crate) fn total(&self) -> u64 {
        self.blocks[..self.used].iter().map(|b| b.len() as u64).sum()
    }

    /// A new wave's block of `len` moves, to be written in place (every move of it: a kept
    /// block's old moves are not cleared first), and the block's index.
    pub(crate) fn next_block(&mut self, len: usize) -> (u32, &mut [Move]) {
        if self.used == self.blocks.len() {
            self.blocks.push(Vec::new());
        }
        let block = &mut self.blocks[self.used];
        block.truncate(len);
        block.resize(len, Move(0));
        self.used += 1;
        ((self.used - 1) as u32, block)
    }

    /// Notes that the position numbered `number` has `count` moves from `start` in block
    /// `block`.
    #[inline]
    pub(crate) fn push(&mut self, number: u32, block: u32, start: u32, count: u8) {
        let number = number as usize;
        if number >= self.at.len() {
            let len = (number + 1).max(2 * self.at.len());
            self.at.resize(len, 0);
        }
        self.at[number] = (block as u64) << 40 | (start as u64) << 8 | count as u64;
    }

    /// Lays out the level's moves by node: `number_of[x]` is node x's number, `node_of` the
    /// node of the child an in-level move names (`level`), which the move then names instead.
    /// Keeps the blocks for the next level. Returns the moves' starts (one more than the nodes)
    /// and the moves.
    pub(crate) fn take_in_node_order(
        &mut self,
        level: usize,
        number_of: &[u32],
        node_of: impl Fn(usize) -> u32 + Sync,
    ) -> (Vec<u64>, Vec<Move>) {
        let at = &self.at;
        let move_start = move_starts(number_of, |number| at[number as usize] as u8 as u64);
        let total = *move_start.last().expect("a start past the last node");
        // Written once in parallel first, so that the kernel clears its fresh pages on both
        // cores.
        let mut moves = Vec::with_capacity(total as usize);
        moves.par_extend((0..total as usize).into_par_iter().map(|_| Move(0)));
        let mut stretches = Vec::with_capacity(number_of.len().div_ceil(NODES));
        let mut rest = &mut moves[..];
        for first in (0..number_of.len()).step_by(NODES) {
            let last = (first + NODES).min(number_of.len());
            let (stretch, tail) =
                rest.split_at_mut((move_start[last] - move_start[first]) as usize);
            stretches.push((first, last, stretch));
            rest = tail;
        }
        let blocks = &self.blocks;
        let place = |x: usize| {
            let a = at[number_of[x] as usize];
            ((a >> 40) as usize, (a >> 8) as u32 as usize, a as u8 as usize)
        };
        stretches.into_par_iter().for_each(|(first, last, stretch)| {
            let mut out = 0;
            for x in first..last {
                if x + 2 * AHEAD < last {
                    prefetch(&at[number_of[x + 2 * AHEAD] as usize]);
                }
                if x + AHEAD < last {
                    let (block, start, _) = place(x + AHEAD);
                    if let Some(mv) = blocks[block].get(start) {
                        prefetch(mv);
                    }
                }
                let (block, start, count) = place(x);
                for &mv in &blocks[block][start..start + count] {
                    stretch[out] =
                        if mv.level() == level { mv.with_number(node_of(mv.number())) } else { mv };
                    out += 1;
                }
            }
        });
        // The blocks this level used are kept for the next; the rest are let go (the lower
        // levels are smaller and the finished levels' moves pile up).
        self.blocks.truncate(self.used);
        self.used = 0;
        (move_start, moves)
    }
}

/// Where each node's moves start, `count(number_of[x])` moves a node, and one past the last:
/// the counts summed a stretch of nodes at a time, then the starts written, on both cores.
fn move_starts(number_of: &[u32], count: impl Fn(u32) -> u64 + Sync) -> Vec<u64> {
    let sums: Vec<u64> =
        number_of.par_chunks(NODES).map(|nodes| nodes.iter().map(|&n| count(n)).sum()).collect();
    let mut firsts = Vec::with_capacity(sums.len());
    let mut total = 0u64;
    for sum in sums {
        firsts.push(total);
        total += sum;
    }
    let mut move_start = vec![0u64; number_of.len() + 1];
    move_start[number_of.len()] = total;
    move_start[..number_of.len()]
        .par_chunks_mut(NODES)
        .zip(number_of.par_chunks(NODES))
        .zip(firsts)
        .for_each(|((starts, nodes), first)| {
            let mut at = first;
            for (start, &n) in starts.iter_mut().zip(nodes) {
                *start = at;
                at += count(n);
            }
        });
    move_start
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lays_out_moves_by_node_with_in_level_children_by_node() {
        // Level 5; four positions (numbers 0..4) expanded in the order 2, 0, 3, 1 over two
        // waves; nodes in the order of numbers 3, 1, 0, 2.
        let mut moves = MovesByWave::default();
        let expansion: [(u32, Vec<Move>); 4] = [
            (2, vec![Move::new(1, 5, 0, 0), Move::new(7, 3, 2, 2)]),
            (0, vec![]),
            (3, vec![Move::new(0, 4, -1, 1), Move::new(3, 5, 0, 2), Move::new(2, 5, 1, 6)]),
            (1, vec![Move::new(9, 2, 4, 8)]),
        ];
        for wave in expansion.chunks(2) {
            let len = wave.iter().map(|(_, m)| m.len()).sum();
            let (block, slots) = moves.next_block(len);
            let mut starts = Vec::new();
            let mut at = 0;
            for (number, m) in wave {
                slots[at..at + m.len()].copy_from_slice(m);
                starts.push((*number, at as u32, m.len() as u8));
                at += m.len();
            }
            for (number, start, count) in starts {
                moves.push(number, block, start, count);
            }
        }
        assert_eq!(moves.total(), 6);
        let number_of = [3u32, 1, 0, 2];
        let node_of = [2u32, 1, 3, 0];
        let (start, laid) = moves.take_in_node_order(5, &number_of, |n| node_of[n]);
        let mut expected_start = vec![0u64];
        let mut expected = Vec::new();
        for &number in &number_of {
            let (_, m) = expansion.iter().find(|(k, _)| *k == number).unwrap();
            expected.extend(m.iter().map(|&mv| {
                if mv.level() == 5 {
                    Move::new(node_of[mv.number()], 5, mv.gain() as i8, mv.pit())
                } else {
                    mv
                }
            }));
            expected_start.push(expected.len() as u64);
        }
        assert_eq!(start, expected_start);
        assert_eq!(laid, expected);
        assert_eq!(laid[0], Move::new(0, 4, -1, 1));
        assert_eq!(laid[1], Move::new(0, 5, 0, 2), "number 3 is node 0");
        assert_eq!((laid[1].pit(), laid[2].gain(), laid[2].pit()), (2, 1, 6));
        // The blocks are kept for the next level, empty.
        assert_eq!(moves.total(), 0);
        assert!(moves.bytes() >= 6 * 8);

        // The next level (4) has two positions: the places noted for level 5's numbers 2 and 3
        // are left over, and not read.
        let (block, slots) = moves.next_block(1);
        slots[0] = Move::new(1, 4, 3, 0);
        moves.push(1, block, 0, 1);
        moves.push(0, block, 1, 0);
        let (start, laid) = moves.take_in_node_order(4, &[1, 0], |n| [1, 0][n]);
        assert_eq!(start, [0, 1, 1]);
        assert_eq!(laid, [Move::new(0, 4, 3, 0)], "number 1 is node 0");
    }
}
