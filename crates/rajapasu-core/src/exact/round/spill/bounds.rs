//! What a solve on disk may use ([`SpillOptions`]: its memory and disk bounds, the levels it may
//! finish in one run), why it fails ([`SpillError`], with the figures of the bound it met), and
//! what it has used, checked against the bounds ([`SpillBounds`]). A round's run
//! ([`crate::exact::round::spill`]) and a match solve with its round graphs on disk
//! (`matches::match_spill`) share them.

use std::path::{Path, PathBuf};

use crate::exact::files::Refused;
use crate::exact::round::solver::SolveError;
use crate::exact::setting::{Naming, Setting};

#[derive(Clone, Copy, Debug)]
pub struct SpillOptions {
    /// The most bytes of working memory (the level in hand, its buffers); the lower levels'
    /// files are mapped, not counted.
    pub max_memory: u64,
    /// The most bytes the solve's directory may hold.
    pub max_disk: u64,
    /// Stop after finishing this many levels in this run (each is kept; run again to continue).
    pub max_levels: Option<u32>,
}

impl Default for SpillOptions {
    fn default() -> SpillOptions {
        SpillOptions {
            max_memory: crate::exact::DEFAULT_MAX_MEMORY,
            max_disk: u64::MAX,
            max_levels: None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpillError {
    #[error(transparent)]
    Solve(#[from] SolveError),
    #[error("{0}")]
    BadFile(String),
    #[error("{path}: {message}")]
    Io { path: PathBuf, message: String },
    #[error(
        "the disk is full writing {path} ({bytes} bytes): free at least that much, more for the levels still to come \
         ({used} bytes of the solve are on disk), and run again: the finished levels are kept"
    )]
    DiskFull { path: PathBuf, bytes: u64, used: u64 },
    #[error("{}", disk_limit(*.limit, *.needed, .what, &Setting::default_name))]
    DiskLimit { limit: u64, needed: u64, what: String },
    #[error(
        "{dir} holds a solve of other roots or rules ({found}); use another directory or remove it"
    )]
    OtherSolve { dir: PathBuf, found: String },
    #[error("stopped after {levels} levels as asked; run again to continue from level {next}")]
    Interrupted { levels: u32, next: u32 },
    #[error("{}", closure_limit(*.limit, *.needed, *.positions, *.level, &Setting::default_name))]
    ClosureLimit { limit: u64, needed: u64, positions: u64, level: u32 },
}

impl SpillError {
    /// The message, the setting at fault named by `name`.
    pub fn describe(&self, name: Naming) -> String {
        match self {
            SpillError::Solve(e) => e.describe(name),
            SpillError::DiskLimit { limit, needed, what } => {
                disk_limit(*limit, *needed, what, name)
            }
            SpillError::ClosureLimit { limit, needed, positions, level } => {
                closure_limit(*limit, *needed, *positions, *level, name)
            }
            e => e.to_string(),
        }
    }
}

fn disk_limit(limit: u64, needed: u64, what: &str, name: Naming) -> String {
    format!(
        "the solve needs more disk than allowed ({} {limit} bytes): {needed} bytes with {what}; \
         allow more and run again: the finished levels are kept",
        name(Setting::MaxDisk)
    )
}

fn closure_limit(limit: u64, needed: u64, positions: u64, level: u32, name: Naming) -> String {
    format!(
        "choosing a perfect player's progressing move needs more memory than allowed ({} {limit} bytes): \
         the positions of the same value its in-level moves lead to (level {level}) reach {positions} \
         and {needed} bytes; allow more memory",
        name(Setting::MaxMemory)
    )
}

impl From<Refused> for SpillError {
    fn from(refused: Refused) -> SpillError {
        SpillError::BadFile(refused.0)
    }
}

pub(crate) fn io_error(path: &Path, e: std::io::Error, used: u64, bytes: u64) -> SpillError {
    if e.kind() == std::io::ErrorKind::StorageFull {
        SpillError::DiskFull { path: path.to_path_buf(), bytes, used }
    } else {
        SpillError::Io { path: path.to_path_buf(), message: e.to_string() }
    }
}

/// What a solve on disk has used, against the bounds of its options.
pub(in crate::exact) struct SpillBounds {
    pub(in crate::exact) opts: SpillOptions,
    /// Bytes in the solve's directories.
    pub(in crate::exact) disk: u64,
    /// The most working memory checked.
    pub(in crate::exact) peak: u64,
    /// Levels finished in this run, for [`SpillOptions::max_levels`].
    pub(in crate::exact) finished: u32,
}

