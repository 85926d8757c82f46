//! The captures of a solve bounded by disk ([`crate::exact::round::spill`]) that land in a lower
//! level, kept until the enumeration comes down to that level, merged so that their volume is
//! bounded by the distinct positions the level receives, not by the captures.
//!
//! A lower level's pending positions are two files: `pending-NNN.batches`, the batches appended
//! since the last merge (each batch sorted and deduplicated on its own, delta-coded: see
//! [`batches`]; its bytes and keys recorded in `state.json` at each checkpoint), and
//! `pending-NNN.GGGGG.run`, the merged run of generation G: every key appended before, sorted and
//! deduplicated. (Raw batches that earlier versions appended to `pending-NNN.keys`, 8 bytes a key,
//! their length in the state's `pending`, are still read and merged.) A merge reads the run and the
//! batches together (an external merge of sorted runs, a block of each in memory) into the run of
//! the next generation, written under a temporary name, synced and renamed; `state.json` then
//! records the new generation with no batches, and the old run and the batches are removed. A run
//! killed anywhere in a merge finds either the old generation and its batches (the new run, named
//! by no state, is removed) or the new one (the old files are removed): the merge is a checkpoint.
//!
//! A merged run, `pending-NNN.GGGGG.run`: `RJPPEND2`, the level (u32), four zero bytes; the keys,
//! strictly increasing, each as the LEB128 varint of its difference from the key before (the
//! first from 0): about 2 bytes a key where 8 were raw, since a level's keys are dense; their
//! count (u64); the SHA-256 of every byte before it. Runs of the earlier format, `RJPPEND1` (the
//! keys as raw u64 words), are still read, so a solve continues across the change; a merge
//! writes the new one.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::exact::files::bucket_state::{pending_refused as refused, Appended};
use crate::exact::files::Refused;
use crate::files;

mod batches;
mod coding;
pub(crate) use batches::encode_batch;
pub(crate) use batches::for_each_block as for_each_batch_key;
use batches::BatchReader;
use coding::{push_increasing, push_varint, read_varint, Source, VARINT_MAX};

const MAGIC: &[u8; 8] = b"RJPPEND2";
/// The earlier format: the keys as raw little-endian words.
const MAGIC_RAW: &[u8; 8] = b"RJPPEND1";

const HEAD: u64 = 16;
/// The count and the SHA-256.
const TAIL: u64 = 8 + 32;

/// A lower level's raw batches, 8 bytes a key, as earlier versions appended them (still read).
pub(in crate::exact) fn pending_path(dir: &Path, level: u32) -> PathBuf {
    dir.join(format!("pending-{level:03}.keys"))
}

/// A lower level's delta-coded batches appended since its last merge ([`batches`]).
pub(in crate::exact) fn batches_path(dir: &Path, level: u32) -> PathBuf {
    dir.join(format!("pending-{level:03}.batches"))
}

pub(crate) fn run_path(dir: &Path, level: u32, generation: u32) -> PathBuf {
    dir.join(format!("pending-{level:03}.{generation:05}.run"))
}

/// The level and generation of a merged run's file name.
pub(crate) fn parse_run_name(name: &str) -> Option<(u32, u32)> {
    let rest = name.strip_prefix("pending-")?.strip_suffix(".run")?;
    let (level, generation) = rest.split_once('.')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(level) || !digits(generation) {
        return None;
    }
    Some((level.parse().ok()?, generation.parse().ok()?))
}

/// The most bytes of a run merged from a run of `old_bytes` (0: none) and `added` keys more: a
/// key inserted between two others splits one difference in two, each no longer than it was.
pub(crate) fn merged_bytes_at_most(old_bytes: u64, added: u64) -> u64 {
    old_bytes.max(HEAD + TAIL) + VARINT_MAX * added
}

/// One batch of the appended file: the words in `[start, end)` bytes.
struct Batch<'a> {
    file: &'a File,
    at: u64,
    end: u64,
    block_keys: usize,
    bytes: Vec<u8>,
}

