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

use rayon::prelude::*;

use crate::engine::{Position, Side};
use crate::exact::index::{Codec, Key, RankSet};
use crate::exact::round::key_table::{capacity_for, intern_all, KeyTable, SLOT_BYTES};
pub(crate) use crate::exact::round::level_moves::FoundLevel;
use crate::exact::round::level_moves::{Move, MovesByWave};
use crate::exact::round::packed_board::{pack, pack_words, unpack};
use crate::exact::round::solve_error::{Progress, SolveError, Watch};

/// Shards of a level's positions (a power of two; fixed, so numbers do not depend on threads).
const SHARDS: usize = 8;
/// Positions expanded per wave (bounds the children buffered at once).
const WAVE: usize = 1 << 16;
/// Positions per parallel task.
const CHUNK: usize = 1024;

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
                self.shards.push(shard_of(key));
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
/// recording the moves when `record` is set. Returns the levels, index = counters on the board.
pub(crate) fn enumerate(
    codec: &Codec,
    roots: &[Position],
    record: bool,
    bounds: &mut Bounds,
) -> Result<Vec<FoundLevel>, SolveError> {
    let top = roots.iter().map(Position::on_board).max().unwrap_or(0) as usize;
    let found = (0..SHARDS).map(|_| (0..=top).map(|_| Shard::default()).collect()).collect();
    let boards = (0..SHARDS).map(|_| (0..=top).map(|_| Boards::new()).collect()).collect();
    let mut e = Enumeration {
        codec,
        found,
        boards,
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
    for r in roots {
        let key = codec.key(r).word();
        let (s, n) = (shard_of(key) as usize, r.on_board() as usize);
        if e.found[s][n].intern(key) as usize == e.boards[s][n].len() {
            e.boards[s][n].push(pack(r));
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
            let growing = self.shard_bytes() + self.growth(&parts[..chunks]) + recording;
            (bounds.memory)(finished_bytes + growing + buffered, n as u32, found_before)?;
            self.intern(&parts[..chunks]);
            if self.record {
                record_moves(&parts[..chunks], &wave, &self.numbers, &mut self.moves);
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
    }

    /// The most bytes that numbering `parts` can add: each shard's map and key list grown to
    /// hold all its children as new positions (a map's old table held while it moves), and the
    /// children's numbers.
    fn growth(&self, parts: &[Children]) -> u64 {
        let levels = self.found[0].len();
        let mut added = vec![0usize; levels * SHARDS];
        for part in parts {
            for (&level, &shard) in part.levels.iter().zip(&part.shards) {
                added[level as usize * SHARDS + shard as usize] += 1;
            }
        }
        let mut bytes = 0u64;
        for (i, &a) in added.iter().enumerate().filter(|(_, &a)| a > 0) {
            let shard = &self.found[i % SHARDS][i / SHARDS];
            let needed = shard.len() + a;
            if needed * 4 > shard.capacity() * 3 {
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

    /// Numbers the children of a wave in their levels, each shard in parallel and in the
    /// children's order, into each shard's `numbers` in that order; keeps the boards of those
    /// new.
    fn intern(&mut self, parts: &[Children]) {
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
                intern_all(levels, lookups, numbers);
                // A new key takes the next number of its level, so a child is new when its
                // number is the count of boards kept so far.
                let mut number = numbers.iter();
                for part in parts {
                    for &j in part.of_shard(s) {
                        let level = &mut boards[part.levels[j as usize] as usize];
                        if *number.next().expect("a number a child") as usize == level.len() {
                            level.push(pack_words(part.boards[j as usize]));
                        }
                    }
                }
                debug_assert!(levels.iter().zip(boards.iter()).all(|(t, b)| t.len() == b.len()));
            });
    }

    /// Renumbers a finished level in the solver's order: South to move first, each side by rank.
    fn number_level(&mut self, n: usize) -> FoundLevel {
        let mut level = FoundLevel::default();
        let span = self.found.iter().map(|levels| levels[n].len()).max().unwrap_or(0) * SHARDS;
        let by_key = &mut self.by_key;
        by_key.clear();
        for (s, (levels, boards)) in self.found.iter_mut().zip(&mut self.boards).enumerate() {
            let keys = std::mem::take(&mut levels[n]).into_keys();
            by_key.extend(
                keys.iter()
                    .enumerate()
                    .map(|(local, &k)| (Key::from_word(k).ordered(), (local * SHARDS + s) as u32)),
            );
            boards[n] = Boards::new();
        }
        by_key.par_sort_unstable();
        let universe = self
            .codec
            .comps
            .count(n)
            .expect("ranks of a board of at most 127 counters fit 63 bits");
        let south_count = by_key.partition_point(|&(k, _)| k >> 63 == 0);
        self.ranks.clear();
        self.ranks.par_extend(by_key.par_iter().map(|&(k, _)| k & (u64::MAX >> 1)));
        level.sets = [
            RankSet::new(&self.ranks[..south_count], universe),
            RankSet::new(&self.ranks[south_count..], universe),
        ];
        level.number_of = by_key.par_iter().map(|&(_, number)| number).collect();
        level.span = span;
        if self.record {
            // Numbers of other levels are left over, and never read: in-level moves name
            // numbers of this level only.
            if self.node_of.len() < span {
                self.node_of.resize(span, 0);
            }
            for (x, &number) in level.number_of.iter().enumerate() {
                self.node_of[number as usize] = x as u32;
            }
            (level.move_start, level.moves) =
                self.moves.take_in_node_order(n, &level.number_of, &self.node_of[..span]);
        }
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

/// Records the moves of a wave's positions, in order, with their children's numbers (the
/// parts in parallel, each into its own stretch of the wave's block, from where its children's
/// numbers start in each shard's list).
fn record_moves(
    parts: &[Children],
    wave: &[Unexpanded],
    numbers: &[Vec<u32>],
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
            let local = numbers[s as usize][next[s as usize] as usize] as usize;
            next[s as usize] += 1;
            let number = (local * SHARDS + s as usize) as u32;
            stretch[j] = Move::new(number, part.levels[j], part.gains[j], part.pits[j]);
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
