//! `rajapasu schema`: every table and column of a dataset, with types and meanings.

use std::fmt::Write as _;

use crate::io::rows;
use crate::sim::schema::{TableSpec, ALL_TABLES};

use super::output::Output;
use super::CliError;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print Markdown (as in docs/data.md) instead of JSON.
    #[arg(long)]
    markdown: bool,
}

/// The tables as Markdown: a section per table with a column table.
pub fn markdown() -> String {
    ALL_TABLES.iter().map(table_markdown).collect()
}

/// One table as Markdown (as in docs/data.md): its section, column table and invariants.
pub fn table_markdown(t: &TableSpec) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "### `{}`\n\nOne row per {}.\n\n| column | type | meaning |\n|---|---|---|",
        t.name,
        t.row.trim_start_matches("one ")
    );
    for c in t.columns {
        let ty = serde_json::to_value(c.ty).unwrap();
        let _ = writeln!(s, "| `{}` | {} | {} |", c.name, ty.as_str().unwrap(), c.meaning);
    }
    s.push('\n');
    s.push_str(&invariants_markdown(t.name));
    s
}

/// A table's invariants as Markdown: what every reader checks its rows against.
pub fn invariants_markdown(table: &str) -> String {
    let list = rows::invariants(table);
    if list.is_empty() {
        return String::new();
    }
    let mut s = String::from("Invariants, checked whenever the table is read (a dataset breaking one is refused with exit 2, naming the table, the row and the column):\n\n");
    for inv in list {
        let _ = writeln!(s, "- `{table}.{}`: {}", inv.name, inv.rule);
    }
    s.push('\n');
    s
}

pub fn run(args: Args) -> Result<(), CliError> {
    let text = if args.markdown {
        markdown()
    } else {
        serde_json::to_string_pretty(&ALL_TABLES).map_err(CliError::failed)? + "\n"
    };
    let mut out = Output::lines();
    out.text(&text)?;
    out.finish()
}
