//! How the command line words the errors of a dataset: the io layer says what is wrong, this
//! adds what to do about it with the command line's own flags (`--out`, `--resume`, `--shard`).

use std::path::Path;

use crate::io::dataset::Wording;
use crate::io::lock::LockError;
use crate::io::DatasetError;

use super::CliError;

/// How errors name the directory a run writes into, and what to do instead of writing there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Destination {
    /// `simulate --out DIR`.
    Out,
    /// One dataset of a study (`run`, `tournament`); `what` names it, e.g. "arm `greedy`".
    Study { what: String },
}

impl Destination {
    /// The words of a refusal to write into `dir`.
    fn wording(&self, dir: &Path) -> Wording {
        let (subject, elsewhere, instead_of_foreign) = match self {
            Destination::Out => ("--out".to_string(), "choose another --out".to_string(), "choose an empty or new directory".to_string()),
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
        DatasetError::Lock(LockError::Held { .. }) => format!("{e} (a stopped run continues with --resume)"),
        DatasetError::NoManifest { .. } => format!("{e} (run `rajapasu simulate --out DIR` to make one)"),
        DatasetError::Incomplete { path, shard, status, writer: None } => {
            format!("{}: shard {shard} is incomplete (status {status}); finish it with --resume first", path.display())
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
    if e.is_bad_input() {
        CliError::Usage(message)
    } else {
        CliError::Failed(message)
    }
}

/// A study job's error as the command line reports it: a dataset's as for `--out` (a study's
/// own datasets are worded by their arm or pairing), bad input exits 2, a failure exits 1.
pub fn study_error(e: crate::app::StudyError) -> CliError {
    use crate::app::StudyError;
    match e {
        StudyError::Field(e) => super::field_error(e),
        StudyError::File(e) => CliError::Usage(e.to_string()),
        StudyError::Directory(e) => CliError::Usage(e.describe(super::flag("out_root"))),
        StudyError::Play { what, error } => super::simulate::simulate_error(*error, &Destination::Study { what }),
        StudyError::Dataset(e) => dataset_error(e, &Destination::Out),
        StudyError::Rejected(message) => CliError::Usage(message),
        StudyError::Failed(message) => CliError::Failed(message),
    }
}
