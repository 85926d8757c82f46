//! `rajapasu bench`: the engine's speed (random full matches on one thread, nothing recorded)
//! and, with `--detail`, what recording costs on top of it, end to end.

use std::path::PathBuf;
use std::time::Instant;

use crate::agents::AgentSpec;
use crate::io::Formats;
use crate::sim::bench::{bench_engine, bench_metrics_cost, bench_players, EngineBench};
use crate::sim::{Detail, FirstPolicy, RunConfig, Shard};

use super::output::Output;
use super::CliError;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Matches to play.
    #[arg(long, default_value_t = 100_000)]
    matches: u64,
    /// Seed of the random players.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Repeat the measurement this many times and report each run and the best.
    #[arg(long, default_value_t = 3)]
    repeat: u32,
    #[command(flatten)]
    rules: super::RuleArgs,
    /// Print JSON lines instead of text.
    #[arg(long)]
    json: bool,
    /// Also measure this player (repeatable): search nodes per second on one thread against the
    /// engine's moves per second, time per move, and self-play outcomes.
    #[arg(long, value_name = "SPEC")]
    player: Vec<AgentSpec>,
    /// The opponent of each --player (default: the player itself).
    #[arg(long, value_name = "SPEC")]
    against: Option<AgentSpec>,
    /// Matches per --player (seats and first player alternating).
    #[arg(long, default_value_t = 20)]
    player_matches: u64,
    /// Also measure recording, end to end: `all`, or some of match, round, move, lap
    /// (comma-separated). Each repeat measures the bare engine, then `simulate` of the same
    /// matches at each detail (Parquet files written to a temporary directory and removed), and
    /// prints each detail's matches/s as a ratio to the engine's in that repeat.
    #[arg(long, value_name = "DETAILS", value_parser = parse_details, conflicts_with = "player")]
    detail: Option<DetailList>,
    /// Matches of the move and lap detail runs (default: a tenth of --matches; they write
    /// hundreds of rows a match).
    #[arg(long)]
    fine_matches: Option<u64>,
    /// Worker threads of the --detail runs (the engine is measured on one); ratios are then
    /// per thread.
    #[arg(long, default_value_t = 1, value_parser = super::simulate::parse_threads)]
    threads: usize,
    /// Measure instead what the game-quality metrics cost while simulating: the same random
    /// matches at round detail on one thread, in memory, without and with the `quality` and
    /// `by_round` tallies (after a warm-up run, each batch without, with, with, without); each
    /// repeat prints both speeds and the cost.
    #[arg(long, conflicts_with_all = ["player", "detail"])]
    metrics_cost: bool,
    /// Directory for the --detail runs' temporary datasets (default: the system's temporary
    /// directory).
    #[arg(long)]
    dir: Option<PathBuf>,
}

/// The details `--detail` measures, in order.
#[derive(Clone, Debug)]
pub struct DetailList(Vec<Detail>);

fn parse_details(text: &str) -> Result<DetailList, String> {
    if text.trim() == "all" {
        return Ok(DetailList(vec![Detail::Match, Detail::Round, Detail::Move, Detail::Lap]));
    }
    let mut details = Vec::new();
    for item in text.split(',') {
        let detail: Detail = item.trim().parse().map_err(|e| format!("{e}, or all"))?;
        if !details.contains(&detail) {
            details.push(detail);
        }
    }
    Ok(DetailList(details))
}

/// One detail's end-to-end run in one repeat.
#[derive(Clone, Debug, serde::Serialize)]
struct DetailRun {
    detail: Detail,
    threads: usize,
    matches: u64,
    seconds: f64,
    matches_per_second: f64,
    /// Matches per second per thread over the engine's matches per second in the same repeat.
    ratio: f64,
    /// Rows written per table.
    rows: std::collections::BTreeMap<String, u64>,
    /// Bytes of the part files written.
    bytes: u64,
}

