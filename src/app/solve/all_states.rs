//! The all-states job (`solve --match --all-states`): every match state of a board (R17),
//! from the match table in the caller's [`ExactStore`] (solved there if absent), written as the
//! `match_states` table, solve_match.json and the match-equity chart.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use serde_json::json;

use crate::engine::{Ruleset, Side};
use crate::exact::{open_pits, ExactStore, MatchError, MatchProgress, MatchTable, StateValue};
use crate::io::{write_table_formats, Formats};
use crate::sim::schema::{ColumnSpec, TableSpec};
use crate::sim::table::{Column, ColumnData, ColumnType, Table};

use super::match_value::{check_max_iterations, match_table};
use super::meta::write_meta;
use super::round::other_rules;
use crate::app::FieldError;

/// The `match_states` table of the all-states job: one row per match state.
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
            ty: ColumnType::NullU32,
            meaning: "win: the least k within which the starter forces the win, the round starting counted as 1; loss: the same for the opponent; empty (null) for a draw, which has no rounds (R17)",
        },
        ColumnSpec {
            name: "best_moves",
            ty: ColumnType::Text,
            meaning: "the starter's opening moves that keep value and rounds, local pits (R3) in increasing order, comma-separated; empty when it has no legal move",
        },
    ],
};

/// Every match state of a board to solve, and where its files go.
#[derive(Clone, Debug)]
pub struct MatchStatesRequest {
    pub rules: Ruleset,
    /// Stop a solve of the table after this many iterations of its rounds loop (at least 1);
    /// None: no limit.
    pub max_iterations: Option<u32>,
    /// The directory of the table, solve_match.json and the chart.
    pub out: PathBuf,
    pub format: Formats,
    /// The command recorded in solve_match.json.
    pub command: String,
}

/// Every match state solved, and the files written.
pub struct MatchStatesSolved {
    pub table: Arc<MatchTable>,
    /// The table was found (in memory or on disk), not solved now.
    pub cached: bool,
    /// The table's file in the tables directory.
    pub table_file: PathBuf,
    /// The match's start (South first), from the table.
    pub first: StateValue,
    pub seconds: f64,
    pub written: Vec<PathBuf>,
}

/// Why the states were not all solved and written.
#[derive(Debug, thiserror::Error)]
pub enum MatchStatesError {
    #[error("{0}")]
    Field(#[from] FieldError),
    /// The table could not be solved or read (see [`crate::app::BadInput::is_bad_input`]).
    #[error("{0}")]
    Match(#[from] MatchError),
    /// A file could not be written.
    #[error("{0}")]
    Failed(String),
}

impl crate::app::BadInput for MatchStatesError {
    fn is_bad_input(&self) -> bool {
        match self {
            MatchStatesError::Field(_) => true,
            MatchStatesError::Match(e) => crate::app::BadInput::is_bad_input(e),
            MatchStatesError::Failed(_) => false,
        }
    }
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
            col(
                "pits_per_row",
                ColumnData::U32(rows.iter().map(|_| rules.pits_per_row as u32).collect()),
            ),
            col(
                "seeds_per_pit",
                ColumnData::U32(rows.iter().map(|_| rules.seeds_per_pit as u32).collect()),
            ),
            col(
                "south_holdings",
                ColumnData::U32(rows.iter().map(|(s, _)| s.holdings[Side::South]).collect()),
            ),
            col(
                "north_holdings",
                ColumnData::U32(rows.iter().map(|(s, _)| s.holdings[Side::North]).collect()),
            ),
            col(
                "starter",
                ColumnData::Sym(rows.iter().map(|(s, _)| Some(s.starter.name())).collect()),
            ),
            col(
                "south_open",
                ColumnData::U32(
                    rows.iter()
                        .map(|(s, _)| open(s.holdings[Side::South])[Side::South] as u32)
                        .collect(),
                ),
            ),
            col(
                "north_open",
                ColumnData::U32(
                    rows.iter()
                        .map(|(s, _)| open(s.holdings[Side::South])[Side::North] as u32)
                        .collect(),
                ),
            ),
            col(
                "value",
                ColumnData::Text(rows.iter().map(|(_, v)| v.value.name().to_string()).collect()),
            ),
            col("rounds", ColumnData::or_null(rows.iter().map(|(_, v)| v.rounds))),
            col(
                "best_moves",
                ColumnData::Text(rows.iter().map(|(_, v)| v.best_moves.to_string()).collect()),
            ),
        ],
    }
}

