//! The positions of a round (R15), enumerated level by level of counters on the board from the
//! top, each position's moves recorded as it is expanded, so that solving the levels from the
//! bottom needs no second move generation.
//!
//! A level's positions are numbered as they are found: each key belongs to one of [`SHARDS`]
//! shards (by a hash of the key), each shard a hash map from key to its local number, filled by
//! the levels above before the level's own turn comes. A position's number is `local x SHARDS
//! + shard`, so the shards are filled in parallel, each in the order of the children it is
//! given, and the numbers never depend on the threads. A move is recorded as the child's level,
//! its number there and the mover's net captures. When a level is finished its positions are
//! renumbered in the order the solver keeps them (South to move first, each side by increasing
//! rank: [`RankSet`]).
//!
//! A level of few enough boards ([`MAX_BITMAP_BITS`]) is numbered by a bitmap over its ids
//! instead (rank_bitmap.rs): a child is found by setting its id's bit, a move names the child
//! by its id, and the level's order is the ids' order, so the level needs no hash map and no
//! sort. Its shards then list the keys found (to expand them), without a map.

use std::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;

use crate::engine::{Position, Side};
use crate::exact::index::{Codec, Key, RankSet};
use crate::exact::round::key_table::{capacity_for, KeyTable, AHEAD, SLOT_BYTES};
pub(crate) use crate::exact::round::level_moves::FoundLevel;
use crate::exact::round::level_moves::{Move, MovesByWave};
use crate::exact::round::packed_board::{pack, pack_words, unpack};
use crate::exact::round::rank_bitmap::{id_of, shared_u32s, LevelBits, RankBitmap, SharedBits};
use crate::exact::round::solve_error::{Progress, SolveError, Watch};

/// Shards of a level's positions (a power of two; fixed, so numbers do not depend on threads).
const SHARDS: usize = 8;
/// Positions expanded per wave (bounds the children buffered at once).
const WAVE: usize = 1 << 16;
/// Positions per parallel task.
const CHUNK: usize = 1024;
/// The most bits (two a board: one a side) of a level numbered by a bitmap rather than hash
/// maps: 64 MiB, the real board's levels up to 18 (412 million bits, 336,725 positions), a
/// bit a board against a map's 30 to 50 bytes a position. The levels' sizes are not known
/// when the choice must be made (a level's first child, often from a large capture near the
/// top), so it is by the boards alone; the bitmaps' bytes then fall geometrically level by
/// level below the largest (with their counts, about four times its 64 MiB in all).
pub(crate) const MAX_BITMAP_BITS: u64 = 1 << 29;
/// The fewest bits of a level numbered by a bitmap (32 KiB, the real board's levels from 8):
/// below, the tables are small and fast, and a bitmap would outweigh a small board's solve.
pub(crate) const MIN_BITMAP_BITS: u64 = 1 << 18;
/// The levels numbered by a bitmap: those of this many ids.
pub(crate) const BITMAP_BITS: std::ops::RangeInclusive<u64> = MIN_BITMAP_BITS..=MAX_BITMAP_BITS;
/// The most positions a level may hold: a position's number (`local x SHARDS + shard`, or its
/// id in a level of a bitmap) is a `u32`.
const MAX_LEVEL_POSITIONS: u64 = u32::MAX as u64 + 1;

/// Whether level `n`'s positions are numbered by a bitmap: its ids (two a board) within
/// `bitmap_bits`, and within the numbers a move holds.
pub(crate) fn by_bitmap(
    codec: &Codec,
    n: usize,
    bitmap_bits: &std::ops::RangeInclusive<u64>,
) -> Option<u64> {
    codec.comps.count(n).filter(|&boards| {
        boards
            .checked_mul(2)
            .is_some_and(|ids| ids <= MAX_LEVEL_POSITIONS && bitmap_bits.contains(&ids))
    })
}