/// Plays and writes `matches` random matches at `detail` into a fresh directory under `root`,
/// as `rajapasu simulate` does, and removes it; returns the seconds taken, the rows and bytes.
fn run_detail(
    rules: crate::engine::Ruleset,
    detail: Detail,
    matches: u64,
    seed: u64,
    threads: usize,
    root: &std::path::Path,
) -> Result<(f64, std::collections::BTreeMap<String, u64>, u64), CliError> {
    let out = root.join(format!("rajapasu-bench-{}-{detail}", std::process::id()));
    if out.exists() {
        std::fs::remove_dir_all(&out)
            .map_err(|e| CliError::failed(format!("cannot remove {}: {e}", out.display())))?;
    }
    let cfg = RunConfig {
        rules,
        south: AgentSpec::Random,
        north: AgentSpec::Random,
        first: FirstPolicy::Alternate,
        seed,
        matches,
        detail,
        batch_size: detail.default_batch_size(),
        shard: Shard::WHOLE,
    };
    let sim = crate::app::simulate::Simulation {
        cfg,
        out: out.clone(),
        format: Formats::Parquet,
        threads,
        resume: false,
    };
    let start = Instant::now();
    let result = super::simulate::play(&sim, "", true);
    let seconds = start.elapsed().as_secs_f64();
    let bytes = dir_bytes(&out);
    let _ = std::fs::remove_dir_all(&out);
    let manifest = result?;
    Ok((seconds, manifest.rows, bytes))
}

/// Bytes of the files under `dir` (its part files, markers and manifest).
fn dir_bytes(dir: &std::path::Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_bytes(&e.path()),
            _ => e.metadata().map_or(0, |m| m.len()),
        })
        .sum()
}