impl Source for Batch<'_> {
    fn fill(&mut self, block: &mut Vec<u64>) -> Result<(), String> {
        block.clear();
        let take = ((self.end - self.at) as usize).min(self.block_keys * 8);
        self.bytes.resize(take, 0);
        self.file
            .read_exact_at(&mut self.bytes, self.at)
            .map_err(|e| format!("cannot read it: {e}"))?;
        self.at += take as u64;
        block.extend(
            self.bytes.chunks_exact(8).map(|w| u64::from_le_bytes(w.try_into().expect("8"))),
        );
        Ok(())
    }
}

/// How a run's keys are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Coding {
    /// LEB128 differences (`RJPPEND2`).
    Delta,
    /// Raw u64 words (`RJPPEND1`).
    Raw,
}

/// A merged run, read from the start, its order, count and SHA-256 checked as it goes (the
/// last check when its last key is read).
pub(crate) struct RunReader {
    file: File,
    coding: Coding,
    hash: Sha256,
    /// Keys still to read, of `count`.
    left: u64,
    count: u64,
    /// The next byte to read from the file, and where the keys end (u64::MAX once finished).
    at: u64,
    end: u64,
    last: Option<u64>,
    block_keys: usize,
    /// Bytes read and not yet decoded: `bytes[used..]`.
    bytes: Vec<u8>,
    used: usize,
}

impl RunReader {
    /// Opens the merged run of `level`; the reasons it is refused unprefixed (see [`refused`]).
    fn open_inner(path: &Path, level: u32, block_keys: usize) -> Result<RunReader, String> {
        let file = files::open_regular(path).map_err(|e| format!("cannot open it: {e}"))?;
        let len = file.metadata().map_err(|e| format!("cannot read it: {e}"))?.len();
        if len < HEAD + TAIL {
            return Err(format!("it holds {len} bytes, fewer than a run's header and trailer"));
        }
        let mut head = [0u8; HEAD as usize];
        file.read_exact_at(&mut head, 0).map_err(|e| format!("cannot read it: {e}"))?;
        let coding = match &head[..8] {
            m if m == MAGIC => Coding::Delta,
            m if m == MAGIC_RAW => Coding::Raw,
            _ => {
                return Err(format!(
                    "it does not start with {} (or the earlier {})",
                    String::from_utf8_lossy(MAGIC),
                    String::from_utf8_lossy(MAGIC_RAW)
                ))
            }
        };
        let found = u32::from_le_bytes(head[8..12].try_into().expect("4 bytes"));
        if found != level {
            return Err(format!("it is for level {found}, not {level}"));
        }
        let mut count = [0u8; 8];
        file.read_exact_at(&mut count, len - TAIL).map_err(|e| format!("cannot read it: {e}"))?;
        let count = u64::from_le_bytes(count);
        let payload = len - HEAD - TAIL;
        let (least, most) = match coding {
            Coding::Delta => (count, count.saturating_mul(VARINT_MAX)),
            Coding::Raw => (count.saturating_mul(8), count.saturating_mul(8)),
        };
        if payload < least || payload > most {
            return Err(format!(
                "it holds {payload} bytes of keys; {count} keys take {least} to {most} \
                 (truncated or altered)"
            ));
        }
        let mut hash = Sha256::new();
        hash.update(head);
        Ok(RunReader {
            file,
            coding,
            hash,
            left: count,
            count,
            at: HEAD,
            end: len - TAIL,
            last: None,
            block_keys,
            bytes: Vec::new(),
            used: 0,
        })
    }

    pub(crate) fn open(path: &Path, level: u32, block_keys: usize) -> Result<RunReader, String> {
        RunReader::open_inner(path, level, block_keys).map_err(|why| refused(path, why))
    }

    fn finish(&mut self) -> Result<(), String> {
        if self.at != self.end || self.used != self.bytes.len() {
            return Err(format!("it holds bytes past its {} keys (altered)", self.count));
        }
        let mut tail = [0u8; TAIL as usize];
        self.file.read_exact_at(&mut tail, self.at).map_err(|e| format!("cannot read it: {e}"))?;
        self.hash.update(&tail[..8]);
        let digest: [u8; 32] = std::mem::take(&mut self.hash).finalize().into();
        if digest[..] != tail[8..] {
            return Err("its SHA-256 does not match its contents (truncated or altered)".into());
        }
        Ok(())
    }

