//! The files of a solve bounded by disk ([`crate::exact::round::spill`]): one file of positions and
//! one of values per level (counters on the board), each a checkpoint, mapped into memory when
//! read.
//!
//! Both are untrusted input when read: the size must be exactly what the header implies, the
//! header must name the rules, open pits and level expected, the file ends with the SHA-256 of
//! every byte before it, and a set's parts are checked so that no lookup reads out of bounds.
//! A file that fails is refused naming the file and what was wrong.
//!
//! A positions file, `level-NNN.pos`: `RJPLEVL1`; the rules' JSON (u32 length, text); the open pits
//! of South and North (2 bytes); the level (u32); for each side to move (South, then North) its
//! positions, the bits of a member below its bucket, the bucket table's entries and the words of
//! packed low bits (u64, u32, u64, u64); the level's in-level moves and exits (u64 each); zero
//! bytes to a multiple of 8. Then for each side its bucket table (u32 each, padded with zeros to a
//! multiple of 8 bytes) and its low bits (u64 words): a [`RankSet`] of the positions' composition
//! ranks ([`crate::exact::index`]). Last the SHA-256 (32 bytes). Little-endian.
//!
//! A values file, `level-NNN.val`: `RJPLVAL1`; the rules' JSON (u32 length, text); the open
//! pits (2 bytes); the level (u32); the positions of each side (u64 each); the SHA-256 of the
//! level's positions file (32 bytes); then the values packed as tightly as the level's range allows
//! (South's positions in set order, then North's): a position's value for the side to move (R15),
//! between -level and level, is stored as value + level in [`value_bits`] bits (the bits needed for
//! 2 x level), least significant bit first, one value after the other across byte boundaries, then
//! one zero byte so that a value can always be read as two bytes. Last the SHA-256 of every byte
//! before it.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use memmap2::Mmap;
use sha2::{Digest, Sha256};

use crate::engine::{BySide, Ruleset, Side};
use crate::exact::files::hashing::Hashing;
#[cfg(test)]
use crate::exact::index::RankSet;
use crate::exact::index::{LowsPacker, RankSetRef, RankSetShape};
use crate::files;

const POSITIONS_MAGIC: &[u8; 8] = b"RJPLEVL1";
const VALUES_MAGIC: &[u8; 8] = b"RJPLVAL2";
const TRAILER: usize = 32;
/// The longest rules JSON a header may carry.
const MAX_RULES_JSON: usize = 1 << 16;

/// A level's files are `level-NNN.pos` (its positions) and `level-NNN.val` (their values).
pub(crate) const LEVEL_PREFIX: &str = "level-";
pub(crate) const POSITIONS_EXTENSION: &str = ".pos";
pub(crate) const VALUES_EXTENSION: &str = ".val";

pub(crate) fn positions_path(dir: &Path, level: u32) -> PathBuf {
    dir.join(format!("{LEVEL_PREFIX}{level:03}{POSITIONS_EXTENSION}"))
}

pub(crate) fn values_path(dir: &Path, level: u32) -> PathBuf {
    dir.join(format!("{LEVEL_PREFIX}{level:03}{VALUES_EXTENSION}"))
}

/// What a level's files belong to: a header must match it exactly.
#[derive(Clone, Debug)]
pub(crate) struct LevelId {
    pub rules: Ruleset,
    pub open: BySide<u8>,
    pub level: u32,
}

impl LevelId {
    fn header(&self, magic: &[u8; 8]) -> Vec<u8> {
        let json = self.rules.to_json();
        let mut h = magic.to_vec();
        h.extend_from_slice(&(json.len() as u32).to_le_bytes());
        h.extend_from_slice(json.as_bytes());
        h.extend_from_slice(&[self.open[Side::South], self.open[Side::North]]);
        h.extend_from_slice(&self.level.to_le_bytes());
        h
    }
}

/// Writes the positions of a level atomically (a temporary name, synced, renamed); returns the
/// file's size and SHA-256. The streamed writer's reference.
#[cfg(test)]
pub(crate) fn write_positions(
    path: &Path,
    id: &LevelId,
    sets: [&RankSet; 2],
    quiet: u64,
    exits: u64,
) -> std::io::Result<(u64, [u8; 32])> {
    let views = sets.map(|s| s.view().parts());
    let shapes =
        views.map(|(len, bucket, low_bits, lows)| (len, low_bits, bucket.len(), lows.len()));
    write_positions_with(path, id, shapes, quiet, exits, |w, side| {
        let (_, bucket, _, lows) = views[side];
        write_words32(w, bucket)?;
        for chunk in lows.chunks(1 << 16) {
            write_words64(w, chunk)?;
        }
        Ok(())
    })
}