/// Solves (or reads) the request's match table from `store`, telling `progress` as it goes,
/// and writes the table of every state, solve_match.json and the chart into the request's
/// directory.
pub fn run(
    store: &ExactStore,
    request: &MatchStatesRequest,
    progress: &mut dyn FnMut(MatchProgress),
) -> Result<MatchStatesSolved, MatchStatesError> {
    check_max_iterations(request.max_iterations)?;
    let (rules, dir) = (request.rules, &request.out);
    let failed = MatchStatesError::Failed;
    std::fs::create_dir_all(dir)
        .map_err(|e| failed(format!("{}: cannot create the directory: {e}", dir.display())))?;
    let started = Instant::now();
    let (table, cached, table_file) = match_table(store, rules, request.max_iterations, progress)?;
    let seconds = started.elapsed().as_secs_f64();
    let mut written = write_table_formats(&states_table(&table), dir, request.format)
        .map_err(|e| failed(e.to_string()))?;
    let first = table.match_value(Side::South);
    let meta = json!({
        "rules": rules,
        "rules_hash": rules.hash(),
        "match_value": { "value": first.value, "rounds": first.rounds, "best_moves": first.best_moves.iter().map(|p| p.index()).collect::<Vec<_>>(), "first": "south" },
        "stats": table.stats(),
        "cached": cached,
        "seconds": seconds,
        "peak_rss_bytes": crate::process::peak_rss(),
        "table": MATCH_STATES,
    });
    written
        .push(write_meta(&dir.join("solve_match.json"), &request.command, meta).map_err(failed)?);
    written.extend(equity_chart(&table, &first, dir).map_err(failed)?);
    Ok(MatchStatesSolved { table, cached, table_file, first, seconds, written })
}

/// The match-equity chart of every state.
fn equity_chart(
    table: &MatchTable,
    first: &StateValue,
    dir: &std::path::Path,
) -> Result<Vec<PathBuf>, String> {
    let rules = table.rules();
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
        other_rules(rules),
        first.value,
        first.rounds.map_or(String::new(), |k| format!(" in {k} rounds"))
    );
    crate::plot::exact::plot_match_equity(&cells, &subtitle, dir).map_err(|e| e.to_string())
}

/// The JSON answer of the all-states job (`solve --match --all-states --json`).
pub fn match_states_json(rules: &Ruleset, solved: &MatchStatesSolved) -> serde_json::Value {
    let first = &solved.first;
    json!({
        "rules_hash": rules.hash(),
        "value": first.value,
        "rounds": first.rounds,
        "best_moves": first.best_moves.iter().map(|p| p.index()).collect::<Vec<_>>(),
        "holdings": [rules.total_counters() / 2, rules.total_counters() / 2],
        "starter": "south",
        "states": solved.table.states().len(),
        "table": solved.table_file.display().to_string(),
        "seconds": solved.seconds,
        "files": solved.written.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::StoreSettings;

    #[test]
    fn the_data_docs_describe_the_match_states_table() {
        let docs = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/data.md"),
        )
        .unwrap();
        let section = crate::cli::schema::table_markdown(&MATCH_STATES);
        assert!(
            docs.contains(&section),
            "docs/data.md lacks the `match_states` table as generated:\n{section}"
        );
    }

    /// Every state of the 2x3 board is written, its match start the golden one (lost by its
    /// starter in 2 rounds), each row's value the store's own; a bad request names its field.
    #[test]
    fn every_match_state_is_written_from_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let store = ExactStore::new(StoreSettings {
            tables: dir.path().join("tables"),
            ..StoreSettings::default()
        });
        let rules = crate::app::solve::board(2, 3);
        let request = MatchStatesRequest {
            rules,
            max_iterations: None,
            out: dir.path().join("out"),
            format: Formats::Csv,
            command: "test".into(),
        };
        let Err(MatchStatesError::Field(e)) = run(
            &store,
            &MatchStatesRequest { max_iterations: Some(0), ..request.clone() },
            &mut |_| {},
        ) else {
            panic!("max_iterations 0 is accepted")
        };
        assert_eq!(e.field, "max_iterations");
        let solved = run(&store, &request, &mut |_| {}).unwrap();
        assert_eq!((solved.first.value.name(), solved.first.rounds), ("loss", Some(2)));
        let csv = std::fs::read_to_string(dir.path().join("out/match_states.csv")).unwrap();
        assert_eq!(csv.lines().count(), 1 + solved.table.states().len());
        for (state, value) in solved.table.states() {
            let (south, north) = (state.holdings[Side::South], state.holdings[Side::North]);
            let open = open_pits(&rules, south);
            // A draw has no rounds (R17): an empty cell.
            let (v, k) = (value.value, value.rounds.map_or(String::new(), |k| k.to_string()));
            let row = format!(
                ",2,3,{south},{north},{},{},{},{v},{k},",
                state.starter,
                open[Side::South],
                open[Side::North]
            );
            assert!(csv.contains(&row), "lacks {row}:\n{csv}");
        }
        let json = match_states_json(&rules, &solved);
        assert_eq!(json["files"].as_array().unwrap().len(), solved.written.len());
        assert!(solved.written.iter().all(|p| p.is_file()), "{:?}", solved.written);
    }
}
