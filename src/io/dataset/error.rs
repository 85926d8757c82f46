//! What can be wrong with a dataset, typed: each case carries the file and the field or shard
//! at fault. The messages say what is wrong, not which flag of which front end would mend it:
//! the command line adds its own advice (`--resume`, `--out`) where it renders them.

use std::path::{Path, PathBuf};

use super::manifest::{ManifestProblem, Mismatch, RunStatus};
use crate::io::lock::LockError;
use crate::io::verify::Problem;
use crate::io::IoError;
use crate::sim::{Detail, Shard};

#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    #[error(transparent)]
    Io(#[from] IoError),
    /// A writer lock held by another process, or a lock file that cannot be used.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// A manifest that cannot be read or trusted.
    #[error("{}: {problem}", path.display())]
    Manifest { path: PathBuf, problem: ManifestProblem },
    #[error("{}: no such directory", path.display())]
    NoDirectory { path: PathBuf },
    /// A directory without a manifest, opened as a dataset.
    #[error("{}: not a rajapasu dataset: no manifest.json", dir.display())]
    NoManifest { dir: PathBuf },
    /// A directory holding neither a dataset nor datasets (a study's arms).
    #[error("{}: not a rajapasu dataset (no manifest.json) and holds no datasets", dir.display())]
    NoDatasets { dir: PathBuf },
    /// Two manifests of one directory that are not of one run.
    #[error("{}: mixes datasets: {first} and {other} differ ({mismatch})", dir.display())]
    Mixed { dir: PathBuf, first: String, other: String, mismatch: Box<Mismatch> },
    #[error("{}: mixes shards of runs split in different numbers of shards", dir.display())]
    MixedShardCounts { dir: PathBuf },
    /// A shard still being written (`writer` names the process) or interrupted.
    #[error("{}: shard {shard} is incomplete{}", path.display(), incomplete(status, writer.as_deref()))]
    Incomplete { path: PathBuf, shard: Shard, status: RunStatus, writer: Option<String> },
    /// Shards of the run that are not in the directory.
    #[error("{}: shards {} of {count} are missing; play them before summarizing", dir.display(), numbers(missing))]
    MissingShards { dir: PathBuf, missing: Vec<u32>, count: u32 },
    /// Files that do not match the progress markers.
    #[error("{}: {}", dir.display(), damaged(problems))]
    Damaged { dir: PathBuf, problems: Vec<Problem> },
    #[error("{}: missing table directory '{table}' for detail {detail}", path.display())]
    MissingTable { path: PathBuf, table: String, detail: Detail },
    #[error("{}: unexpected file in a table directory (expected part-RUN-BATCH files)", path.display())]
    UnexpectedFile { path: PathBuf },
    #[error("{}: part file of run {run} mixed into a dataset of run {dataset_run} (different rules, players or seed)", path.display())]
    ForeignPart { path: PathBuf, run: String, dataset_run: String },
    #[error("{}: unknown table '{table}'", dir.display())]
    UnknownTable { dir: PathBuf, table: String },
    /// A progress marker that cannot be read.
    #[error("{}: {what}", path.display())]
    Marker { path: PathBuf, what: String },
    /// A directory a run may not write into.
    #[error("{}", refusal.describe(dir, &Wording::default()))]
    Refused { dir: PathBuf, refusal: Box<Refusal> },
    /// Rows that disagree with each other or with the run (found by the analysis); `what`
    /// names the table or column.
    #[error("{}: {what}", path.display())]
    Content { path: PathBuf, what: String },
    /// The match table a run's perfect players need cannot be read or is not a possible one.
    #[error("{0}")]
    Tables(String),
}

impl DatasetError {
    /// Whether the error is the data's (bad input), not a failure of the system while working.
    pub fn is_bad_input(&self) -> bool {
        !matches!(self, DatasetError::Io(_) | DatasetError::Lock(LockError::Io(_)))
    }

    pub(crate) fn content(path: &Path, what: impl Into<String>) -> DatasetError {
        DatasetError::Content { path: path.to_path_buf(), what: what.into() }
    }
}

fn incomplete(status: &RunStatus, writer: Option<&str>) -> String {
    match writer {
        Some(holder) => format!(": it is being written by {holder}; wait for it to end"),
        None => format!(" (status {status}); finish it first"),
    }
}

fn numbers(missing: &[u32]) -> String {
    missing.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

fn damaged(problems: &[Problem]) -> String {
    format!(
        "{} of the dataset's files do not match its progress markers; its figures would be wrong:\n{}",
        problems.len(),
        problem_list(problems)
    )
}

/// Where an existing shard stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShardState {
    Complete,
    /// Being written by the process named.
    Writing(String),
    Interrupted,
}

impl std::fmt::Display for ShardState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShardState::Complete => f.write_str("complete"),
            ShardState::Writing(holder) => write!(f, "being written by {holder}"),
            ShardState::Interrupted => f.write_str("interrupted"),
        }
    }
}

