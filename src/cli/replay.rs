//! `rajapasu replay`: the trace of RULES.md for given moves.

use std::path::PathBuf;

use crate::engine::trace::replay;
use crate::engine::{GameError, IllegalReason, Side};

use super::output::Output;
use super::CliError;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Who starts round 1.
    #[arg(long, value_parser = ["south", "north"], default_value = "south")]
    first: String,
    /// Local pits (0 = the mover's left end), comma-separated, e.g. 6,3,0.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    moves: Vec<String>,
    /// A file of local pits separated by commas, spaces or newlines (# starts a comment).
    #[arg(long)]
    moves_file: Option<PathBuf>,
    #[command(flatten)]
    rules: super::RuleArgs,
}

fn parse_pit(text: &str, what: &str) -> Result<usize, CliError> {
    text.trim()
        .parse::<usize>()
        .map_err(|_| CliError::usage(format!("{what}: '{text}' is not a pit number (a local pit 0..pits_per_row-1)")))
}

pub fn run(args: Args) -> Result<(), CliError> {
    let rules = args.rules.ruleset()?;
    let first: Side = args.first.parse().map_err(CliError::usage)?;
    let mut moves = Vec::new();
    for (i, m) in args.moves.iter().filter(|m| !m.trim().is_empty()).enumerate() {
        moves.push(parse_pit(m, &format!("--moves item {}", i + 1))?);
    }
    if let Some(path) = &args.moves_file {
        let text = std::fs::read_to_string(path).map_err(|e| CliError::usage(format!("--moves-file {}: {e}", path.display())))?;
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("");
            for item in line.split(|c: char| c == ',' || c.is_whitespace()).filter(|s| !s.is_empty()) {
                moves.push(parse_pit(item, &format!("{} line {}", path.display(), n + 1))?);
            }
        }
    }
    let mut out = Output::buffered();
    let mut write_error = None;
    let result = replay(rules, first, &moves, |event| {
        if write_error.is_none() {
            if let Err(e) = out.line(event.to_json()) {
                write_error = Some(e);
            }
        }
    });
    if let Some(e) = write_error {
        return Err(e);
    }
    out.finish()?;
    match result {
        Ok(_) => Ok(()),
        Err(e) => {
            let msg = match &e.error {
                GameError::Illegal(p) if p.reason == IllegalReason::Endless => {
                    format!("illegal move at ply {}: {} (it is endless: a lap would repeat an earlier lap's position)", e.ply, p)
                }
                GameError::Illegal(p) => format!("illegal move at ply {}: {}", e.ply, p),
                GameError::Over(_) => format!("move at ply {} comes after the match's end: {}", e.ply, e.error),
            };
            Err(CliError::Usage(msg))
        }
    }
}
