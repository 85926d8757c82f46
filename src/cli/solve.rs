//! `rajapasu solve`: the exact perfect-play value of a round's start (docs/rules.md R15), its best
//! opening moves and the reachable positions; `--all-starts` for every open-pit configuration
//! and starter (a table and a heat map); `--study` for the perfect_play study.

pub mod match_solve;
mod spill;
mod study;

use std::path::{Path, PathBuf};
use std::time::Instant;

use indicatif::ProgressBar;
use serde_json::json;

use crate::engine::{BySide, PitSet, Ruleset, Side};
use crate::exact::{
    check_open, perfect_match, round_start, ChainOutcome, Progress, Solution, SolveError, SolveOptions, SolveStats, TieBreak,
};
use crate::io::{write_string_atomically, write_table, Formats};
use crate::sim::schema::{ColumnSpec, TableSpec};
use crate::sim::table::{Column, ColumnData, ColumnType, Table};

use super::output::Output;
use super::CliError;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    rules: super::RuleArgs,
    /// Open pits of South and North at the round's start, S,N (R12: the closed pits are at each
    /// row's left end). Default: every pit open (round 1).
    #[arg(long, value_name = "S,N", conflicts_with_all = ["all_starts", "study"])]
    open: Option<String>,
    /// Who moves first in the round (both: with --spill, the round of both starters at once, as
    /// the match solver needs it).
    #[arg(long, default_value = "south", value_parser = ["south", "north", "both"], conflicts_with_all = ["all_starts", "study"])]
    starter: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Memory the solver may use, e.g. 512M, 4G (binary units: K, M, G, T; optional B or iB);
    /// a board that needs more is an error, not a crash.
    #[arg(long, value_name = "SIZE", default_value = "4G")]
    max_memory: String,
    /// The most positions a solve may reach (a budget by count, the same on every machine);
    /// default: no limit, or 150,000,000 a board with --study.
    #[arg(long, value_name = "N")]
    max_positions: Option<u64>,
    /// Solve every round start (each side 1..P pits open, both starters) and write the `starts`
    /// table (Parquet and/or CSV) and its heat map into --out.
    #[arg(long, requires = "out", conflicts_with = "study")]
    all_starts: bool,
    /// Run the perfect_play study (boards of 2..7 pits a row and 1..7 counters a pit, within
    /// --max-positions and --max-memory each) into --out: summary, frontier, matches and chart.
    #[arg(long, requires = "out")]
    study: bool,
    /// Play a match from round 1 (--starter first) with every round played perfectly (R15),
    /// ties broken by the lowest and then by the highest local pit: each round and the outcome.
    #[arg(long, conflicts_with_all = ["all_starts", "study", "open"])]
    perfect_match: bool,
    /// Solve the match (R17): the perfect-match value (win, draw or loss for the starter) of a
    /// match state (--holdings, --starter; default: the match's start), its rounds and best
    /// opening moves. The table of every state is kept in --tables.
    #[arg(long = "match", conflicts_with_all = ["all_starts", "study", "perfect_match", "open"])]
    match_: bool,
    /// Holdings of South and North at the round's start, S,N (summing to 2 x P x S, each at
    /// least seeds_per_pit). Default: P x S each (the match's start).
    #[arg(long, value_name = "S,N", requires = "match_", conflicts_with = "all_states")]
    holdings: Option<String>,
    /// With --match: every match state (both starters) into --out: the match_states table
    /// (Parquet and/or CSV) and the match-equity chart.
    #[arg(long, requires_all = ["match_", "out"])]
    all_states: bool,
    /// Directory of match tables (R17), read if there and written when solved; an interrupted
    /// solve continues from its checkpoint there. Default: $RAJAPASU_TABLES, else
    /// $XDG_CACHE_HOME/rajapasu/tables, else ~/.cache/rajapasu/tables.
    #[arg(long, value_name = "DIR")]
    tables: Option<PathBuf>,
    /// With --match: stop after N iterations of the rounds loop in all (the checkpoint keeps
    /// them; run again to continue).
    #[arg(long, value_name = "N", requires = "match_", value_parser = clap::value_parser!(u32).range(1..))]
    max_iterations: Option<u32>,
    /// Solve the round start with its levels (counters on the board) as files in the tables
    /// directory (--tables, under rounds/): memory bounded by the largest level and --max-memory
    /// rather than by the round; every finished level is kept, and a rerun continues from them.
    #[arg(long, conflicts_with_all = ["all_starts", "study", "perfect_match", "match_"])]
    spill: bool,
    /// With --spill: only enumerate (the counting pass): positions, moves and bytes by level.
    #[arg(long, requires = "spill")]
    count_only: bool,
    /// With --spill: the most disk the level files may take, e.g. 60G; a solve that needs more
    /// stops with what it needs, and continues when run again with more.
    #[arg(long, value_name = "SIZE", requires = "spill")]
    max_disk: Option<String>,
    /// With --spill: stop after finishing N levels in this run (they are kept; run again to continue).
    #[arg(long, value_name = "N", requires = "spill", value_parser = clap::value_parser!(u32).range(1..))]
    max_levels: Option<u32>,
    /// Output directory of --all-starts, --study or --match --all-states.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Table formats of --all-starts and --study: parquet, csv or both.
    #[arg(long, default_value = "both")]
    format: String,
    /// Random-play matches per board in --study (round-1 starter win rate, first player alternating).
    #[arg(long, default_value_t = 20_000)]
    matches: u64,
    /// Master seed of the random-play matches of --study.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Largest pits per row of --study (2..=9).
    #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u8).range(2..=9))]
    study_pits: u8,
    /// Largest counters per pit of --study (1..=12).
    #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u8).range(1..=12))]
    study_seeds: u8,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