/// Why a run may not write into a directory.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// The path exists and is not a directory.
    NotADirectory,
    /// No manifest, and files that are not a dataset's (their names).
    Foreign { found: Vec<String> },
    /// A manifest that cannot be read or trusted.
    UntrustedManifest { path: PathBuf, problem: ManifestProblem },
    /// A dataset of the same run split into another number of shards.
    ShardCount { file: String, theirs: Shard, state: ShardState, ours: Shard },
    /// A dataset of another run.
    Different { file: String, state: ShardState, mismatch: Mismatch },
    /// This shard is there already (complete or interrupted) and resuming was not asked for.
    AlreadyWritten { complete: bool, shard: Shard },
    /// The shard's manifest edited since its batches were written: its progress markers
    /// record another identity.
    EditedManifest { path: PathBuf, markers: Vec<Problem> },
    /// Files that this run would not write.
    Strays { problems: Vec<Problem> },
}

/// How a front end words a refusal: how it names the directory and what it offers instead
/// (the command line names its flags; the default names none).
#[derive(Debug, Clone)]
pub struct Wording {
    /// The directory, e.g. "the directory" or "--out".
    pub subject: String,
    /// What to do instead of writing there, e.g. "choose another directory".
    pub elsewhere: String,
    /// What to do instead of writing into someone else's files.
    pub instead_of_foreign: String,
    /// How to continue a shard found there, e.g. "resume the run to continue it".
    pub resume: String,
    /// How to play a shard of a run split into N shards, given N.
    pub play_shards: fn(u32) -> String,
}

impl Default for Wording {
    fn default() -> Wording {
        Wording {
            subject: "the directory".into(),
            elsewhere: "choose another directory".into(),
            instead_of_foreign: "choose an empty or new directory".into(),
            resume: "resume the run to continue it".into(),
            play_shards: |count| format!("play its shards (K of {count})"),
        }
    }
}

impl Refusal {
    /// The message, naming the file at fault, in `words`.
    pub fn describe(&self, dir: &Path, words: &Wording) -> String {
        let Wording { subject, elsewhere, .. } = words;
        let d = dir.display();
        match self {
            Refusal::NotADirectory => format!("{d}: {subject} exists and is not a directory"),
            Refusal::Foreign { found } => format!(
                "{d}: {subject} is not empty and holds no rajapasu dataset (found {}); {}",
                found.join(", "),
                words.instead_of_foreign
            ),
            Refusal::UntrustedManifest { path, problem } => {
                format!("{}: {problem}\n({subject} holds a dataset whose manifest cannot be trusted; {elsewhere})", path.display())
            }
            Refusal::ShardCount { file, theirs, state, ours } => format!(
                "{d}: {subject} holds a run split into {} shard{} ({file}: shard {theirs}, {state}); this is shard {} of {}: \
                 all shards of a dataset split the run the same way; {elsewhere}, or {}",
                theirs.count,
                if theirs.count == 1 { "" } else { "s" },
                ours.index,
                ours.count,
                (words.play_shards)(theirs.count)
            ),
            Refusal::Different { file, state, mismatch } => {
                format!("{d}: {subject} holds a different dataset ({file}, {state}): {mismatch}; {elsewhere}")
            }
            Refusal::AlreadyWritten { complete, shard } => format!(
                "{d}: {subject} already holds {} run of shard {shard}; {}, or {elsewhere}",
                if *complete { "a complete" } else { "an interrupted" },
                words.resume
            ),
            Refusal::EditedManifest { path, markers } => {
                format!("{}: {}; restore the manifest, or {elsewhere}", path.display(), edited_identity("the manifest", markers))
            }
            Refusal::Strays { problems } => format!(
                "{d}: {subject} holds files that are not part of this run; move them away, then run the command again:\n{}",
                problem_list(problems)
            ),
        }
    }
}

/// "`what` was edited: ...", from the progress markers (at least one) that record another identity.
pub(super) fn edited_identity<P: std::borrow::Borrow<Problem>>(
    what: &str,
    markers: &[P],
) -> String {
    let example = markers[0].borrow();
    format!(
        "{what} was edited: its identity no longer matches the digest recorded by the batches \
         ({} progress marker{} record another, e.g. {}: {})",
        markers.len(),
        if markers.len() == 1 { "" } else { "s" },
        example.file.display(),
        example.what
    )
}

/// Problems one per line, indented.
pub fn problem_list(problems: &[Problem]) -> String {
    problems.iter().map(|p| format!("  {p}")).collect::<Vec<_>>().join("\n")
}

/// An operating-system error on a dataset's file, as the dataset's error.
pub(super) fn io_err(path: &Path, action: &str, error: std::io::Error) -> DatasetError {
    DatasetError::Io(IoError::File { path: path.to_path_buf(), action: action.into(), error })
}
