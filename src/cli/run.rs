//! `rajapasu run`: a study from an experiment file (the job: `app::study`).

use std::path::PathBuf;

use crate::app::study::experiment::Experiment;
use crate::app::study::{StudyOptions, StudyRequest};

use super::output::Output;
use super::simulate::Bars;
use super::CliError;

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

impl StudyArgs {
    pub fn options(&self) -> StudyOptions {
        StudyOptions {
            out_root: self.out_root.clone(),
            threads: self.threads,
            matches: self.matches,
            command: super::command_line(),
        }
    }
}

pub fn run(args: Args) -> Result<(), CliError> {
    let experiment = Experiment::load(&args.file)?;
    let name = experiment.name.clone();
    let job = StudyRequest { experiment, options: args.study.options() }.validate()?;
    let bars = Bars::new(args.study.quiet);
    let done = crate::app::study::run(&job, &crate::agents::Resources::default(), &bars)?;
    if !args.study.quiet {
        eprintln!(
            "{name}: summary.json, summary.csv, summary.txt and {} chart files in {}",
            done.charts.len(),
            done.dir.display()
        );
    }
    // Printed last: a reader that goes away (`| head`) does not cut the study short.
    let mut out = Output::lines();
    out.text(&done.text)?;
    out.finish()
}
