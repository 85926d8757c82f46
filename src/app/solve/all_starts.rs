//! The all-starts job (`solve --all-starts`): every round start of a board (each side 1..P
//! pits open, both starters) solved exactly (R15), written as the `starts` table, solve.json
//! and the heat map of their values.

use std::path::PathBuf;
use std::time::Instant;

use serde_json::json;

use crate::engine::{BySide, Ruleset, Side};
use crate::exact::{Progress, SolveError, SolveOptions};
use crate::io::{write_table_formats, Formats};
use crate::sim::schema::{ColumnSpec, TableSpec};
use crate::sim::table::{Column, ColumnData, ColumnType, Table};

use super::meta::write_meta;
use super::round::{other_rules, outcome, solve_start, Solved};

/// The `starts` table of the all-starts job: one row per round start of a board.
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

/// The `starts` table of solved round starts.
pub fn starts_table(rules: &Ruleset, rows: &[Solved]) -> Table {
    let col = |name, data| Column { name, data };
    Table {
        name: STARTS.name,
        columns: vec![
            col("rules_hash", ColumnData::Text(rows.iter().map(|_| rules.hash()).collect())),
            col(
                "pits_per_row",
                ColumnData::I64(rows.iter().map(|_| rules.pits_per_row as i64).collect()),
            ),
            col(
                "seeds_per_pit",
                ColumnData::I64(rows.iter().map(|_| rules.seeds_per_pit as i64).collect()),
            ),
            col(
                "south_open",
                ColumnData::I64(rows.iter().map(|r| r.open[Side::South] as i64).collect()),
            ),
            col(
                "north_open",
                ColumnData::I64(rows.iter().map(|r| r.open[Side::North] as i64).collect()),
            ),
            col("starter", ColumnData::Sym(rows.iter().map(|r| Some(r.starter.name())).collect())),
            col("value", ColumnData::I64(rows.iter().map(|r| r.value as i64).collect())),
            col(
                "outcome",
                ColumnData::Text(rows.iter().map(|r| outcome(r.value).to_string()).collect()),
            ),
            col(
                "best_moves",
                ColumnData::Text(rows.iter().map(|r| r.best_moves.to_string()).collect()),
            ),
            col(
                "positions",
                ColumnData::I64(rows.iter().map(|r| r.stats.positions as i64).collect()),
            ),
        ],
    }
}

/// Every round start of a board to solve, and where its files go.
#[derive(Clone, Debug)]
pub struct StartsRequest {
    pub rules: Ruleset,
    pub opts: SolveOptions,
    /// The directory of the table, solve.json and the heat map.
    pub out: PathBuf,
    pub format: Formats,
    /// The command recorded in solve.json.
    pub command: String,
}

/// What the job tells its caller as it goes.
pub enum StartsEvent<'a> {
    /// The start of `open` pits and `starter` is being solved.
    Solving {
        open: BySide<u8>,
        starter: Side,
    },
    Progress(Progress),
    Solved(&'a Solved),
}

/// Why the starts were not all solved and written.
#[derive(Debug, thiserror::Error)]
pub enum StartsError {
    /// The board is beyond the solver's limits (bad input).
    #[error("{0}")]
    Solve(#[from] SolveError),
    /// A file could not be written.
    #[error("{0}")]
    Failed(String),
}

impl crate::app::BadInput for StartsError {
    fn is_bad_input(&self) -> bool {
        match self {
            StartsError::Solve(e) => crate::app::BadInput::is_bad_input(e),
            StartsError::Failed(_) => false,
        }
    }
}

/// The solved starts and the files written.
pub struct StartsSolved {
    pub rows: Vec<Solved>,
    pub written: Vec<PathBuf>,
    pub seconds: f64,
}

/// Solves every start of the request's board, telling `watch` as it goes, and writes the files.
pub fn run(
    request: &StartsRequest,
    watch: &mut dyn FnMut(StartsEvent),
) -> Result<StartsSolved, StartsError> {
    let (rules, dir) = (request.rules, &request.out);
    let p = rules.pits_per_row;
    // The largest start (every pit open) decides whether the board can be solved at all.
    crate::exact::check_board_size(2 * p as usize, rules.total_counters())?;
    std::fs::create_dir_all(dir).map_err(|e| {
        StartsError::Failed(format!("{}: cannot create the directory: {e}", dir.display()))
    })?;
    let started = Instant::now();
    let mut rows = Vec::new();
    for south in 1..=p {
        for north in 1..=p {
            for starter in Side::ALL {
                let open = BySide::new(south, north);
                watch(StartsEvent::Solving { open, starter });
                let solved = solve_start(rules, open, starter, request.opts, &mut |p| {
                    watch(StartsEvent::Progress(p))
                })?;
                watch(StartsEvent::Solved(&solved));
                rows.push(solved);
            }
        }
    }
    let failed = StartsError::Failed;
    let mut written = write_table_formats(&starts_table(&rules, &rows), dir, request.format)
        .map_err(|e| failed(e.to_string()))?;
    let meta = json!({ "rules": rules, "rules_hash": rules.hash(), "table": STARTS });
    written.push(write_meta(&dir.join("solve.json"), &request.command, meta).map_err(failed)?);
    let cells: Vec<crate::plot::exact::StartCell> = rows
        .iter()
        .map(|r| crate::plot::exact::StartCell { open: r.open, starter: r.starter, value: r.value })
        .collect();
    let subtitle = format!(
        "{p} pits a row, {} counters a pit; other rules: {}",
        rules.seeds_per_pit,
        other_rules(&rules)
    );
    written.extend(
        crate::plot::exact::plot_start_values(&cells, p, &subtitle, dir)
            .map_err(|e| failed(e.to_string()))?,
    );
    Ok(StartsSolved { rows, written, seconds: started.elapsed().as_secs_f64() })
}

/// The JSON answer of the solved starts (`solve --all-starts --json`).
pub fn starts_json(rules: &Ruleset, done: &StartsSolved) -> serde_json::Value {
    json!({
        "rules_hash": rules.hash(),
        "starts": done.rows.iter().map(|r| json!({
            "open": [r.open[Side::South], r.open[Side::North]],
            "starter": r.starter,
            "value": r.value,
            "best_moves": r.best_moves.iter().map(|p| p.index()).collect::<Vec<_>>(),
            "positions": r.stats.positions,
        })).collect::<Vec<_>>(),
        "seconds": done.seconds,
        "files": done.written.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_data_docs_describe_the_starts_table() {
        let docs = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/data.md"),
        )
        .unwrap();
        let section = crate::cli::schema::table_markdown(&STARTS);
        assert!(
            docs.contains(&section),
            "docs/data.md lacks the `starts` table as generated:\n{section}"
        );
    }
}
