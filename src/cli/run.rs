//! `rajapasu run`: a study from an experiment file: one dataset per arm, a summary, charts.

use std::path::{Path, PathBuf};

use super::Destination;
use crate::analysis::summarize::summarize_path;
use crate::io::lock::DirLock;
use crate::io::write_string_atomically;

use super::experiment::Experiment;
use super::output::Output;
use super::simulate::{run_job, Job};
use super::summarize::{study_text, write_summary};
use super::CliError;
use crate::app::simulate::Simulation;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The experiment file, e.g. experiments/quickstart.toml.
    file: PathBuf,
    #[command(flatten)]
    study: StudyArgs,
}

/// Options of the commands that play a study from a file (`run`, `tournament`).
#[derive(clap::Args, Debug)]
pub struct StudyArgs {
    /// Directory under which the study's directory (named after the file's `name`) is written.
    #[arg(long, default_value = "data")]
    pub out_root: PathBuf,
    /// Worker threads (0: one per core; at most 1024). The rows do not depend on it.
    #[arg(long, default_value_t = 0, value_parser = super::simulate::parse_threads)]
    pub threads: usize,
    /// Play at most this many matches per arm (in a tournament: per pair and seat order), a quick
    /// trial; the datasets then differ from the full study's, so write them elsewhere with
    /// --out-root.
    #[arg(long)]
    pub matches: Option<u64>,
    /// No progress bars.
    #[arg(long)]
    pub quiet: bool,
}

/// The files of a study's directory besides its datasets, by the command that writes it.
const STUDY_FILES: [(&str, &str, &[&str]); 2] = [
    (
        "experiment.toml",
        "rajapasu run",
        &["summary.json", "summary.csv", "summary_by_round.csv", "summary.txt", "charts", "datapackage.json"],
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

impl StudyArgs {
    /// Checks the options and creates the study's directory `OUT_ROOT/name`, locked for this
    /// process (one run of a study at a time; each dataset is also locked by its writer), with
    /// the file it was run from copied in as `copy_as` (`experiment.toml` or `tournament.toml`).
    /// A directory that holds another kind of study, or files that are not this study's
    /// (its file, its outputs and the directories of `datasets`), is refused before anything
    /// is written into it.
    pub fn open_study(&self, name: &str, copy_as: &str, source: &str, datasets: &[String]) -> Result<(PathBuf, DirLock), CliError> {
        if let Some(m) = self.matches {
            crate::sim::check_matches(m).map_err(|e| CliError::usage(format!("--matches {e}")))?;
        }
        let dir = self.out_root.join(name);
        if dir.exists() {
            check_study_dir(&dir, copy_as, datasets)?;
        }
        std::fs::create_dir_all(&dir).map_err(|e| CliError::failed(format!("{}: cannot create: {e}", dir.display())))?;
        let lock = DirLock::try_acquire(&dir, crate::io::lock::SETUP_LOCK, "this study")?;
        write_string_atomically(&dir.join(copy_as), source).map_err(CliError::failed)?;
        Ok((dir, lock))
    }
}

/// Refuses a study directory that holds another kind of study or files that are not this study's.
fn check_study_dir(dir: &Path, copy_as: &str, datasets: &[String]) -> Result<(), CliError> {
    if !dir.is_dir() {
        return Err(CliError::usage(format!("{}: exists and is not a directory; choose another --out-root", dir.display())));
    }
    let (_, command, outputs) = STUDY_FILES.iter().find(|(file, _, _)| *file == copy_as).expect("a study file");
    for (file, other_command, _) in STUDY_FILES.iter().filter(|(file, _, _)| *file != copy_as) {
        if dir.join(file).exists() {
            return Err(CliError::usage(format!(
                "{}: holds a study of `{other_command}` ({file}), not of `{command}`: writing into it would overwrite its \
                 summary and charts; give this study another name, or choose another --out-root",
                dir.display()
            )));
        }
    }
    // The study's own outputs, and those `rajapasu metrics` adds to any study.
    let outputs: Vec<&str> = outputs.iter().copied().chain(super::metrics::METRICS_FILES).collect();
    let own = |name: &str| {
        name == copy_as
            || crate::io::lock::is_lock_name(name)
            || outputs.contains(&name)
            || datasets.iter().any(|d| d == name)
            || crate::io::atomic::temporary_target(name).is_some_and(|t| t == copy_as || outputs.contains(&t))
    };
    check_no_links(dir, &outputs, datasets)?;
    let mut foreign: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| CliError::failed(format!("{}: cannot read: {e}", dir.display())))?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| !own(name))
        .collect();
    if foreign.is_empty() {
        return Ok(());
    }
    foreign.sort();
    let what = if copy_as == "experiment.toml" { "arms of the experiment file" } else { "pairings of the tournament file" };
    Err(CliError::usage(format!(
        "{}: holds files that are not part of this study (not its file, its outputs or the {what}): {}; \
         move them away, give this study another name, or choose another --out-root",
        dir.display(),
        foreign.join(", ")
    )))
}

