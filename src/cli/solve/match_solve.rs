//! `rajapasu solve --match`: the perfect-match value of a match state (R17), its rounds and
//! best opening moves; `--all-states --out DIR` for every match state of a board (the
//! `match_states` table and the match-equity chart). The table of every state is solved once
//! and kept in the tables directory (`--tables DIR`, see `exact::default_tables_dir`), where
//! an interrupted solve continues from its checkpoint.

use std::cell::Cell;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use serde_json::json;

use super::args::Args;
use super::common::{formats, human_bytes, match_error, other_rules, store, write_formats};
use crate::app::solve::{match_solved_json, peak_rss, solve_match, MatchRequest, SolveMatchError};
use crate::cli::output::Output;
use crate::cli::CliError;
use crate::engine::{BySide, Ruleset, Side};
use crate::exact::{open_pits, MatchProgress, MatchTable, SolveOptions};
use crate::io::write_string_atomically;
use crate::sim::schema::{ColumnSpec, TableSpec};
use crate::sim::table::{Column, ColumnData, ColumnType, Table};

/// The `match_states` table of `--match --all-states`: one row per match state.
pub const MATCH_STATES: TableSpec = TableSpec {
    name: "match_states",
    row: "one match state of a board (holdings at a round's start, starter), solved exactly for perfect match play (R17)",
    columns: &[
        ColumnSpec { name: "rules_hash", ty: ColumnType::Text, meaning: "short hash of the full ruleset (solve_match.json in the directory has the rules)" },
        ColumnSpec { name: "pits_per_row", ty: ColumnType::U32, meaning: "pits per row, P (R1)" },
        ColumnSpec { name: "seeds_per_pit", ty: ColumnType::U32, meaning: "counters per filled pit, S (R1, R12)" },
        ColumnSpec { name: "south_holdings", ty: ColumnType::U32, meaning: "South's holdings at the round's start, S..2PS-S (R12, R14)" },
        ColumnSpec { name: "north_holdings", ty: ColumnType::U32, meaning: "North's holdings (the board's total minus South's)" },
        ColumnSpec { name: "starter", ty: ColumnType::Sym, meaning: "who starts the round: south or north" },
        ColumnSpec { name: "south_open", ty: ColumnType::U32, meaning: "South's open pits in the round (R12)" },
        ColumnSpec { name: "north_open", ty: ColumnType::U32, meaning: "North's open pits in the round (R12)" },
        ColumnSpec { name: "value", ty: ColumnType::Text, meaning: "the match value for the starter under perfect match play: win, draw or loss (R17)" },
        ColumnSpec {
            name: "rounds",
            ty: ColumnType::U32,
            meaning: "win: the least k within which the starter forces the win, the round starting counted as 1; loss: the same for the opponent; 0 for a draw (R17)",
        },
        ColumnSpec {
            name: "best_moves",
            ty: ColumnType::Text,
            meaning: "the starter's opening moves that keep value and rounds, local pits (R3) in increasing order, comma-separated; empty when it has no legal move",
        },
    ],
};

/// Parses `--holdings S,N` (checked against the board by the request).
fn parse_holdings(text: &str, rules: &Ruleset) -> Result<BySide<u32>, CliError> {
    let total = rules.total_counters();
    let bad = |why: String| CliError::usage(format!("--holdings {text}: {why}"));
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let [south, north] = parts.as_slice() else {
        return Err(bad(format!("expected S,N, the holdings of South and North, summing to {total}")));
    };
    let num = |x: &str| x.parse::<u32>().map_err(|_| bad(format!("'{x}' is not a number of counters")));
    Ok(BySide::new(num(south)?, num(north)?))
}

/// A progress bar of a match table's solve on stderr when it is a terminal; `report` is its
/// progress callback.
fn with_bar<T>(rules: &Ruleset, quiet: bool, solve: impl FnOnce(&mut dyn FnMut(MatchProgress)) -> T) -> T {
    let bar = crate::cli::progress::positions_bar(&format!("solve --match {}x{}", rules.pits_per_row, rules.seeds_per_pit), quiet);
    let total_known = Cell::new(false);
    let result = solve(&mut |p: MatchProgress| {
        if !total_known.replace(true) {
            bar.set_style(
                indicatif::ProgressStyle::with_template("{prefix} [{elapsed_precise}] {wide_bar} {pos}/{len} round graphs, {msg}")
                    .expect("valid template"),
            );
        }
        bar.set_length(p.total);
        bar.set_position(p.done);
        bar.set_message(if p.phase == "enumerating" {
            format!("enumerating open pits {},{}", p.open.0, p.open.1)
        } else {
            format!("states won within {} rounds, open pits {},{}", p.round, p.open.0, p.open.1)
        });
    });
    bar.finish_and_clear();
    result
}

