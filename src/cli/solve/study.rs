//! The perfect_play study (`rajapasu solve --study --out DIR`): for every board of 2..=P pits a
//! row and 1..=S counters a pit, the perfect-play value of round 1 (R15) within a per-board
//! budget of positions and memory, beside the round-1 starter's win rate under random play
//! (the simulator, same board), and the outcome of a match under perfect round play with
//! either tie-break. Everything but the timings (frontier.csv) is the same on every rerun.

use std::collections::HashMap;
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;
use serde_json::json;

use super::args::Args;
use super::common::{formats, human_bytes, solve_start, write_formats};
use crate::agents::AgentSpec;
use crate::analysis::stats::proportion;
use crate::app::solve::{outcome, peak_rss};
use crate::cli::output::Output;
use crate::cli::CliError;
use crate::engine::{Ruleset, Side};
use crate::exact::{perfect_match, ChainOutcome, SolveError, SolveOptions, TieBreak};
use crate::io::write_string_atomically;
use crate::plot::exact::{plot_perfect_play, BoardPoint};
use crate::plot::thousands;
use crate::sim::table::{Column, ColumnData, Table};
use crate::sim::{simulate_batch, Detail, FirstPolicy, RunConfig, Shard};

/// The default budget of positions per board: every board up to 7x7 is inside it (the largest,
/// 7x6, has 113 million positions: about 4 minutes on 2 cores).
pub const STUDY_MAX_POSITIONS: u64 = 150_000_000;

/// Matches under perfect round play are played on boards whose round 1 has at most this many
/// positions (every other round start of the match is solved too).
const CHAIN_MAX_POSITIONS: u64 = 20_000_000;

/// One board of the study.
#[derive(Clone, Debug, Serialize)]
struct BoardRow {
    pits_per_row: u8,
    seeds_per_pit: u8,
    counters: u32,
    /// "solved", or "beyond_limit" when the board needs more than the budget.
    status: &'static str,
    value: Option<i32>,
    outcome: Option<&'static str>,
    /// value / counters on the board.
    value_share: Option<f64>,
    best_moves: Option<String>,
    positions: Option<u64>,
    random_matches: u64,
    random_round1_starter_wins: u64,
    random_round1_starter_win_rate: f64,
    random_ci_low: f64,
    random_ci_high: f64,
    /// Match under perfect round play, first player South: first, second, cycle, endless_round
    /// (or empty when not played); ties broken by the lowest / highest local pit.
    match_lowest: Option<&'static str>,
    match_lowest_rounds: Option<u32>,
    match_highest: Option<&'static str>,
    match_highest_rounds: Option<u32>,
    /// Perfect match play (R17) from the match's start, South first: win, draw or loss for
    /// South, and rounds (empty beyond the limit).
    match_value: Option<&'static str>,
    match_rounds: Option<u32>,
}

/// Timings of one solved board (machine-dependent, kept apart from the summary).
#[derive(Clone, Debug, Serialize)]
struct FrontierRow {
    pits_per_row: u8,
    seeds_per_pit: u8,
    positions: u64,
    seconds: f64,
    positions_per_second: f64,
    table_bytes: u64,
    bytes_per_position: f64,
    peak_bytes: u64,
}

/// Round-1 starter wins under random play on `rules` (first player alternating).
fn random_round1(rules: Ruleset, matches: u64, seed: u64) -> u64 {
    let cfg = RunConfig {
        rules,
        south: AgentSpec::Random,
        north: AgentSpec::Random,
        first: FirstPolicy::Alternate,
        seed,
        matches,
        detail: Detail::Match,
        batch_size: Detail::Match.default_batch_size().min(matches.max(1)),
        shard: Shard::WHOLE,
    };
    let players = crate::agents::Resources::default();
    (0..cfg.batches())
        .into_par_iter()
        .map(|b| {
            let batch = simulate_batch(&cfg, &players, b).expect("random players always decide");
            let m = &batch.matches;
            m.first.iter().zip(&m.round1_winner).filter(|(f, w)| w.winner() == Some(**f)).count() as u64
        })
        .sum()
}

/// Boards whose round 1 has at most this many positions are match-solved (R17); the match
/// table (every open-pit configuration, both starters) is a few times larger.
const MATCH_MAX_POSITIONS: u64 = 20_000_000;

