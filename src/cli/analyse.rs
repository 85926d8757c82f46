//! `rajapasu analyse`: every legal move of one position with its exact round value (R15) and
//! match value (R17) for the side to move (the job: `app::explore::analyse`).

use std::path::PathBuf;

use serde_json::Value;

use super::output::Output;
use super::replay::MoveArgs;
use super::CliError;
use crate::app::explore::analyse::{run as analyse, AnalyseError, AnalyseRequest, PositionSpec};
use crate::app::explore::game::Start;
use crate::app::job::Job;
use crate::engine::{BySide, Side};
use crate::exact::{ExactStore, SolveOptions, StoreSettings};
use crate::size::Size;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The position after these moves from the match's start (--moves, --moves-file, --first;
    /// default: the match's start), unless --holdings or --position gives another.
    #[command(flatten)]
    moves: MoveArgs,
    /// A round's start instead: the holdings of South and North, S,N (R12); --first starts it.
    #[arg(long, value_name = "S,N", conflicts_with_all = ["moves", "moves_file", "position"])]
    holdings: Option<String>,
    /// Any position inside a round instead: the 2P pit counts in global order (R2), x for a
    /// closed pit (R12), e.g. x,7,7,7,0,8,9,7; with --reserve and --to-move.
    #[arg(long, value_name = "PITS", requires_all = ["reserve", "to_move"], conflicts_with_all = ["moves", "moves_file"])]
    position: Option<String>,
    /// With --position: the counters South and North hold off the board, S,N.
    #[arg(long, value_name = "S,N", requires = "position")]
    reserve: Option<String>,
    /// With --position: the side to move.
    #[arg(long, value_parser = ["south", "north"], requires = "position")]
    to_move: Option<String>,
    /// Directory of match tables (R17) and saved round values, read if there and written when
    /// solved. Default: $RAJAPASU_TABLES, else $XDG_CACHE_HOME/rajapasu/tables, else
    /// ~/.cache/rajapasu/tables.
    #[arg(long, value_name = "DIR")]
    tables: Option<PathBuf>,
    /// Memory a solve may use, e.g. 512M, 4G; a board that needs more is reported, not a crash.
    #[arg(long, value_name = "SIZE", default_value_t = Size::DEFAULT_MEMORY)]
    max_memory: Size,
    /// The most positions a solve may reach (a budget by count, the same on every machine).
    #[arg(long, value_name = "N")]
    max_positions: Option<u64>,
    /// Round values only: no match table is read or solved.
    #[arg(long)]
    no_match: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// No progress messages.
    #[arg(long)]
    quiet: bool,
}

/// Parses "A,B" into two numbers; `what` names the flag.
pub fn parse_pair(text: &str, what: &str) -> Result<BySide<u32>, CliError> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let num = |x: &str| {
        x.parse::<u32>().map_err(|_| {
            CliError::usage(format!("{what} {text}: '{x}' is not a number of counters"))
        })
    };
    match parts.as_slice() {
        [s, n] => Ok(BySide::new(num(s)?, num(n)?)),
        _ => Err(CliError::usage(format!("{what} {text}: expected S,N (South's, then North's)"))),
    }
}

/// Parses --position: counts, x for a closed pit.
fn parse_pits(text: &str) -> Result<Vec<Option<u8>>, CliError> {
    text.split(',')
        .map(str::trim)
        .enumerate()
        .map(|(i, x)| match x {
            "x" | "X" => Ok(None),
            _ => x.parse::<u8>().map(Some).map_err(|_| {
                CliError::usage(format!("--position item {}: '{x}' is neither a count of counters (0..=255) nor x (a closed pit)", i + 1))
            }),
        })
        .collect()
}

fn request(args: &Args) -> Result<AnalyseRequest, CliError> {
    let (rules, first, moves) = args.moves.parse()?;
    let start = if let Some(text) = &args.holdings {
        Start::RoundStart { holdings: parse_pair(text, "--holdings")?, starter: first }
    } else if let Some(text) = &args.position {
        let reserve = parse_pair(args.reserve.as_deref().unwrap_or_default(), "--reserve")?;
        let to_move: Side =
            args.to_move.as_deref().unwrap_or_default().parse().map_err(CliError::usage)?;
        Start::Board { pits: parse_pits(text)?, reserve, to_move }
    } else {
        Start::Match { first }
    };
    Ok(AnalyseRequest {
        rules,
        position: PositionSpec { start, moves },
        with_match: !args.no_match,
    })
}