/// Pushes the members of one side (0 South, 1 North), in increasing order.
pub(crate) type Members<'a> = dyn FnMut(usize, &mut dyn FnMut(u64)) -> std::io::Result<()> + 'a;

/// [`write_positions`] for sets too large for memory: `shapes` hold each side's bucket table,
/// and `members(side, push)` pushes that side's ranks in increasing order.
pub(crate) fn write_positions_streamed(
    path: &Path,
    id: &LevelId,
    shapes: [&RankSetShape; 2],
    quiet: u64,
    exits: u64,
    members: &mut Members,
) -> std::io::Result<(u64, [u8; 32])> {
    let heads = shapes.map(|s| (s.len, s.low_bits, s.bucket.len(), s.lows_words()));
    write_positions_with(path, id, heads, quiet, exits, |w, side| {
        let shape = shapes[side];
        write_words32(w, &shape.bucket)?;
        let mut packer = LowsPacker::new(shape.low_bits);
        let mut written = 0usize;
        let mut failed: std::io::Result<()> = Ok(());
        members(side, &mut |rank| {
            packer.push(rank);
            if packer.words.len() >= 1 << 16 && failed.is_ok() {
                failed = write_words64(w, &packer.words);
                written += packer.words.len();
                packer.words.clear();
            }
        })?;
        failed?;
        packer.finish(written, shape.lows_words());
        write_words64(w, &packer.words)
    })
}

/// The frame of a positions file: the header from each side's (members, low bits, bucket
/// entries, words of lows), then `body(side)` for South and North, then the trailer.
fn write_positions_with(
    path: &Path,
    id: &LevelId,
    shapes: [(usize, u32, usize, usize); 2],
    quiet: u64,
    exits: u64,
    mut body: impl FnMut(&mut HashingWriter, usize) -> std::io::Result<()>,
) -> std::io::Result<(u64, [u8; 32])> {
    let mut head = id.header(POSITIONS_MAGIC);
    for (len, low_bits, buckets, words) in shapes {
        head.extend_from_slice(&(len as u64).to_le_bytes());
        head.extend_from_slice(&low_bits.to_le_bytes());
        head.extend_from_slice(&(buckets as u64).to_le_bytes());
        head.extend_from_slice(&(words as u64).to_le_bytes());
    }
    head.extend_from_slice(&quiet.to_le_bytes());
    head.extend_from_slice(&exits.to_le_bytes());
    pad8(&mut head);
    let mut size = 0u64;
    let mut digest = [0u8; 32];
    files::write_atomically(path, |f| {
        let mut w = Hashing::buffered(f);
        w.write_all(&head)?;
        body(&mut w, 0)?;
        body(&mut w, 1)?;
        (size, digest) = w.finish()?;
        Ok(())
    })?;
    Ok((size, digest))
}

/// A bucket table's entries, padded with zeros to a multiple of 8 bytes.
fn write_words32(w: &mut HashingWriter, words: &[u32]) -> std::io::Result<()> {
    let mut bytes: Vec<u8> = words.iter().flat_map(|b| b.to_le_bytes()).collect();
    pad8(&mut bytes);
    w.write_all(&bytes)
}

fn write_words64(w: &mut HashingWriter, words: &[u64]) -> std::io::Result<()> {
    let bytes: Vec<u8> = words.iter().flat_map(|x| x.to_le_bytes()).collect();
    w.write_all(&bytes)
}

/// Writes the values of a level atomically; `values` in set order, South's first.
pub(crate) fn write_values(
    path: &Path,
    id: &LevelId,
    counts: [u64; 2],
    positions_digest: &[u8; 32],
    values: &[i8],
) -> std::io::Result<u64> {
    let mut head = id.header(VALUES_MAGIC);
    head.extend_from_slice(&counts[0].to_le_bytes());
    head.extend_from_slice(&counts[1].to_le_bytes());
    head.extend_from_slice(positions_digest);
    let mut size = 0;
    files::write_atomically(path, |f| {
        let mut w = Hashing::buffered(f);
        w.write_all(&head)?;
        w.write_all(&pack_values(values, id.level))?;
        size = w.finish()?.0;
        Ok(())
    })?;
    Ok(size)
}

fn pad8(bytes: &mut Vec<u8>) {
    while !bytes.len().is_multiple_of(8) {
        bytes.push(0);
    }
}

/// A level file's writer: buffered, hashing what it writes for the trailer.
type HashingWriter<'a> = Hashing<BufWriter<&'a mut std::fs::File>>;

