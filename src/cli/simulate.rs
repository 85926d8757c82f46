//! `rajapasu simulate`: seeded matches in parallel into a dataset.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use crate::agents::{AgentSpec, Resources};
use crate::io::{DatasetWriter, Formats, Manifest};
use crate::sim::{check_batch_size, check_matches, Detail, FirstPolicy, RunConfig, Shard};

use super::dataset_errors::{dataset_error, Destination};
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

/// A validated simulation job (shared with `rajapasu run`).
pub struct Job {
    pub cfg: RunConfig,
    pub out: PathBuf,
    pub format: Formats,
    pub threads: usize,
    pub resume: bool,
    pub quiet: bool,
    pub label: String,
    /// How errors name `out`: `--out`, or the study's arm or pairing.
    pub destination: Destination,
    /// What the players share (the store of exact results), created once per command.
    pub players: Resources,
}

/// Most worker threads: far more than any machine's cores, few enough not to swamp it.
pub const MAX_THREADS: usize = 1024;

/// Parses `--threads`: 0 (one per core) to [`MAX_THREADS`]; the error says what is allowed.
pub fn parse_threads(text: &str) -> Result<usize, String> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let allowed = format!("allowed: 0 (one per core, {cores} here) to {MAX_THREADS}");
    match text.trim().parse::<usize>() {
        Ok(n) if n <= MAX_THREADS => Ok(n),
        Ok(n) => Err(format!("{n} threads are more than the maximum of {MAX_THREADS} ({allowed})")),
        Err(_) => Err(format!("'{text}' is not a thread count ({allowed})")),
    }
}

pub fn validate_counts(matches: u64, batch_size: Option<u64>, detail: Detail) -> Result<u64, CliError> {
    check_matches(matches).map_err(|e| CliError::usage(format!("--matches {e}")))?;
    check_batch_size(batch_size.unwrap_or(detail.default_batch_size())).map_err(|e| CliError::usage(format!("--batch-size {e}")))
}

pub fn run_job(job: &Job) -> Result<Manifest, CliError> {
    let writer = DatasetWriter::create(&job.out, &job.cfg, job.format, job.resume, &super::command_line())
        .map_err(|e| dataset_error(e, &job.destination))?;
    let total = job.cfg.shard_matches();
    let bar = progress::bar(total, &job.label, job.quiet);
    let progress = |n: u64| bar.inc(n);
    let stop = AtomicBool::new(false);
    // Fewer batches than threads are played in pieces, so every thread has work; more threads
    // than matches would only wait (0 keeps rayon's one per core).
    let threads = job.threads.min(usize::try_from(total.max(1)).unwrap_or(usize::MAX));
    let counts = crate::sim::run(&job.cfg, &job.players, threads, &writer, &progress, &stop)?;
    bar.finish_and_clear();
    let manifest = writer.finish(true)?;
    if !job.quiet {
        eprintln!(
            "{}: {} matches played, {} batches written, {} already done; {} in {:.1} s",
            job.label,
            counts.matches,
            counts.written,
            counts.skipped,
            describe_rows(&manifest),
            manifest.seconds
        );
    }
    Ok(manifest)
}

pub fn describe_rows(m: &Manifest) -> String {
    m.rows.iter().map(|(t, n)| format!("{n} {t}")).collect::<Vec<_>>().join(", ")
}

pub fn run(args: Args) -> Result<(), CliError> {
    let rules = args.rules.ruleset()?;
    let batch_size = validate_counts(args.matches, args.batch_size, args.detail)?;
    let cfg = RunConfig {
        rules,
        south: args.south,
        north: args.north,
        first: args.first,
        seed: args.seed,
        matches: args.matches,
        detail: args.detail,
        batch_size,
        shard: args.shard,
    };
    let label = Path::new(&args.out).file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let job = Job {
        cfg,
        out: args.out,
        format: args.format,
        threads: args.threads,
        resume: args.resume,
        quiet: args.quiet,
        label,
        destination: Destination::Out,
        players: Resources::default(),
    };
    run_job(&job).map(|_| ())
}