/// `--detail`: each repeat measures the engine, then each detail end to end; prints a line per
/// repeat and the range of each detail's ratio.
fn run_details(
    args: &Args,
    rules: crate::engine::Ruleset,
    details: &[Detail],
    out: &mut Output,
) -> Result<(), CliError> {
    let fine = args.fine_matches.unwrap_or((args.matches / 10).max(1));
    let root = args.dir.clone().unwrap_or_else(std::env::temp_dir);
    if !root.is_dir() {
        return Err(CliError::usage(format!("--dir {}: no such directory", root.display())));
    }
    let threads = args.threads;
    if !args.json {
        out.line(format_args!(
            "recording against the bare engine: {} random matches ({fine} at move and lap detail), Parquet; engine on one thread, \
             detail runs on {threads}; ratio = matches/s{} / engine matches/s (rules {})",
            args.matches,
            if threads > 1 { " per thread" } else { "" },
            rules.hash()
        ))?;
    }
    let mut ratios: Vec<Vec<f64>> = vec![Vec::new(); details.len()];
    for repeat in 1..=args.repeat.max(1) {
        let engine: EngineBench = bench_engine(rules, args.matches, args.seed);
        let mut runs = Vec::new();
        for (k, &detail) in details.iter().enumerate() {
            let matches = if detail >= Detail::Move { fine } else { args.matches };
            let (seconds, rows, bytes) =
                run_detail(rules, detail, matches, args.seed, threads, &root)?;
            let rate = matches as f64 / seconds;
            let ratio = rate / threads.max(1) as f64 / engine.matches_per_second;
            ratios[k].push(ratio);
            runs.push(DetailRun {
                detail,
                threads,
                matches,
                seconds,
                matches_per_second: rate,
                ratio,
                rows,
                bytes,
            });
        }
        if args.json {
            let line = serde_json::json!({ "repeat": repeat, "engine": engine, "details": runs });
            out.line(line)?;
            continue;
        }
        let mut line =
            format!("repeat {repeat}: engine {:.0} matches/s", engine.matches_per_second);
        for r in &runs {
            line +=
                &format!("; {} {:.0} matches/s ({:.3})", r.detail, r.matches_per_second, r.ratio);
        }
        out.line(line)?;
    }
    if !args.json {
        let ranges: Vec<String> = details
            .iter()
            .zip(&ratios)
            .map(|(d, r)| {
                let (lo, hi) =
                    r.iter().fold((f64::MAX, f64::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
                format!("{d} {lo:.3}-{hi:.3}")
            })
            .collect();
        out.line(format_args!(
            "ratios, lowest-highest over {} repeats: {}",
            args.repeat.max(1),
            ranges.join(", ")
        ))?;
    }
    Ok(())
}

pub fn run(args: Args) -> Result<(), CliError> {
    let rules = args.rules.ruleset()?;
    let mut out = Output::lines();
    if let Some(details) = &args.detail {
        run_details(&args, rules, &details.0, &mut out)?;
    } else if args.metrics_cost {
        run_metrics_cost(&args, rules, &mut out)?;
    } else {
        let engine = run_engine(&args, rules, &mut out)?;
        run_players(&args, rules, engine.map_or(0.0, |b| b.moves_per_second), &mut out)?;
    }
    out.finish()
}

/// `--metrics-cost`: a line per repeat and the range of the cost.
fn run_metrics_cost(
    args: &Args,
    rules: crate::engine::Ruleset,
    out: &mut Output,
) -> Result<(), CliError> {
    let mut costs = Vec::new();
    for i in 1..=args.repeat.max(1) {
        let c = bench_metrics_cost(
            rules,
            args.matches,
            args.seed,
            &crate::agents::Resources::default(),
        );
        costs.push(c.cost);
        if args.json {
            out.line(serde_json::to_string(&c).map_err(CliError::failed)?)?;
            continue;
        }
        out.line(format_args!(
            "repeat {i}: {} matches at round detail, one thread: without metrics {:.0} matches/s, with {:.0} matches/s: cost {:.1}%",
            c.matches,
            c.matches as f64 / c.seconds_without,
            c.matches as f64 / c.seconds_with,
            100.0 * c.cost
        ))?;
    }
    if !args.json {
        let (lo, hi) =
            costs.iter().fold((f64::MAX, f64::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
        out.line(format_args!(
            "metrics cost {:.1}%-{:.1}% of round-detail speed (rules {})",
            100.0 * lo,
            100.0 * hi,
            rules.hash()
        ))?;
    }
    Ok(())
}

/// The bare engine: a line per repeat and the best; returns the best repeat.
fn run_engine(
    args: &Args,
    rules: crate::engine::Ruleset,
    out: &mut Output,
) -> Result<Option<EngineBench>, CliError> {
    let mut best: Option<EngineBench> = None;
    for i in 1..=args.repeat.max(1) {
        let b = bench_engine(rules, args.matches, args.seed);
        if args.json {
            out.line(serde_json::to_string(&b).map_err(CliError::failed)?)?;
        } else {
            out.line(format_args!(
                "run {i}: {} matches, {} moves in {:.3} s: {:.0} matches/s, {:.0} moves/s ({:.0} moves per match)",
                b.matches,
                b.moves,
                b.seconds,
                b.matches_per_second,
                b.moves_per_second,
                b.moves as f64 / b.matches.max(1) as f64
            ))?;
        }
        if best.is_none_or(|x| b.matches_per_second > x.matches_per_second) {
            best = Some(b);
        }
    }
    if let (Some(b), false) = (best, args.json) {
        out.line(format_args!(
            "best: {:.0} matches/s, {:.0} moves/s (rules {})",
            b.matches_per_second,
            b.moves_per_second,
            rules.hash()
        ))?;
    }
    Ok(best)
}

/// Each `--player`: a line of its search speed against the engine's `engine_moves_per_second`
/// and of its self-play (or `--against`) outcomes.
fn run_players(
    args: &Args,
    rules: crate::engine::Ruleset,
    engine_moves_per_second: f64,
    out: &mut Output,
) -> Result<(), CliError> {
    let players = crate::agents::Resources::default();
    for player in &args.player {
        let against = args.against.as_ref().unwrap_or(player);
        // A player that cannot decide is a failure here as in a run (exit 1), not an unfinished match.
        let p = bench_players(
            rules,
            player.clone(),
            against.clone(),
            args.player_matches,
            args.seed,
            &players,
        )
        .map_err(|e| CliError::failed(format!("bench --player {player} against {against}: {e}")))?;
        if args.json {
            out.line(serde_json::to_string(&p).unwrap())?;
            continue;
        }
        let finished = p.matches - p.unfinished;
        out.line(format_args!(
            "{} vs {}: {} matches, {} moves, {} search nodes in {:.2} s: {:.0} nodes/s ({:.0}% of the engine's moves/s), {:.1} us per move; \
             unfinished {}, first player won {} of {} finished, {} won {} and lost {}",
            p.player,
            p.opponent,
            p.matches,
            p.moves,
            p.nodes,
            p.seconds,
            p.nodes_per_second,
            100.0 * p.nodes_per_second / engine_moves_per_second.max(1.0),
            p.micros_per_move,
            p.unfinished,
            p.first_player_wins,
            finished,
            p.player,
            p.player_wins,
            p.opponent_wins
        ))?;
    }
    Ok(())
}
