//! The `run` job: a study from an experiment file, one dataset per arm under the study's
//! directory, then its summary, data package and charts; and what a tournament shares with it
//! (the study's directory, playing its datasets).

pub mod error;
pub mod experiment;
pub mod outputs;
pub mod source_file;
pub mod summary;

pub use error::StudyError;

use std::path::{Path, PathBuf};

use crate::agents::Resources;
use crate::analysis::summarize::summarize_path;
use crate::analysis::summary::StudySummary;
use crate::io::lock::DirLock;

use crate::app::simulate::{self, Follow, Simulated, Simulation};
use crate::app::FieldError;
use error::StudyDirError;
use experiment::Experiment;
use outputs::{create_dir, write_text};
use summary::{study_text, write_summary};

/// Options of the jobs that play a study from a file (`run`, `tournament`).
#[derive(Clone, Debug)]
pub struct StudyOptions {
    /// Directory under which the study's directory (named after the file's `name`) is written.
    pub out_root: PathBuf,
    /// Worker threads (0: one per core).
    pub threads: usize,
    /// Play at most this many matches per arm (per pairing and seat order), a quick trial.
    pub matches: Option<u64>,
    /// The command recorded in the manifests.
    pub command: String,
}

impl StudyOptions {
    /// Err naming the field that is not what it should be: the check of the requests of the
    /// jobs that take these options.
    pub(crate) fn check(&self) -> Result<(), FieldError> {
        simulate::check_threads(self.threads).map_err(|e| FieldError::new("threads", e))?;
        if let Some(m) = self.matches {
            crate::sim::check_matches(m).map_err(|e| FieldError::new("matches", e))?;
        }
        Ok(())
    }
}

/// A study to run: the experiment and the options, before they are checked.
#[derive(Clone, Debug)]
pub struct StudyRequest {
    pub experiment: Experiment,
    pub options: StudyOptions,
}

impl StudyRequest {
    /// The study to run, or the first field that is not what it should be (`threads`,
    /// `matches`).
    pub fn validate(self) -> Result<StudyJob, FieldError> {
        self.options.check()?;
        Ok(StudyJob { experiment: self.experiment, options: self.options })
    }
}

/// A study whose options are checked: what [`run`] runs.
#[derive(Clone, Debug)]
pub struct StudyJob {
    pub experiment: Experiment,
    pub options: StudyOptions,
}

/// What a finished study wrote.
#[derive(Clone, Debug)]
pub struct StudyRun {
    pub dir: PathBuf,
    pub summary: StudySummary,
    /// The summary as text (summary.txt).
    pub text: String,
    pub charts: Vec<PathBuf>,
}

/// The files of a study's directory besides its datasets, by the command that writes it.
const STUDY_FILES: [(&str, &str, &[&str]); 2] = [
    (
        "experiment.toml",
        "rajapasu run",
        &[
            "summary.json",
            "summary.csv",
            "summary_by_round.csv",
            "summary.txt",
            "charts",
            "datapackage.json",
        ],
    ),
    (
        "tournament.toml",
        "rajapasu tournament",
        &[
            "summary.json",
            "summary.csv",
            "summary_by_round.csv",
            "summary.txt",
            "ratings.json",
            "ratings.csv",
            "ratings.txt",
            "pairs.csv",
            "charts",
            "datapackage.json",
        ],
    ),
];

/// Creates the study's directory `out_root/name` (the options checked), locked for this
/// process (one run of a study at a time; each dataset is also locked by its writer), with
/// the file it was run from copied in as `copy_as` (`experiment.toml` or `tournament.toml`).
/// A directory that holds another kind of study, or files that are not this study's
/// (its file, its outputs and the directories of `datasets`), is refused before anything
/// is written into it.
pub fn open_study(
    options: &StudyOptions,
    name: &str,
    copy_as: &str,
    source: &str,
    datasets: &[String],
) -> Result<(PathBuf, DirLock), StudyError> {
    let dir = options.out_root.join(name);
    if dir.exists() {
        check_study_dir(&dir, copy_as, datasets)?;
    }
    create_dir(&dir)?;
    let lock = DirLock::try_acquire(&dir, crate::io::lock::SETUP_LOCK, "this study")?;
    write_text(&dir.join(copy_as), source)?;
    Ok((dir, lock))
}

