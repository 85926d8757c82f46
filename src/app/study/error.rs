//! Why a job over a study's directory (`run`, `tournament`, `metrics`, a summary) stopped.

use std::path::PathBuf;

use crate::io::DatasetError;

use crate::app::simulate::SimulateError;
use crate::app::FieldError;

/// See the module's documentation. Each case keeps what the front end needs to word it.
#[derive(Debug, thiserror::Error)]
pub enum StudyError {
    #[error("{0}")]
    Field(#[from] FieldError),
    /// The study's directory is not one it may write into (bad input).
    #[error("{0}")]
    Directory(#[from] StudyDirError),
    /// One dataset of the study (`what`: "arm `a`", "pairing `x_vs_y`") could not be played.
    #[error("{error}")]
    Play { what: String, error: Box<SimulateError> },
    /// A dataset or directory could not be read or locked (see [`DatasetError::is_bad_input`]).
    #[error("{0}")]
    Dataset(#[from] DatasetError),
    /// The results cannot be rated (bad input: the message says why).
    #[error("{0}")]
    Rejected(String),
    /// Something failed while working (a file not written).
    #[error("{0}")]
    Failed(String),
}

impl StudyError {
    pub fn failed(e: impl std::fmt::Display) -> StudyError {
        StudyError::Failed(e.to_string())
    }
}

impl crate::app::BadInput for StudyError {
    fn is_bad_input(&self) -> bool {
        match self {
            StudyError::Field(_) | StudyError::Directory(_) | StudyError::Rejected(_) => true,
            StudyError::Play { error, .. } => error.is_bad_input(),
            StudyError::Dataset(e) => e.is_bad_input(),
            StudyError::Failed(_) => false,
        }
    }
}

impl From<crate::io::lock::LockError> for StudyError {
    fn from(e: crate::io::lock::LockError) -> StudyError {
        StudyError::Dataset(DatasetError::Lock(e))
    }
}

/// A study's directory that the study refuses to write into. [`StudyDirError::describe`]
/// names the root directory's option as the front end calls it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StudyDirError {
    NotADirectory {
        dir: PathBuf,
    },
    /// It holds a study of another command (`file` is that study's file).
    OtherStudy {
        dir: PathBuf,
        file: &'static str,
        other_command: &'static str,
        command: &'static str,
    },
    /// It holds files that are not the study's; `what` names the study's datasets.
    Foreign {
        dir: PathBuf,
        what: &'static str,
        files: Vec<String>,
    },
    /// Some of its own outputs or datasets are symbolic links.
    Links {
        dir: PathBuf,
        links: Vec<String>,
    },
}

impl StudyDirError {
    /// The refusal, with `root` the name of the option giving the directory under which
    /// studies are written.
    pub fn describe(&self, root: &str) -> String {
        match self {
            StudyDirError::NotADirectory { dir } => format!("{}: exists and is not a directory; choose another {root}", dir.display()),
            StudyDirError::OtherStudy { dir, file, other_command, command } => format!(
                "{}: holds a study of `{other_command}` ({file}), not of `{command}`: writing into it would overwrite its \
                 summary and charts; give this study another name, or choose another {root}",
                dir.display()
            ),
            StudyDirError::Foreign { dir, what, files } => format!(
                "{}: holds files that are not part of this study (not its file, its outputs or the {what}): {}; \
                 move them away, give this study another name, or choose another {root}",
                dir.display(),
                files.join(", ")
            ),
            StudyDirError::Links { dir, links } => format!(
                "{}: {} {} a symbolic link; a study writes its outputs and datasets only into its own directory, never through a \
                 link: remove {}, or choose another {root}",
                dir.display(),
                links.join(", "),
                if links.len() == 1 { "is" } else { "are" },
                if links.len() == 1 { "it" } else { "them" }
            ),
        }
    }
}

impl std::fmt::Display for StudyDirError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe("out_root"))
    }
}

impl std::error::Error for StudyDirError {}
