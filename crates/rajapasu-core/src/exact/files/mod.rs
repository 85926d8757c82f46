//! What the exact solvers keep on disk: a spilled round's level files (positions, values,
//! moves) and pending captures, the state of a level enumerated by buckets, and the temporaries
//! a killed writer leaves. The bottom floor of the exact solvers: nothing here names `round` or
//! `matches` (the match tables, made of the match solver's types, are `matches::tables`).
//! Every file is written under a temporary name and renamed, bar two kinds appended in place
//! ([`append_synced`]): a level's pending batches (`pending-NNN.batches`) and a bucketed
//! level's children (`work-NNN/children-BBBBB.raw`). The solve's state records their lengths,
//! and what a killed writer appended past them is cut off (the batches) or never read (the
//! children). Every file is refused naming it when damaged.

use std::io::Write;
use std::path::Path;

pub(in crate::exact) mod bucket_state;
pub(in crate::exact) mod hashing;
pub(in crate::exact) mod level_files;
pub(in crate::exact) mod pending;
pub(in crate::exact) mod temporaries;

/// A file refused as damaged or unreadable: the message names it and says why. The solvers
/// turn it into their own errors.
#[derive(Debug)]
pub(in crate::exact) struct Refused(pub(in crate::exact) String);

/// Appends `bytes` to the file at `path` (created if missing) and syncs them: the state that
/// records the file's new length is written only once they are on disk.
pub(in crate::exact) fn append_synced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
    f.write_all(bytes)?;
    f.sync_data()
}
