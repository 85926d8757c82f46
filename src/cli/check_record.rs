//! `rajapasu check-record`: a recorded game (docs/records.md), or a bare move list, replayed
//! under every reading of the rules (the job: `app::explore::check_record`).

use std::path::PathBuf;

use serde_json::Value;

use super::output::Output;
use super::CliError;
use crate::app::explore::check_record::{base_rules, reading_label, run as check, CheckRequest};
use crate::engine::{Ruleset, Side};
use crate::game_record::{Record, MAX_RECORD_BYTES};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The record file (docs/records.md).
    #[arg(value_name = "FILE", required_unless_present = "moves", conflicts_with = "moves")]
    file: Option<PathBuf>,
    /// A bare move list instead: local pits (0 = the mover's left end), comma-separated.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    moves: Option<Vec<String>>,
    /// With --moves: who starts round 1.
    #[arg(long, value_parser = ["south", "north"], default_value = "south", requires = "moves")]
    first: String,
    /// A switch every reading shares, name=value (pits_per_row, seeds_per_pit, max_rounds).
    #[arg(long = "rule", value_name = "NAME=VALUE")]
    rules: Vec<String>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

fn read_record(path: &std::path::Path) -> Result<Record, CliError> {
    let bad = |what: String| CliError::usage(format!("{}: {what}", path.display()));
    let bytes =
        crate::files::read_regular_file(path, MAX_RECORD_BYTES as u64).map_err(|e| {
            match e.kind() {
                std::io::ErrorKind::InvalidData => bad(format!(
                    "longer than {} KiB, the limit of a record, or not UTF-8 text",
                    MAX_RECORD_BYTES >> 10
                )),
                _ => bad(e.to_string()),
            }
        })?;
    Record::parse(&bytes).map_err(|e| bad(e.to_string()))
}

fn request(args: &Args) -> Result<CheckRequest, CliError> {
    let record = match (&args.file, &args.moves) {
        (Some(path), _) => read_record(path)?,
        (None, Some(moves)) => {
            let first: Side = args.first.parse().map_err(CliError::usage)?;
            let pits = moves
                .iter()
                .filter(|m| !m.trim().is_empty())
                .enumerate()
                .map(|(i, m)| {
                    m.trim().parse::<usize>().map_err(|_| {
                        CliError::usage(format!("--moves item {}: '{m}' is not a local pit", i + 1))
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            Record::from_moves(first, &pits)
        }
        (None, None) => return Err(CliError::usage("give a record FILE or --moves")),
    };
    let base = base_rules(&record, &args.rules).map_err(|e| {
        let field = if e.field == "rules" {
            "--rule".to_string()
        } else {
            "the record's rules: line".to_string()
        };
        CliError::usage(format!("{field}: {}", e.message))
    })?;
    Ok(CheckRequest { base, record })
}

pub fn run(args: Args) -> Result<(), CliError> {
    let request = request(&args)?;
    let v = check(&request);
    let mut out = Output::buffered();
    if args.json {
        out.line(&v)?;
    } else {
        out.text(&text(&v))?;
    }
    out.finish()
}

fn text(v: &Value) -> String {
    let mut t = format!(
        "{} moves ({} with observations), {} starting; {} of {} readings consistent\n",
        v["moves"],
        v["observations"],
        v["first"].as_str().unwrap_or("?"),
        v["consistent_readings"],
        v["readings"].as_array().map_or(0, Vec::len)
    );
    for r in v["readings"].as_array().into_iter().flatten() {
        let rules: Ruleset = serde_json::from_value(r["rules"].clone()).unwrap_or_default();
        let verdict = match r["first_disagreement"].as_object() {
            None => "consistent".to_string(),
            Some(d) => {
                format!("disagrees at move {}: {}", d["ply"], d["what"].as_str().unwrap_or(""))
            }
        };
        t += &format!("{:<72} {verdict}\n", reading_label(&rules));
    }
    t
}