/// The `starts` table of `--all-starts`: one row per round start of a board.
pub const STARTS: TableSpec = TableSpec {
    name: "starts",
    row: "one round start of a board (open pits of each side, starter), solved exactly (R15)",
    columns: &[
        ColumnSpec { name: "rules_hash", ty: ColumnType::Text, meaning: "short hash of the full ruleset (solve.json in the directory has the rules)" },
        ColumnSpec { name: "pits_per_row", ty: ColumnType::I64, meaning: "pits per row, P (R1)" },
        ColumnSpec { name: "seeds_per_pit", ty: ColumnType::I64, meaning: "counters per open pit at the round's start, S (R1, R12)" },
        ColumnSpec { name: "south_open", ty: ColumnType::I64, meaning: "South's open pits, 1..P (R12: the closed pits are at the row's left end)" },
        ColumnSpec { name: "north_open", ty: ColumnType::I64, meaning: "North's open pits, 1..P" },
        ColumnSpec { name: "starter", ty: ColumnType::Sym, meaning: "who moves first in the round: south or north" },
        ColumnSpec {
            name: "value",
            ty: ColumnType::I64,
            meaning: "perfect-play value for the starter: its captures minus the opponent's to the round's end, remainder included; endless play adds 0 (R15)",
        },
        ColumnSpec { name: "outcome", ty: ColumnType::Text, meaning: "starter_win (value > 0), draw (0) or starter_loss (< 0)" },
        ColumnSpec {
            name: "best_moves",
            ty: ColumnType::Text,
            meaning: "the starter's best opening moves, local pits (R3) in increasing order, comma-separated; empty when it has no legal move",
        },
        ColumnSpec { name: "positions", ty: ColumnType::I64, meaning: "distinct (board, side to move) reachable from the round's start, start and ends included (R15)" },
    ],
};

/// "starter_win", "draw" or "starter_loss".
pub fn outcome(value: i32) -> &'static str {
    match value.signum() {
        1 => "starter_win",
        0 => "draw",
        _ => "starter_loss",
    }
}

/// Parses a memory size: bytes, or a number with K, M, G or T (powers of 1024), optionally
/// followed by B or iB.
pub fn parse_memory(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let bad = || format!("bad memory size '{text}': expected bytes or a number with K, M, G or T (binary units), e.g. 512M, 4G");
    let upper = t.to_ascii_uppercase();
    let body = upper.trim_end_matches("IB").trim_end_matches('B');
    let (number, unit) = match body.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&body[..i], Some(c)),
        _ => (body, None),
    };
    let shift = match unit {
        None => 0,
        Some('K') => 10,
        Some('M') => 20,
        Some('G') => 30,
        Some('T') => 40,
        Some(_) => return Err(bad()),
    };
    let v: f64 = number.trim().parse().map_err(|_| bad())?;
    if !v.is_finite() || v <= 0.0 {
        return Err(bad());
    }
    let bytes = v * (1u64 << shift) as f64;
    if bytes >= u64::MAX as f64 {
        return Err(bad());
    }
    Ok(bytes as u64)
}

