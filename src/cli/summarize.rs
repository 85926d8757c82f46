//! `rajapasu summarize`: first-player advantage and distributions of a dataset or study.

use std::path::{Path, PathBuf};

use crate::analysis::summarize::summarize_path;
use crate::app::study::summary::{study_text, write_summary};

use super::output::Output;
use super::CliError;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A dataset directory, or a study directory holding one dataset per arm.
    dir: PathBuf,
    /// Print the summary as JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Where to write summary.json and summary.csv (default: DIR).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Where the game-quality metrics of `dir` are, if `rajapasu metrics` computed them.
fn metrics_note(dir: &Path) -> String {
    let path = dir.join("metrics.txt");
    if path.is_file() {
        format!(
            "game-quality metrics: {} (and metrics.json, metrics.csv; `rajapasu metrics`)\n",
            path.display()
        )
    } else {
        String::new()
    }
}

pub fn run(args: Args) -> Result<(), CliError> {
    let study = summarize_path(&args.dir, None)?;
    let saved =
        write_summary(&study, args.out.as_deref().unwrap_or(&args.dir)).map_err(CliError::from);
    // The summary is printed even when its files cannot be written (a read-only dataset).
    let mut out = Output::lines();
    let printed = if args.json {
        out.line(serde_json::to_string_pretty(&study).map_err(CliError::failed)?)
    } else {
        out.text(&study_text(&study))
    }
    .and_then(|()| if args.json { Ok(()) } else { out.text(&metrics_note(&args.dir)) })
    .and_then(|()| out.finish());
    // Printed either way; a file not written is a failure (exit 1, as in every command).
    match saved {
        Ok(()) => printed,
        Err(e) if args.out.is_some() => printed.and(Err(e)),
        Err(CliError::Failed(e) | CliError::Usage(e)) => printed.and(Err(CliError::failed(format!(
            "summary.json and summary.csv were not written ({e}); the summary above is complete: pass --out DIR to write them elsewhere"
        )))),
        Err(CliError::BrokenPipe) => printed,
    }
}