/// The shard of a key: a mix of its bits unlike the hash map's own (Fx) hash.
#[inline]
fn shard_of(key: u64) -> u8 {
    ((key ^ key >> 31).wrapping_mul(0xbf58_476d_1ce4_e5b9) >> (64 - SHARDS.trailing_zeros())) as u8
}

/// The positions of one shard of a level found so far (by the levels above, then by its own
/// expansion): local numbers in the order found.
type Shard = KeyTable;

/// The boards of one shard of a level found so far, by local number ([`pack`]ed): a position
/// is expanded from its board, not unranked from its key.
type Boards = Vec<u128>;

/// Bytes a packed board takes.
const BOARD_BYTES: u64 = std::mem::size_of::<u128>() as u64;

/// A position of the level in hand waiting to be expanded.
#[derive(Clone, Copy)]
struct Unexpanded {
    board: u128,
    number: u32,
    side: u8,
}

/// The children of a chunk of positions: for each position its count, then for each child its
/// level, key, board (as words: packed only if the child is new), the mover's net captures and
/// the key's shard.
#[derive(Default)]
struct Children {
    counts: Vec<u8>,
    levels: Vec<u8>,
    keys: Vec<u64>,
    boards: Vec<[u64; 3]>,
    gains: Vec<i8>,
    pits: Vec<u8>,
    shards: Vec<u8>,
    /// The children's indices grouped by shard (each group in increasing order): shard s's
    /// are `by_shard[shard_start[s]..shard_start[s + 1]]`.
    by_shard: Vec<u32>,
    shard_start: [u32; SHARDS + 1],
    /// The children of each level and shard: `tally[level * SHARDS + shard]` (counted here, on
    /// both cores, rather than child by child on the main thread for the memory bound).
    tally: Vec<u32>,
}

impl Children {
    fn bytes(&self) -> u64 {
        (self.counts.capacity()
            + self.levels.capacity()
            + self.gains.capacity()
            + self.pits.capacity()
            + self.shards.capacity()) as u64
            + self.keys.capacity() as u64 * 8
            + self.boards.capacity() as u64 * 24
            + self.by_shard.capacity() as u64 * 4
            + self.tally.capacity() as u64 * 4
    }

    /// Groups the children by shard (a counting sort, stable).
    fn group(&mut self) {
        let mut start = [0u32; SHARDS + 1];
        for &s in &self.shards {
            start[s as usize + 1] += 1;
        }
        for s in 0..SHARDS {
            start[s + 1] += start[s];
        }
        self.shard_start = start;
        self.by_shard.clear();
        self.by_shard.resize(self.shards.len(), 0);
        let mut fill = start;
        for (j, &s) in self.shards.iter().enumerate() {
            self.by_shard[fill[s as usize] as usize] = j as u32;
            fill[s as usize] += 1;
        }
    }

    /// The children of shard `s`, in order.
    fn of_shard(&self, s: usize) -> &[u32] {
        &self.by_shard[self.shard_start[s] as usize..self.shard_start[s + 1] as usize]
    }

    /// Replaces these children with those of each position of `chunk` (of level `n`), in the
    /// engine's order.
    fn expand(&mut self, codec: &Codec, n: u32, chunk: &[Unexpanded]) {
        self.counts.clear();
        self.levels.clear();
        self.keys.clear();
        self.boards.clear();
        self.gains.clear();
        self.pits.clear();
        self.shards.clear();
        self.tally.clear();
        self.tally.resize((n as usize + 1) * SHARDS, 0);
        for item in chunk {
            let pos = unpack(&codec.template, item.board, item.side as usize);
            let mover = pos.turn();
            let mut count = 0u8;
            for (pit, child, summary) in pos.legal_children() {
                let key = codec.key(&child).word();
                // Counters leave the board only as captures.
                let level =
                    n - summary.pussa - summary.fours[Side::South] - summary.fours[Side::North];
                debug_assert_eq!(level, child.on_board());
                self.levels.push(level as u8);
                self.keys.push(key);
                self.boards.push(child.board_words());
                self.gains.push(summary.net_gain(mover) as i8);
                self.pits.push(pit.index() as u8);
                let shard = shard_of(key);
                self.shards.push(shard);
                self.tally[level as usize * SHARDS + shard as usize] += 1;
                count += 1;
            }
            self.counts.push(count);
        }
        self.group();
    }
}