/// The names in `dir`, each with whether it is a symbolic link.
fn read_names(dir: &Path) -> Result<Vec<(String, bool)>, StudyError> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| StudyError::failed(format!("{}: cannot read: {e}", dir.display())))?;
    let entries = entries.filter_map(|e| e.ok());
    Ok(entries
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                e.file_type().is_ok_and(|t| t.is_symlink()),
            )
        })
        .collect())
}

/// Refuses a study directory that holds another kind of study or files that are not this study's.
fn check_study_dir(dir: &Path, copy_as: &str, datasets: &[String]) -> Result<(), StudyError> {
    if !dir.is_dir() {
        return Err(StudyDirError::NotADirectory { dir: dir.to_path_buf() }.into());
    }
    let (_, command, outputs) =
        STUDY_FILES.iter().find(|(file, _, _)| *file == copy_as).expect("a study file");
    for (file, other_command, _) in STUDY_FILES.iter().filter(|(file, _, _)| *file != copy_as) {
        if dir.join(file).exists() {
            return Err(StudyDirError::OtherStudy {
                dir: dir.to_path_buf(),
                file,
                other_command,
                command,
            }
            .into());
        }
    }
    // The study's own outputs, and those of the metrics job, which any study may hold.
    let outputs: Vec<&str> =
        outputs.iter().copied().chain(crate::app::metrics::METRICS_FILES).collect();
    let own = |name: &str| {
        name == copy_as
            || crate::io::lock::is_lock_name(name)
            || outputs.contains(&name)
            || datasets.iter().any(|d| d == name)
            || crate::io::atomic::temporary_target(name)
                .is_some_and(|t| t == copy_as || outputs.contains(&t))
    };
    let names = read_names(dir)?;
    check_no_links(dir, &names, &outputs, datasets)?;
    let mut foreign: Vec<String> =
        names.into_iter().map(|(name, _)| name).filter(|name| !own(name)).collect();
    if foreign.is_empty() {
        return Ok(());
    }
    foreign.sort();
    let what = if copy_as == "experiment.toml" {
        "arms of the experiment file"
    } else {
        "pairings of the tournament file"
    };
    Err(StudyDirError::Foreign { dir: dir.to_path_buf(), what, files: foreign }.into())
}

/// Refuses a study whose own outputs or dataset directories (of the directory's `names`) are
/// symbolic links: writing through one would put the charts or an arm's dataset wherever the
/// link points.
fn check_no_links(
    dir: &Path,
    names: &[(String, bool)],
    outputs: &[&str],
    datasets: &[String],
) -> Result<(), StudyError> {
    let mut links: Vec<String> = names
        .iter()
        .filter(|(name, link)| {
            *link && (outputs.contains(&name.as_str()) || datasets.iter().any(|d| d == name))
        })
        .map(|(name, _)| name.clone())
        .collect();
    if links.is_empty() {
        return Ok(());
    }
    links.sort();
    Err(StudyDirError::Links { dir: dir.to_path_buf(), links }.into())
}

/// Plays one dataset of a study (`what` names it in errors), told to `follow` as `label`.
pub fn play(
    sim: &Simulation,
    players: &Resources,
    command: &str,
    label: &str,
    what: String,
    follow: &dyn Follow,
) -> Result<Simulated, StudyError> {
    simulate::play(sim, players, command, label, follow)
        .map_err(|error| StudyError::Play { what, error: Box::new(error) })
}

