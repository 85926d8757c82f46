//! Plain file helpers shared by every floor above (the exact solver's tables, the CLI crate's
//! datasets): atomic writes and bounded reads of regular files. Files from someone else are
//! untrusted input: a FIFO or device named like a table is an error, never a wait, and no read
//! goes past its limit.

use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Opens a regular file (a symlink to one too) for reading; a FIFO, device or directory is an
/// error. Non-blocking, so that opening a FIFO does not wait for a writer.
pub fn open_regular(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = File::options().read(true).custom_flags(libc::O_NONBLOCK).open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file (a FIFO, device or directory)",
        ));
    }
    Ok(file)
}

/// The bytes of `reader`, at most `limit` of them: a longer input is an error, read no further
/// than one byte past the limit (an input may be endless, `/dev/zero`).
pub fn read_bounded(reader: impl Read, limit: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("longer than {limit} bytes"),
        ));
    }
    Ok(bytes)
}

/// The text of a small regular file, read at most `limit` bytes far (see [`open_regular`]).
pub fn read_regular_file(path: &Path, limit: u64) -> std::io::Result<String> {
    let bytes = read_bounded(open_regular(path)?, limit)?;
    String::from_utf8(bytes).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

/// Refuses a destination that exists and is not a regular file: a symlink (never followed nor
/// replaced: it may point anywhere, `/dev/stdout` or a file of someone else), a FIFO, a device
/// or a directory. [`write_atomically`] checks before it starts, [`Temporary::rename_to`] again
/// just before the rename.
pub fn check_destination(path: &Path) -> std::io::Result<()> {
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    let kind = meta.file_type();
    use std::os::unix::fs::FileTypeExt;
    let what = if kind.is_file() {
        return Ok(());
    } else if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "a device"
    };
    Err(std::io::Error::new(
        std::io::ErrorKind::AlreadyExists,
        format!("it exists and is {what}, not a regular file; only a regular file is replaced: remove it or write elsewhere"),
    ))
}

/// A temporary file beside its destination, `.NAME.tmp-RANDOM.EXT`, removed when dropped
/// unless [`Temporary::rename_to`] made it the destination. Readers of the destination see no
/// file or a complete one.
pub struct Temporary {
    path: PathBuf,
    file: Option<File>,
    renamed: bool,
}