/// What the enumeration needs to know of the solve it is part of.
pub(crate) struct Bounds<'a> {
    pub max_positions: u64,
    /// Called with the working bytes in use, the level and the positions found: an error
    /// stops the enumeration (the memory bound).
    pub memory: &'a mut dyn FnMut(u64, u32, u64) -> Result<(), SolveError>,
    pub watch: &'a mut Watch<'a>,
}

/// The enumeration's state: `found[s][n]` is shard s of level n, `boards[s][n]` its boards.
struct Enumeration<'c> {
    codec: &'c Codec,
    found: Vec<Vec<Shard>>,
    boards: Vec<Vec<Boards>>,
    /// Of each level numbered by a bitmap, its bitmap, allocated when the level is first
    /// reached; None for a level of hash maps.
    bits: Vec<Option<LevelBits>>,
    record: bool,
    /// Buffers kept from wave to wave, so that their pages are not handed back to the system
    /// and faulted in again: the wave, its chunks' children, and each shard's lookups and
    /// numbers.
    wave: Vec<Unexpanded>,
    parts: Vec<Children>,
    /// The moves of the level in hand (its blocks kept from level to level).
    moves: MovesByWave,
    lookups: Vec<Vec<(u8, u64)>>,
    numbers: Vec<Vec<u32>>,
    /// Renumbering's buffers, kept from level to level: each position's (ordered key, number),
    /// the ranks, the node of each number.
    by_key: Vec<(u64, u32)>,
    ranks: Vec<u64>,
    node_of: Vec<u32>,
}

/// Enumerates every position reachable from `roots` (all of `codec`'s rules and open pits),
/// recording the moves when `record` is set, the levels of `bitmap_bits` ids numbered by a
/// bitmap ([`BITMAP_BITS`] but in tests). Returns the levels, index = counters on the board.
pub(crate) fn enumerate_with(
    codec: &Codec,
    roots: &[Position],
    record: bool,
    bounds: &mut Bounds,
    bitmap_bits: std::ops::RangeInclusive<u64>,
) -> Result<Vec<FoundLevel>, SolveError> {
    let top = roots.iter().map(Position::on_board).max().unwrap_or(0) as usize;
    let found = (0..SHARDS).map(|_| (0..=top).map(|_| Shard::default()).collect()).collect();
    let boards = (0..SHARDS).map(|_| (0..=top).map(|_| Boards::new()).collect()).collect();
    let bits = (0..=top).map(|n| by_bitmap(codec, n, &bitmap_bits).map(LevelBits::new)).collect();
    let mut e = Enumeration {
        codec,
        found,
        boards,
        bits,
        record,
        wave: Vec::new(),
        moves: MovesByWave::default(),
        parts: (0..WAVE / CHUNK).map(|_| Children::default()).collect(),
        lookups: vec![Vec::new(); SHARDS],
        numbers: vec![Vec::new(); SHARDS],
        by_key: Vec::new(),
        ranks: Vec::new(),
        node_of: Vec::new(),
    };
    let mut found = 0u64;
    for r in roots {
        let key = codec.key(r).word();
        let (s, n) = (shard_of(key) as usize, r.on_board() as usize);
        (bounds.memory)(e.shard_bytes() + e.opening_bytes(&[n as u8]), n as u32, found)?;
        e.open_reached(&[n as u8]);
        let new = match &mut e.bits[n] {
            Some(bits) => {
                let id = id_of(key, bits.boards);
                let new = bits.shared().insert(id);
                if new {
                    e.found[s][n].push_key(key);
                }
                new
            }
            None => e.found[s][n].intern(key) as usize == e.boards[s][n].len(),
        };
        if new {
            e.boards[s][n].push(pack(r));
            found += 1;
        }
    }
    let mut levels: Vec<FoundLevel> = (0..=top).map(|_| FoundLevel::default()).collect();
    let mut done = 0u64;
    let mut finished_bytes = 0u64;
    for n in (0..=top).rev() {
        e.expand_level(n, done, finished_bytes, bounds)?;
        // Renumbering grows its buffers to a (key, number) pair of 16 bytes and a rank of 8 a
        // position and a node of 4 a number, and makes the number, the moves' count and start
        // of each node (13 bytes) and the moves by node, beside the blocks.
        let found = e.found.iter().map(|levels| levels[n].len()).sum::<usize>();
        let span = e.found.iter().map(|levels| levels[n].len()).max().unwrap_or(0) * SHARDS;
        let renumbering = e.shard_bytes()
            + e.moves.bytes()
            + found.max(e.by_key.capacity()) as u64 * 16
            + found.max(e.ranks.capacity()) as u64 * 8
            + span.max(e.node_of.capacity()) as u64 * 4
            + (e.moves.total() + 13 * found as u64 + 8);
        (bounds.memory)(finished_bytes + renumbering, n as u32, done + found as u64)?;
        levels[n] = e.number_level(n);

        done += levels[n].len() as u64;
        finished_bytes += levels[n].bytes();
    }
    Ok(levels)
}