pub fn run(args: Args) -> Result<(), CliError> {
    let request = request(&args)?;
    let max_memory = args.max_memory.bytes();
    let opts = SolveOptions {
        max_memory,
        keep_layers: true,
        max_positions: args.max_positions.unwrap_or(u64::MAX),
    };
    let bar = super::progress::positions_bar("analyse", args.quiet);
    let shown = bar.clone();
    let job = Job::with_listener(move |p| shown.set_message(p.to_string()));
    let tables = crate::cli::tables_dir(args.tables.as_deref())?;
    let store = ExactStore::new(StoreSettings {
        tables,
        cache_bytes: max_memory,
        solve: opts,
        spill: None,
    });
    let result = analyse(&request, &store, &job);
    bar.finish_and_clear();
    let v = result.map_err(|e| {
        let message = match &e {
            AnalyseError::Field { field, message } => {
                format!("{}: {message}", crate::cli::flag(field))
            }
            AnalyseError::RoundBudget(e) => format!(
                "the round cannot be solved within the budget: {}",
                e.describe(&crate::cli::setting)
            ),
            AnalyseError::Budget(message) => message.clone(),
            AnalyseError::Cancelled => "cancelled".to_string(),
        };
        CliError::of(&e, message)
    })?;
    let mut out = Output::lines();
    if args.json {
        out.line(&v)?;
    } else {
        out.text(&text(&v))?;
    }
    out.finish()
}

fn outlook_text(o: &Value) -> String {
    match (o["value"].as_str(), o["rounds"].as_u64()) {
        (Some(v), Some(k)) => format!("{v} in {k}"),
        (Some(v), None) => v.to_string(),
        _ => "-".to_string(),
    }
}

/// The analysis as a table, one line a move.
fn text(v: &Value) -> String {
    let mut t = String::new();
    let place = match (v["round"].as_u64(), v["ply"].as_u64()) {
        (Some(r), Some(p)) => format!("round {r}, after {p} moves: "),
        _ => String::new(),
    };
    if let Some(end) = v["match_end"].as_object() {
        let winner =
            end["winner"].as_str().map_or("unfinished (R14)".to_string(), |w| format!("{w} won"));
        return format!("{place}the match is over: {winner}\n");
    }
    t += &format!(
        "{place}{} to move; value {} (R15); match {} (R17)\n",
        v["to_move"].as_str().unwrap_or("?"),
        v["value"],
        outlook_text(&v["match_value"])
    );
    if let Some(end) = v["round_end"].as_object() {
        t += &format!(
            "no legal move: the round ends, {} collects {} (R10)\n",
            end["collector"].as_str().unwrap_or("?"),
            end["remainder"]
        );
    }
    t += "pit  round  match      best\n";
    let best = |key: &str, pit: &Value| v[key].as_array().is_some_and(|a| a.contains(pit));
    for m in v["moves"].as_array().into_iter().flatten() {
        let marks = [("best_round", "round"), ("best_match", "match")]
            .iter()
            .filter(|(k, _)| best(k, &m["pit"]))
            .map(|(_, n)| *n)
            .collect::<Vec<_>>();
        t += &format!(
            "{:>3}  {:>+5}  {:<9}  {}\n",
            m["pit"].as_u64().unwrap_or(0),
            m["round_value"].as_i64().unwrap_or(0),
            outlook_text(&m["match"]),
            marks.join(" ")
        );
    }
    let line: Vec<String> =
        v["line"].as_array().into_iter().flatten().map(Value::to_string).collect();
    if !line.is_empty() {
        t += &format!("perfect round play from here: {}\n", line.join(" "));
    }
    if let Some(note) = v["match_note"].as_str() {
        t += &format!("{note}\n");
    }
    t
}