/// Parses `--open S,N` and checks it against the board (R12).
fn parse_open(text: &str, rules: &Ruleset) -> Result<BySide<u8>, CliError> {
    let p = rules.pits_per_row;
    let bad = |why: String| CliError::usage(format!("--open {text}: {why}"));
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let [s, n] = parts.as_slice() else {
        return Err(bad(format!("expected S,N, the open pits of South and North, each 1..={p}")));
    };
    let num = |x: &str| x.parse::<u8>().map_err(|_| bad(format!("'{x}' is not a number of pits; each side opens 1..={p} pits")));
    let open = BySide::new(num(s)?, num(n)?);
    check_open(rules, open).map_err(bad)?;
    Ok(open)
}

/// Maps a solver error: a board too large for the allowance is bad input (exit 2).
fn solve_error(e: SolveError) -> CliError {
    CliError::usage(e)
}

/// A progress bar of a solve on stderr when it is a terminal.
struct SolveBar {
    bar: ProgressBar,
    total_known: std::cell::Cell<bool>,
}

impl SolveBar {
    fn new(label: &str, quiet: bool) -> SolveBar {
        SolveBar { bar: super::progress::positions_bar(label, quiet), total_known: std::cell::Cell::new(false) }
    }

    fn update(&self, p: Progress) {
        if p.total > 0 && !self.total_known.replace(true) {
            self.bar.set_style(super::progress::positions_style(true));
            self.bar.set_length(p.total);
        }
        self.bar.set_position(p.done);
        self.bar.set_message(format!("{} level {} (counters on the board)", p.phase, p.level));
    }
}

/// Peak resident memory of this process (Linux: VmHWM), in bytes.
pub fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn options(args: &Args) -> Result<SolveOptions, CliError> {
    let max_memory = parse_memory(&args.max_memory).map_err(|e| CliError::usage(format!("--max-memory: {e}")))?;
    Ok(SolveOptions { max_memory, keep_order: false, max_positions: args.max_positions.unwrap_or(u64::MAX) })
}

fn formats(args: &Args) -> Result<Formats, CliError> {
    args.format.parse::<Formats>().map_err(|e| CliError::usage(format!("--format: {e}")))
}

/// One solved round start.
pub struct Solved {
    pub open: BySide<u8>,
    pub starter: Side,
    pub value: i32,
    pub best_moves: PitSet,
    pub stats: SolveStats,
}

/// Solves the round start (`open`, `starter`) with a progress bar.
pub fn solve_start(rules: Ruleset, open: BySide<u8>, starter: Side, opts: SolveOptions, quiet: bool) -> Result<Solved, SolveError> {
    let root = round_start(rules, open, starter);
    let bar = SolveBar::new(
        &format!("solve {}x{} open {},{}", rules.pits_per_row, rules.seeds_per_pit, open[Side::South], open[Side::North]),
        quiet,
    );
    let solution = Solution::solve(&[root], opts, &mut |p| bar.update(p));
    bar.bar.finish_and_clear();
    let solution = solution?;
    Ok(Solved {
        open,
        starter,
        value: solution.value(&root).expect("the root is reachable"),
        best_moves: solution.best_moves(&root),
        stats: solution.stats().clone(),
    })
}

