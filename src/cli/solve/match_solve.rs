//! `rajapasu solve --match`: the perfect-match value of a match state (R17), its rounds and
//! best opening moves; `--all-states --out DIR` for every match state of a board (the
//! `match_states` table and the match-equity chart). The table of every state is solved once
//! and kept in the tables directory (`--tables DIR`, see `exact::default_tables_dir`), where
//! an interrupted solve continues from its checkpoint.

use std::cell::Cell;
use std::path::PathBuf;
use std::time::Instant;

use serde_json::json;

use super::{formats, human_bytes, other_rules, peak_rss, write_formats, Args};
use crate::cli::output::Output;
use crate::cli::CliError;
use crate::engine::{BySide, Ruleset, Side};
use crate::exact::{
    default_tables_dir, load_or_solve, open_pits, table_path, MatchError, MatchProgress, MatchState, MatchStats, MatchTable, SolveOptions,
    StateValue,
};
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

/// Parses `--holdings S,N`: they sum to the board's total and each side can open a pit (R14).
fn parse_holdings(text: &str, rules: &Ruleset) -> Result<BySide<u32>, CliError> {
    let total = rules.total_counters();
    let bad = |why: String| CliError::usage(format!("--holdings {text}: {why}"));
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let [south, north] = parts.as_slice() else {
        return Err(bad(format!("expected S,N, the holdings of South and North, summing to {total}")));
    };
    let num = |x: &str| x.parse::<u32>().map_err(|_| bad(format!("'{x}' is not a number of counters")));
    let h = BySide::new(num(south)?, num(north)?);
    check_holdings(h, rules).map_err(bad)?;
    Ok(h)
}

/// Why holdings (South, North) are not a match state of `rules`, if they are not: they must
/// sum to the board's total and each side must hold enough to open a pit (R14). The command
/// line's `--holdings` and the Python package's `solve_match` give this message.
pub fn check_holdings(h: BySide<u32>, rules: &Ruleset) -> Result<(), String> {
    let total = rules.total_counters();
    let s = rules.seeds_per_pit as u32;
    let sum = h[Side::South] as u64 + h[Side::North] as u64;
    if sum != total as u64 {
        return Err(format!("the holdings sum to {sum}; this board has {total} counters (2 x pits_per_row x seeds_per_pit)"));
    }
    for side in Side::ALL {
        if h[side] < s {
            return Err(format!("{side} holds {} counters, fewer than seeds_per_pit = {s}: the match is over (R14)", h[side]));
        }
    }
    Ok(())
}

fn match_error(e: MatchError) -> CliError {
    match e {
        MatchError::Io(_) | MatchError::Interrupted { .. } => CliError::failed(e),
        MatchError::Solve(_) | MatchError::Checkpoint(_) | MatchError::Invalid(_) => CliError::usage(e),
    }
}

/// The match table of `rules`: from the tables directory or solved there, with a progress bar.
pub fn table(
    rules: Ruleset,
    opts: SolveOptions,
    tables: Option<&PathBuf>,
    max_iterations: Option<u32>,
    quiet: bool,
) -> Result<(MatchTable, bool, PathBuf), CliError> {
    let dir = match tables {
        Some(dir) => dir.clone(),
        None => default_tables_dir().map_err(match_error)?,
    };
    let bar = super::super::progress::positions_bar(&format!("solve --match {}x{}", rules.pits_per_row, rules.seeds_per_pit), quiet);
    let total_known = Cell::new(false);
    let result = load_or_solve(rules, &dir, opts, max_iterations, &mut |p: MatchProgress| {
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
    let (table, cached) = result.map_err(match_error)?;
    Ok((table, cached, table_path(&dir, &rules)))
}

/// One match state solved by `solve --match` (R17): what its `--json` prints.
pub struct MatchSolved {
    pub state: MatchState,
    pub value: StateValue,
    pub stats: MatchStats,
    /// The table's file in the tables directory.
    pub table: PathBuf,
    /// The table was read from disk, not solved now.
    pub cached: bool,
    pub seconds: f64,
}

/// Solves the match state (`holdings`, checked by [`check_holdings`], `starter`) from the
/// table of `rules` in `tables` (solved and kept there if absent). The command line's
/// `solve --match` and the Python package's `solve_match`.
pub fn solve_match_state(
    rules: Ruleset,
    state: MatchState,
    opts: SolveOptions,
    tables: Option<&PathBuf>,
    max_iterations: Option<u32>,
    quiet: bool,
) -> Result<MatchSolved, CliError> {
    check_holdings(state.holdings, &rules).map_err(CliError::usage)?;
    let started = Instant::now();
    let (table, cached, path) = table(rules, opts, tables, max_iterations, quiet)?;
    let value = table.value(state).expect("checked holdings are a match state");
    Ok(MatchSolved { state, value, stats: table.stats().clone(), table: path, cached, seconds: started.elapsed().as_secs_f64() })
}

/// The `--json` object of one solved match state (also the Python package's `solve_match`).
pub fn match_solved_json(rules: &Ruleset, solved: &MatchSolved, rss: Option<u64>) -> serde_json::Value {
    let MatchState { holdings, starter } = solved.state;
    let open = open_pits(rules, holdings[Side::South]);
    let best: Vec<usize> = solved.value.best_moves.iter().map(|p| p.index()).collect();
    json!({
        "rules": rules,
        "rules_hash": rules.hash(),
        "pits_per_row": rules.pits_per_row,
        "seeds_per_pit": rules.seeds_per_pit,
        "holdings": [holdings[Side::South], holdings[Side::North]],
        "starter": starter,
        "open": [open[Side::South], open[Side::North]],
        "value": solved.value.value,
        "rounds": solved.value.rounds,
        "best_moves": best,
        "table": solved.table.display().to_string(),
        "cached": solved.cached,
        "seconds": solved.seconds,
        "stats": solved.stats,
        "peak_rss_bytes": rss,
    })
}

pub fn run(args: &Args, rules: Ruleset, opts: SolveOptions) -> Result<(), CliError> {
    let total = rules.total_counters();
    let holdings = match &args.holdings {
        Some(text) => parse_holdings(text, &rules)?,
        None => BySide::splat(total / 2),
    };
    let starter: Side = args.starter.parse().map_err(CliError::usage)?;
    if args.all_states {
        return all_states(args, rules, opts);
    }
    let state = MatchState { holdings, starter };
    let solved = solve_match_state(rules, state, opts, args.tables.as_ref(), args.max_iterations, args.quiet || args.json)?;
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
pub fn states_table(table: &MatchTable) -> Table {
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
        "command": super::super::command_line(),
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
        let section = super::super::super::schema::table_markdown(&MATCH_STATES);
        assert!(docs.contains(&section), "docs/data.md lacks the `match_states` table as generated:\n{section}");
    }

    #[test]
    fn holdings_are_checked_against_the_board() {
        let r = Ruleset { pits_per_row: 3, seeds_per_pit: 2, ..Ruleset::default() };
        assert_eq!(parse_holdings("5, 7", &r).unwrap(), BySide::new(5, 7));
        for (bad, why) in [("5,6", "sum to 11"), ("1,11", "fewer than seeds_per_pit"), ("5", "expected S,N"), ("a,7", "'a' is not")] {
            let Err(CliError::Usage(e)) = parse_holdings(bad, &r) else { panic!("{bad}: not a usage error") };
            assert!(e.contains(why), "{bad}: {e}");
        }
    }
}
