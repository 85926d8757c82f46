//! `rajapasu simulate`: seeded matches in parallel into a dataset (the job: `app::simulate`).

use std::path::PathBuf;

use crate::agents::{AgentSpec, Resources};
use crate::app::simulate::{
    self, check_threads, describe_rows, Follow, SimulateRequest, Simulated, Simulation, MAX_THREADS,
};
use crate::io::{Formats, Manifest};
use crate::sim::{Detail, FirstPolicy, Shard};

use super::dataset_errors::{simulate_error, Destination};
use super::{progress, CliError};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Matches in the whole run (all shards).
    #[arg(long)]
    matches: u64,
    /// Master seed: with the match index it determines every random choice.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// South's player: random, greedy, minimax[:depth=D,nodes=N,eval=E], mcts[:playouts=N,c=C,eval=E,reuse=B] or
    /// external:PROGRAM [ARGS] (docs/players.md).
    #[arg(long, default_value = "random")]
    south: AgentSpec,
    /// North's player.
    #[arg(long, default_value = "random")]
    north: AgentSpec,
    /// Who starts round 1: south, north, or alternate (south in even matches).
    #[arg(long, default_value = "alternate")]
    first: FirstPolicy,
    /// Worker threads (0: one per core; at most 1024). The rows do not depend on it.
    #[arg(long, default_value_t = 0, value_parser = parse_threads)]
    threads: usize,
    #[command(flatten)]
    rules: super::RuleArgs,
    /// Output dataset directory (new or empty, or this run's, with --resume).
    #[arg(long)]
    out: PathBuf,
    /// parquet, csv or both.
    #[arg(long, default_value = "parquet")]
    format: Formats,
    /// Records kept: match, round, move or lap (each includes the ones before).
    #[arg(long, default_value = "round")]
    detail: Detail,
    /// Play only shard K of N (1-based), e.g. 3/8; shards write into the same directory.
    #[arg(long, default_value = "1/1")]
    shard: Shard,
    /// Matches per batch (one part file per table and batch); default depends on --detail.
    #[arg(long)]
    batch_size: Option<u64>,
    /// Continue an interrupted run in --out: finished batches are kept, the rest are played.
    #[arg(long)]
    resume: bool,
    /// No progress bar and no report.
    #[arg(long)]
    quiet: bool,
}

/// Parses `--threads`: 0 (one per core) to [`MAX_THREADS`]; the error says what is allowed.
pub fn parse_threads(text: &str) -> Result<usize, String> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    match text.trim().parse::<usize>() {
        Ok(n) => check_threads(n).map(|()| n),
        Err(_) => Err(format!("'{text}' is not a thread count (allowed: 0 (one per core, {cores} here) to {MAX_THREADS})")),
    }
}

/// How the command line follows the datasets it plays: a progress bar each, and unless quiet
/// a report on stderr when one is written.
pub struct Bars {
    quiet: bool,
    bar: std::sync::Mutex<indicatif::ProgressBar>,
}

impl Bars {
    pub fn new(quiet: bool) -> Bars {
        Bars { quiet, bar: std::sync::Mutex::new(indicatif::ProgressBar::hidden()) }
    }

    fn bar(&self) -> std::sync::MutexGuard<'_, indicatif::ProgressBar> {
        self.bar.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Follow for Bars {
    fn started(&self, label: &str, matches: u64) {
        *self.bar() = progress::bar(matches, label, self.quiet);
    }

    fn played(&self, n: u64) {
        self.bar().inc(n);
    }

    fn finished(&self, label: &str, done: Option<&Simulated>) {
        self.bar().finish_and_clear();
        let Some(Simulated { manifest, counts }) = done.filter(|_| !self.quiet) else {
            return;
        };
        eprintln!(
            "{label}: {} matches played, {} batches written, {} already done; {} in {:.1} s",
            counts.matches,
            counts.written,
            counts.skipped,
            describe_rows(manifest),
            manifest.seconds
        );
    }
}

/// Plays `sim` as `simulate --out` does: a progress bar labelled `label` and, unless quiet, a
/// report on stderr (shared with `bench`).
pub fn play(sim: &Simulation, label: &str, quiet: bool) -> Result<Manifest, CliError> {
    let done = simulate::play(
        sim,
        &Resources::default(),
        &super::command_line(),
        label,
        &Bars::new(quiet),
    );
    done.map(|d| d.manifest).map_err(|e| simulate_error(e, &Destination::Out))
}

pub fn run(args: Args) -> Result<(), CliError> {
    let request = SimulateRequest {
        rules: args.rules.ruleset()?,
        south: args.south,
        north: args.north,
        first: args.first,
        seed: args.seed,
        matches: args.matches,
        detail: args.detail,
        batch_size: args.batch_size,
        shard: args.shard,
        out: args.out,
        format: args.format,
        threads: args.threads,
        resume: args.resume,
    };
    let label =
        request.out.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let sim = request.validate()?;
    play(&sim, &label, args.quiet).map(|_| ())
}
