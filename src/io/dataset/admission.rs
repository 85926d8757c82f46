//! Whether a run may write into a directory: what it holds must be this run's dataset (or
//! nothing), written under the identity the run has now. Refusals are typed ([`Refusal`]); the
//! front end words them.

use std::path::{Path, PathBuf};

use super::error::{io_err, DatasetError, Refusal, ShardState};
use super::manifest::{identity_mismatch, is_manifest_name, Manifest};
use super::manifest_io::{manifest_names, read_manifests};
use crate::io::atomic::temporary_target;
use crate::io::lock::{is_lock_name, writer_lock_name, DirLock};
use crate::io::verify::{Layout, ProblemKind};
use crate::sim::schema::ALL_TABLES;
use crate::sim::RunConfig;

fn refused(dir: &Path, refusal: Refusal) -> DatasetError {
    DatasetError::Refused { dir: dir.to_path_buf(), refusal: Box::new(refusal) }
}

/// Creates `dir` if need be; refuses a path that is not a directory, and a directory of
/// someone else's files before anything is written into it (checked again under the lock).
pub(super) fn open_destination(dir: &Path) -> Result<(), DatasetError> {
    if dir.exists() && !dir.is_dir() {
        return Err(refused(dir, Refusal::NotADirectory));
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| io_err(dir, "cannot create the output directory", e))?;
    if manifest_names(dir)?.is_empty() {
        refuse_foreign(dir)?;
    }
    Ok(())
}

/// Checks the manifests already in `dir` against the run's `manifest` (under the setup lock):
/// all of this run, split the same way, and this shard's only when `resume` is set (then the
/// manifest takes over its start time and seconds). Returns whether this shard's manifest was
/// there.
pub(super) fn admit(
    dir: &Path,
    manifest: &mut Manifest,
    manifest_path: &Path,
    resume: bool,
) -> Result<bool, DatasetError> {
    let manifests = read_manifests(dir).map_err(|e| match e {
        DatasetError::Manifest { path, problem } => {
            refused(dir, Refusal::UntrustedManifest { path, problem })
        }
        other => other,
    })?;
    if manifests.is_empty() {
        refuse_foreign(dir)?;
    }
    let mut found = false;
    for (path, other) in &manifests {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        if let Some(mismatch) = identity_mismatch(other, manifest) {
            let state = shard_state(dir, other, manifest.shard);
            let refusal = if mismatch.what == "shard count" {
                Refusal::ShardCount { file, theirs: other.shard, state, ours: manifest.shard }
            } else {
                Refusal::Different { file, state, mismatch }
            };
            return Err(refused(dir, refusal));
        }
        if path == manifest_path {
            if !resume {
                return Err(refused(
                    dir,
                    Refusal::AlreadyWritten { complete: other.is_complete(), shard: other.shard },
                ));
            }
            manifest.started = other.started.clone();
            manifest.seconds = other.seconds;
            found = true;
        }
    }
    Ok(found)
}

/// Makes `layout`'s directory ready for the run's shard: refuses to resume a shard whose
/// manifest was edited since its batches were written, creates the table directories, removes
/// the shard's own temporary files, and refuses files the run would not write.
pub(super) fn prepare<P>(
    layout: &Layout,
    cfg: &RunConfig<P>,
    manifest_path: &Path,
    resumed: bool,
) -> Result<(), DatasetError> {
    let dir = &layout.dir;
    if resumed {
        refuse_edited_manifest(layout, cfg, manifest_path)?;
    }
    for table in cfg.detail.tables() {
        let table_dir = dir.join(table);
        std::fs::create_dir_all(&table_dir).map_err(|e| io_err(&table_dir, "cannot create", e))?;
        remove_temporaries(&table_dir, cfg)?;
    }
    let progress = dir.join(".progress");
    std::fs::create_dir_all(&progress).map_err(|e| io_err(&progress, "cannot create", e))?;
    remove_temporaries(&progress, cfg)?;
    remove_manifest_temporaries(dir, manifest_path)?;
    // Files this run would not write are the user's to sort out: resuming around them
    // would give a dataset that differs from an uninterrupted run's.
    let strays =
        layout.strays(&Default::default(), false).map_err(|e| io_err(dir, "cannot read", e))?;
    if !strays.is_empty() {
        return Err(refused(dir, Refusal::Strays { problems: strays }));
    }
    Ok(())
}