impl Enumeration<'_> {
    /// Expands every position of level `n`, those found above and those it finds itself (the
    /// moves are in `self.moves`).
    fn expand_level(
        &mut self,
        n: usize,
        done: u64,
        finished_bytes: u64,
        bounds: &mut Bounds,
    ) -> Result<(), SolveError> {
        let mut cursor = [0usize; SHARDS];
        loop {
            self.next_wave(n, &mut cursor);
            let wave = std::mem::take(&mut self.wave);
            if wave.is_empty() {
                self.wave = wave;
                return Ok(());
            }
            let codec = self.codec;
            let chunks = wave.len().div_ceil(CHUNK);
            self.parts[..chunks]
                .par_iter_mut()
                .zip(wave.par_chunks(CHUNK))
                .for_each(|(part, chunk)| part.expand(codec, n as u32, chunk));
            // Taken while the shards are numbered, and put back for the next wave.
            let mut parts = std::mem::take(&mut self.parts);
            let buffered: u64 = parts.iter().map(Children::bytes).sum::<u64>()
                + self.lookups.iter().map(|l| l.capacity() as u64 * 16).sum::<u64>()
                + wave.capacity() as u64 * std::mem::size_of::<Unexpanded>() as u64
                + self.moves.bytes();
            let children: usize = parts[..chunks].iter().map(|part| part.keys.len()).sum();
            let numbers = wave.iter().map(|item| item.number as usize + 1).max().unwrap_or(0);
            let recording = if self.record { self.moves.growth(children, numbers) } else { 0 };
            // Checked before the maps grow, as if every child were new: the bound holds at the
            // peak, not only after it.
            let found_before =
                done + self.found.iter().map(|levels| levels[n].len() as u64).sum::<u64>();
            let added = tally(&parts[..chunks], n);
            let reached: Vec<u8> = (0..=n)
                .filter(|&level| added[level * SHARDS..][..SHARDS].iter().any(|&a| a > 0))
                .map(|level| level as u8)
                .collect();
            self.check_numbers(&added)?;
            let growing =
                self.shard_bytes() + self.opening_bytes(&reached) + self.growth(&added) + recording;
            (bounds.memory)(finished_bytes + growing + buffered, n as u32, found_before)?;
            self.open_reached(&reached);
            self.intern(&parts[..chunks]);
            if self.record {
                let by_id: Vec<bool> = self.bits.iter().map(Option::is_some).collect();
                record_moves(&parts[..chunks], &wave, &self.numbers, &by_id, &mut self.moves);
            }
            self.parts = std::mem::take(&mut parts);
            self.wave = wave;

            let in_hand =
                done + self.found.iter().map(|levels| levels[n].len() as u64).sum::<u64>();
            if in_hand > bounds.max_positions {
                return Err(SolveError::PositionLimit { limit: bounds.max_positions });
            }
            (bounds.memory)(
                finished_bytes + self.shard_bytes() + self.moves.bytes() + buffered,
                n as u32,
                in_hand,
            )?;
            if (bounds.watch)(Progress {
                phase: "enumerating",
                level: n as u32,
                done: in_hand,
                total: 0,
            })
            .is_break()
            {
                return Err(SolveError::Cancelled);
            }
        }
    }

    /// The bytes of the levels found so far, and of the renumbering's buffers kept.
    fn shard_bytes(&self) -> u64 {
        self.found.iter().flat_map(|levels| levels.iter().map(Shard::bytes)).sum::<u64>()
            + self.boards.iter().flatten().map(|b| b.capacity() as u64 * BOARD_BYTES).sum::<u64>()
            + self.by_key.capacity() as u64 * 16
            + self.ranks.capacity() as u64 * 8
            + self.node_of.capacity() as u64 * 4
            + self.bits.iter().flatten().map(LevelBits::bytes).sum::<u64>()
    }

    /// The most bytes that numbering children can add, `added[level * SHARDS + shard]` of
    /// each ([`tally`]): each shard's map and key list grown to hold all its children as new
    /// positions (a map's old table held while it moves), and the children's numbers.
    fn growth(&self, added: &[usize]) -> u64 {
        let mut bytes = 0u64;
        for (i, &a) in added.iter().enumerate().filter(|(_, &a)| a > 0) {
            let shard = &self.found[i % SHARDS][i / SHARDS];
            let needed = shard.len() + a;
            if self.bits[i / SHARDS].is_none() && needed * 4 > shard.capacity() * 3 {
                bytes += capacity_for(needed).max(2 * shard.capacity()) as u64 * SLOT_BYTES;
            }
            if needed > shard.key_capacity() {
                bytes += needed.max(2 * shard.key_capacity()) as u64 * 8;
            }
            let boards = &self.boards[i % SHARDS][i / SHARDS];
            if needed > boards.capacity() {
                bytes += needed.max(2 * boards.capacity()) as u64 * BOARD_BYTES;
            }
            bytes += a as u64 * 4;
        }
        bytes
    }

    /// The next positions of level `n` to expand into `self.wave`, up to a wave's worth taken
    /// from the shards in turn.
    fn next_wave(&mut self, n: usize, cursor: &mut [usize; SHARDS]) {
        self.wave.clear();
        for (s, levels) in self.found.iter().enumerate() {
            let keys = levels[n].keys();
            let boards = &self.boards[s][n];
            let end = keys.len().min(cursor[s] + WAVE / SHARDS);
            self.wave.extend((cursor[s]..end).map(|local| Unexpanded {
                board: boards[local],
                number: (local * SHARDS + s) as u32,
                side: Key::from_word(keys[local]).side() as u8,
            }));
            cursor[s] = end;
        }
    }

    /// Bytes the bitmaps of the levels of `levels` reached for the first time would take.
    fn opening_bytes(&self, levels: &[u8]) -> u64 {
        levels
            .iter()
            .filter_map(|&level| self.bits[level as usize].as_ref())
            .map(LevelBits::opening_bytes)
            .sum()
    }

    /// Fails if numbering the children `added[level * SHARDS + shard]` ([`tally`]) as new
    /// positions could give a number beyond a `u32` (a level of a bitmap's ids fit one).
    fn check_numbers(&self, added: &[usize]) -> Result<(), SolveError> {
        for (i, &a) in added.iter().enumerate().filter(|(_, &a)| a > 0) {
            let (shard, level) = (i % SHARDS, i / SHARDS);
            let local = (self.found[shard][level].len() + a) as u64;
            if self.bits[level].is_none() && local * SHARDS as u64 > MAX_LEVEL_POSITIONS {
                return Err(SolveError::IndexLimit {
                    what: format!("positions of level {level}"),
                    count: local * SHARDS as u64,
                    limit: MAX_LEVEL_POSITIONS,
                });
            }
        }
        Ok(())
    }

    /// Allocates the bitmaps of the levels of `levels` reached for the first time (their
    /// bytes then counted by [`Self::shard_bytes`]).
    fn open_reached(&mut self, levels: &[u8]) {
        for &level in levels {
            if let Some(bits) = &mut self.bits[level as usize] {
                bits.open();
            }
        }
    }

    /// Numbers the children of a wave in their levels, each shard in parallel and in the
    /// children's order, into each shard's `numbers` in that order; keeps the boards of those
    /// new.
    fn intern(&mut self, parts: &[Children]) {
        let shared: Vec<Option<SharedBits>> =
            self.bits.iter_mut().map(|b| b.as_mut().map(LevelBits::shared)).collect();
        (&mut self.found, &mut self.boards, &mut self.lookups, &mut self.numbers)
            .into_par_iter()
            .enumerate()
            .for_each(|(s, (levels, boards, lookups, numbers))| {
                lookups.clear();
                for part in parts {
                    lookups.extend(part.of_shard(s).iter().map(|&j| {
                        let j = j as usize;
                        (part.levels[j], part.keys[j])
                    }));
                }
                numbers.clear();
                let mut children = parts
                    .iter()
                    .flat_map(|part| part.of_shard(s).iter().map(|&j| part.boards[j as usize]));
                let mut shard = ShardLevels { keys: levels, boards, bits: &shared };
                for (i, &(level, key)) in lookups.iter().enumerate() {
                    if let Some(&(ahead, next)) = lookups.get(i + AHEAD) {
                        shard.prefetch(ahead as usize, next);
                    }
                    let board = children.next().expect("a board a child");
                    numbers.push(shard.number(level as usize, key, board));
                }
                debug_assert!(levels.iter().zip(boards.iter()).all(|(t, b)| t.len() == b.len()));
            });
    }

    /// Renumbers a finished level in the solver's order: South to move first, each side by rank.
    fn number_level(&mut self, n: usize) -> FoundLevel {
        if let Some(bits) = self.bits[n].take() {
            return self.number_by_bits(n, bits.finish());
        }
        let mut level = FoundLevel::default();
        let span = self.found.iter().map(|levels| levels[n].len()).max().unwrap_or(0) * SHARDS;
        let keys: Vec<Vec<u64>> = self
            .found
            .iter_mut()
            .zip(&mut self.boards)
            .map(|(levels, boards)| {
                boards[n] = Boards::new();
                std::mem::take(&mut levels[n]).into_keys()
            })
            .collect();
        let by_key = &mut self.by_key;
        by_key.clear();
        by_key.resize(keys.iter().map(Vec::len).sum(), (0, 0));
        // Each shard's pairs written on both cores, in the shards' order.
        let mut stretches = Vec::with_capacity(SHARDS);
        let mut rest = &mut by_key[..];
        for shard_keys in &keys {
            let (stretch, tail) = rest.split_at_mut(shard_keys.len());
            stretches.push(stretch);
            rest = tail;
        }
        stretches.into_par_iter().zip(&keys).enumerate().for_each(|(s, (stretch, shard_keys))| {
            for (local, (pair, &k)) in stretch.iter_mut().zip(shard_keys).enumerate() {
                *pair = (Key::from_word(k).ordered(), (local * SHARDS + s) as u32);
            }
        });
        drop(keys);
        by_key.par_sort_unstable();
        let universe = self
            .codec
            .comps
            .count(n)
            .expect("ranks of a board of at most 127 counters fit 63 bits");
        let south_count = by_key.partition_point(|&(k, _)| k >> 63 == 0);
        self.ranks.clear();
        self.ranks.par_extend(by_key.par_iter().map(|&(k, _)| k & (u64::MAX >> 1)));
        level.sets = rank_sets(&self.ranks, south_count, universe);
        level.number_of = by_key.par_iter().map(|&(_, number)| number).collect();
        level.span = span;
        if self.record {
            // Numbers of other levels are left over, and never read: in-level moves name
            // numbers of this level only.
            if self.node_of.len() < span {
                self.node_of.resize(span, 0);
            }
            let shared = shared_u32s(&mut self.node_of);
            level.number_of.par_iter().enumerate().for_each(|(x, &number)| {
                shared[number as usize].store(x as u32, Ordering::Relaxed);
            });
            let node_of = &self.node_of[..span];
            (level.move_start, level.moves) =
                self.moves.take_in_node_order(n, &level.number_of, |number| node_of[number]);
        }
        self.shrink_buffers(level.len(), span);
        level
    }

    /// Numbers a finished level of a bitmap in the order of its ids (the solver's order): a
    /// node is the count of ids below its own, read from the bitmap without a sort.
    fn number_by_bits(&mut self, n: usize, ids: RankBitmap) -> FoundLevel {
        let mut level = FoundLevel::default();
        let span = self.found.iter().map(|levels| levels[n].len()).max().unwrap_or(0) * SHARDS;
        let boards = ids.boards;
        ids.ids_into(&mut self.ranks);
        let south_count = self.ranks.partition_point(|&id| id < boards);
        self.ranks[south_count..].par_iter_mut().for_each(|id| *id -= boards);
        level.sets = rank_sets(&self.ranks, south_count, boards);
        let mut number_of = vec![0u32; ids.len()];
        let shared = shared_u32s(&mut number_of);
        self.found.par_iter().enumerate().for_each(|(s, levels)| {
            number_by_node(levels[n].keys(), s, &ids, shared);
        });
        for (levels, boards) in self.found.iter_mut().zip(&mut self.boards) {
            levels[n] = Shard::default();
            boards[n] = Boards::new();
        }
        level.number_of = number_of;
        level.span = span;
        if self.record {
            (level.move_start, level.moves) =
                self.moves.take_in_node_order(n, &level.number_of, |id| ids.rank(id as u64) as u32);
        }
        level.ids = Some(ids);
        self.shrink_buffers(level.len(), span);
        level
    }

    /// Lets go of the renumbering's buffers when they are more than twice what the level just
    /// numbered needed: the lower levels are smaller and the finished levels' moves pile up.
    fn shrink_buffers(&mut self, found: usize, span: usize) {
        if self.by_key.capacity() > 2 * found {
            self.by_key = Vec::new();
            self.ranks = Vec::new();
        }
        if self.node_of.capacity() > 2 * span {
            self.node_of = Vec::new();
        }
    }
}

