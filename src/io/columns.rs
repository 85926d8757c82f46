//! The checks of a table's columns against a file and a schema, for both formats.

use std::path::Path;

use super::error::IoError;
use crate::sim::schema::TableSpec;
use crate::sim::table::Table;

/// Checks that a table about to be written has equally long columns with distinct names.
pub(super) fn check_table(table: &Table, path: &Path) -> Result<(), IoError> {
    let rows = table.rows();
    for (i, c) in table.columns.iter().enumerate() {
        if c.data.len() != rows {
            return Err(IoError::schema(
                path,
                c.name,
                format!(
                    "has {} rows but column `{}` has {rows}",
                    c.data.len(),
                    table.columns[0].name
                ),
            ));
        }
        if table.columns[..i].iter().any(|d| d.name == c.name) {
            return Err(IoError::schema(path, c.name, "appears twice in the table"));
        }
    }
    Ok(())
}

/// Maps the columns found in a file to the spec's columns: `result[i]` is the file's index of
/// the spec's column `i`. Any missing, unexpected or repeated column is an error naming it.
pub(super) fn match_columns(
    path: &Path,
    spec: &TableSpec,
    found: &[&str],
) -> Result<Vec<usize>, IoError> {
    for (i, name) in found.iter().enumerate() {
        if found[..i].contains(name) {
            return Err(IoError::schema(path, name, "appears twice in the file"));
        }
        if !spec.columns.iter().any(|c| c.name == *name) {
            return Err(IoError::schema(
                path,
                name,
                format!(
                    "is not a column of table `{}` (its columns: {})",
                    spec.name,
                    column_list(spec)
                ),
            ));
        }
    }
    spec.columns
        .iter()
        .map(|c| {
            found.iter().position(|n| *n == c.name).ok_or_else(|| {
                IoError::schema(
                    path,
                    c.name,
                    format!(
                        "is missing (table `{}` has columns: {})",
                        spec.name,
                        column_list(spec)
                    ),
                )
            })
        })
        .collect()
}

fn column_list(spec: &TableSpec) -> String {
    spec.columns.iter().map(|c| c.name).collect::<Vec<_>>().join(", ")
}