    /// The keys of the run, `block` at a time, to `each`; the error `each` gives, or the run
    /// refused.
    pub(crate) fn for_each_block<E: From<Refused>>(
        mut self,
        path: &Path,
        mut each: impl FnMut(&[u64]) -> Result<(), E>,
    ) -> Result<u64, E> {
        let mut block = Vec::new();
        loop {
            self.fill(&mut block).map_err(|why| Refused(refused(path, why)))?;
            if block.is_empty() {
                return Ok(self.count);
            }
            each(&block)?;
        }
    }

    /// Reads more of the keys' bytes after those not yet decoded (at most a block's raw size,
    /// so that a block of either coding takes no more memory than a raw one).
    fn read_more(&mut self) -> Result<(), String> {
        self.bytes.drain(..self.used);
        self.used = 0;
        let have = self.bytes.len();
        let take = (self.end - self.at).min((self.block_keys * 8) as u64) as usize;
        self.bytes.resize(have + take, 0);
        self.file
            .read_exact_at(&mut self.bytes[have..], self.at)
            .map_err(|e| format!("cannot read it: {e}"))?;
        self.hash.update(&self.bytes[have..]);
        self.at += take as u64;
        Ok(())
    }

    /// The next key's difference from the one before (a LEB128 varint).
    fn next_difference(&mut self) -> Result<u64, String> {
        if self.bytes.len() - self.used < VARINT_MAX as usize && self.at < self.end {
            self.read_more()?;
        }
        let (value, len) = read_varint(&self.bytes[self.used..]).ok_or_else(|| {
            "a key's difference is cut short or longer than a 64-bit number (truncated or altered)"
                .to_string()
        })?;
        self.used += len;
        Ok(value)
    }
}

impl Source for RunReader {
    fn fill(&mut self, block: &mut Vec<u64>) -> Result<(), String> {
        block.clear();
        if self.left == 0 {
            if self.at != u64::MAX {
                self.finish()?;
                self.at = u64::MAX;
            }
            return Ok(());
        }
        let take = self.left.min(self.block_keys as u64) as usize;
        match self.coding {
            Coding::Raw => {
                self.bytes.clear();
                self.used = 0;
                self.bytes.resize(take * 8, 0);
                self.file
                    .read_exact_at(&mut self.bytes, self.at)
                    .map_err(|e| format!("cannot read it: {e}"))?;
                self.hash.update(&self.bytes);
                self.at += take as u64 * 8;
                for w in self.bytes.chunks_exact(8) {
                    let k = u64::from_le_bytes(w.try_into().expect("8 bytes"));
                    push_increasing(&mut self.last, k, block)?;
                }
                self.used = self.bytes.len();
            }
            Coding::Delta => {
                for _ in 0..take {
                    let difference = self.next_difference()?;
                    let k = match self.last {
                        None => difference,
                        Some(l) => l.checked_add(difference).ok_or_else(|| {
                            "a key's difference passes the largest key (altered)".to_string()
                        })?,
                    };
                    push_increasing(&mut self.last, k, block)?;
                }
            }
        }
        self.left -= take as u64;
        Ok(())
    }
}

/// Where the ascending batches of an appended file start: a batch ends where a key is not
/// above the one before (consecutive batches that happen to ascend together merge as one).
fn batch_starts(file: &File, len: u64) -> std::io::Result<Vec<u64>> {
    let mut starts = vec![0u64];
    let mut buf = vec![0u8; 1 << 23];
    let mut reader = file;
    let mut at = 0u64;
    let mut last: Option<u64> = None;
    while at < len {
        let take = ((len - at) as usize).min(buf.len());
        reader.read_exact(&mut buf[..take])?;
        for (i, w) in buf[..take].chunks_exact(8).enumerate() {
            let k = u64::from_le_bytes(w.try_into().expect("8 bytes"));
            if last.is_some_and(|l| k <= l) {
                starts.push(at + 8 * i as u64);
            }
            last = Some(k);
        }
        at += take as u64;
    }
    Ok(starts)
}

