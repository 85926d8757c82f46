//! `rajapasu replay`: the trace of docs/rules.md for given moves.

use std::path::PathBuf;

use crate::engine::trace::{replay, ReplayError};
use crate::engine::{GameError, IllegalReason, Ruleset, Side};

use super::output::Output;
use super::CliError;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    moves: MoveArgs,
}

/// A match given as moves: who starts, the moves and the rules (shared with `show`).
#[derive(clap::Args, Debug)]
pub struct MoveArgs {
    /// Who starts round 1.
    #[arg(long, value_parser = ["south", "north"], default_value = "south")]
    pub first: String,
    /// Local pits (0 = the mover's left end), comma-separated, e.g. 6,3,0.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    pub moves: Vec<String>,
    /// A file of local pits separated by commas, spaces or newlines (# starts a comment).
    #[arg(long)]
    pub moves_file: Option<PathBuf>,
    #[command(flatten)]
    pub rules: super::RuleArgs,
}

fn parse_pit(text: &str, what: &str) -> Result<usize, CliError> {
    text.trim()
        .parse::<usize>()
        .map_err(|_| CliError::usage(format!("{what}: '{text}' is not a pit number (a local pit 0..pits_per_row-1)")))
}

/// Longest --moves-file, in bytes: the longest match of a million takes about 20 KB, and the
/// file may be anything (`/dev/zero`), so it is read only this far.
pub const MAX_MOVES_FILE_BYTES: u64 = 16 << 20;

fn read_moves_file(path: &std::path::Path) -> Result<String, CliError> {
    let bad = |what: String| CliError::usage(format!("--moves-file {}: {what}", path.display()));
    let file = std::fs::File::open(path).map_err(|e| bad(e.to_string()))?;
    let bytes = crate::io::verify::read_bounded(file, MAX_MOVES_FILE_BYTES).map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidData => bad(format!("longer than {} MiB, the limit of a moves file", MAX_MOVES_FILE_BYTES >> 20)),
        _ => bad(e.to_string()),
    })?;
    String::from_utf8(bytes).map_err(|e| bad(format!("not UTF-8 text ({e})")))
}

impl MoveArgs {
    /// The rules, the first player and the moves (from --moves, then --moves-file).
    pub fn parse(&self) -> Result<(Ruleset, Side, Vec<usize>), CliError> {
        let rules = self.rules.ruleset()?;
        let first: Side = self.first.parse().map_err(CliError::usage)?;
        let mut moves = Vec::new();
        for (i, m) in self.moves.iter().filter(|m| !m.trim().is_empty()).enumerate() {
            moves.push(parse_pit(m, &format!("--moves item {}", i + 1))?);
        }
        if let Some(path) = &self.moves_file {
            let text = read_moves_file(path)?;
            for (n, line) in text.lines().enumerate() {
                let line = line.split('#').next().unwrap_or("");
                for item in line.split(|c: char| c == ',' || c.is_whitespace()).filter(|s| !s.is_empty()) {
                    moves.push(parse_pit(item, &format!("{} line {}", path.display(), n + 1))?);
                }
            }
        }
        Ok((rules, first, moves))
    }
}

/// The error of a move that cannot be played at its ply (exit 2).
pub fn replay_error(e: &ReplayError) -> CliError {
    let msg = match &e.error {
        GameError::Illegal(p) if p.reason == IllegalReason::Endless => {
            format!("illegal move at ply {}: {} (it is endless: a lap would repeat an earlier lap's position)", e.ply, p)
        }
        GameError::Illegal(p) => format!("illegal move at ply {}: {}", e.ply, p),
        GameError::Over(_) => format!("move at ply {} comes after the match's end: {}", e.ply, e.error),
    };
    CliError::Usage(msg)
}

pub fn run(args: Args) -> Result<(), CliError> {
    let (rules, first, moves) = args.moves.parse()?;
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
    result.map(|_| ()).map_err(|e| replay_error(&e))
}