impl SpillBounds {
    /// The bounds of `opts` for a solve whose directories hold `disk` bytes.
    pub(in crate::exact) fn new(opts: SpillOptions, disk: u64) -> SpillBounds {
        SpillBounds { opts, disk, peak: 0, finished: 0 }
    }

    /// Records `working` bytes in the peak and checks them against the memory bound (the
    /// error names the positions `found`, the level and the step); the bytes when they fit.
    pub(in crate::exact) fn check_memory(
        &mut self,
        working: u64,
        level: u32,
        found: u64,
        phase: &'static str,
    ) -> Result<u64, SpillError> {
        self.peak = self.peak.max(working);
        SolveError::within_memory(self.opts.max_memory, working, found, level, phase)?;
        Ok(working)
    }

    /// Checks that `more` bytes written fit the disk bound.
    pub(in crate::exact) fn check_disk(
        &self,
        more: u64,
        what: impl FnOnce() -> String,
    ) -> Result<(), SpillError> {
        self.check_disk_replacing(more, 0, what)
    }

    /// Checks that `more` bytes written in place of `less` fit the disk bound; `what` says what
    /// they are, for the error.
    pub(in crate::exact) fn check_disk_replacing(
        &self,
        more: u64,
        less: u64,
        what: impl FnOnce() -> String,
    ) -> Result<(), SpillError> {
        let needed = self.disk_with(more, less);
        if needed > self.opts.max_disk {
            return Err(SpillError::DiskLimit { limit: self.opts.max_disk, needed, what: what() });
        }
        Ok(())
    }

    /// The bytes on disk with `more` written in place of `less` (saturating: a bound of
    /// u64::MAX is no bound, and no sum passes it).
    pub(in crate::exact) fn disk_with(&self, more: u64, less: u64) -> u64 {
        self.disk.saturating_add(more).saturating_sub(less)
    }

    /// Stops the run ([`SpillError::Interrupted`], `next` the level to continue from) once it
    /// has finished the levels its options allow.
    pub(in crate::exact) fn stop_if_asked(&self, next: u32) -> Result<(), SpillError> {
        match self.opts.max_levels {
            Some(max) if self.finished >= max => {
                Err(SpillError::Interrupted { levels: self.finished, next })
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounds(max_memory: u64, max_disk: u64, max_levels: Option<u32>) -> SpillBounds {
        SpillBounds::new(SpillOptions { max_memory, max_disk, max_levels }, 1000)
    }

    #[test]
    fn memory_beyond_the_bound_is_refused_with_its_figures_and_kept_in_the_peak() {
        let mut b = bounds(500, u64::MAX, None);
        assert_eq!(b.check_memory(400, 7, 12, "solved"), Ok(400));
        let e = b.check_memory(501, 9, 30, "enumerated").unwrap_err();
        assert_eq!(
            e,
            SpillError::Solve(SolveError::MemoryLimit {
                limit: 500,
                needed: 501,
                positions: 30,
                counters: 9,
                phase: "enumerated"
            })
        );
        assert_eq!(b.peak, 501);
        b.check_memory(100, 1, 0, "solved").unwrap();
        assert_eq!(b.peak, 501);
    }

    #[test]
    fn disk_beyond_the_bound_is_refused_counting_what_a_file_replaces() {
        let b = bounds(u64::MAX, 1500, None);
        b.check_disk(500, || unreachable!("it fits")).unwrap();
        let e = b.check_disk(501, || "the moves".to_string()).unwrap_err();
        assert_eq!(
            e,
            SpillError::DiskLimit { limit: 1500, needed: 1501, what: "the moves".into() }
        );
        // 800 bytes in place of 300: 1500 on disk, within the bound.
        b.check_disk_replacing(800, 300, || unreachable!("it fits")).unwrap();
        assert!(b.check_disk_replacing(801, 300, String::new).is_err());
        // No bound: sums saturate instead of passing u64::MAX.
        let free = bounds(u64::MAX, u64::MAX, None);
        free.check_disk(u64::MAX, || unreachable!("no bound")).unwrap();
        assert_eq!(free.disk_with(u64::MAX, 10), u64::MAX - 10);
    }

    #[test]
    fn a_run_stops_once_it_has_finished_the_levels_asked() {
        let mut b = bounds(u64::MAX, u64::MAX, Some(2));
        b.stop_if_asked(5).unwrap();
        b.finished = 2;
        assert_eq!(b.stop_if_asked(4), Err(SpillError::Interrupted { levels: 2, next: 4 }));
        bounds(u64::MAX, u64::MAX, None).stop_if_asked(0).unwrap();
    }
}
