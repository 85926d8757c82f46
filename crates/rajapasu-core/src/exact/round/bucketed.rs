//! One level of a solve bounded by disk ([`crate::exact::round::spill`]) enumerated by delayed
//! duplicate detection (Korf): no set of the level's positions is ever held in memory.
//!
//! The level's keys are split into buckets by a hash of the key. The level is found in rounds:
//! round 0 takes the roots and what captures from above reached (the level's pending file); each
//! later round expands the positions the round before found. A round appends every in-level child
//! to its bucket's children file (unsorted, with repeats), and every capture's child to its level's
//! pending file. Then each bucket on its own: its children sorted, repeats dropped, and the
//! positions of the bucket's earlier rounds removed; what is left is the round's new positions of
//! the bucket, a sorted keys file (`run-RRRR-BBBBB.keys`). A level is found when a round finds
//! nothing new; its runs, disjoint and each sorted, are merged into the level's positions file
//! ([`crate::exact::files::level_files::write_positions_streamed`]). So the memory a level needs is
//! one bucket's children, whatever the level's size.
//!
//! Keys in runs are in the positions file's order (South to move first, each side by rank).
//! Every round and every bucket is a checkpoint: `state.json` records the round and, once its
//! expansion is done, the lengths of the children and pending files; a run, written once under
//! a temporary name, is a bucket done. A run killed anywhere and started again redoes at most
//! one expansion or one bucket, and gives the same files.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;

use crate::exact::files::append_synced;
use crate::exact::files::bucket_state::{work_dir, Appended, Merged, PendingFigures, Work};
use crate::exact::files::level_files::{
    positions_path, write_keys, write_positions_streamed, KeysFile,
};
use crate::exact::files::pending::{
    batches_path, for_each_batch_key, pending_path, run_path as merged_run_path, RunReader,
};
use crate::exact::index::{Codec, Key, RankSetShape};
use crate::exact::round::solver::Progress;
use crate::exact::round::spill::pending::{appended_keys, remove_if_there};
use crate::exact::round::spill::{io_error, LevelFigures, Run, SpillError, State};
use crate::files;

/// Positions per parallel task.
const CHUNK: usize = 2048;
/// Bytes read from a children or pending file at a time.
const READ_CHUNK: usize = 1 << 23;
/// The most buckets a level is split into.
const MAX_BUCKETS: u32 = 1 << 12;

#[inline]
fn bucket_of(order: u64, buckets: u32) -> usize {
    let mixed = (order ^ order >> 29).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    (mixed >> 32) as usize & (buckets as usize - 1)
}

fn children_path(dir: &Path, bucket: usize) -> PathBuf {
    dir.join(format!("children-{bucket:05}.raw"))
}

fn run_path(dir: &Path, round: u32, bucket: usize) -> PathBuf {
    dir.join(format!("run-{round:04}-{bucket:05}.keys"))
}

