//! A writer or reader that hashes (SHA-256) the bytes passing through it: the trailer the
//! exact solvers' checked files end with, and its check when one is read.

use std::io::{BufWriter, Read, Write};

use sha2::{Digest, Sha256};

/// Bytes of the digest a checked file ends with.
const DIGEST_BYTES: u64 = 32;

pub(crate) struct Hashing<T> {
    inner: T,
    hash: Sha256,
    /// Bytes passed through so far.
    bytes: u64,
}

impl<T> Hashing<T> {
    pub(crate) fn new(inner: T) -> Hashing<T> {
        Hashing { inner, hash: Sha256::new(), bytes: 0 }
    }

    /// The digest of the bytes passed through so far, and what they passed to or from (to
    /// write or read the trailer, itself not hashed).
    pub(crate) fn digest(self) -> ([u8; 32], T) {
        (self.hash.finalize().into(), self.inner)
    }
}

impl<W: Write> Hashing<BufWriter<W>> {
    /// Writes to `inner` a mebibyte at a time.
    pub(crate) fn buffered(inner: W) -> Hashing<BufWriter<W>> {
        Hashing::new(BufWriter::with_capacity(1 << 20, inner))
    }
}

impl<W: Write> Hashing<W> {
    /// Appends the digest of the bytes written as the trailer and flushes; the bytes written
    /// in all (the trailer's too) and the digest.
    pub(crate) fn finish(self) -> std::io::Result<(u64, [u8; 32])> {
        let bytes = self.bytes;
        let (digest, mut inner) = self.digest();
        inner.write_all(&digest)?;
        inner.flush()?;
        Ok((bytes + DIGEST_BYTES, digest))
    }
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hash.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }
}
