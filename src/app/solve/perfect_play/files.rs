//! The files of the perfect_play study: the summary (the same on every rerun), the frontier
//! (timings), summary.json and the chart.

use std::path::PathBuf;

use serde_json::json;

use crate::app::solve::meta::write_meta;
use crate::io::{write_table_formats, Formats};
use crate::plot::exact::{plot_perfect_play, BoardPoint};
use crate::plot::thousands;
use crate::sim::table::{Column, ColumnData, Table};

use super::{
    round_answer, BoardRow, FrontierRow, PerfectPlayError, PerfectPlayRequest, CHAIN_MAX_POSITIONS,
    MATCH_MAX_POSITIONS,
};

/// Writes the study's files into the request's directory; the files written.
pub(super) fn write(
    request: &PerfectPlayRequest,
    rows: &[BoardRow],
    frontier: &[FrontierRow],
) -> Result<Vec<PathBuf>, PerfectPlayError> {
    let dir = &request.out;
    let failed = PerfectPlayError::Failed;
    let mut written = write_table_formats(&summary_table(rows), dir, request.format)
        .map_err(|e| failed(e.to_string()))?;
    written.extend(
        write_table_formats(&frontier_table(frontier), dir, Formats::Csv)
            .map_err(|e| failed(e.to_string()))?,
    );
    written.push(
        write_meta(&dir.join("summary.json"), &request.command, summary_json(request, rows))
            .map_err(failed)?,
    );
    written.extend(chart(request, rows).map_err(failed)?);
    Ok(written)
}

/// The summary: a board not solved within the study's bounds has its exact columns absent
/// (empty cells, Parquet nulls), never 0, "" or NaN; so has a drawn match's rounds (R17).
fn summary_table(rows: &[BoardRow]) -> Table {
    let opt_i64 = |f: &dyn Fn(&BoardRow) -> Option<i64>| ColumnData::or_null(rows.iter().map(f));
    let opt_text =
        |f: &dyn Fn(&BoardRow) -> Option<String>| ColumnData::or_null(rows.iter().map(f));
    let int = |f: &dyn Fn(&BoardRow) -> i64| ColumnData::I64(rows.iter().map(f).collect());
    let float = |f: &dyn Fn(&BoardRow) -> f64| ColumnData::F64(rows.iter().map(f).collect());
    let text = |f: &dyn Fn(&BoardRow) -> String| ColumnData::Text(rows.iter().map(f).collect());
    let col = |name, data| Column { name, data };
    Table {
        name: "summary",
        columns: vec![
            col("pits_per_row", int(&|r| r.pits_per_row as i64)),
            col("seeds_per_pit", int(&|r| r.seeds_per_pit as i64)),
            col("counters", int(&|r| r.counters as i64)),
            col("status", text(&|r| r.status.to_string())),
            col("value", opt_i64(&|r| r.value.map(i64::from))),
            col("outcome", opt_text(&|r| r.outcome.map(str::to_string))),
            col("value_share", ColumnData::or_null(rows.iter().map(|r| r.value_share))),
            col("best_moves", opt_text(&|r| r.best_moves.clone())),
            col("positions", opt_i64(&|r| r.positions.map(|p| p as i64))),
            col("random_matches", int(&|r| r.random_matches as i64)),
            col("random_round1_starter_wins", int(&|r| r.random_round1_starter_wins as i64)),
            col("random_round1_starter_win_rate", float(&|r| r.random_round1_starter_win_rate)),
            col("random_ci_low", float(&|r| r.random_ci_low)),
            col("random_ci_high", float(&|r| r.random_ci_high)),
            col("match_lowest", opt_text(&|r| r.match_lowest.map(str::to_string))),
            col("match_lowest_rounds", opt_i64(&|r| r.match_lowest_rounds.map(i64::from))),
            col("match_highest", opt_text(&|r| r.match_highest.map(str::to_string))),
            col("match_highest_rounds", opt_i64(&|r| r.match_highest_rounds.map(i64::from))),
            col("match_value", opt_text(&|r| r.match_value.map(str::to_string))),
            col("match_rounds", opt_i64(&|r| r.match_rounds.map(i64::from))),
        ],
    }
}

fn frontier_table(frontier: &[FrontierRow]) -> Table {
    let int = |f: &dyn Fn(&FrontierRow) -> i64| ColumnData::I64(frontier.iter().map(f).collect());
    let float = |f: &dyn Fn(&FrontierRow) -> f64| ColumnData::F64(frontier.iter().map(f).collect());
    let col = |name, data| Column { name, data };
    Table {
        name: "frontier",
        columns: vec![
            col("pits_per_row", int(&|r| r.pits_per_row as i64)),
            col("seeds_per_pit", int(&|r| r.seeds_per_pit as i64)),
            col("positions", int(&|r| r.positions as i64)),
            col("seconds", float(&|r| r.seconds)),
            col("positions_per_second", float(&|r| r.positions_per_second)),
            col("table_bytes", int(&|r| r.table_bytes as i64)),
            col("bytes_per_position", float(&|r| r.bytes_per_position)),
            col("peak_bytes", int(&|r| r.peak_bytes as i64)),
        ],
    }
}

fn summary_json(request: &PerfectPlayRequest, rows: &[BoardRow]) -> serde_json::Value {
    let opts = request.solve_options();
    json!({
        "versions": crate::io::dataset::versions(),
        "rules": request.rules,
        "boards": format!("pits_per_row 2..={}, seeds_per_pit 1..={}", request.max_pits_per_row, request.max_seeds_per_pit),
        "max_positions": opts.max_positions,
        "max_memory": opts.max_memory,
        "random_play": {"matches": request.matches, "seed": request.seed, "players": "random vs random", "first": "alternate"},
        "perfect_match": {"first": "south", "tie_breaks": ["lowest", "highest"], "boards": format!("round 1 with at most {CHAIN_MAX_POSITIONS} positions")},
        "match_value": {"rule": "R17", "first": "south", "boards": format!("round 1 with at most {MATCH_MAX_POSITIONS} positions"), "tables": request.tables_source},
        "boards_solved": rows.iter().filter(|r| r.status == "solved").count(),
        "rows": rows,
    })
}

/// The chart of the solved boards: perfect-play value share against random play's win rate.
fn chart(request: &PerfectPlayRequest, rows: &[BoardRow]) -> Result<Vec<PathBuf>, String> {
    let points: Vec<BoardPoint> = rows
        .iter()
        .filter_map(|r| {
            Some(BoardPoint {
                pits_per_row: r.pits_per_row,
                seeds_per_pit: r.seeds_per_pit,
                random_win_rate: r.random_round1_starter_win_rate,
                perfect_share: r.value_share?,
                match_differs: r
                    .match_value
                    .is_some_and(|m| Some(m) != r.outcome.map(round_answer)),
            })
        })
        .collect();
    let subtitle = format!(
        "{} boards solved exactly (each within {} positions); random play: {} matches a board, 95% Wilson intervals in summary.csv",
        points.len(),
        thousands(request.solve_options().max_positions),
        thousands(request.matches)
    );
    plot_perfect_play(&points, &subtitle, request.out.as_path()).map_err(|e| e.to_string())
}