/// The children of `parts` (of level `n`) by level and shard: `[level * SHARDS + shard]`.
fn tally(parts: &[Children], n: usize) -> Vec<usize> {
    let mut added = vec![0usize; (n + 1) * SHARDS];
    for part in parts {
        for (a, &t) in added.iter_mut().zip(&part.tally) {
            *a += t as usize;
        }
    }
    added
}

/// Writes the number of each key of shard `s` (`keys`, by local number) in a finished level
/// of a bitmap at its node, each key's bits fetched [`AHEAD`] keys before.
fn number_by_node(keys: &[u64], s: usize, ids: &RankBitmap, number_of: &[AtomicU32]) {
    for (local, &key) in keys.iter().enumerate() {
        if let Some(&next) = keys.get(local + AHEAD) {
            ids.prefetch(id_of(next, ids.boards));
        }
        let x = ids.rank(id_of(key, ids.boards));
        number_of[x].store((local * SHARDS + s) as u32, Ordering::Relaxed);
    }
}

/// A level's two sets (South to move: `ranks[..south_count]`), made on both cores.
fn rank_sets(ranks: &[u64], south_count: usize, universe: u64) -> [RankSet; 2] {
    let (south, north) = ranks.split_at(south_count);
    let (south, north) =
        rayon::join(|| RankSet::new(south, universe), || RankSet::new(north, universe));
    [south, north]
}