/// The match table of `rules`: from the tables directory (`--tables`) or solved there, with a
/// progress bar; whether it was read from disk, and its file.
pub(super) fn table(
    rules: Ruleset,
    opts: SolveOptions,
    tables: Option<&PathBuf>,
    max_iterations: Option<u32>,
    quiet: bool,
) -> Result<(Arc<MatchTable>, bool, PathBuf), CliError> {
    let store = store(tables, opts)?;
    with_bar(&rules, quiet, |report| crate::app::solve::match_table(&store, rules, max_iterations, report)).map_err(match_error)
}

pub(super) fn run(args: &Args, rules: Ruleset, opts: SolveOptions) -> Result<(), CliError> {
    let holdings = args.holdings.as_deref().map(|text| parse_holdings(text, &rules)).transpose()?;
    let starter: Side = args.starter.parse().map_err(CliError::usage)?;
    let request = MatchRequest { rules, holdings, starter, max_iterations: args.max_iterations };
    let state = request.validate().map_err(|e| crate::cli::given_field_error(e, args.holdings.as_deref().unwrap_or_default()))?;
    if args.all_states {
        return all_states(args, rules, opts);
    }
    let holdings = state.holdings;
    let store = store(args.tables.as_ref(), opts)?;
    let solved = with_bar(&rules, args.quiet || args.json, |report| solve_match(&store, &request, report)).map_err(|e| match e {
        SolveMatchError::Field(e) => crate::cli::field_error(e),
        SolveMatchError::Match(e) => match_error(e),
    })?;
    let mut out = Output::lines();
    if args.json {
        out.line(format_args!("{}", match_solved_json(&rules, &solved, peak_rss())))?;
        return out.finish();
    }
    let (v, st, path, cached) = (&solved.value, &solved.stats, &solved.table, solved.cached);
    let best: Vec<usize> = v.best_moves.iter().map(|p| p.index()).collect();
    let open = open_pits(&rules, holdings[Side::South]);
    let rounds = match v.rounds {
        Some(k) => format!(" in {k} round{}", if k == 1 { "" } else { "s" }),
        None => String::new(),
    };
    let text = format!(
        "rules: {} (besides the board)\nmatch state: {} pits a row, {} counters a pit; holdings south {} north {} (open pits {},{}); {} starts\n\
         match value: {} for {}{} (R17)\nbest moves: {}\n\
         table: {} ({})\n",
        other_rules(&rules),
        rules.pits_per_row,
        rules.seeds_per_pit,
        holdings[Side::South],
        holdings[Side::North],
        open[Side::South],
        open[Side::North],
        starter,
        v.value,
        starter,
        rounds,
        if best.is_empty() { "none (no legal move)".to_string() } else { v.best_moves.to_string() },
        path.display(),
        if cached { "read from disk".to_string() } else { format!("solved in {:.2} s", solved.seconds) },
    );
    out.text(&text)?;
    if !cached {
        out.line(format_args!("solve: {} round graphs, {} round positions, {} match positions, {} iterations; {:.0} match positions/s; memory: graphs {}, peak {} ({:.1} bytes/round position), process peak {}",
            st.graphs,
            st.positions,
            st.match_positions,
            st.iterations,
            st.positions_per_second(),
            human_bytes(st.graph_bytes),
            human_bytes(st.peak_bytes),
            st.bytes_per_position(),
            peak_rss().map_or("unknown".to_string(), human_bytes),
        ))?;
    }
    out.finish()
}

/// The `match_states` table.
fn states_table(table: &MatchTable) -> Table {
    let rules = *table.rules();
    let rows = table.states();
    let col = |name, data| Column { name, data };
    let open = |h: u32| open_pits(&rules, h);
    Table {
        name: MATCH_STATES.name,
        columns: vec![
            col("rules_hash", ColumnData::Text(rows.iter().map(|_| rules.hash()).collect())),
            col("pits_per_row", ColumnData::U32(rows.iter().map(|_| rules.pits_per_row as u32).collect())),
            col("seeds_per_pit", ColumnData::U32(rows.iter().map(|_| rules.seeds_per_pit as u32).collect())),
            col("south_holdings", ColumnData::U32(rows.iter().map(|(s, _)| s.holdings[Side::South]).collect())),
            col("north_holdings", ColumnData::U32(rows.iter().map(|(s, _)| s.holdings[Side::North]).collect())),
            col("starter", ColumnData::Sym(rows.iter().map(|(s, _)| Some(s.starter.name())).collect())),
            col("south_open", ColumnData::U32(rows.iter().map(|(s, _)| open(s.holdings[Side::South])[Side::South] as u32).collect())),
            col("north_open", ColumnData::U32(rows.iter().map(|(s, _)| open(s.holdings[Side::South])[Side::North] as u32).collect())),
            col("value", ColumnData::Text(rows.iter().map(|(_, v)| v.value.name().to_string()).collect())),
            col("rounds", ColumnData::U32(rows.iter().map(|(_, v)| v.rounds.unwrap_or(0)).collect())),
            col("best_moves", ColumnData::Text(rows.iter().map(|(_, v)| v.best_moves.to_string()).collect())),
        ],
    }
}

