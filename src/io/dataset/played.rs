//! A dataset of one match played from its moves (the manifest's `played`), checked row by row:
//! its moves, replayed under its rules, give every table's rows again, and each part file (of
//! each format) must hold exactly those rows. An edited row is found even when its progress
//! marker's checksums were edited to match.

use super::error::DatasetError;
use super::reader::Dataset;
use crate::io::read_table;
use crate::sim::schema::table_spec;
use crate::sim::table::Table;
use crate::sim::{replay_match, Batch, Shard};

/// What differs between the part files of a played dataset and the rows its moves give; empty
/// for a dataset not played from its moves, or one whose rows all agree.
pub fn played_problems(dataset: &Dataset) -> Result<Vec<String>, DatasetError> {
    let m = dataset.manifest();
    let Some(played) = &m.played else { return Ok(Vec::new()) };
    let pits = match played.pits() {
        Ok(p) => p,
        Err(e) => return Ok(vec![format!("manifest.json: field `played`: moves: {e}")]),
    };
    let cfg = crate::sim::RunConfig { shard: Shard::WHOLE, ..m.config() };
    let mut batch = Batch::default();
    if let Err(e) = replay_match(&cfg, 0, &pits, &mut batch) {
        return Ok(vec![format!(
            "manifest.json: the played moves do not replay under its rules: {e}"
        )]);
    }
    let layout = dataset.layout();
    let mut problems = Vec::new();
    for expected in batch.into_tables(m.detail) {
        let spec = table_spec(expected.name).expect("a table of the schema");
        for format in m.format.list() {
            let relative = std::path::Path::new(expected.name).join(layout.part_name(0, format));
            let found = read_table(&dataset.dir.join(&relative), spec)?;
            if let Some(what) = first_difference(&found, &expected) {
                problems.push(format!(
                    "{}: {what} (the rows are not those of the manifest's moves)",
                    relative.display()
                ));
            }
        }
    }
    Ok(problems)
}

/// The first row and column where `found` differs from `expected`, if any.
fn first_difference(found: &Table, expected: &Table) -> Option<String> {
    if found.rows() != expected.rows() {
        return Some(format!("{} rows, the moves give {}", found.rows(), expected.rows()));
    }
    for (f, e) in found.columns.iter().zip(&expected.columns) {
        if f.data == e.data {
            continue;
        }
        let row = (0..expected.rows()).find(|&i| f.data.show(i) != e.data.show(i)).unwrap_or(0);
        return Some(format!(
            "row {}, column `{}`: {}, the moves give {}",
            row + 1,
            e.name,
            f.data.show(row),
            e.data.show(row)
        ));
    }
    None
}