/// Writes a study's summary files, its data package (of `datasets`) and summary.txt; returns
/// the summary's text.
pub fn write_study_summary(
    study: &StudySummary,
    dir: &Path,
    datasets: &[String],
) -> Result<String, StudyError> {
    write_summary(study, dir)?;
    let dirs: Vec<(String, PathBuf)> = datasets.iter().map(|d| (d.clone(), dir.join(d))).collect();
    crate::io::datapackage::write_study(dir, &dirs).map_err(StudyError::failed)?;
    let text = study_text(study);
    write_text(&dir.join("summary.txt"), &text)?;
    Ok(text)
}

/// Runs the study with what the players share (`players`); an arm already finished is kept,
/// an interrupted one continues.
pub fn run(
    job: &StudyJob,
    players: &Resources,
    follow: &dyn Follow,
) -> Result<StudyRun, StudyError> {
    let (experiment, options) = (&job.experiment, &job.options);
    let arms: Vec<String> = experiment.arms.iter().map(|a| a.name.clone()).collect();
    let (dir, _lock) =
        open_study(options, &experiment.name, "experiment.toml", &experiment.source, &arms)?;
    for (i, arm) in experiment.arms.iter().enumerate() {
        let cfg = arm.run_config(options.matches.unwrap_or(arm.matches));
        let sim = Simulation {
            cfg,
            out: dir.join(&arm.name),
            format: arm.format,
            threads: options.threads,
            resume: true,
        };
        let label = format!("[{}/{}] {}", i + 1, experiment.arms.len(), arm.name);
        play(&sim, players, &options.command, &label, format!("arm `{}`", arm.name), follow)?;
    }
    let summary = summarize_path(&dir, Some(&arms))?;
    let text = write_study_summary(&summary, &dir, &arms)?;
    let charts =
        crate::plot::plot_study(&summary, &dir.join("charts")).map_err(StudyError::failed)?;
    Ok(StudyRun { dir, summary, text, charts })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_output_of_a_study_is_a_name_no_arm_may_take() {
        for (file, _, outputs) in STUDY_FILES {
            for name in std::iter::once(&file)
                .chain(outputs.iter())
                .chain(crate::app::metrics::METRICS_FILES.iter())
            {
                assert!(super::experiment::STUDY_OUTPUTS.contains(name), "{name}");
            }
        }
    }

    struct Quiet;
    impl Follow for Quiet {
        fn started(&self, _: &str, _: u64) {}
        fn played(&self, _: u64) {}
        fn finished(&self, _: &str, _: Option<&Simulated>) {}
    }

    fn request(root: &Path, matches: Option<u64>, threads: usize) -> StudyRequest {
        let text = "name = \"tiny\"\n[defaults]\nmatches = 4\n[[arms]]\nname = \"a\"\n";
        StudyRequest {
            experiment: Experiment::parse(text).unwrap(),
            options: StudyOptions {
                out_root: root.to_path_buf(),
                threads,
                matches,
                command: "test".into(),
            },
        }
    }

    #[test]
    fn a_bad_study_request_names_its_field() {
        let root = tempfile::tempdir().unwrap();
        for (matches, threads, field) in
            [(Some(0), 1, "matches"), (None, simulate::MAX_THREADS + 1, "threads")]
        {
            match request(root.path(), matches, threads).validate() {
                Err(e) => assert!(e.field == field && !e.message.contains("--"), "{e}"),
                Ok(job) => panic!("{field}: accepted {:?}", job.options),
            }
        }
        assert!(!root.path().join("tiny").exists(), "nothing is written for a bad request");
    }

    #[test]
    fn a_study_directory_of_foreign_files_is_refused_naming_the_root_option() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("tiny")).unwrap();
        std::fs::write(root.path().join("tiny/notes.txt"), "mine").unwrap();
        let job = request(root.path(), None, 1).validate().unwrap();
        let e = run(&job, &Resources::default(), &Quiet).unwrap_err();
        match &e {
            StudyError::Directory(d @ StudyDirError::Foreign { files, .. }) => {
                assert_eq!(files, &["notes.txt"]);
                assert!(d.describe("--out-root").ends_with("choose another --out-root"), "{e}");
                assert!(e.to_string().ends_with("choose another out_root"), "{e}");
            }
            other => panic!("{other}"),
        }
    }
}