/// A reader of a header's fields that fails, never panics, on a short file.
struct Fields<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Fields<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or("the file is shorter than its header")?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }
    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }
    /// Checks the magic, rules, open pits and level against `id`.
    fn identity(&mut self, magic: &[u8; 8], id: &LevelId) -> Result<(), String> {
        if self.take(8)? != magic {
            return Err(format!("it does not start with {}", String::from_utf8_lossy(magic)));
        }
        let len = self.u32()? as usize;
        if len > MAX_RULES_JSON {
            return Err(format!("its rules take {len} bytes; at most {MAX_RULES_JSON}"));
        }
        let json = self.take(len)?;
        if json != id.rules.to_json().as_bytes() {
            return Err(format!(
                "it is for other rules ({}), not {}",
                String::from_utf8_lossy(json),
                id.rules.to_json()
            ));
        }
        let open = self.take(2)?;
        if open != [id.open[Side::South], id.open[Side::North]] {
            return Err(format!(
                "it is for open pits {},{}, not {},{}",
                open[0],
                open[1],
                id.open[Side::South],
                id.open[Side::North]
            ));
        }
        let level = self.u32()?;
        if level != id.level {
            return Err(format!("it is for level {level}, not {}", id.level));
        }
        Ok(())
    }
}

/// Maps a file.
fn map_file(path: &Path) -> Result<Mmap, String> {
    let file = files::open_regular(path).map_err(|e| format!("cannot open it: {e}"))?;
    // SAFETY: the solve's own files, in its directory, written once under a temporary name and
    // renamed; nothing writes them while mapped, and every byte is checked before use.
    unsafe { Mmap::map(&file) }.map_err(|e| format!("cannot map it: {e}"))
}

/// Maps a file and checks its trailer.
fn map_checked(path: &Path) -> Result<(Mmap, [u8; 32]), String> {
    let map = map_file(path)?;
    if map.len() < TRAILER {
        return Err(format!("it holds {} bytes, fewer than its checksum", map.len()));
    }
    let (body, trailer) = map.split_at(map.len() - TRAILER);
    let digest: [u8; 32] = Sha256::digest(body).into();
    if digest != trailer {
        return Err("its SHA-256 does not match its contents (truncated or altered)".into());
    }
    Ok((map, digest))
}

/// One side's set within a positions file.
#[derive(Clone, Copy, Debug)]
struct SetParts {
    len: usize,
    low_bits: u32,
    bucket: (usize, usize),
    lows: (usize, usize),
}

/// A level's positions, mapped.
pub(crate) struct PositionsFile {
    map: Mmap,
    sets: [SetParts; 2],
    pub quiet: u64,
    pub exits: u64,
    pub digest: [u8; 32],
}

/// A refused file: its path and why.
pub(crate) fn refused(path: &Path, why: impl std::fmt::Display) -> String {
    format!(
        "{} is not a valid level file of this solve: {why}; remove it (and the solve continues from the levels before it)",
        path.display()
    )
}

impl PositionsFile {
    pub(crate) fn open(path: &Path, id: &LevelId) -> Result<PositionsFile, String> {
        Self::read(path, id).map_err(|why| refused(path, why))
    }

    fn read(path: &Path, id: &LevelId) -> Result<PositionsFile, String> {
        if !cfg!(target_endian = "little") {
            return Err("level files are read on little-endian machines only".into());
        }
        let (map, digest) = map_checked(path)?;
        let body = &map[..map.len() - TRAILER];
        let mut f = Fields { bytes: body, at: 0 };
        f.identity(POSITIONS_MAGIC, id)?;
        let mut heads = [(0u64, 0u32, 0u64, 0u64); 2];
        for h in &mut heads {
            *h = (f.u64()?, f.u32()?, f.u64()?, f.u64()?);
        }
        let (quiet, exits) = (f.u64()?, f.u64()?);
        let mut at = f.at.div_ceil(8) * 8;
        let mut sets = [SetParts { len: 0, low_bits: 0, bucket: (0, 0), lows: (0, 0) }; 2];
        for (side, &(len, low_bits, buckets, words)) in heads.iter().enumerate() {
            let bucket_bytes = buckets
                .checked_mul(4)
                .map(|b| b.div_ceil(8) * 8)
                .ok_or("a bucket table too large")?;
            let lows_bytes = words.checked_mul(8).ok_or("too many low bits")?;
            let bucket = (at, buckets as usize);
            at = at.checked_add(bucket_bytes as usize).ok_or("sizes overflow")?;
            let lows = (at, words as usize);
            at = at.checked_add(lows_bytes as usize).ok_or("sizes overflow")?;
            sets[side] = SetParts { len: len as usize, low_bits, bucket, lows };
        }
        if at != body.len() {
            return Err(format!(
                "its header implies {} bytes, the file holds {}",
                at + TRAILER,
                map.len()
            ));
        }
        let file = PositionsFile { map, sets, quiet, exits, digest };
        for side in 0..2 {
            file.try_set(side)?;
        }
        Ok(file)
    }