/// The `--json` object of one solved round start (also the Python package's `solve`).
pub fn solved_json(rules: &Ruleset, solved: &Solved, rss: Option<u64>) -> serde_json::Value {
    let (p, open, starter, st) = (rules.pits_per_row, solved.open, solved.starter, &solved.stats);
    let best: Vec<usize> = solved.best_moves.iter().map(|p| p.index()).collect();
    json!({
            "rules": rules,
            "rules_hash": rules.hash(),
            "pits_per_row": p,
            "seeds_per_pit": rules.seeds_per_pit,
            "open": [open[Side::South], open[Side::North]],
            "starter": starter,
            "value": solved.value,
            "outcome": outcome(solved.value),
            "best_moves": best,
            "positions": st.positions,
            "level_positions": st.level_positions,
            "quiet_moves": st.quiet_moves,
            "exits": st.exits,
            "seconds": st.seconds(),
            "enumerate_seconds": st.enumerate_seconds,
            "solve_seconds": st.solve_seconds,
            "positions_per_second": st.positions_per_second(),
            "table_bytes": st.table_bytes,
            "bytes_per_position": st.bytes_per_position(),
            "peak_bytes": st.peak_bytes,
            "peak_rss_bytes": rss,
    })
}

pub fn run(args: Args) -> Result<(), CliError> {
    let rules = args.rules.ruleset()?;
    let mut opts = options(&args)?;
    if args.study {
        opts.max_positions = args.max_positions.unwrap_or(study::STUDY_MAX_POSITIONS);
        return study::run(&args, rules, opts);
    }
    if args.all_starts {
        return all_starts(&args, rules, opts);
    }
    if args.perfect_match {
        return perfect_matches(&args, rules, opts);
    }
    if args.match_ {
        return match_solve::run(&args, rules, opts);
    }
    let p = rules.pits_per_row;
    let open = match &args.open {
        Some(text) => parse_open(text, &rules)?,
        None => BySide::splat(p),
    };
    if args.spill {
        return spill::run(&args, rules, open);
    }
    let starter: Side = args.starter.parse().map_err(|_| CliError::usage("--starter both needs --spill; otherwise south or north"))?;
    let solved = solve_start(rules, open, starter, opts, args.quiet || args.json).map_err(solve_error)?;
    let st = &solved.stats;
    let best: Vec<usize> = solved.best_moves.iter().map(|p| p.index()).collect();
    let rss = peak_rss();
    let mut out = Output::lines();
    if args.json {
        let v = solved_json(&rules, &solved, rss);
        out.line(format_args!("{v}"))?;
        return out.finish();
    }
    let text = format!(
        "rules: {} (besides the board)\nround start: {} pits a row, {} counters a pit; open pits south {} north {}; {} to move\n\
         value: {} for {} ({})\nbest moves: {}\npositions: {}\n\
         time: {:.3} s (enumerate {:.3} s, solve {:.3} s), {:.0} positions/s\n\
         memory: tables {} ({:.2} bytes/position), solver peak {}, process peak {}\n",
        other_rules(&rules),
        p,
        rules.seeds_per_pit,
        open[Side::South],
        open[Side::North],
        starter,
        solved.value,
        starter,
        outcome(solved.value).replace('_', " "),
        if best.is_empty() { "none (no legal move)".to_string() } else { solved.best_moves.to_string() },
        st.positions,
        st.seconds(),
        st.enumerate_seconds,
        st.solve_seconds,
        st.positions_per_second(),
        human_bytes(st.table_bytes),
        st.bytes_per_position(),
        human_bytes(st.peak_bytes),
        rss.map_or("unknown".to_string(), human_bytes),
    );
    out.text(&text)?;
    out.finish()
}