/// A merged run being written: its temporary file, hashed as written.
struct RunWriter {
    tmp: files::Temporary,
    hash: Sha256,
    buf: Vec<u8>,
    count: u64,
    last: u64,
    /// Bytes written to the file so far.
    written: u64,
}

impl RunWriter {
    fn create(path: &Path, level: u32) -> std::io::Result<RunWriter> {
        files::check_destination(path)?;
        let tmp = files::Temporary::create(path)?;
        let mut w = RunWriter {
            tmp,
            hash: Sha256::new(),
            buf: Vec::with_capacity(1 << 20),
            count: 0,
            last: 0,
            written: 0,
        };
        w.buf.extend_from_slice(MAGIC);
        w.buf.extend_from_slice(&level.to_le_bytes());
        w.buf.extend_from_slice(&[0u8; 4]);
        Ok(w)
    }

    /// Hashes and writes what is buffered.
    fn drain(&mut self) -> std::io::Result<()> {
        self.hash.update(&self.buf);
        let f = self.tmp.file().expect("open while writing");
        f.write_all(&self.buf)?;
        self.written += self.buf.len() as u64;
        self.buf.clear();
        Ok(())
    }

    /// Appends `k`, above every key before it.
    #[inline]
    fn key(&mut self, k: u64) -> std::io::Result<()> {
        debug_assert!(self.count == 0 || k > self.last);
        push_varint(&mut self.buf, k - self.last);
        self.last = k;
        self.count += 1;
        if self.buf.len() >= 1 << 20 {
            self.drain()?;
        }
        Ok(())
    }

    /// Ends the run (count, checksum), synced and renamed to `path`; the keys and bytes.
    fn finish(mut self, path: &Path) -> std::io::Result<(u64, u64)> {
        let count = self.count;
        self.buf.extend_from_slice(&count.to_le_bytes());
        self.drain()?;
        let digest: [u8; 32] = std::mem::take(&mut self.hash).finalize().into();
        self.buf.extend_from_slice(&digest);
        let f = self.tmp.file().expect("open while writing");
        f.write_all(&self.buf)?;
        self.written += self.buf.len() as u64;
        f.sync_all()?;
        self.tmp.rename_to(path)?;
        Ok((count, self.written))
    }
}

/// Why a merge failed: a source refused (its path and why), or an error writing.
#[derive(Debug)]
pub(crate) enum MergeError {
    Refused(String),
    Write(std::io::Error),
}

/// What a merge wrote: the run's keys and bytes, and the memory its blocks took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Written {
    pub keys: u64,
    pub bytes: u64,
    pub working: u64,
}

/// Merges the run `old` (if any) and the first `appended_len` bytes of the appended file into
/// the run at `out`, every key once, in increasing order. Memory: a block a source, `memory`
/// bytes shared between them (at least a thousand keys a source).
pub(crate) fn merge(
    level: u32,
    old: Option<&Path>,
    appended: &Path,
    appended_len: u64,
    batches: Option<(&Path, Appended)>,
    out: &Path,
    memory: u64,
) -> Result<Written, MergeError> {
    let coded = open_batches(batches)?;
    let (file, starts) = open_appended(appended, appended_len)?;
    let count = starts.len() - 1
        + usize::from(old.is_some())
        + coded.as_ref().map_or(0, |(_, _, spans)| spans.len());
    // A block's keys and its bytes as read: 16 bytes a key.
    let block_keys = (memory / 16 / count.max(1) as u64).clamp(1 << 10, 1 << 17) as usize;
    let mut sources: Vec<(Box<dyn Source + '_>, &Path)> = Vec::with_capacity(count);
    if let Some(old) = old {
        let reader = RunReader::open_inner(old, level, block_keys).map_err(|w| refuse(old, w))?;
        sources.push((Box::new(reader), old));
    }
    if let Some(f) = &file {
        for w in starts.windows(2) {
            let batch = Batch { file: f, at: w[0], end: w[1], block_keys, bytes: Vec::new() };
            sources.push((Box::new(batch), appended));
        }
    }
    if let Some((f, path, spans)) = &coded {
        for &span in spans {
            sources.push((Box::new(BatchReader::new(f, span, block_keys)), path));
        }
    }
    let (keys, bytes) = merge_sources(&mut sources, out, level)?;
    let working = (sources.len() * block_keys * 16 + (1 << 20)) as u64;
    Ok(Written { keys, bytes, working })
}

fn refuse(path: &Path, why: String) -> MergeError {
    MergeError::Refused(refused(path, why))
}

/// A delta-coded batches file, open, with its path and its batches.
type CodedBatches<'a> = (File, &'a Path, Vec<batches::Span>);