/// Whether the tables directory already holds the board's match table (solved beyond the study's
/// allowance, as 7x4..7x6 are by `solve --match` with more memory): then the study reads it.
fn match_table_stored(rules: Ruleset, opts: SolveOptions, args: &Args) -> bool {
    super::common::store(args.tables.as_ref(), opts).is_ok_and(|store| store.has_match_table(&rules))
}

/// The round-1 outcome in the words of a match value (for the starter).
fn round_answer(outcome: &str) -> &'static str {
    match outcome {
        "starter_win" => "win",
        "draw" => "draw",
        _ => "loss",
    }
}

/// The perfect-match value of the board's match (South first), from the tables directory or
/// solved there; None when it does not fit the allowance.
fn match_value(rules: Ruleset, opts: SolveOptions, args: &Args) -> Result<Option<crate::exact::StateValue>, CliError> {
    match super::match_solve::table(rules, opts, args.tables.as_ref(), None, args.quiet) {
        Ok((table, _, _)) => Ok(Some(table.match_value(Side::South))),
        Err(CliError::Usage(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

fn chain(rules: Ruleset, tie: TieBreak, opts: SolveOptions) -> Result<(&'static str, u32), SolveError> {
    let mut cache = HashMap::new();
    let m = perfect_match(rules, Side::South, tie, opts, &mut cache)?;
    let rounds = match m.outcome {
        ChainOutcome::Cycle { to, .. } => to - 1,
        _ => m.rounds.len() as u32,
    };
    Ok((m.outcome.label(Side::South), rounds))
}

pub fn run(args: &Args, base: Ruleset, opts: SolveOptions) -> Result<(), CliError> {
    let dir = args.out.as_ref().expect("clap requires --out");
    let formats = formats(args)?;
    crate::sim::check_matches(args.matches).map_err(|e| CliError::usage(format!("--matches: {e}")))?;
    std::fs::create_dir_all(dir).map_err(|e| CliError::failed(format!("{}: cannot create the directory: {e}", dir.display())))?;
    let started = Instant::now();
    let mut rows = Vec::new();
    let mut frontier = Vec::new();
    let mut out = Output::progress();
    out.line(format_args!("| board | counters | perfect-play value | outcome | best moves | positions | random play: starter wins round 1 | match (lowest / highest) | perfect match | seconds |"))?;
    out.line(format_args!("|---|---|---|---|---|---|---|---|---|---|"))?;
    for p in 2..=args.study_pits {
        for s in 1..=args.study_seeds {
            let mut rules = base;
            rules.pits_per_row = p;
            rules.seeds_per_pit = s;
            let counters = rules.total_counters();
            let solved = match solve_start(rules, crate::engine::BySide::splat(p), Side::South, opts, args.quiet) {
                Ok(solved) => Some(solved),
                Err(
                    SolveError::PositionLimit { .. }
                    | SolveError::MemoryLimit { .. }
                    | SolveError::TooManyCounters { .. }
                    | SolveError::TooManyArrangements { .. },
                ) => None,
                Err(e) => return Err(CliError::failed(e)),
            };
            let wins = random_round1(rules, args.matches, args.seed);
            let rate = proportion(wins, args.matches);
            let chains = match &solved {
                Some(s) if s.stats.positions <= CHAIN_MAX_POSITIONS => {
                    let lowest = chain(rules, TieBreak::Lowest, opts).ok();
                    let highest = chain(rules, TieBreak::Highest, opts).ok();
                    Some((lowest, highest))
                }
                _ => None,
            };
            let (lowest, highest) = chains.unwrap_or((None, None));
            let match_solved = match &solved {
                Some(s) if s.stats.positions <= MATCH_MAX_POSITIONS || match_table_stored(rules, opts, args) => {
                    match_value(rules, opts, args)?
                }
                _ => None,
            };
            let row = BoardRow {
                pits_per_row: p,
                seeds_per_pit: s,
                counters,
                status: if solved.is_some() { "solved" } else { "beyond_limit" },
                value: solved.as_ref().map(|x| x.value),
                outcome: solved.as_ref().map(|x| outcome(x.value)),
                value_share: solved.as_ref().map(|x| x.value as f64 / counters as f64),
                best_moves: solved.as_ref().map(|x| x.best_moves.to_string()),
                positions: solved.as_ref().map(|x| x.stats.positions),
                random_matches: args.matches,
                random_round1_starter_wins: wins,
                random_round1_starter_win_rate: rate.rate,
                random_ci_low: rate.ci_low,
                random_ci_high: rate.ci_high,
                match_lowest: lowest.map(|c| c.0),
                match_lowest_rounds: lowest.map(|c| c.1),
                match_highest: highest.map(|c| c.0),
                match_highest_rounds: highest.map(|c| c.1),
                match_value: match_solved.map(|v| v.value.name()),
                match_rounds: match_solved.and_then(|v| v.rounds),
            };
            if let Some(x) = &solved {
                let st = &x.stats;
                frontier.push(FrontierRow {
                    pits_per_row: p,
                    seeds_per_pit: s,
                    positions: st.positions,
                    seconds: st.seconds(),
                    positions_per_second: st.positions_per_second(),
                    table_bytes: st.table_bytes,
                    bytes_per_position: st.bytes_per_position(),
                    peak_bytes: st.peak_bytes,
                });
            }
            let cell = |v: Option<String>| v.unwrap_or_else(|| "-".into());
            out.line(format_args!(
                "| {p}x{s} | {counters} | {} | {} | {} | {} | {:.1}% ({:.1}..{:.1}) | {} / {} | {} | {} |",
                row.value.map_or("beyond limit".into(), |v| format!("{v:+}")),
                cell(row.outcome.map(|o| o.replace('_', " "))),
                cell(row.best_moves.clone()),
                cell(row.positions.map(|n| n.to_string())),
                100.0 * rate.rate,
                100.0 * rate.ci_low,
                100.0 * rate.ci_high,
                cell(lowest.map(|c| format!("{} ({} rounds)", c.0, c.1))),
                cell(highest.map(|c| format!("{} ({} rounds)", c.0, c.1))),
                cell(match_solved.map(|v| format!("{}{}", v.value, v.rounds.map_or(String::new(), |k| format!(" ({k} rounds)"))))),
                cell(solved.as_ref().map(|x| format!("{:.2}", x.stats.seconds()))),
            ))?;
            rows.push(row);
        }
    }
    // The summary: the same on every rerun.
    let opt_i64 = |f: &dyn Fn(&BoardRow) -> Option<i64>| ColumnData::I64(rows.iter().map(|r| f(r).unwrap_or(0)).collect());
    let text = |f: &dyn Fn(&BoardRow) -> String| ColumnData::Text(rows.iter().map(f).collect());
    let col = |name, data| Column { name, data };
    let summary = Table {
        name: "summary",
        columns: vec![
            col("pits_per_row", ColumnData::I64(rows.iter().map(|r| r.pits_per_row as i64).collect())),
            col("seeds_per_pit", ColumnData::I64(rows.iter().map(|r| r.seeds_per_pit as i64).collect())),
            col("counters", ColumnData::I64(rows.iter().map(|r| r.counters as i64).collect())),
            col("status", text(&|r| r.status.to_string())),
            col("value", opt_i64(&|r| r.value.map(i64::from))),
            col("outcome", text(&|r| r.outcome.unwrap_or("").to_string())),
            col("value_share", ColumnData::F64(rows.iter().map(|r| r.value_share.unwrap_or(f64::NAN)).collect())),
            col("best_moves", text(&|r| r.best_moves.clone().unwrap_or_default())),
            col("positions", ColumnData::I64(rows.iter().map(|r| r.positions.unwrap_or(0) as i64).collect())),
            col("random_matches", ColumnData::I64(rows.iter().map(|r| r.random_matches as i64).collect())),
            col("random_round1_starter_wins", ColumnData::I64(rows.iter().map(|r| r.random_round1_starter_wins as i64).collect())),
            col("random_round1_starter_win_rate", ColumnData::F64(rows.iter().map(|r| r.random_round1_starter_win_rate).collect())),
            col("random_ci_low", ColumnData::F64(rows.iter().map(|r| r.random_ci_low).collect())),
            col("random_ci_high", ColumnData::F64(rows.iter().map(|r| r.random_ci_high).collect())),
            col("match_lowest", text(&|r| r.match_lowest.unwrap_or("").to_string())),
            col("match_lowest_rounds", opt_i64(&|r| r.match_lowest_rounds.map(i64::from))),
            col("match_highest", text(&|r| r.match_highest.unwrap_or("").to_string())),
            col("match_highest_rounds", opt_i64(&|r| r.match_highest_rounds.map(i64::from))),
            col("match_value", text(&|r| r.match_value.unwrap_or("").to_string())),
            col("match_rounds", opt_i64(&|r| r.match_rounds.map(i64::from))),
        ],
    };
    let mut written = write_formats(&summary, dir, formats)?;
    let col = |name, data| Column { name, data };
    let frontier_table = Table {
        name: "frontier",
        columns: vec![
            col("pits_per_row", ColumnData::I64(frontier.iter().map(|r| r.pits_per_row as i64).collect())),
            col("seeds_per_pit", ColumnData::I64(frontier.iter().map(|r| r.seeds_per_pit as i64).collect())),
            col("positions", ColumnData::I64(frontier.iter().map(|r| r.positions as i64).collect())),
            col("seconds", ColumnData::F64(frontier.iter().map(|r| r.seconds).collect())),
            col("positions_per_second", ColumnData::F64(frontier.iter().map(|r| r.positions_per_second).collect())),
            col("table_bytes", ColumnData::I64(frontier.iter().map(|r| r.table_bytes as i64).collect())),
            col("bytes_per_position", ColumnData::F64(frontier.iter().map(|r| r.bytes_per_position).collect())),
            col("peak_bytes", ColumnData::I64(frontier.iter().map(|r| r.peak_bytes as i64).collect())),
        ],
    };
    written.extend(write_formats(&frontier_table, dir, crate::io::Formats::Csv)?);
    let meta = json!({
        "tool": "rajapasu",
        "version": env!("CARGO_PKG_VERSION"),
        "versions": crate::io::dataset::versions(),
        "command": crate::cli::command_line(),
        "rules": base,
        "boards": format!("pits_per_row 2..={}, seeds_per_pit 1..={}", args.study_pits, args.study_seeds),
        "max_positions": opts.max_positions,
        "max_memory": opts.max_memory,
        "random_play": {"matches": args.matches, "seed": args.seed, "players": "random vs random", "first": "alternate"},
        "perfect_match": {"first": "south", "tie_breaks": ["lowest", "highest"], "boards": format!("round 1 with at most {CHAIN_MAX_POSITIONS} positions")},
        "match_value": {"rule": "R17", "first": "south", "boards": format!("round 1 with at most {MATCH_MAX_POSITIONS} positions"), "tables": "the tables directory (--tables)"},
        "boards_solved": rows.iter().filter(|r| r.status == "solved").count(),
        "rows": rows,
    });
    let json_path = dir.join("summary.json");
    write_string_atomically(&json_path, &(serde_json::to_string_pretty(&meta).map_err(CliError::failed)? + "\n"))
        .map_err(CliError::failed)?;
    written.push(json_path);
    let points: Vec<BoardPoint> = rows
        .iter()
        .filter_map(|r| {
            Some(BoardPoint {
                pits_per_row: r.pits_per_row,
                seeds_per_pit: r.seeds_per_pit,
                random_win_rate: r.random_round1_starter_win_rate,
                perfect_share: r.value_share?,
                match_differs: r.match_value.is_some_and(|m| Some(m) != r.outcome.map(round_answer)),
            })
        })
        .collect();
    let subtitle = format!(
        "{} boards solved exactly (each within {} positions); random play: {} matches a board, 95% Wilson intervals in summary.csv",
        points.len(),
        thousands(opts.max_positions),
        thousands(args.matches)
    );
    written.extend(plot_perfect_play(&points, &subtitle, dir).map_err(CliError::failed)?);
    out.line(format_args!(
        "\n{} of {} boards solved in {:.1} s (process peak memory {}); wrote:",
        points.len(),
        rows.len(),
        started.elapsed().as_secs_f64(),
        peak_rss().map_or("unknown".into(), human_bytes)
    ))?;
    for w in written {
        out.line(format_args!("  {}", w.display()))?;
    }
    out.finish()
}