    fn try_set(&self, side: usize) -> Result<RankSetRef<'_>, String> {
        let p = self.sets[side];
        let words32 = cast_u32(&self.map[p.bucket.0..p.bucket.0 + p.bucket.1 * 4])?;
        let words64 = cast_u64(&self.map[p.lows.0..p.lows.0 + p.lows.1 * 8])?;
        RankSetRef::from_parts(p.len, words32, p.low_bits, words64)
            .map_err(|e| format!("{} set: {e}", Side::from_index(side)))
    }

    /// The positions with `side` (0 South, 1 North) to move, as composition ranks.
    pub(crate) fn set(&self, side: usize) -> RankSetRef<'_> {
        let p = self.sets[side];
        let bucket = cast_u32(&self.map[p.bucket.0..p.bucket.0 + p.bucket.1 * 4])
            .expect("checked when opened");
        let lows =
            cast_u64(&self.map[p.lows.0..p.lows.0 + p.lows.1 * 8]).expect("checked when opened");
        RankSetRef::from_checked_parts(p.len, bucket, p.low_bits, lows)
    }

    pub(crate) fn counts(&self) -> [u64; 2] {
        [self.sets[0].len as u64, self.sets[1].len as u64]
    }

    pub(crate) fn bytes(&self) -> u64 {
        self.map.len() as u64
    }
}

fn cast_u32(bytes: &[u8]) -> Result<&[u32], String> {
    // SAFETY: every bit pattern is a valid u32; alignment is checked by align_to's split.
    let (pre, words, post) = unsafe { bytes.align_to::<u32>() };
    if !pre.is_empty() || !post.is_empty() {
        return Err("a table is not aligned".into());
    }
    Ok(words)
}

fn cast_u64(bytes: &[u8]) -> Result<&[u64], String> {
    // SAFETY: every bit pattern is a valid u64; alignment is checked by align_to's split.
    let (pre, words, post) = unsafe { bytes.align_to::<u64>() };
    if !pre.is_empty() || !post.is_empty() {
        return Err("a table is not aligned".into());
    }
    Ok(words)
}

/// A level's values, mapped.
pub(crate) struct ValuesFile {
    map: Mmap,
    start: usize,
    len: usize,
    level: u32,
    bits: u32,
}

impl ValuesFile {
    /// Opens the values of the level whose positions are `positions`.
    pub(crate) fn open(
        path: &Path,
        id: &LevelId,
        positions: &PositionsFile,
    ) -> Result<ValuesFile, String> {
        Self::read(path, id, positions).map_err(|why| refused(path, why))
    }

    fn read(path: &Path, id: &LevelId, positions: &PositionsFile) -> Result<ValuesFile, String> {
        let (map, _) = map_checked(path)?;
        let body = &map[..map.len() - TRAILER];
        let mut f = Fields { bytes: body, at: 0 };
        f.identity(VALUES_MAGIC, id)?;
        let counts = [f.u64()?, f.u64()?];
        if counts != positions.counts() {
            return Err(format!(
                "it holds values of {:?} positions; the level holds {:?}",
                counts,
                positions.counts()
            ));
        }
        if f.take(32)? != positions.digest {
            return Err("it was computed from another positions file of this level".into());
        }
        let len = (counts[0] + counts[1]) as usize;
        let bytes = packed_bytes(len, id.level);
        if body.len() - f.at != bytes {
            return Err(format!(
                "it holds {} bytes of values; {len} positions at level {} take {bytes}",
                body.len() - f.at,
                id.level
            ));
        }
        let start = f.at;
        let file = ValuesFile { map, start, len, level: id.level, bits: value_bits(id.level) };
        let bound = id.level as i32;
        if let Some(i) = (0..len).find(|&i| file.get(i).abs() > bound) {
            return Err(format!(
                "value {} at position {i} is outside -{bound}..={bound}",
                file.get(i)
            ));
        }
        if file.map[file.start + bytes - 1] != 0 {
            return Err("its values do not end with a zero byte".into());
        }
        Ok(file)
    }

    /// The value of the i-th position (South's first).
    #[inline]
    pub(crate) fn get(&self, i: usize) -> i32 {
        debug_assert!(i < self.len);
        unpack_value(&self.map[self.start..], i, self.bits) as i32 - self.level as i32
    }

