//! What a level enumerated by buckets ([`crate::exact::round::bucketed`]) records between runs, and
//! how its work is split.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// How a level's work is split, and an injected stop (for the tests).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tuning {
    /// The keys a bucket is planned to hold at most.
    pub bucket_keys: u64,
    /// The fewest buckets of a level (a power of two).
    pub min_buckets: u32,
    /// Stop, as if killed, after this many buckets were merged in this run.
    pub stop_after_buckets: Option<u64>,
    /// A lower level's appended pending batches are merged into its run once they hold this
    /// many bytes and at least as many as the run.
    pub pending_merge_bytes: u64,
    /// Stop, as if killed, after this many pending merges of this run have written their run
    /// (before the state records it).
    pub stop_after_merges: Option<u64>,
}

impl Tuning {
    /// Buckets of a 64th of the memory bound's keys: a bucket's children (repeats included, about
    /// twice its new positions) sorted in place take about a quarter of the bound.
    pub(crate) fn for_memory(max_memory: u64) -> Tuning {
        Tuning {
            bucket_keys: (max_memory / 64).max(1 << 10),
            min_buckets: 1,
            stop_after_buckets: None,
            pending_merge_bytes: (max_memory / 64).max(1 << 20),
            stop_after_merges: None,
        }
    }
}

/// The level in hand, as `state.json` records it between runs.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct Work {
    pub(in crate::exact) level: u32,
    pub(in crate::exact) buckets: u32,
    pub(in crate::exact) round: u32,
    /// Positions found by the rounds merged.
    #[serde(default)]
    pub(in crate::exact) found: u64,
    /// Bytes of each bucket's children file of the round, once its expansion is done.
    pub(in crate::exact) children: Option<Vec<u64>>,
    pub(in crate::exact) quiet: u64,
    pub(in crate::exact) exits: u64,
    pub(in crate::exact) peak: u64,
    pub(in crate::exact) seconds: f64,
}

pub(in crate::exact) fn work_dir(dir: &Path, level: u32) -> PathBuf {
    dir.join(format!("work-{level:03}"))
}

/// A level's merged run, as `state.json` records it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Merged {
    pub generation: u32,
    pub keys: u64,
    pub bytes: u64,
}

/// A level's delta-coded batches appended since its last merge, as `state.json` records them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Appended {
    pub bytes: u64,
    pub keys: u64,
}

/// The pending files of the levels below, when a level was finished (for the figures).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct PendingFigures {
    /// Bytes of every pending file (batches and merged runs) when the level was finished.
    pub bytes: u64,
    /// The most bytes of pending files seen at a checkpoint of the level.
    pub peak_bytes: u64,
    /// Merges made while enumerating the level, and their seconds.
    pub merges: u32,
    pub merge_seconds: f64,
}

/// A refused pending file: its path and why. Unlike a level file it cannot be rebuilt from the
/// levels finished: the captures of the levels above made it.
pub(in crate::exact) fn pending_refused(path: &Path, why: impl std::fmt::Display) -> String {
    format!(
        "{} is not a valid pending file of this solve: {why}; it holds positions found by the levels above, which were not kept: start the solve again in an empty directory",
        path.display()
    )
}