/// One shard's levels while a wave's children are numbered: keys and boards by level, and
/// the bitmaps of the levels numbered by one (shared by the shards; a key is set by its own
/// shard only, so the numbers do not depend on the threads).
struct ShardLevels<'a, 'b> {
    keys: &'a mut [Shard],
    boards: &'a mut [Boards],
    bits: &'a [Option<SharedBits<'b>>],
}

impl ShardLevels<'_, '_> {
    #[inline]
    fn prefetch(&self, level: usize, key: u64) {
        match &self.bits[level] {
            Some(bits) => bits.prefetch(id_of(key, bits.boards)),
            None => self.keys[level].prefetch(key),
        }
    }

    /// The number of a child of `level` (its id in a level of a bitmap), keeping its key and
    /// board if it is new.
    #[inline]
    fn number(&mut self, level: usize, key: u64, board: [u64; 3]) -> u32 {
        let (number, new) = match &self.bits[level] {
            Some(bits) => {
                let id = id_of(key, bits.boards);
                let new = bits.insert(id);
                if new {
                    self.keys[level].push_key(key);
                }
                // Ids fit a u32: `by_bitmap`.
                (id as u32, new)
            }
            None => {
                // A new key takes the next number of its level.
                let number = self.keys[level].intern(key);
                (number, number as usize == self.boards[level].len())
            }
        };
        if new {
            self.boards[level].push(pack_words(board));
        }
        number
    }
}

