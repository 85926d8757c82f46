//! `rajapasu metrics`: game-quality metrics of a dataset or study (the job: `app::metrics`).

use std::path::PathBuf;

use crate::analysis::metrics::{RESAMPLES, SEED};
use crate::app::metrics::{to_json, to_text, MetricsRequest};
use crate::exact::SolveOptions;
use crate::size::Size;

use super::output::Output;
use super::CliError;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A dataset directory, or a study directory holding one dataset per arm.
    dir: PathBuf,
    /// Print the metrics as JSON (the object written to metrics.json) instead of a table.
    #[arg(long)]
    json: bool,
    /// Where to write metrics.json, metrics.csv, metrics.txt (and a study's chart) (default: DIR).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Bootstrap replicates per interval (0: no intervals).
    #[arg(long, default_value_t = RESAMPLES, value_parser = clap::value_parser!(u32).range(0..=i64::from(crate::app::metrics::MAX_RESAMPLES)))]
    resamples: u32,
    /// Seed of the bootstrap's random streams.
    #[arg(long, default_value_t = SEED)]
    seed: u64,
    /// Also the evaluation-based metrics with the exact round value (R15) as the evaluation:
    /// every match is played again (built-in players only) and each round solved exactly.
    #[arg(long)]
    exact: bool,
    /// Memory each round's exact solve may use with --exact, e.g. 512M, 4G.
    #[arg(long, default_value_t = Size::DEFAULT_MEMORY, requires = "exact")]
    max_memory: Size,
    /// The most positions a round's exact solve may reach with --exact.
    #[arg(long, default_value_t = 150_000_000, requires = "exact")]
    max_positions: u64,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let solve = SolveOptions {
        max_memory: args.max_memory.bytes(),
        keep_layers: false,
        max_positions: args.max_positions,
    };
    let job = MetricsRequest {
        dir: args.dir,
        out: args.out,
        resamples: args.resamples,
        seed: args.seed,
        exact: args.exact.then_some(solve),
    }
    .validate()?;
    let done = crate::app::metrics::run(&job, &crate::agents::Resources::default())?;
    let mut out = Output::lines();
    if args.json {
        out.line(serde_json::to_string_pretty(&to_json(&done.metrics)).map_err(CliError::failed)?)?;
    } else {
        out.text(&to_text(&done.metrics))?;
    }
    out.finish()
}
