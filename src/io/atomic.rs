//! Atomic file writes: the contents go to a temporary file in the destination's directory
//! (`.NAME.tmp-RANDOM.EXT`), which is flushed, synced to disk and then renamed to the final name.
//! Readers therefore see either no file or a complete one, and a failed write leaves nothing.

use std::fs::File;
use std::io::Write;
use std::path::Path;

use crate::files;

use super::error::IoError;
use super::verify::{FileDigest, HashingWriter};

/// Writes `path` atomically: `f` writes the contents into a temporary file, which replaces
/// `path` only if `f` and the sync succeed. On any error (or panic in `f`) the temporary file
/// is removed and `path` is left as it was.
pub fn write_atomically(
    path: &Path,
    f: impl FnOnce(&mut File) -> Result<(), IoError>,
) -> Result<(), IoError> {
    check_destination(path)?;
    write_unsynced(path, f)?.commit()
}

/// A file written in full under its temporary name, neither synced nor renamed yet:
/// [`Unsynced::commit`] makes it durable under its name; dropped instead, it is removed. A
/// writer can so leave the `fsync` (milliseconds on a disk) to another thread.
pub struct Unsynced {
    tmp: Temporary,
    path: std::path::PathBuf,
}

impl Unsynced {
    /// The file's final name.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Syncs the file and renames it to its name (then syncs the directory).
    pub fn commit(mut self) -> Result<(), IoError> {
        let shown = self.tmp.0.path().display().to_string();
        let file = self.tmp.0.file().expect("an unsynced file is open");
        file.sync_all()
            .map_err(|e| IoError::file(&self.path, format!("cannot sync {shown}"), e))?;
        self.tmp.rename_to(&self.path)
    }
}

/// The first half of [`write_atomically`]: `f` writes the contents into a temporary file, which
/// is flushed (not synced) and handed back for [`Unsynced::commit`]. On an error (or a panic in
/// `f`) the temporary file is removed.
pub fn write_unsynced(
    path: &Path,
    f: impl FnOnce(&mut File) -> Result<(), IoError>,
) -> Result<Unsynced, IoError> {
    let mut tmp = Temporary::create(path)?;
    let shown = tmp.0.path().display().to_string();
    let file = tmp.0.file().expect("a new temporary file is open");
    f(file)?;
    file.flush().map_err(|e| IoError::file(path, format!("cannot flush {shown}"), e))?;
    Ok(Unsynced { tmp, path: path.to_path_buf() })
}

/// [`write_unsynced`], also returning the size and SHA-256 of the bytes written: they are hashed
/// as they pass to the file (no second read), for the progress markers that let a dataset be
/// verified ([`super::verify`]).
pub fn write_unsynced_hashed(
    path: &Path,
    f: impl FnOnce(&mut HashingWriter<&mut File>) -> Result<(), IoError>,
) -> Result<(Unsynced, FileDigest), IoError> {
    let mut digest = None;
    let unsynced = write_unsynced(path, |file| {
        let mut hashing = HashingWriter::new(file);
        f(&mut hashing)?;
        digest = Some(hashing.finish());
        Ok(())
    })?;
    Ok((unsynced, digest.expect("set by the successful write")))
}

/// [`write_atomically`] for writers that open the file themselves (an image encoder that picks
/// the format from the extension): `f` writes the temporary file at the path it is given, which
/// keeps `path`'s extension.
pub fn write_atomically_via_path<E: From<IoError>>(
    path: &Path,
    f: impl FnOnce(&Path) -> Result<(), E>,
) -> Result<(), E> {
    check_destination(path)?;
    let mut tmp = Temporary::create(path)?;
    tmp.0.close();
    f(tmp.0.path())?;
    File::open(tmp.0.path())
        .and_then(|file| file.sync_all())
        .map_err(|e| IoError::file(path, format!("cannot sync {}", tmp.0.path().display()), e))?;
    Ok(tmp.rename_to(path)?)
}

/// The final file name of a temporary file left by [`write_atomically`]
/// (`.NAME.tmp-RANDOM.EXT` gives `NAME`), or None for any other name.
pub fn temporary_target(file_name: &str) -> Option<&str> {
    file_name.strip_prefix('.')?.rsplit_once(".tmp-").map(|(target, _)| target)
}

/// Writes `contents` to `path` atomically (see [`write_atomically`]).
pub fn write_string_atomically(path: &Path, contents: &str) -> Result<(), IoError> {
    write_atomically(path, |file| {
        file.write_all(contents.as_bytes()).map_err(|e| IoError::file(path, "cannot write", e))
    })
}

/// Refuses, before any work, a destination that is not a regular file (see
/// [`files::check_destination`]; the rename checks again). A part file written by
/// [`write_unsynced`] is checked at its rename only, on the thread that commits it.
fn check_destination(path: &Path) -> Result<(), IoError> {
    files::check_destination(path).map_err(|e| IoError::file(path, "not replaced", e))
}

/// The core's temporary file, with this module's error messages (each names the destination).
struct Temporary(files::Temporary);

impl Temporary {
    fn create(path: &Path) -> Result<Temporary, IoError> {
        files::Temporary::create(path).map(Temporary).map_err(|e| {
            let dir = files::Temporary::directory(path);
            IoError::file(path, format!("cannot create a temporary file in {}", dir.display()), e)
        })
    }

    fn rename_to(self, path: &Path) -> Result<(), IoError> {
        let tmp = self.0.path().to_path_buf();
        self.0
            .rename_to(path)
            .map_err(|e| IoError::file(path, format!("cannot rename {} to it", tmp.display()), e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_temporary_names_its_target() {
        let dir = tempfile::tempdir().unwrap();
        let tmp = Temporary::create(&dir.path().join("part-x-00000003.parquet")).unwrap();
        let name = tmp.0.path().file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(temporary_target(&name), Some("part-x-00000003.parquet"));
        assert_eq!(temporary_target("part-x-00000003.parquet"), None);
        assert_eq!(temporary_target(".hidden"), None);
    }

    #[test]
    fn writes_and_replaces_without_leftovers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("manifest.json");
        write_string_atomically(&path, "first").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "first");
        write_string_atomically(&path, "second, longer").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "second, longer");
        assert_eq!(names(dir.path()), ["manifest.json"]);
    }

    #[test]
    fn failing_writer_leaves_old_file_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        write_string_atomically(&path, "old").unwrap();
        let err = write_atomically(&path, |f| {
            f.write_all(b"partial").unwrap();
            Err(IoError::schema(&path, "x", "test failure"))
        })
        .unwrap_err();
        assert!(matches!(err, IoError::Schema { .. }));
        assert_eq!(fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(names(dir.path()), ["a.txt"]);
    }

    #[test]
    fn panicking_writer_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.txt");
        let r = std::panic::catch_unwind(|| {
            let _ = write_atomically(&path, |f| {
                f.write_all(b"partial").unwrap();
                panic!("writer panicked");
            });
        });
        assert!(r.is_err());
        assert!(names(dir.path()).is_empty());
    }

    #[test]
    fn missing_directory_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("no_such_dir").join("c.txt");
        let err = write_string_atomically(&path, "x").unwrap_err();
        assert!(matches!(err, IoError::File { .. }));
        assert!(err.to_string().contains("c.txt"), "{err}");
        assert!(!path.exists());
        assert!(names(dir.path()).is_empty());
    }
}