/// Where an existing shard stands: complete, being written (by whom), or interrupted.
fn shard_state(dir: &Path, m: &Manifest, held: crate::sim::Shard) -> ShardState {
    if m.is_complete() {
        return ShardState::Complete;
    }
    if m.shard == held {
        // This process holds that shard's lock: nobody else is writing it.
        return ShardState::Interrupted;
    }
    match DirLock::holder(dir, &writer_lock_name(m.shard)) {
        Some(holder) => ShardState::Writing(holder),
        None => ShardState::Interrupted,
    }
}

/// Refuses to resume a shard whose manifest no longer has the identity its batches were
/// written under (the manifest agrees with itself, but not with its progress markers).
fn refuse_edited_manifest<P>(
    layout: &Layout,
    cfg: &RunConfig<P>,
    manifest_path: &Path,
) -> Result<(), DatasetError> {
    let checked = layout.check_batches(cfg.shard_batches());
    let markers: Vec<_> =
        checked.problems.into_iter().filter(|p| p.kind == ProblemKind::Identity).collect();
    if markers.is_empty() {
        return Ok(());
    }
    Err(refused(
        &layout.dir,
        Refusal::EditedManifest { path: PathBuf::from(manifest_path), markers },
    ))
}

/// Refuses a directory without a manifest that holds anything but a dataset's own files.
fn refuse_foreign(dir: &Path) -> Result<(), DatasetError> {
    // A shard starting at the same time as another may find the table directories before any
    // manifest: those are the dataset's own, anything else is foreign. So are the lock files
    // and a manifest under its temporary name (a run killed before its manifest was in place).
    let own = |name: &str| {
        ALL_TABLES.iter().any(|t| t.name == name)
            || name == ".progress"
            || is_lock_name(name)
            || temporary_target(name).is_some_and(is_manifest_name)
    };
    let found: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| io_err(dir, "cannot read the directory", e))?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| !own(name))
        .collect();
    if found.is_empty() {
        Ok(())
    } else {
        Err(refused(dir, Refusal::Foreign { found }))
    }
}

/// Removes files left under temporary names by an interrupted write of one of this shard's
/// batches. Other shards may be writing into the same directory at the same time: their
/// temporaries are theirs.
fn remove_temporaries<P>(dir: &Path, cfg: &RunConfig<P>) -> Result<(), DatasetError> {
    let ours = cfg.shard_batches();
    for entry in
        std::fs::read_dir(dir).map_err(|e| io_err(dir, "cannot read", e))?.filter_map(|e| e.ok())
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        if temporary_target(&name).and_then(batch_of).is_some_and(|b| ours.contains(&b)) {
            std::fs::remove_file(entry.path())
                .map_err(|e| io_err(&entry.path(), "cannot remove a stale temporary file", e))?;
        }
    }
    Ok(())
}

/// Removes this shard's manifest left under a temporary name by a run killed while writing it
/// (the writer lock is held: no other process writes this manifest).
fn remove_manifest_temporaries(dir: &Path, manifest_path: &Path) -> Result<(), DatasetError> {
    let ours =
        manifest_path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    for entry in
        std::fs::read_dir(dir).map_err(|e| io_err(dir, "cannot read", e))?.filter_map(|e| e.ok())
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        if temporary_target(&name) == Some(ours.as_str()) {
            std::fs::remove_file(entry.path())
                .map_err(|e| io_err(&entry.path(), "cannot remove a stale temporary file", e))?;
        }
    }
    Ok(())
}

/// The batch of a part file (`part-RUN-BATCH.EXT`) or progress marker (`batch-BATCH.json`).
fn batch_of(file_name: &str) -> Option<u64> {
    let (stem, _extension) = file_name.rsplit_once('.')?;
    stem.rsplit_once('-')?.1.parse().ok()
}
