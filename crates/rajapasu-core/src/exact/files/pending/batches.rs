//! The batches appended to a lower level's pending positions since its last merge,
//! `pending-NNN.batches`: each batch its key count (u64) and its bytes of keys (u64), then its
//! keys, strictly increasing, each as the LEB128 varint of its difference from the key before
//! (the first from 0), as in a merged run: a few bytes a key where the earlier `pending-NNN.keys`
//! took 8. `state.json` records the file's bytes and keys at each checkpoint; bytes past them (a
//! run killed while appending) are cut off when the solve continues.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

use super::coding::{push_increasing, push_varint, read_varint, Source, VARINT_MAX};
use crate::exact::files::bucket_state::pending_refused as refused;
use crate::exact::files::Refused;
use crate::files;

/// A batch's head: its key count and its bytes of keys.
const BATCH_HEAD: u64 = 16;

/// Appends `keys` (strictly increasing, at least one) to `out` as one batch.
pub(crate) fn encode_batch(keys: &[u64], out: &mut Vec<u8>) {
    let start = out.len();
    out.extend_from_slice(&[0u8; BATCH_HEAD as usize]);
    let mut last = 0;
    for &k in keys {
        debug_assert!(out.len() == start + BATCH_HEAD as usize || k > last);
        push_varint(out, k - last);
        last = k;
    }
    let bytes = (out.len() - start) as u64 - BATCH_HEAD;
    out[start..start + 8].copy_from_slice(&(keys.len() as u64).to_le_bytes());
    out[start + 8..start + 16].copy_from_slice(&bytes.to_le_bytes());
}

/// Where one batch's keys are in the file, and how many.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    at: u64,
    end: u64,
    count: u64,
}

/// The batches of the first `len` bytes of `file`, their heads checked against each other and
/// against `len`.
pub(crate) fn spans(file: &File, len: u64) -> Result<Vec<Span>, String> {
    let mut spans = Vec::new();
    let mut at = 0u64;
    while at < len {
        if len - at < BATCH_HEAD {
            return Err(format!("the batch at byte {at} is cut short in its head (truncated)"));
        }
        let mut head = [0u8; BATCH_HEAD as usize];
        file.read_exact_at(&mut head, at).map_err(|e| format!("cannot read it: {e}"))?;
        let count = u64::from_le_bytes(head[..8].try_into().expect("8 bytes"));
        let bytes = u64::from_le_bytes(head[8..].try_into().expect("8 bytes"));
        if count == 0 || bytes < count || bytes / VARINT_MAX > count {
            return Err(format!(
                "the batch at byte {at} records {count} keys in {bytes} bytes; a batch holds at \
                 least one key, of 1 to {VARINT_MAX} bytes each (altered)"
            ));
        }
        let end = (at + BATCH_HEAD).checked_add(bytes).filter(|&e| e <= len).ok_or_else(|| {
            format!("the batch at byte {at} of {bytes} bytes passes the {len} recorded (truncated)")
        })?;
        spans.push(Span { at: at + BATCH_HEAD, end, count });
        at = end;
    }
    Ok(spans)
}

/// The keys of all `spans`.
pub(crate) fn keys_of(spans: &[Span]) -> u64 {
    spans.iter().map(|s| s.count).sum()
}

/// One batch's keys read a block at a time, their order and count checked.
pub(crate) struct BatchReader<'a> {
    file: &'a File,
    span: Span,
    /// The next byte to read, keys still to decode, the last key decoded.
    at: u64,
    left: u64,
    last: Option<u64>,
    block_keys: usize,
    /// Bytes read and not yet decoded: `bytes[used..]`.
    bytes: Vec<u8>,
    used: usize,
}

impl<'a> BatchReader<'a> {
    pub(crate) fn new(file: &'a File, span: Span, block_keys: usize) -> BatchReader<'a> {
        BatchReader {
            file,
            span,
            at: span.at,
            left: span.count,
            last: None,
            block_keys,
            bytes: Vec::new(),
            used: 0,
        }
    }

    fn read_more(&mut self) -> Result<(), String> {
        self.bytes.drain(..self.used);
        self.used = 0;
        let have = self.bytes.len();
        let take = (self.span.end - self.at).min((self.block_keys * 8) as u64) as usize;
        self.bytes.resize(have + take, 0);
        self.file
            .read_exact_at(&mut self.bytes[have..], self.at)
            .map_err(|e| format!("cannot read it: {e}"))?;
        self.at += take as u64;
        Ok(())
    }

    fn next_key(&mut self) -> Result<u64, String> {
        if self.bytes.len() - self.used < VARINT_MAX as usize && self.at < self.span.end {
            self.read_more()?;
        }
        let (difference, len) = read_varint(&self.bytes[self.used..]).ok_or_else(|| {
            format!(
                "a key's difference in the batch at byte {} is cut short or longer than a 64-bit \
                 number (truncated or altered)",
                self.span.at - BATCH_HEAD
            )
        })?;
        self.used += len;
        match self.last {
            None => Ok(difference),
            Some(l) => l
                .checked_add(difference)
                .ok_or_else(|| "a key's difference passes the largest key (altered)".to_string()),
        }
    }
}

impl Source for BatchReader<'_> {
    fn fill(&mut self, block: &mut Vec<u64>) -> Result<(), String> {
        block.clear();
        let take = self.left.min(self.block_keys as u64);
        for _ in 0..take {
            let k = self.next_key()?;
            push_increasing(&mut self.last, k, block)?;
        }
        self.left -= take;
        if self.left == 0 && (self.at != self.span.end || self.used != self.bytes.len()) {
            return Err(format!(
                "the batch at byte {} holds bytes past its {} keys (altered)",
                self.span.at - BATCH_HEAD,
                self.span.count
            ));
        }
        Ok(())
    }
}

/// Every key of the first `len` bytes of the batches file at `path`, a block at a time, to
/// `each`; a damaged file is refused naming it.
pub(crate) fn for_each_block<E: From<Refused>>(
    path: &Path,
    len: u64,
    block_keys: usize,
    mut each: impl FnMut(&[u64]) -> Result<(), E>,
) -> Result<(), E> {
    let bad = |why: String| Refused(refused(path, why));
    let file = files::open_regular(path).map_err(|e| bad(format!("cannot open it: {e}")))?;
    let mut block = Vec::new();
    for span in spans(&file, len).map_err(bad)? {
        let mut reader = BatchReader::new(&file, span, block_keys);
        loop {
            reader.fill(&mut block).map_err(bad)?;
            if block.is_empty() {
                break;
            }
            each(&block)?;
        }
    }
    Ok(())
}