/// Records the moves of a wave's positions, in order, with their children's numbers (the
/// parts in parallel, each into its own stretch of the wave's block, from where its children's
/// numbers start in each shard's list); a child of a level numbered by a bitmap (`by_id`) is
/// named by its id.
fn record_moves(
    parts: &[Children],
    wave: &[Unexpanded],
    numbers: &[Vec<u32>],
    by_id: &[bool],
    moves: &mut MovesByWave,
) {
    let mut firsts = Vec::with_capacity(parts.len());
    let mut next = [0u32; SHARDS];
    for part in parts {
        firsts.push(next);
        for (s, first) in next.iter_mut().enumerate() {
            *first += part.of_shard(s).len() as u32;
        }
    }
    let added: usize = parts.iter().map(|part| part.keys.len()).sum();
    let (block, slots) = moves.next_block(added);
    let mut stretches = Vec::with_capacity(parts.len());
    let mut rest = slots;
    for part in parts {
        let (stretch, tail) = rest.split_at_mut(part.keys.len());
        stretches.push(stretch);
        rest = tail;
    }
    parts.par_iter().zip(firsts).zip(stretches).for_each(|((part, mut next), stretch)| {
        for (j, &s) in part.shards.iter().enumerate() {
            let local = numbers[s as usize][next[s as usize] as usize];
            next[s as usize] += 1;
            let level = part.levels[j];
            let number =
                if by_id[level as usize] { local } else { local * SHARDS as u32 + s as u32 };
            stretch[j] = Move::new(number, level, part.gains[j], part.pits[j]);
        }
    });
    let mut at = 0u32;
    for (part, chunk) in parts.iter().zip(wave.chunks(CHUNK)) {
        for (&count, item) in part.counts.iter().zip(chunk) {
            moves.push(item.number, block, at, count);
            at += count as u32;
        }
    }
}