impl Run {
    /// Enumerates level `n`: its positions file, the captures' positions appended to the lower
    /// levels' pending files. Continues the level where `state` says a killed run left it.
    pub(in crate::exact) fn enumerate_level(
        &mut self,
        n: u32,
        state: &mut State,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<(), SpillError> {
        let dir = work_dir(&self.dir, n);
        let mut work = match state.work.take() {
            Some(w) if w.level == n => w,
            _ => {
                if dir.exists() {
                    std::fs::remove_dir_all(&dir).map_err(|e| io_error(&dir, e, 0, 0))?;
                }
                Work {
                    level: n,
                    buckets: self.buckets_for(n, state),
                    round: 0,
                    found: 0,
                    children: None,
                    quiet: 0,
                    exits: 0,
                    peak: 0,
                    seconds: 0.0,
                }
            }
        };
        std::fs::create_dir_all(&dir).map_err(|e| io_error(&dir, e, 0, 0))?;
        crate::exact::files::temporaries::remove_stale_temporaries(&dir);
        self.pending = PendingFigures::default();
        let mut clock = Instant::now();
        loop {
            if work.children.is_none() {
                self.expand_round(&dir, &mut work, state, progress)?;
                work.seconds += clock.elapsed().as_secs_f64();
                state.work = Some(work.clone());
                self.save_state(state)?;
                // A checkpoint: the pending files' lengths are recorded.
                self.merge_pending(n, state)?;
                clock = Instant::now();
            }
            let new = self.merge_round(&dir, &mut work)?;
            work.found += new;
            for b in 0..work.buckets as usize {
                let p = children_path(&dir, b);
                if p.exists() {
                    std::fs::remove_file(&p).map_err(|e| io_error(&p, e, 0, 0))?;
                }
            }
            work.seconds += clock.elapsed().as_secs_f64();
            clock = Instant::now();
            if new == 0 {
                break;
            }
            // No checkpoint here: a run killed in the next expansion finds this round's runs
            // all written and goes on from them.
            work.round += 1;
            work.children = None;
        }
        self.finish_level(n, &dir, work, state, clock)
    }

    /// Buckets for level `n`: enough for the level's estimate (what captures reached it, or
    /// twice the level above, whichever is more) at the planned bucket size.
    fn buckets_for(&self, n: u32, state: &State) -> u32 {
        let pending = appended_keys(state).get(&n).copied().unwrap_or(0)
            + state.merged.get(&n).map_or(0, |r| r.keys);
        let above = state.levels.get(&(n + 1)).map_or(0, LevelFigures::count);
        let estimate = pending.max(2 * above).max(1);
        let wanted = estimate.div_ceil(self.tuning.bucket_keys).min(MAX_BUCKETS as u64) as u32;
        wanted.next_power_of_two().max(self.tuning.min_buckets.next_power_of_two()).min(MAX_BUCKETS)
    }

    /// The children of the round's positions: round 0's are the roots and the pending file's
    /// keys; a later round's, the children of the runs of the round before. In-level children go
    /// to their buckets' children files, lower ones to their levels' pending files.
    fn expand_round(
        &mut self,
        dir: &Path,
        work: &mut Work,
        state: &mut State,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<(), SpillError> {
        let n = work.level;
        for b in 0..work.buckets as usize {
            let p = children_path(dir, b);
            if p.exists() {
                std::fs::remove_file(&p).map_err(|e| io_error(&p, e, 0, 0))?;
            }
        }
        let mut out = Children::new(dir, work.buckets, n, self.bounds.opts.max_memory);
        if work.round == 0 {
            let roots: Vec<u64> = state
                .roots
                .iter()
                .filter(|&&(level, _)| level == n)
                .map(|&(_, key)| Key::from_word(key).ordered())
                .collect();
            out.add_in_level(&roots);
            let (merged, batches) = (state.merged.get(&n).copied(), state.batches.get(&n).copied());
            self.seed_from_pending(n, merged, batches, &mut out)?;
        } else {
            self.expand_runs(dir, work, &mut out, state, progress)?;
        }
        let lengths = out.flush(self)?;
        work.peak = work.peak.max(out.peak);
        work.children = Some(lengths);
        Ok(())
    }

    /// Round 0's children from the level's pending files: its merged run and the batches
    /// appended since (delta-coded, and raw ones an earlier version appended).
    fn seed_from_pending(
        &mut self,
        n: u32,
        merged: Option<Merged>,
        state_batches: Option<Appended>,
        out: &mut Children,
    ) -> Result<(), SpillError> {
        if let Some(run) = merged {
            let path = merged_run_path(&self.dir, n, run.generation);
            let reader = RunReader::open(&path, n, READ_CHUNK / 8).map_err(SpillError::BadFile)?;
            reader.for_each_block(&path, |keys| {
                let keys: Vec<u64> = keys.iter().map(|&k| Key::from_word(k).ordered()).collect();
                out.add_in_level(&keys);
                out.flush_if_full(self)
            })?;
        }
        if let Some(b) = state_batches {
            let path = batches_path(&self.dir, n);
            for_each_batch_key(&path, b.bytes, READ_CHUNK / 8, |keys| {
                let keys: Vec<u64> = keys.iter().map(|&k| Key::from_word(k).ordered()).collect();
                out.add_in_level(&keys);
                out.flush_if_full(self)
            })?;
        }
        let pending = pending_path(&self.dir, n);
        if !pending.exists() {
            return Ok(());
        }
        let mut f = files::open_regular(&pending).map_err(|e| io_error(&pending, e, 0, 0))?;
        let mut buf = vec![0u8; READ_CHUNK];
        loop {
            let got = read_full(&mut f, &mut buf).map_err(|e| io_error(&pending, e, 0, 0))?;
            let keys: Vec<u64> = buf[..got - got % 8]
                .chunks_exact(8)
                .map(|w| {
                    Key::from_word(u64::from_le_bytes(w.try_into().expect("8 bytes"))).ordered()
                })
                .collect();
            out.add_in_level(&keys);
            out.flush_if_full(self)?;
            if got < buf.len() {
                return Ok(());
            }
        }
    }

    /// Expands the runs of the round before, on every thread, a wave at a time.
    fn expand_runs(
        &mut self,
        dir: &Path,
        work: &mut Work,
        out: &mut Children,
        state: &mut State,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<(), SpillError> {
        let n = work.level;
        let wave = (self.bounds.opts.max_memory / 64 / 36).clamp(1 << 8, 1 << 18) as usize;
        let mut lower: Vec<Vec<u64>> = vec![Vec::new(); n as usize];
        let flush_keys = (self.bounds.opts.max_memory / 64 / 8).clamp(1 << 8, 1 << 26) as usize;
        for b in 0..work.buckets as usize {
            let run = self.open_run(&run_path(dir, work.round - 1, b))?;
            for keys in run.keys().chunks(wave) {
                let codec = &self.codec;
                let parts: Vec<(Vec<u8>, Vec<Key>, u64, u64)> =
                    keys.par_chunks(CHUNK).map(|chunk| expand_chunk(codec, n, chunk)).collect();
                for (levels, children, quiet, exits) in parts {
                    work.quiet += quiet;
                    work.exits += exits;
                    for (m, key) in levels.into_iter().zip(children) {
                        if m as u32 == n {
                            out.push(key.ordered());
                        } else {
                            lower[m as usize].push(key.word());
                        }
                    }
                }
                out.flush_if_full(self)?;
                let buffered: usize = lower.iter().map(Vec::len).sum();
                let working = out.bytes()
                    + lower.iter().map(|v| v.capacity() as u64 * 8).sum::<u64>()
                    + keys.len() as u64 * 36;
                out.peak = out.peak.max(self.bounds.check_memory(working, n, 0, "enumerated")?);
                if buffered >= flush_keys {
                    self.flush_pending(&mut lower, state)?;
                }
            }
            progress(Progress { phase: "enumerating", level: n, done: work.found, total: 0 });
        }
        self.flush_pending(&mut lower, state)
    }

    /// Sorts each bucket's children, drops repeats and what the bucket's earlier runs hold, and
    /// writes the rest as the round's run of the bucket; the new positions of the round.
    fn merge_round(&mut self, dir: &Path, work: &mut Work) -> Result<u64, SpillError> {
        let lengths = work.children.clone().expect("the round is expanded");
        let mut new = 0u64;
        for (b, &length) in lengths.iter().enumerate() {
            let path = run_path(dir, work.round, b);
            if path.exists() {
                new += self.open_run(&path)?.keys().len() as u64;
                continue;
            }
            let mut keys = read_children(&children_path(dir, b), length)?;
            let working = keys.capacity() as u64 * 8;
            work.peak = work.peak.max(self.bounds.check_memory(
                working,
                work.level,
                keys.len() as u64,
                "enumerated",
            )?);
            keys.par_sort_unstable();
            keys.dedup();
            for r in 0..work.round {
                if keys.is_empty() {
                    break;
                }
                subtract(&mut keys, self.open_run(&run_path(dir, r, b))?.keys());
            }
            let estimate = keys.len() as u64 * 8 + 64;
            self.bounds.check_disk(estimate, || {
                format!("a bucket of level {} of about {estimate} bytes", work.level)
            })?;
            let bytes = write_keys(&path, &keys)
                .map_err(|e| io_error(&path, e, self.bounds.disk, estimate))?;
            self.bounds.disk += bytes;
            self.checked.insert(path);
            new += keys.len() as u64;
            self.buckets_merged += 1;
            if self.tuning.stop_after_buckets.is_some_and(|stop| self.buckets_merged >= stop) {
                return Err(SpillError::Interrupted {
                    levels: self.bounds.finished,
                    next: work.level,
                });
            }
        }
        Ok(new)
    }

    /// A run of this level, its checksum checked the first time this run opens it.
    fn open_run(&mut self, path: &Path) -> Result<KeysFile, SpillError> {
        let check = !self.checked.contains(path);
        let file = KeysFile::open(path, check).map_err(SpillError::BadFile)?;
        if check {
            self.checked.insert(path.to_path_buf());
        }
        Ok(file)
    }

    /// Merges the level's runs into its positions file, records the level and drops its work
    /// directory and pending file.
    fn finish_level(
        &mut self,
        n: u32,
        dir: &Path,
        mut work: Work,
        state: &mut State,
        clock: Instant,
    ) -> Result<(), SpillError> {
        let runs = self.level_runs(dir, &work)?;
        let (south, total, shapes) = level_shapes(&self.codec, n, &runs);
        let working =
            shapes.iter().map(|s| s.bucket.len() as u64 * 4).sum::<u64>() + runs.len() as u64 * 64;
        work.peak =
            work.peak.max(self.bounds.check_memory(working, n, total as u64, "enumerated")?);
        let path = positions_path(&self.dir, n);
        let estimate = total as u64 * 8 + 4096;
        self.bounds.check_disk(estimate, || {
            format!("level {n}'s positions file of at most {estimate} bytes")
        })?;
        let keys: Vec<&[u64]> = runs.iter().map(|r| r.keys()).collect();
        let mut merged = Merge::new(&keys);
        let (bytes, _) = write_positions_streamed(
            &path,
            &self.id(n),
            [&shapes[0], &shapes[1]],
            work.quiet,
            work.exits,
            &mut |side, push| {
                while let Some(key) = merged.peek().map(Key::from_ordered) {
                    if key.side() != side {
                        break;
                    }
                    push(key.rank());
                    merged.next();
                }
                Ok(())
            },
        )
        .map_err(|e| io_error(&path, e, self.bounds.disk, estimate))?;
        self.bounds.disk += bytes;
        drop(runs);
        state.levels.insert(
            n,
            LevelFigures {
                level: n,
                positions: [south as u64, (total - south) as u64],
                quiet_moves: work.quiet,
                exits: work.exits,
                positions_bytes: bytes,
                enumerate_peak_bytes: work.peak,
                enumerate_seconds: work.seconds + clock.elapsed().as_secs_f64(),
                ..LevelFigures::default()
            },
        );
        self.close_level(n, dir, &work, state)
    }

    /// Every non-empty run of the level's rounds, opened.
    fn level_runs(&mut self, dir: &Path, work: &Work) -> Result<Vec<KeysFile>, SpillError> {
        let mut runs = Vec::new();
        for r in 0..=work.round {
            for b in 0..work.buckets as usize {
                let run = self.open_run(&run_path(dir, r, b))?;
                if !run.keys().is_empty() {
                    runs.push(run);
                }
            }
        }
        Ok(runs)
    }

    /// Records level n as found in the state (saved: a checkpoint), then removes what it no
    /// longer needs: its merged pending run, its work directory and its pending files.
    fn close_level(
        &mut self,
        n: u32,
        dir: &Path,
        work: &Work,
        state: &mut State,
    ) -> Result<(), SpillError> {
        state.buckets.insert(n, (work.buckets, work.round + 1));
        state.next = n.checked_sub(1);
        state.pending.remove(&n);
        state.batches.remove(&n);
        let merged = state.merged.remove(&n);
        state.work = None;
        self.note_pending(state);
        state.pending_figures.insert(n, self.pending);
        self.save_state(state)?;
        if let Some(run) = merged {
            remove_if_there(&merged_run_path(&self.dir, n, run.generation))?;
            self.bounds.disk = self.bounds.disk.saturating_sub(run.bytes);
        }
        let removed = crate::exact::round::spill::dir_bytes(dir);
        std::fs::remove_dir_all(dir).map_err(|e| io_error(dir, e, 0, 0))?;
        self.bounds.disk = self.bounds.disk.saturating_sub(removed);
        self.checked.clear();
        for pending in [pending_path(&self.dir, n), batches_path(&self.dir, n)] {
            if pending.exists() {
                let len = std::fs::metadata(&pending).map(|m| m.len()).unwrap_or(0);
                self.bounds.disk = self.bounds.disk.saturating_sub(len);
                std::fs::remove_file(&pending).map_err(|e| io_error(&pending, e, 0, 0))?;
            }
        }
        Ok(())
    }
}

/// The positions of level n in `runs`: South's to move, all, and the two sides' rank sets'
/// shapes (their buckets counted).
fn level_shapes(codec: &Codec, n: u32, runs: &[KeysFile]) -> (usize, usize, [RankSetShape; 2]) {
    let universe = codec.comps.count(n as usize).expect("checked by check_board_size");
    let south: usize =
        runs.iter().map(|r| r.keys().partition_point(|&k| Key::from_ordered(k).side() == 0)).sum();
    let total: usize = runs.iter().map(|r| r.keys().len()).sum();
    let mut shapes =
        [RankSetShape::new(south, universe), RankSetShape::new(total - south, universe)];
    for run in runs {
        for &k in run.keys() {
            let key = Key::from_ordered(k);
            shapes[key.side()].count(key.rank());
        }
    }
    for s in &mut shapes {
        s.finish_counts();
    }
    (south, total, shapes)
}

/// The in-level children of a round, buffered by bucket and appended to the buckets' files.
struct Children {
    dir: PathBuf,
    level: u32,
    buffers: Vec<Vec<u64>>,
    buffered: usize,
    /// Flush when this many keys are buffered.
    limit: usize,
    /// Bytes appended to each bucket's file.
    lengths: Vec<u64>,
    peak: u64,
}

impl Children {
    fn new(dir: &Path, buckets: u32, level: u32, max_memory: u64) -> Children {
        Children {
            dir: dir.to_path_buf(),
            level,
            buffers: vec![Vec::new(); buckets as usize],
            buffered: 0,
            limit: (max_memory / 32 / 8).clamp(1 << 8, 1 << 26) as usize,
            lengths: vec![0; buckets as usize],
            peak: 0,
        }
    }

    #[inline]
    fn push(&mut self, order: u64) {
        let b = bucket_of(order, self.buffers.len() as u32);
        self.buffers[b].push(order);
        self.buffered += 1;
    }

    fn add_in_level(&mut self, keys: &[u64]) {
        for &k in keys {
            self.push(k);
        }
    }

    fn bytes(&self) -> u64 {
        self.buffers.iter().map(|v| v.capacity() as u64 * 8).sum()
    }

    fn flush_if_full(&mut self, run: &mut Run) -> Result<(), SpillError> {
        self.peak =
            self.peak.max(run.bounds.check_memory(self.bytes(), self.level, 0, "enumerated")?);
        if self.buffered >= self.limit {
            self.append(run)?;
        }
        Ok(())
    }

    /// Appends every buffer to its bucket's file, synced.
    fn append(&mut self, run: &mut Run) -> Result<(), SpillError> {
        for (b, keys) in self.buffers.iter_mut().enumerate() {
            if keys.is_empty() {
                continue;
            }
            let path = children_path(&self.dir, b);
            let bytes: Vec<u8> = keys.iter().flat_map(|k| k.to_le_bytes()).collect();
            let len = bytes.len() as u64;
            run.bounds.check_disk(len, || {
                format!("{len} more bytes of level {}'s children", self.level)
            })?;
            let used = run.bounds.disk;
            append_synced(&path, &bytes).map_err(|e| io_error(&path, e, used, len))?;
            run.bounds.disk += len;
            self.lengths[b] += len;
            *keys = Vec::new();
        }
        self.buffered = 0;
        Ok(())
    }

    /// The last buffers appended; the bytes of each bucket's file.
    fn flush(&mut self, run: &mut Run) -> Result<Vec<u64>, SpillError> {
        self.peak =
            self.peak.max(run.bounds.check_memory(self.bytes(), self.level, 0, "enumerated")?);
        self.append(run)?;
        Ok(self.lengths.clone())
    }
}

/// The children of positions of level `n` (keys): each child's level and key, the quiet moves
/// and the exits (a position without a move is an exit: the round ends).
fn expand_chunk(codec: &Codec, n: u32, chunk: &[u64]) -> (Vec<u8>, Vec<Key>, u64, u64) {
    let (mut levels, mut keys) =
        (Vec::with_capacity(chunk.len() * 4), Vec::with_capacity(chunk.len() * 4));
    let (mut quiet, mut exits) = (0u64, 0u64);
    let mut unranker = codec.unranker(n);
    for &order in chunk {
        let mut any = false;
        for (_, child, _) in unranker.position(Key::from_ordered(order)).legal_children() {
            any = true;
            let m = child.on_board();
            if m == n {
                quiet += 1;
            } else {
                exits += 1;
            }
            levels.push(m as u8);
            keys.push(codec.key(&child));
        }
        if !any {
            exits += 1;
        }
    }
    (levels, keys, quiet, exits)
}

/// A bucket's children file: its first `length` bytes (what a killed writer appended after is
/// not read).
fn read_children(path: &Path, length: u64) -> Result<Vec<u64>, SpillError> {
    if length == 0 {
        return Ok(Vec::new());
    }
    let mut f = files::open_regular(path).map_err(|e| io_error(path, e, 0, 0))?;
    let on_disk = f.metadata().map_err(|e| io_error(path, e, 0, 0))?.len();
    if on_disk < length || !length.is_multiple_of(8) {
        return Err(SpillError::BadFile(crate::exact::files::level_files::refused(
            path,
            format!("it holds {on_disk} bytes; the state records {length}, a whole number of keys"),
        )));
    }
    let mut keys = Vec::with_capacity(length as usize / 8);
    let mut buf = vec![0u8; READ_CHUNK.min(length as usize)];
    let mut left = length as usize;
    while left > 0 {
        let take = left.min(buf.len());
        f.read_exact(&mut buf[..take]).map_err(|e| io_error(path, e, 0, 0))?;
        keys.extend(
            buf[..take].chunks_exact(8).map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes"))),
        );
        left -= take;
    }
    Ok(keys)
}

/// Removes from sorted `keys` the members of sorted `known`: by a linear merge, or by search
/// when `keys` are few beside `known`.
fn subtract(keys: &mut Vec<u64>, known: &[u64]) {
    if keys.len() * 32 < known.len() {
        let mut rest = known;
        keys.retain(|&k| {
            let at = rest.partition_point(|&x| x < k);
            rest = &rest[at..];
            rest.first() != Some(&k)
        });
        return;
    }
    let mut j = 0;
    keys.retain(|&k| {
        while j < known.len() && known[j] < k {
            j += 1;
        }
        !(j < known.len() && known[j] == k)
    });
}

/// The members of sorted disjoint slices, in increasing order.
struct Merge<'a> {
    slices: Vec<&'a [u64]>,
    heap: BinaryHeap<Reverse<(u64, usize)>>,
    at: Vec<usize>,
}

impl<'a> Merge<'a> {
    fn new(slices: &[&'a [u64]]) -> Merge<'a> {
        let heap = slices
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.is_empty())
            .map(|(i, s)| Reverse((s[0], i)))
            .collect();
        Merge { slices: slices.to_vec(), heap, at: vec![0; slices.len()] }
    }

    fn peek(&self) -> Option<u64> {
        self.heap.peek().map(|Reverse((k, _))| *k)
    }

    fn next(&mut self) {
        let Some(Reverse((_, i))) = self.heap.pop() else { return };
        self.at[i] += 1;
        if let Some(&k) = self.slices[i].get(self.at[i]) {
            self.heap.push(Reverse((k, i)));
        }
    }
}

fn read_full(f: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match f.read(&mut buf[got..])? {
            0 => break,
            k => got += k,
        }
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subtracting_by_merge_and_by_search_agree() {
        let known: Vec<u64> = (0..10_000).map(|i| i * 3).collect();
        for keys in [vec![0u64, 1, 2, 3, 29_997, 30_000], (0..5000).collect::<Vec<u64>>()] {
            let mut got = keys.clone();
            subtract(&mut got, &known);
            let want: Vec<u64> =
                keys.iter().copied().filter(|k| known.binary_search(k).is_err()).collect();
            assert_eq!(got, want);
        }
    }
}
