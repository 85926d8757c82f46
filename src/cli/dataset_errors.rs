//! How the command line words the errors of a dataset: the io layer says what is wrong, this
//! adds what to do about it with the command line's own flags (`--out`, `--resume`, `--shard`).

use std::path::Path;

use crate::app::simulate::SimulateError;
use crate::io::dataset::Wording;
use crate::io::lock::LockError;
use crate::io::DatasetError;

use super::error::CliError;

/// How errors name the directory a run writes into, and what to do instead of writing there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Destination {
    /// `simulate --out DIR`.
    Out,
    /// `replay --dataset DIR`: a new dataset, never resumed.
    Dataset,
    /// One dataset of a study (`run`, `tournament`); `what` names it, e.g. "arm `greedy`".
    Study { what: String },
}

impl Destination {
    /// The words of a refusal to write into `dir`.
    fn wording(&self, dir: &Path) -> Wording {
        let (subject, elsewhere, instead_of_foreign) = match self {
            Destination::Out => (
                "--out".to_string(),
                "choose another --out".to_string(),
                "choose an empty or new directory".to_string(),
            ),
            Destination::Dataset => (
                "--dataset".to_string(),
                "choose another --dataset".to_string(),
                "choose an empty or new directory".to_string(),
            ),
            Destination::Study { what } => {
                let elsewhere = format!("move {} away to play {what} again", dir.display());
                (format!("the directory of {what}"), elsewhere.clone(), elsewhere)
            }
        };
        Wording {
            subject,
            elsewhere,
            instead_of_foreign,
            resume: "pass --resume to continue it".into(),
            play_shards: |count| format!("play --shard K/{count}"),
        }
    }
}

/// `e` as the command line reports it for a run writing into `dest`: bad input exits 2, a
/// failure while working exits 1.
pub fn dataset_error(e: DatasetError, dest: &Destination) -> CliError {
    let message = match &e {
        DatasetError::Refused { dir, refusal } => refusal.describe(dir, &dest.wording(dir)),
        DatasetError::Lock(LockError::Held { .. }) => {
            format!("{e} (a stopped run continues with --resume)")
        }
        DatasetError::NoManifest { .. } => {
            format!("{e} (run `rajapasu simulate --out DIR` to make one)")
        }
        DatasetError::Incomplete { path, shard, status, writer: None } => {
            format!(
                "{}: shard {shard} is incomplete (status {status}); finish it with --resume first",
                path.display()
            )
        }
        DatasetError::MissingShards { dir, missing, count } => format!(
            "{}: shards {} of {count} are missing; run them (--shard K/{count}) before summarizing",
            dir.display(),
            missing.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
        ),
        DatasetError::Damaged { .. } => {
            format!("{e}\n(`--resume` with the run's command plays missing, truncated or altered batches again; remove extra files)")
        }
        _ => e.to_string(),
    };
    CliError::of(&e, message)
}

/// A simulation's error as the command line words it for `dest`.
pub fn simulate_error(e: SimulateError, dest: &Destination) -> CliError {
    match e {
        SimulateError::Dataset(e) => dataset_error(e, dest),
        SimulateError::Match(_) => CliError::of(&e, &e),
    }
}

/// A study job's error as the command line reports it: a dataset's as for `--out` (a study's
/// own datasets are worded by their arm or pairing), bad input exits 2, a failure exits 1.
pub fn study_error(e: crate::app::study::StudyError) -> CliError {
    use crate::app::study::StudyError;
    let message = match e {
        StudyError::Field(e) => return super::flags::field_error(e),
        StudyError::Play { what, error } => {
            return simulate_error(*error, &Destination::Study { what })
        }
        StudyError::Dataset(e) => return dataset_error(e, &Destination::Out),
        StudyError::Directory(ref d) => d.describe(super::flags::flag("out_root")),
        StudyError::Rejected(ref message) | StudyError::Failed(ref message) => message.clone(),
    };
    CliError::of(&e, message)
}

/// A study job's error, worded by [`study_error`].
impl From<crate::app::study::StudyError> for CliError {
    fn from(e: crate::app::study::StudyError) -> CliError {
        study_error(e)
    }
}

/// A dataset's error, worded for `simulate --out` where a destination matters
/// ([`dataset_errors::dataset_error`] words it for a study's datasets).
impl From<crate::io::DatasetError> for CliError {
    fn from(e: crate::io::DatasetError) -> CliError {
        dataset_error(e, &Destination::Out)
    }
}

impl From<crate::io::lock::LockError> for CliError {
    fn from(e: crate::io::lock::LockError) -> CliError {
        crate::io::DatasetError::Lock(e).into()
    }
}

/// A run that stopped: the dataset's error, or a player that could not decide (exit 1; the
/// failed batch was not written, and `--resume` continues the run).
impl From<crate::sim::RunError<crate::io::DatasetError>> for CliError {
    fn from(e: crate::sim::RunError<crate::io::DatasetError>) -> CliError {
        match e {
            crate::sim::RunError::Sink(e) => e.into(),
            crate::sim::RunError::Match(e) => {
                CliError::Failed(format!("{e}; nothing of its batch was written"))
            }
        }
    }
}