/// Refuses a study whose own outputs or dataset directories are symbolic links: writing
/// through one would put the charts or an arm's dataset wherever the link points.
fn check_no_links(dir: &Path, outputs: &[&str], datasets: &[String]) -> Result<(), CliError> {
    let mut linked: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| CliError::failed(format!("{}: cannot read: {e}", dir.display())))?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_symlink()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| outputs.contains(&name.as_str()) || datasets.iter().any(|d| d == name))
        .collect();
    if linked.is_empty() {
        return Ok(());
    }
    linked.sort();
    Err(CliError::usage(format!(
        "{}: {} {} a symbolic link; a study writes its outputs and datasets only into its own directory, never through a \
         link: remove {}, or choose another --out-root",
        dir.display(),
        linked.join(", "),
        if linked.len() == 1 { "is" } else { "are" },
        if linked.len() == 1 { "it" } else { "them" }
    )))
}

pub fn run(args: Args) -> Result<(), CliError> {
    let experiment = Experiment::load(&args.file)?;
    let args = args.study;
    let arms: Vec<String> = experiment.arms.iter().map(|a| a.name.clone()).collect();
    let (study_dir, _lock) = args.open_study(&experiment.name, "experiment.toml", &experiment.source, &arms)?;
    let players = crate::agents::Resources::default();
    for (i, arm) in experiment.arms.iter().enumerate() {
        let cfg = arm.run_config(args.matches.unwrap_or(arm.matches));
        let label = format!("[{}/{}] {}", i + 1, experiment.arms.len(), arm.name);
        // Always resumable: a finished arm is kept, an interrupted one continues.
        let job = Job {
            sim: Simulation { cfg, out: study_dir.join(&arm.name), format: arm.format, threads: args.threads, resume: true },
            quiet: args.quiet,
            label,
            destination: Destination::Study { what: format!("arm `{}`", arm.name) },
            players: players.clone(),
        };
        run_job(&job)?;
    }
    let study = summarize_path(&study_dir, Some(&arms))?;
    write_summary(&study, &study_dir)?;
    let arm_dirs: Vec<(String, std::path::PathBuf)> = arms.iter().map(|a| (a.clone(), study_dir.join(a))).collect();
    crate::io::datapackage::write_study(&study_dir, &arm_dirs).map_err(CliError::failed)?;
    let text = study_text(&study);
    write_string_atomically(&study_dir.join("summary.txt"), &text).map_err(CliError::failed)?;
    let charts = crate::plot::plot_study(&study, &study_dir.join("charts")).map_err(CliError::failed)?;
    if !args.quiet {
        eprintln!(
            "{}: summary.json, summary.csv, summary.txt and {} chart files in {}",
            experiment.name,
            charts.len(),
            study_dir.display()
        );
    }
    // Printed last: a reader that goes away (`| head`) does not cut the study short.
    let mut out = Output::lines();
    out.text(&text)?;
    out.finish()
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_output_of_a_study_is_a_name_no_arm_may_take() {
        for (file, _, outputs) in super::STUDY_FILES {
            for name in std::iter::once(&file).chain(outputs.iter()).chain(super::super::metrics::METRICS_FILES.iter()) {
                assert!(super::super::experiment::STUDY_OUTPUTS.contains(name), "{name}");
            }
        }
    }
}