    pub(crate) fn bytes(&self) -> u64 {
        self.map.len() as u64
    }
}

/// The bits a value of `level` takes: enough for value + level, 0 to 2 x level.
fn value_bits(level: u32) -> u32 {
    (u32::BITS - (2 * level).leading_zeros()).max(1)
}

/// The bytes that `len` packed values of `level` take, the closing zero byte included.
pub(crate) fn packed_bytes(len: usize, level: u32) -> usize {
    (len * value_bits(level) as usize).div_ceil(8) + 1
}

/// `values` (each within -level..=level) packed as the values file holds them.
fn pack_values(values: &[i8], level: u32) -> Vec<u8> {
    let bits = value_bits(level);
    let mut out = vec![0u8; packed_bytes(values.len(), level)];
    for (i, &v) in values.iter().enumerate() {
        let stored = (v as i32 + level as i32) as u16;
        debug_assert!(u32::from(stored) < 1 << bits);
        let at = i * bits as usize;
        let two = stored << (at % 8);
        out[at / 8] |= two as u8;
        out[at / 8 + 1] |= (two >> 8) as u8;
    }
    out
}

/// The `i`-th stored value (value + level) of `packed`; at most 8 bits a value, so any value
/// lies within two bytes (the closing zero byte makes the last one readable).
#[inline]
fn unpack_value(packed: &[u8], i: usize, bits: u32) -> u32 {
    let at = i * bits as usize;
    let two = u16::from_le_bytes([packed[at / 8], packed[at / 8 + 1]]);
    u32::from(two >> (at % 8)) & ((1 << bits) - 1)
}

#[cfg(test)]
#[path = "level_files_tests.rs"]
mod packing_tests;

mod match_files;
pub(crate) use match_files::*;

// A keys file, `run-IIII-BBBBB.keys` in a level's work directory
// ([`crate::exact::round::bucketed`]): one bucket's new positions of one round of expansion,
// sorted: `RJPKEYS1`, the keys (u64, after the count, u64), the SHA-256 of every byte before it.
// Written once under a temporary name.

const KEYS_MAGIC: &[u8; 8] = b"RJPKEYS1";

/// Writes sorted keys under a temporary name, renamed once complete; the file's size. Not
/// synced: a level has thousands of runs, and a run that a crash of the machine cut short fails
/// its checksum when read (a killed process loses nothing written).
pub(crate) fn write_keys(path: &Path, keys: &[u64]) -> std::io::Result<u64> {
    files::check_destination(path)?;
    let mut tmp = files::Temporary::create(path)?;
    let f = tmp.file().expect("a new temporary file is open");
    let mut w = Hashing::buffered(f);
    w.write_all(KEYS_MAGIC)?;
    w.write_all(&(keys.len() as u64).to_le_bytes())?;
    for chunk in keys.chunks(1 << 16) {
        write_words64(&mut w, chunk)?;
    }
    let size = w.finish()?.0;
    std::fs::rename(tmp.path(), path)?;
    Ok(size)
}

/// A keys file, mapped.
pub(crate) struct KeysFile {
    map: Mmap,
    len: usize,
}

impl KeysFile {
    /// Opens a keys file, its checksum checked when `check` is set (a file this run has already
    /// checked is not read twice).
    pub(crate) fn open(path: &Path, check: bool) -> Result<KeysFile, String> {
        Self::read(path, check).map_err(|why| refused(path, why))
    }

    fn read(path: &Path, check: bool) -> Result<KeysFile, String> {
        let map = if check { map_checked(path)?.0 } else { map_file(path)? };
        if map.len() < 16 + TRAILER || &map[..8] != KEYS_MAGIC {
            return Err(format!("it does not start with {}", String::from_utf8_lossy(KEYS_MAGIC)));
        }
        let len = u64::from_le_bytes(map[8..16].try_into().expect("8 bytes"));
        if len.checked_mul(8).and_then(|b| b.checked_add((16 + TRAILER) as u64))
            != Some(map.len() as u64)
        {
            return Err(format!(
                "it holds {} bytes; {len} keys take {}",
                map.len(),
                len as u128 * 8 + 16 + TRAILER as u128
            ));
        }
        let file = KeysFile { map, len: len as usize };
        if check && file.keys().windows(2).any(|w| w[0] >= w[1]) {
            return Err("its keys are not sorted".into());
        }
        Ok(file)
    }

    pub(crate) fn keys(&self) -> &[u64] {
        cast_u64(&self.map[16..16 + self.len * 8]).expect("8-byte aligned")
    }
}
