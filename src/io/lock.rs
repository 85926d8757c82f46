//! One writer per dataset: an advisory lock (`flock`, through std's `File::try_lock`) on a file
//! in the directory. The holder writes its process id, host, start time and command into the
//! file, so a refused writer can say who holds it. The operating system releases the lock when
//! the holder exits or is killed, so a crashed run never blocks the next one; the file itself
//! stays (a lock file left behind means nothing unless a process holds it).

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

use super::error::IoError;

/// A lock that could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another process holds the lock `name` in `dir`; `holder` names it, `what` says what the
    /// lock protects.
    #[error(
        "{}: {what} is being written by another rajapasu {holder} (lock file {name}); one writer at a time: wait for it to end or stop it",
        dir.display()
    )]
    Held { dir: PathBuf, name: String, what: String, holder: String },
    /// The lock file cannot be opened, locked or written.
    #[error(transparent)]
    Io(#[from] IoError),
}

/// A held lock; released when dropped.
#[derive(Debug)]
pub struct DirLock {
    _file: File,
    pub path: PathBuf,
}

/// The lock file that serializes writers while they check a directory and write their manifest.
pub const SETUP_LOCK: &str = ".lock";

/// The lock file held by the writer of one shard for the whole run.
pub fn writer_lock_name(shard: crate::sim::Shard) -> String {
    format!(".lock-shard-{}-of-{}", shard.index, shard.count)
}

/// Whether a file name in a dataset directory is one of the lock files.
pub fn is_lock_name(name: &str) -> bool {
    name == SETUP_LOCK || name.starts_with(".lock-shard-")
}

fn io_err(path: &Path, action: &str, error: std::io::Error) -> LockError {
    LockError::Io(IoError::file(path, action, error))
}

/// Who this process is, as written into the lock files it holds.
fn holder_text() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "an unknown host".into());
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let since = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    format!("process {} on {host}, since {since}: {command}", std::process::id())
}

fn open(path: &Path) -> Result<File, LockError> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| io_err(path, "cannot open the lock file", e))
}

fn record_holder(file: &mut File, path: &Path) -> Result<(), LockError> {
    file.set_len(0)
        .and_then(|_| file.rewind())
        .and_then(|_| file.write_all(holder_text().as_bytes()))
        .and_then(|_| file.write_all(b"\n"))
        .map_err(|e| io_err(path, "cannot write the lock file", e))
}

fn read_holder(path: &Path) -> String {
    let mut text = String::new();
    let _ = File::open(path).and_then(|mut f| f.read_to_string(&mut text));
    let text = text.trim();
    if text.is_empty() {
        "a process that has not yet recorded itself".into()
    } else {
        text.to_string()
    }
}

impl DirLock {
    /// Takes the lock `dir/name`, or fails at once with an error naming the process that
    /// holds it; `what` says what the lock protects (for the message).
    pub fn try_acquire(dir: &Path, name: &str, what: &str) -> Result<DirLock, LockError> {
        let mut lock = DirLock::try_acquire_unrecorded(dir, name, what)?;
        lock.record()?;
        Ok(lock)
    }

    /// [`DirLock::try_acquire`] without writing this process into the file yet: a writer that
    /// may still refuse the directory leaves the last holder's details as they were, and
    /// records itself ([`DirLock::record`]) once it is accepted.
    pub fn try_acquire_unrecorded(
        dir: &Path,
        name: &str,
        what: &str,
    ) -> Result<DirLock, LockError> {
        let path = dir.join(name);
        let file = open(&path)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(LockError::Held {
                    dir: dir.to_path_buf(),
                    name: name.to_string(),
                    what: what.to_string(),
                    holder: read_holder(&path),
                })
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io_err(&path, "cannot lock", e)),
        }
        Ok(DirLock { _file: file, path })
    }

    /// Writes this process into the lock file, for a refused writer to name.
    pub fn record(&mut self) -> Result<(), LockError> {
        record_holder(&mut self._file, &self.path)
    }

    /// Takes the lock `dir/name`, waiting while another process holds it (for short sections).
    pub fn acquire(dir: &Path, name: &str) -> Result<DirLock, LockError> {
        let path = dir.join(name);
        let mut file = open(&path)?;
        file.lock().map_err(|e| io_err(&path, "cannot lock", e))?;
        record_holder(&mut file, &path)?;
        Ok(DirLock { _file: file, path })
    }

    /// The process holding `dir/name` now, if any (the directory may be read-only).
    pub fn holder(dir: &Path, name: &str) -> Option<String> {
        let path = dir.join(name);
        let file = File::open(&path).ok()?;
        match file.try_lock_shared() {
            Err(std::fs::TryLockError::WouldBlock) => Some(read_holder(&path)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_with_the_first_ones_name_until_it_releases() {
        let dir = tempfile::tempdir().unwrap();
        let first = DirLock::try_acquire(dir.path(), ".lock-shard-1-of-1", "shard 1/1").unwrap();
        // flock locks belong to open file descriptions: a second open in this process conflicts.
        let err = DirLock::try_acquire(dir.path(), ".lock-shard-1-of-1", "shard 1/1")
            .unwrap_err()
            .to_string();
        assert!(err.contains(&format!("process {}", std::process::id())), "{err}");
        assert!(err.contains("shard 1/1 is being written"), "{err}");
        assert!(DirLock::holder(dir.path(), ".lock-shard-1-of-1").is_some());
        drop(first);
        assert!(DirLock::holder(dir.path(), ".lock-shard-1-of-1").is_none());
        DirLock::try_acquire(dir.path(), ".lock-shard-1-of-1", "shard 1/1").unwrap();
    }
}