fn all_states(args: &Args, rules: Ruleset, opts: SolveOptions) -> Result<(), CliError> {
    let dir = args.out.as_ref().expect("clap requires --out");
    let formats = formats(args)?;
    std::fs::create_dir_all(dir).map_err(|e| CliError::failed(format!("{}: cannot create the directory: {e}", dir.display())))?;
    let started = Instant::now();
    let (table, cached, path) = table(rules, opts, args.tables.as_ref(), args.max_iterations, args.quiet)?;
    let seconds = started.elapsed().as_secs_f64();
    let mut written = write_formats(&states_table(&table), dir, formats)?;
    let first = table.match_value(Side::South);
    let meta = json!({
        "tool": "rajapasu",
        "version": env!("CARGO_PKG_VERSION"),
        "command": crate::cli::command_line(),
        "rules": rules,
        "rules_hash": rules.hash(),
        "match_value": { "value": first.value, "rounds": first.rounds, "best_moves": first.best_moves.iter().map(|p| p.index()).collect::<Vec<_>>(), "first": "south" },
        "stats": table.stats(),
        "cached": cached,
        "seconds": seconds,
        "peak_rss_bytes": peak_rss(),
        "table": MATCH_STATES,
    });
    let meta_path = dir.join("solve_match.json");
    write_string_atomically(&meta_path, &(serde_json::to_string_pretty(&meta).map_err(CliError::failed)? + "\n"))
        .map_err(CliError::failed)?;
    written.push(meta_path);
    let cells: Vec<crate::plot::exact::EquityCell> = table
        .states()
        .iter()
        .map(|(s, v)| crate::plot::exact::EquityCell {
            south: s.holdings[Side::South],
            starter: s.starter,
            value: v.value,
            rounds: v.rounds,
        })
        .collect();
    let subtitle = format!(
        "{} pits a row, {} counters a pit; other rules: {}; the match's start: {} for its first player{}",
        rules.pits_per_row,
        rules.seeds_per_pit,
        other_rules(&rules),
        first.value,
        first.rounds.map_or(String::new(), |k| format!(" in {k} rounds"))
    );
    written.extend(crate::plot::exact::plot_match_equity(&cells, &subtitle, dir).map_err(CliError::failed)?);
    let mut out = Output::lines();
    if args.json {
        let v = json!({
            "rules_hash": rules.hash(),
            "value": first.value,
            "rounds": first.rounds,
            "best_moves": first.best_moves.iter().map(|p| p.index()).collect::<Vec<_>>(),
            "holdings": [rules.total_counters() / 2, rules.total_counters() / 2],
            "starter": "south",
            "states": table.states().len(),
            "table": path.display().to_string(),
            "seconds": seconds,
            "files": written.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        });
        out.line(format_args!("{v}"))?;
    } else {
        out.line(format_args!(
            "{} match states solved ({}); the match: {} for the first player{}; wrote:",
            table.states().len(),
            if cached { "table read from disk".to_string() } else { format!("{seconds:.2} s") },
            first.value,
            first.rounds.map_or(String::new(), |k| format!(" in {k} rounds"))
        ))?;
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
    fn the_data_docs_describe_the_match_states_table() {
        let docs = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/data.md")).unwrap();
        let section = crate::cli::schema::table_markdown(&MATCH_STATES);
        assert!(docs.contains(&section), "docs/data.md lacks the `match_states` table as generated:\n{section}");
    }

    #[test]
    fn holdings_are_parsed_and_checked_against_the_board() {
        let r = Ruleset { pits_per_row: 3, seeds_per_pit: 2, ..Ruleset::default() };
        assert_eq!(parse_holdings("5, 7", &r).unwrap(), BySide::new(5, 7));
        for (bad, why) in [("5", "expected S,N"), ("a,7", "'a' is not")] {
            let Err(CliError::Usage(e)) = parse_holdings(bad, &r) else { panic!("{bad}: not a usage error") };
            assert!(e.contains(why) && e.starts_with(&format!("--holdings {bad}: ")), "{bad}: {e}");
        }
        let request = MatchRequest { rules: r, holdings: Some(BySide::new(5, 6)), starter: Side::South, max_iterations: None };
        let CliError::Usage(e) = crate::cli::given_field_error(request.validate().unwrap_err(), "5,6") else { panic!() };
        assert!(e.starts_with("--holdings 5,6: the holdings sum to 11"), "{e}");
    }
}
