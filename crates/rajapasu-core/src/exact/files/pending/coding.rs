//! What a pending file's keys are read and written with: LEB128 varints, the order check, and
//! the blocks a merge reads its sources by.

/// The most bytes a LEB128 varint of a u64 takes.
pub(super) const VARINT_MAX: u64 = 10;

/// Sorted keys from a file, a block at a time.
pub(super) trait Source {
    /// The keys of the next block; empty when the source is exhausted.
    fn fill(&mut self, block: &mut Vec<u64>) -> Result<(), String>;
}

/// Appends the LEB128 varint of `value` to `out`.
#[inline]
pub(super) fn push_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// The LEB128 varint at the start of `bytes` and its length; None if it is cut short or longer
/// than a 64-bit number.
#[inline]
pub(super) fn read_varint(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut value = 0u64;
    for (i, &b) in bytes.iter().take(VARINT_MAX as usize).enumerate() {
        if i == 9 && b > 1 {
            return None;
        }
        value |= ((b & 0x7f) as u64) << (7 * i);
        if b & 0x80 == 0 {
            return Some((value, i + 1));
        }
    }
    None
}

/// Pushes a run's next key `k` after `last`, refusing keys that do not strictly increase.
pub(super) fn push_increasing(
    last: &mut Option<u64>,
    k: u64,
    block: &mut Vec<u64>,
) -> Result<(), String> {
    if last.is_some_and(|l| l >= k) {
        return Err("its keys are not strictly increasing".into());
    }
    *last = Some(k);
    block.push(k);
    Ok(())
}