/// The delta-coded batches file, opened, and its batches, if the state records any: refused
/// when it holds other than the keys the state records.
fn open_batches(
    batches: Option<(&Path, Appended)>,
) -> Result<Option<CodedBatches<'_>>, MergeError> {
    let Some((path, recorded)) = batches.filter(|(_, recorded)| recorded.bytes > 0) else {
        return Ok(None);
    };
    let f = files::open_regular(path).map_err(|e| refuse(path, format!("cannot open it: {e}")))?;
    let spans = batches::spans(&f, recorded.bytes).map_err(|why| refuse(path, why))?;
    let keys = batches::keys_of(&spans);
    if keys != recorded.keys {
        let why = format!("its batches hold {keys} keys; the state records {}", recorded.keys);
        return Err(refuse(path, why));
    }
    Ok(Some((f, path, spans)))
}

/// The raw appended file, opened if the state records bytes of it, and where each of its
/// batches starts (its recorded length last).
fn open_appended(
    appended: &Path,
    appended_len: u64,
) -> Result<(Option<File>, Vec<u64>), MergeError> {
    let mut starts = Vec::new();
    let mut file = None;
    if appended_len > 0 {
        let f = files::open_regular(appended)
            .map_err(|e| refuse(appended, format!("cannot open it: {e}")))?;
        let len = f.metadata().map_err(|e| refuse(appended, e.to_string()))?.len();
        if len < appended_len || !appended_len.is_multiple_of(8) {
            let why = format!(
                "it holds {len} bytes; the state records {appended_len}, a whole number of keys"
            );
            return Err(refuse(appended, why));
        }
        starts = batch_starts(&f, appended_len)
            .map_err(|e| refuse(appended, format!("cannot read it: {e}")))?;
        file = Some(f);
    }
    starts.push(appended_len);
    Ok((file, starts))
}

/// Merges the sorted `sources` into the run at `out`, every key once: a block of each in
/// memory, the smallest next key taken from a heap. The run's keys and bytes.
fn merge_sources(
    sources: &mut [(Box<dyn Source + '_>, &Path)],
    out: &Path,
    level: u32,
) -> Result<(u64, u64), MergeError> {
    let mut writer = RunWriter::create(out, level).map_err(MergeError::Write)?;
    let mut blocks: Vec<(Vec<u64>, usize)> = vec![(Vec::new(), 0); sources.len()];
    let mut heap = BinaryHeap::with_capacity(sources.len());
    for (i, (source, path)) in sources.iter_mut().enumerate() {
        source.fill(&mut blocks[i].0).map_err(|w| refuse(path, w))?;
        if let Some(&k) = blocks[i].0.first() {
            heap.push(Reverse((k, i)));
        }
    }
    let mut last: Option<u64> = None;
    while let Some(Reverse((k, i))) = heap.pop() {
        if last != Some(k) {
            writer.key(k).map_err(MergeError::Write)?;
            last = Some(k);
        }
        let (block, at) = &mut blocks[i];
        *at += 1;
        if *at == block.len() {
            let (source, path) = &mut sources[i];
            source.fill(block).map_err(|w| refuse(path, w))?;
            *at = 0;
        }
        if let Some(&next) = block.get(*at) {
            heap.push(Reverse((next, i)));
        }
    }
    writer.finish(out).map_err(MergeError::Write)
}

#[cfg(test)]
#[path = "pending_tests.rs"]
mod tests;
