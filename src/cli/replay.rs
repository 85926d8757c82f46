//! `rajapasu replay`: the trace of docs/rules.md for given moves, or with `--dataset` the match
//! written as a dataset of one match (docs/data.md, "A match played from its moves").

use std::path::PathBuf;

use crate::app::explore::export_dataset::{self, DatasetRequest, ExportError};
use crate::app::explore::game::{GameSpec, Start};
use crate::engine::trace::{replay, ReplayError};
use crate::engine::{BySide, GameError, IllegalReason, Ruleset, Side};
use crate::io::dataset::PlayedSeat;

use super::output::Output;
use super::CliError;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    moves: MoveArgs,
    #[command(flatten)]
    dataset: DatasetArgs,
}

/// The game written as a dataset of one match instead of its trace printed.
#[derive(clap::Args, Debug)]
struct DatasetArgs {
    /// Write the match (played to its end) as a dataset of one match into DIR, a new directory
    /// (docs/data.md, "A match played from its moves"), instead of printing its trace.
    #[arg(long, value_name = "DIR")]
    dataset: Option<PathBuf>,
    /// Who played South: human (a person's moves), or a built-in player each of whose moves was
    /// its choice with --seed (checked).
    #[arg(long, value_name = "PLAYER", default_value = "human", requires = "dataset")]
    south: String,
    /// Who played North, as --south.
    #[arg(long, value_name = "PLAYER", default_value = "human", requires = "dataset")]
    north: String,
    /// The seed of the built-in players: each move's random stream is (seed, ply before it, seat).
    #[arg(long, default_value_t = 1, requires = "dataset")]
    seed: u64,
    /// Tables to write: match, round, move or lap (as simulate's --detail).
    #[arg(long, default_value = "lap", requires = "dataset")]
    detail: String,
    /// parquet, csv or both.
    #[arg(long, default_value = "parquet", requires = "dataset")]
    format: String,
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
    text.trim().parse::<usize>().map_err(|_| {
        CliError::usage(format!(
            "{what}: '{text}' is not a pit number (a local pit 0..pits_per_row-1)"
        ))
    })
}

/// Longest --moves-file, in bytes: the longest match of a million takes about 20 KB, and the
/// file may be anything (`/dev/zero`), so it is read only this far.
pub const MAX_MOVES_FILE_BYTES: u64 = 16 << 20;

fn read_moves_file(path: &std::path::Path) -> Result<String, CliError> {
    let bad = |what: String| CliError::usage(format!("--moves-file {}: {what}", path.display()));
    let file = std::fs::File::open(path).map_err(|e| bad(e.to_string()))?;
    let bytes = crate::io::verify::read_bounded(file, MAX_MOVES_FILE_BYTES).map_err(|e| match e
        .kind()
    {
        std::io::ErrorKind::InvalidData => bad(format!(
            "longer than {} MiB, the limit of a moves file",
            MAX_MOVES_FILE_BYTES >> 20
        )),
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
                for item in
                    line.split(|c: char| c == ',' || c.is_whitespace()).filter(|s| !s.is_empty())
                {
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
        GameError::Over(_) => {
            format!("move at ply {} comes after the match's end: {}", e.ply, e.error)
        }
    };
    CliError::Usage(msg)
}

/// Writes the moves as a dataset of one match into `dir`.
fn write_dataset(
    dir: &std::path::Path,
    args: &DatasetArgs,
    rules: Ruleset,
    first: Side,
    moves: Vec<usize>,
) -> Result<(), CliError> {
    let seat = |text: &str, flag: &str| {
        text.parse::<PlayedSeat>().map_err(|e| CliError::usage(format!("{flag}: {e}")))
    };
    let request = DatasetRequest {
        game: GameSpec { rules, start: Start::Match { first }, moves },
        seats: BySide::new(seat(&args.south, "--south")?, seat(&args.north, "--north")?),
        seed: args.seed,
        detail: args.detail.parse().map_err(|e| CliError::usage(format!("--detail: {e}")))?,
        format: args.format.parse().map_err(|e| CliError::usage(format!("--format: {e}")))?,
    };
    let players = crate::agents::Resources::default();
    let job = crate::app::job::Job::default();
    let manifest = export_dataset::write(&request, dir, &players, &super::command_line(), &job)
        .map_err(|e| match e {
            ExportError::Field(e) => super::field_error(e),
            ExportError::Dataset(e) => super::dataset_errors::dataset_error(
                e,
                &super::dataset_errors::Destination::Dataset,
            ),
            e @ (ExportError::Tables(_) | ExportError::Cancelled) => CliError::of(&e, &e),
        })?;
    eprintln!(
        "replay: wrote {} ({}; run {})",
        dir.display(),
        crate::app::simulate::describe_rows(&manifest),
        manifest.run_id
    );
    Ok(())
}

pub fn run(args: Args) -> Result<(), CliError> {
    let (rules, first, moves) = args.moves.parse()?;
    if let Some(dir) = &args.dataset.dataset {
        return write_dataset(dir, &args.dataset, rules, first, moves);
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
    result.map(|_| ()).map_err(|e| replay_error(&e))
}