/// `--perfect-match`: a match under perfect round play with each tie-break.
fn perfect_matches(args: &Args, rules: Ruleset, opts: SolveOptions) -> Result<(), CliError> {
    let first: Side = args.starter.parse().map_err(CliError::usage)?;
    let mut cache = std::collections::HashMap::new();
    let mut out = Output::lines();
    let mut all = Vec::new();
    for tie in [TieBreak::Lowest, TieBreak::Highest] {
        let m = perfect_match(rules, first, tie, opts, &mut cache).map_err(solve_error)?;
        if !args.json {
            out.line(format_args!("ties broken by the {} local pit; {first} starts round 1", tie.name()))?;
            out.line(format_args!("round starter open(S,N) holdings(S,N) value captured(S,N) moves"))?;
            for r in &m.rounds {
                out.line(format_args!(
                    "{} {} {},{} {},{} {:+} {},{} {}",
                    r.round,
                    r.starter,
                    r.open[Side::South],
                    r.open[Side::North],
                    r.holdings[Side::South],
                    r.holdings[Side::North],
                    r.value,
                    r.captured[Side::South],
                    r.captured[Side::North],
                    r.moves
                ))?;
            }
            out.line(format_args!("outcome: {}\n", describe_chain(m.outcome, first)))?;
        }
        all.push(m);
    }
    if args.json {
        let v: Vec<serde_json::Value> = all
            .iter()
            .map(|m| {
                json!({
                    "tie_break": m.tie.name(),
                    "first": m.first,
                    "outcome": m.outcome.label(m.first),
                    "description": describe_chain(m.outcome, m.first),
                    "rounds": m.rounds.iter().map(|r| json!({
                        "round": r.round,
                        "starter": r.starter,
                        "open": [r.open[Side::South], r.open[Side::North]],
                        "holdings": [r.holdings[Side::South], r.holdings[Side::North]],
                        "value": r.value,
                        "captured": [r.captured[Side::South], r.captured[Side::North]],
                        "moves": r.moves,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        out.line(format_args!("{}", json!({ "rules": rules, "rules_hash": rules.hash(), "matches": v })))?;
    } else {
        let same = all[0].outcome.label(first) == all[1].outcome.label(first);
        out.line(format_args!("the tie-break {} the outcome", if same { "does not change" } else { "changes" }))?;
    }
    out.finish()
}

/// A chain outcome in words.
pub fn describe_chain(outcome: ChainOutcome, first: Side) -> String {
    match outcome {
        ChainOutcome::Won(side) => format!("{side} wins ({} player)", if side == first { "the first" } else { "the second" }),
        ChainOutcome::Cycle { from, to } => format!("a cycle: round {to} starts as round {from} did (same holdings and starter)"),
        ChainOutcome::EndlessRound { round } => format!("round {round} never ends (a position recurs under perfect play)"),
        ChainOutcome::Unfinished => "unfinished at max_rounds (R14)".to_string(),
    }
}

/// The switches other than the board size that differ from the default, or "default".
fn other_rules(rules: &Ruleset) -> String {
    let v: Vec<String> =
        rules.non_default().into_iter().filter(|s| !s.starts_with("pits_per_row=") && !s.starts_with("seeds_per_pit=")).collect();
    if v.is_empty() {
        "default".to_string()
    } else {
        v.join(" ")
    }
}

/// 1536 as "1.5 KiB".
pub fn human_bytes(b: u64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < units.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{v:.1} {}", units[u])
    }
}

/// The `starts` table of solved round starts.
pub fn starts_table(rules: &Ruleset, rows: &[Solved]) -> Table {
    let col = |name, data| Column { name, data };
    Table {
        name: STARTS.name,
        columns: vec![
            col("rules_hash", ColumnData::Text(rows.iter().map(|_| rules.hash()).collect())),
            col("pits_per_row", ColumnData::I64(rows.iter().map(|_| rules.pits_per_row as i64).collect())),
            col("seeds_per_pit", ColumnData::I64(rows.iter().map(|_| rules.seeds_per_pit as i64).collect())),
            col("south_open", ColumnData::I64(rows.iter().map(|r| r.open[Side::South] as i64).collect())),
            col("north_open", ColumnData::I64(rows.iter().map(|r| r.open[Side::North] as i64).collect())),
            col("starter", ColumnData::Sym(rows.iter().map(|r| Some(r.starter.name())).collect())),
            col("value", ColumnData::I64(rows.iter().map(|r| r.value as i64).collect())),
            col("outcome", ColumnData::Text(rows.iter().map(|r| outcome(r.value).to_string()).collect())),
            col("best_moves", ColumnData::Text(rows.iter().map(|r| r.best_moves.to_string()).collect())),
            col("positions", ColumnData::I64(rows.iter().map(|r| r.stats.positions as i64).collect())),
        ],
    }
}

/// Writes `table` as DIR/NAME.parquet and/or DIR/NAME.csv.
pub fn write_formats(table: &Table, dir: &Path, formats: Formats) -> Result<Vec<PathBuf>, CliError> {
    let mut written = Vec::new();
    for f in formats.list() {
        let path = dir.join(format!("{}.{}", table.name, f.extension()));
        write_table(table, &path, f).map_err(CliError::failed)?;
        written.push(path);
    }
    Ok(written)
}

fn all_starts(args: &Args, rules: Ruleset, opts: SolveOptions) -> Result<(), CliError> {
    let dir = args.out.as_ref().expect("clap requires --out");
    let formats = formats(args)?;
    let p = rules.pits_per_row;
    // The largest start (every pit open) decides whether the board can be solved at all.
    crate::exact::check_board_size(2 * p as usize, rules.total_counters()).map_err(solve_error)?;
    std::fs::create_dir_all(dir).map_err(|e| CliError::failed(format!("{}: cannot create the directory: {e}", dir.display())))?;
    let started = Instant::now();
    let mut rows = Vec::new();
    let mut out = Output::progress();
    if !args.json {
        out.line(format_args!("south_open north_open starter value outcome best_moves positions seconds"))?;
    }
    for south in 1..=p {
        for north in 1..=p {
            for starter in Side::ALL {
                let solved = solve_start(rules, BySide::new(south, north), starter, opts, args.quiet).map_err(solve_error)?;
                if !args.json {
                    out.line(format_args!(
                        "{south} {north} {starter} {} {} {} {} {:.3}",
                        solved.value,
                        outcome(solved.value),
                        if solved.best_moves.is_empty() { "-".into() } else { solved.best_moves.to_string() },
                        solved.stats.positions,
                        solved.stats.seconds()
                    ))?;
                }
                rows.push(solved);
            }
        }
    }
    let table = starts_table(&rules, &rows);
    let mut written = write_formats(&table, dir, formats)?;
    let meta = json!({
        "tool": "rajapasu",
        "version": env!("CARGO_PKG_VERSION"),
        "command": super::command_line(),
        "rules": rules,
        "rules_hash": rules.hash(),
        "table": STARTS,
    });
    let meta_path = dir.join("solve.json");
    write_string_atomically(&meta_path, &(serde_json::to_string_pretty(&meta).map_err(CliError::failed)? + "\n"))
        .map_err(CliError::failed)?;
    written.push(meta_path);
    let cells: Vec<crate::plot::exact::StartCell> =
        rows.iter().map(|r| crate::plot::exact::StartCell { open: r.open, starter: r.starter, value: r.value }).collect();
    let subtitle = format!("{p} pits a row, {} counters a pit; other rules: {}", rules.seeds_per_pit, other_rules(&rules));
    written.extend(crate::plot::exact::plot_start_values(&cells, p, &subtitle, dir).map_err(CliError::failed)?);
    if args.json {
        let v = json!({
            "rules_hash": rules.hash(),
            "starts": rows.iter().map(|r| json!({
                "open": [r.open[Side::South], r.open[Side::North]],
                "starter": r.starter,
                "value": r.value,
                "best_moves": r.best_moves.iter().map(|p| p.index()).collect::<Vec<_>>(),
                "positions": r.stats.positions,
            })).collect::<Vec<_>>(),
            "seconds": started.elapsed().as_secs_f64(),
            "files": written.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        });
        out.line(format_args!("{v}"))?;
    } else {
        out.line(format_args!("{} round starts solved in {:.2} s; wrote:", rows.len(), started.elapsed().as_secs_f64()))?;
        for w in &written {
            out.line(format_args!("  {}", w.display()))?;
        }
    }
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_sizes() {
        assert_eq!(parse_memory("4G"), Ok(4 << 30));
        assert_eq!(parse_memory("512MiB"), Ok(512 << 20));
        assert_eq!(parse_memory("1.5k"), Ok(1536));
        assert_eq!(parse_memory("1000"), Ok(1000));
        assert_eq!(parse_memory("2TB"), Ok(2 << 40));
        for bad in ["", "G", "-1G", "4X", "0", "lots"] {
            assert!(parse_memory(bad).unwrap_err().contains("512M"), "{bad}");
        }
    }

    #[test]
    fn the_data_docs_describe_the_starts_table() {
        let docs = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/data.md")).unwrap();
        let section = super::super::schema::table_markdown(&STARTS);
        assert!(docs.contains(&section), "docs/data.md lacks the `starts` table as generated:\n{section}");
    }
}
