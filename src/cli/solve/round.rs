//! `rajapasu solve` of rounds (R15): one round start, `--all-starts` (the `starts` table and its
//! heat map) and `--perfect-match` (a match of perfectly played rounds).

use std::time::Instant;

use serde_json::json;

use super::args::Args;
use super::common::{formats, human_bytes, other_rules, solve_error, solve_start, write_formats};
use crate::app::perfect_match::{describe_chain, matches_json};
use crate::app::solve::{outcome, peak_rss, round_open, solved_json, Solved};
use crate::cli::output::Output;
use crate::cli::CliError;
use crate::engine::{BySide, Ruleset, Side};
use crate::exact::SolveOptions;
use crate::io::write_string_atomically;
use crate::sim::schema::{ColumnSpec, TableSpec};
use crate::sim::table::{Column, ColumnData, ColumnType, Table};

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

/// Parses `--open S,N` (checked against the board by the request).
fn parse_pair(text: &str, rules: &Ruleset) -> Result<BySide<u8>, CliError> {
    let p = rules.pits_per_row;
    let bad = |why: String| CliError::usage(format!("--open {text}: {why}"));
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let [s, n] = parts.as_slice() else {
        return Err(bad(format!("expected S,N, the open pits of South and North, each 1..={p}")));
    };
    let num = |x: &str| x.parse::<u8>().map_err(|_| bad(format!("'{x}' is not a number of pits; each side opens 1..={p} pits")));
    Ok(BySide::new(num(s)?, num(n)?))
}

pub(super) fn run(args: &Args, rules: Ruleset, opts: SolveOptions) -> Result<(), CliError> {
    let open = args.open.as_deref().map(|text| parse_pair(text, &rules)).transpose()?;
    let open = round_open(&rules, open).map_err(|e| crate::cli::given_field_error(e, args.open.as_deref().unwrap_or_default()))?;
    if args.spill {
        return super::spill::run(args, rules, open);
    }
    let starter: Side = args.starter.parse().map_err(|_| CliError::usage("--starter both needs --spill; otherwise south or north"))?;
    let p = rules.pits_per_row;
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

/// `--perfect-match`: both tie-breaks' matches, each printed as it is played (the job:
/// `app::perfect_match`).
pub(super) fn perfect_matches(args: &Args, rules: Ruleset, opts: SolveOptions) -> Result<(), CliError> {
    let first: Side = args.starter.parse().map_err(CliError::usage)?;
    let mut out = Output::lines();
    let mut all = Vec::new();
    for m in crate::app::perfect_match::play(rules, first, opts) {
        let m = m.map_err(solve_error)?;
        if !args.json {
            out.line(format_args!("ties broken by the {} local pit; {first} starts round 1", m.tie.name()))?;
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
        out.line(format_args!("{}", matches_json(&rules, &all)))?;
    } else {
        let same = all[0].outcome.label(first) == all[1].outcome.label(first);
        out.line(format_args!("the tie-break {} the outcome", if same { "does not change" } else { "changes" }))?;
    }
    out.finish()
}

/// The `starts` table of solved round starts.
pub(super) fn starts_table(rules: &Ruleset, rows: &[Solved]) -> Table {
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

pub(super) fn all_starts(args: &Args, rules: Ruleset, opts: SolveOptions) -> Result<(), CliError> {
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
        "command": crate::cli::command_line(),
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
    fn the_data_docs_describe_the_starts_table() {
        let docs = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/data.md")).unwrap();
        let section = crate::cli::schema::table_markdown(&STARTS);
        assert!(docs.contains(&section), "docs/data.md lacks the `starts` table as generated:\n{section}");
    }
}