impl Temporary {
    /// Creates the temporary file of `path` (the directory must exist). Its mode is what a
    /// plain `File::create` would give (0666 less the umask), not tempfile's private 0600, so
    /// that a published dataset is readable by others.
    pub fn create(path: &Path) -> std::io::Result<Temporary> {
        let name = path.file_name().ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file name")
        })?;
        // Named `.NAME.tmp-RANDOM.EXT` so that `temporary_target` finds `name` again; the
        // extension is kept for writers that choose a format by it. tempfile makes the name
        // unique with random characters (create_new), so that writers on several hosts sharing
        // one directory (shards of a Slurm array) never collide.
        let mut prefix = std::ffi::OsString::from(".");
        prefix.push(name);
        prefix.push(".tmp-");
        let suffix =
            path.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
        let dir = Temporary::directory(path);
        use std::os::unix::fs::PermissionsExt;
        let (file, tmp) = tempfile::Builder::new()
            .prefix(&prefix)
            .suffix(&suffix)
            .rand_bytes(10)
            .permissions(fs::Permissions::from_mode(0o666))
            .tempfile_in(dir)?
            .into_parts();
        // Removed by this type's Drop unless renamed.
        let tmp = tmp.keep().map_err(|e| e.error)?;
        // Held while the file is open, released however the process ends: a file of this
        // pattern that nobody holds was left by a killed writer ([`is_abandoned_temporary`]).
        use std::os::fd::AsRawFd;
        // SAFETY: flock on the descriptor of a file this value owns. A new file cannot be held
        // by anyone else; should it fail, the file only looks abandoned while being written.
        unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        Ok(Temporary { path: tmp, file: Some(file), renamed: false })
    }

    /// The directory `path` is in ("." for a bare name).
    pub fn directory(path: &Path) -> &Path {
        match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        }
    }

    /// The temporary file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The open file (None once closed).
    pub fn file(&mut self) -> Option<&mut File> {
        self.file.as_mut()
    }

    /// Closes the file, for writers that open the path themselves.
    pub fn close(&mut self) {
        self.file = None;
    }

    /// Renames the temporary file to `path` and syncs the directory (best effort), so that the
    /// rename is durable. The caller has synced the file. A destination that is not a regular
    /// file is left alone (see [`check_destination`]).
    pub fn rename_to(mut self, path: &Path) -> std::io::Result<()> {
        check_destination(path)?;
        // Renamed while still open (and so still held), then closed.
        fs::rename(&self.path, path)?;
        self.renamed = true;
        self.file = None;
        if let Ok(d) = File::open(Temporary::directory(path)) {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

impl Drop for Temporary {
    fn drop(&mut self) {
        self.file = None;
        if !self.renamed {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Whether `path` is a temporary file (see [`Temporary`]) that no live writer holds: a regular
/// file (a symlink is not followed) whose lock can be taken. False when in doubt.
pub fn is_abandoned_temporary(path: &Path) -> bool {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::OpenOptionsExt;
    let Ok(file) =
        File::options().read(true).custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW).open(path)
    else {
        return false;
    };
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return false;
    }
    // SAFETY: flock on a descriptor this function owns; the lock goes with the file.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

/// Writes `path` atomically: `f` writes into a [`Temporary`], which is flushed, synced and
/// renamed to `path` only if all of that succeeds; otherwise `path` is left as it was.
pub fn write_atomically(
    path: &Path,
    f: impl FnOnce(&mut File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    check_destination(path)?;
    let mut tmp = Temporary::create(path)?;
    let file = tmp.file().expect("a new temporary file is open");
    f(file)?;
    file.flush()?;
    file.sync_all()?;
    tmp.rename_to(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_atomic_write_gives_the_mode_of_a_plain_create_and_leaves_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain.txt");
        File::create(&plain).unwrap();
        let atomic = dir.path().join("atomic.txt");
        write_atomically(&atomic, |f| f.write_all(b"complete")).unwrap();
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&atomic), mode(&plain), "0666 less the umask, as File::create gives");
        assert_eq!(fs::read_to_string(&atomic).unwrap(), "complete");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2, "no temporary left behind");
    }

    #[test]
    fn a_failed_atomic_write_leaves_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("table.json");
        fs::write(&path, "old").unwrap();
        let err = write_atomically(&path, |f| {
            f.write_all(b"half")?;
            Err(std::io::Error::other("disk full"))
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "disk full");
        assert_eq!(fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn an_atomic_write_never_replaces_a_symlink_fifo_or_directory() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target.txt");
        fs::write(&target, "theirs").unwrap();
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let fifo = dir.path().join("fifo.txt");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        let sub = dir.path().join("sub.txt");
        fs::create_dir(&sub).unwrap();
        for (path, what) in [(&link, "a symbolic link"), (&fifo, "a FIFO"), (&sub, "a directory")] {
            let err = write_atomically(path, |f| f.write_all(b"ours")).unwrap_err();
            assert!(err.to_string().contains(what), "{}: {err}", path.display());
        }
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(fs::read_to_string(&target).unwrap(), "theirs");
        // The destination turned into a link while the contents were written: still refused.
        let late = dir.path().join("late.txt");
        let tmp = Temporary::create(&late).unwrap();
        std::os::unix::fs::symlink(&target, &late).unwrap();
        assert!(tmp.rename_to(&late).is_err());
        assert_eq!(fs::read_to_string(&target).unwrap(), "theirs");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 5, "no temporary left behind");
    }

    #[test]
    fn bounded_reads_refuse_fifos_and_long_files() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        // Returns at once: the FIFO is opened without waiting for a writer and refused.
        assert_eq!(
            read_regular_file(&fifo, 10).unwrap_err().kind(),
            std::io::ErrorKind::InvalidInput
        );
        let long = dir.path().join("long");
        fs::write(&long, "x".repeat(11)).unwrap();
        assert_eq!(read_regular_file(&long, 10).unwrap_err().to_string(), "longer than 10 bytes");
        assert_eq!(read_regular_file(&long, 11).unwrap(), "x".repeat(11));
    }
}
