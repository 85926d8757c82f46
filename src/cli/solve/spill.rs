//! `rajapasu solve --spill`: a round start solved (R15) with its levels on disk, so that memory
//! is bounded by the largest level rather than by the round (docs/guide/solve.md); a rerun
//! continues from the finished levels. `--count-only` stops after the enumeration: the size of
//! the round by level, the figures of docs/performance.md.

use std::path::PathBuf;

use serde_json::json;

use super::args::Args;
use super::common::{human_bytes, SolveBar};
use crate::app::solve::{outcome, parse_memory, peak_rss};
use crate::cli::output::Output;
use crate::cli::CliError;
use crate::engine::{BySide, Ruleset, Side};
use crate::exact::{round_start, tables_dir, LevelFigures, SpillError, SpillOptions, SpilledRound};

fn spill_error(e: SpillError) -> CliError {
    match e {
        SpillError::Solve(_) | SpillError::BadFile(_) | SpillError::OtherSolve { .. } | SpillError::DiskLimit { .. } => CliError::usage(e),
        SpillError::Io { .. } | SpillError::DiskFull { .. } | SpillError::Interrupted { .. } => CliError::failed(e),
    }
}

/// The directory of a round's level files within the tables directory.
pub fn spill_dir(tables: &std::path::Path, rules: &Ruleset, open: BySide<u8>, starters: &[Side]) -> PathBuf {
    let who: Vec<String> = starters.iter().map(|s| s.to_string()).collect();
    tables.join("rounds").join(format!("{}-{}x{}-{}", rules.hash(), open[Side::South], open[Side::North], who.join("+")))
}

pub fn run(args: &Args, rules: Ruleset, open: BySide<u8>) -> Result<(), CliError> {
    let starters: Vec<Side> = match args.starter.as_str() {
        "both" => Side::ALL.to_vec(),
        s => vec![s.parse().map_err(CliError::usage)?],
    };
    let max_memory = parse_memory(&args.max_memory).map_err(|e| CliError::usage(format!("--max-memory: {e}")))?;
    let max_disk = match &args.max_disk {
        Some(text) => parse_memory(text).map_err(|e| CliError::usage(format!("--max-disk: {e}")))?,
        None => u64::MAX,
    };
    let opts = SpillOptions { max_memory, max_disk, max_levels: args.max_levels };
    let tables = tables_dir(args.tables.as_deref()).map_err(CliError::usage)?;
    let dir = spill_dir(&tables, &rules, open, &starters);
    let roots: Vec<_> = starters.iter().map(|&s| round_start(rules, open, s)).collect();
    let bar = SolveBar::new(
        &format!("solve --spill {}x{} open {},{}", rules.pits_per_row, rules.seeds_per_pit, open[Side::South], open[Side::North]),
        args.quiet || args.json,
    );
    let start = std::time::Instant::now();
    let round = if args.count_only {
        SpilledRound::enumerate(&roots, &dir, opts, &mut |p| bar.update(p))
    } else {
        SpilledRound::solve(&roots, &dir, opts, &mut |p| bar.update(p))
    };
    bar.bar.finish_and_clear();
    let round = round.map_err(spill_error)?;
    let seconds = start.elapsed().as_secs_f64();
    let figures = round.figures();
    let starts: Vec<serde_json::Value> = if args.count_only {
        Vec::new()
    } else {
        roots
            .iter()
            .map(|r| {
                let value = round.value(r).expect("the roots are solved");
                let best: Vec<usize> = round.best_moves(r).iter().map(|p| p.index()).collect();
                json!({ "starter": r.turn(), "value": value, "outcome": outcome(value), "best_moves": best })
            })
            .collect()
    };
    let level_positions: Vec<u64> = figures.iter().map(LevelFigures::count).collect();
    let positions: u64 = level_positions.iter().sum();
    let quiet: u64 = figures.iter().map(|f| f.quiet_moves).sum();
    let exits: u64 = figures.iter().map(|f| f.exits).sum();
    let rss = peak_rss();
    let mut v = json!({
        "rules": rules,
        "rules_hash": rules.hash(),
        "pits_per_row": rules.pits_per_row,
        "seeds_per_pit": rules.seeds_per_pit,
        "open": [open[Side::South], open[Side::North]],
        "starters": starters,
        "directory": round.dir(),
        "positions": positions,
        "level_positions": level_positions,
        "quiet_moves": quiet,
        "exits": exits,
        "seconds": seconds,
        "disk_bytes": round.disk_bytes(),
        "peak_bytes": round.peak_bytes(),
        "peak_rss_bytes": rss,
        "levels": figures,
    });
    if let [only] = starts.as_slice() {
        for key in ["value", "outcome", "best_moves"] {
            v[key] = only[key].clone();
        }
        v["starter"] = only["starter"].clone();
    }
    if !starts.is_empty() {
        v["starts"] = json!(starts);
    }
    let mut out = Output::lines();
    if args.json {
        out.line(format_args!("{v}"))?;
        return out.finish();
    }
    for s in &starts {
        let best = s["best_moves"].as_array().map(|b| b.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")).unwrap_or_default();
        out.line(format_args!(
            "{} starts: value {} ({}), best moves: {}",
            s["starter"].as_str().unwrap_or(""),
            s["value"],
            s["outcome"].as_str().unwrap_or("").replace('_', " "),
            if best.is_empty() { "none (no legal move)".to_string() } else { best }
        ))?;
    }
    out.line(format_args!("level positions(S,N) quiet_moves exits file_bytes bytes/position peak_memory enumerate_s solve_s"))?;
    for f in figures.iter().rev() {
        out.line(format_args!(
            "{} {},{} {} {} {} {:.2} {} {:.1} {:.1}",
            f.level,
            f.positions[0],
            f.positions[1],
            f.quiet_moves,
            f.exits,
            f.positions_bytes + f.values_bytes,
            (f.positions_bytes + f.values_bytes) as f64 / f.count().max(1) as f64,
            f.enumerate_peak_bytes.max(f.solve_peak_bytes),
            f.enumerate_seconds,
            f.solve_seconds
        ))?;
    }
    out.line(format_args!(
        "positions: {positions}, moves {} ({quiet} quiet, {exits} exits and ends)\ntime: {seconds:.1} s this run\n\
         disk: {} in {}\nmemory: solver peak {} (this run), process peak {}",
        quiet + exits,
        human_bytes(round.disk_bytes()),
        round.dir().display(),
        human_bytes(round.peak_bytes()),
        rss.map_or("unknown".to_string(), human_bytes),
    ))?;
    out.finish()
}
