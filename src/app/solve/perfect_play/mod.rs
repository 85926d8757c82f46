//! The vocabulary of the perfect_play study (`solve --study`, the job: `study.rs`): its
//! request, the rows of its summary and frontier, what it tells its caller as it goes, its
//! result and its errors.

mod board;
mod files;
mod study;

pub use study::run;

use std::path::PathBuf;

use serde::Serialize;

use crate::engine::Ruleset;
use crate::exact::{MatchError, MatchProgress, Progress, SolveError, SolveOptions};
use crate::io::Formats;

use crate::app::FieldError;

/// The default budget of positions per board: every board up to 7x7 is inside it (the largest,
/// 7x6, has 113 million positions: about 4 minutes on 2 cores).
pub const STUDY_MAX_POSITIONS: u64 = 150_000_000;

/// Matches under perfect round play are played on boards whose round 1 has at most this many
/// positions (every other round start of the match is solved too).
pub const CHAIN_MAX_POSITIONS: u64 = 20_000_000;

/// Boards whose round 1 has at most this many positions are match-solved (R17); the match
/// table (every open-pit configuration, both starters) is a few times larger.
pub const MATCH_MAX_POSITIONS: u64 = 20_000_000;

/// The study to run, before it is checked.
#[derive(Clone, Debug)]
pub struct PerfectPlayRequest {
    /// The switches of every board; its board size is replaced by each board's.
    pub rules: Ruleset,
    /// The largest pits per row (2..=9) and counters per pit (1..=12) of the boards.
    pub max_pits_per_row: u8,
    pub max_seeds_per_pit: u8,
    /// Memory each solve may use.
    pub max_memory: u64,
    /// The most positions a board's round 1 may reach; None: [`STUDY_MAX_POSITIONS`].
    pub max_positions: Option<u64>,
    /// Random-play matches per board (first player alternating), and their master seed.
    pub matches: u64,
    pub seed: u64,
    /// The directory of the summary, frontier, summary.json and chart.
    pub out: PathBuf,
    pub format: Formats,
    /// The command recorded in summary.json.
    pub command: String,
    /// Where summary.json says the match tables come from, in the front end's words.
    pub tables_source: String,
}

impl PerfectPlayRequest {
    /// The study to run, or the first field that is not what it should be (`max_pits_per_row`,
    /// `max_seeds_per_pit`, `max_memory`, `matches`).
    pub fn validate(&self) -> Result<PerfectPlayStudy, FieldError> {
        self.check()?;
        Ok(PerfectPlayStudy { request: self.clone() })
    }

    fn check(&self) -> Result<(), FieldError> {
        if !(2..=9).contains(&self.max_pits_per_row) {
            return Err(FieldError::new(
                "max_pits_per_row",
                format!("{} is not in 2..=9", self.max_pits_per_row),
            ));
        }
        if !(1..=12).contains(&self.max_seeds_per_pit) {
            return Err(FieldError::new(
                "max_seeds_per_pit",
                format!("{} is not in 1..=12", self.max_seeds_per_pit),
            ));
        }
        if self.max_memory == 0 {
            return Err(FieldError::new("max_memory", "0 bytes: a solve needs some memory"));
        }
        crate::sim::check_matches(self.matches)
            .map(|_| ())
            .map_err(|e| FieldError::new("matches", e))
    }

    /// The limits of every solve of the study, match tables' included.
    pub fn solve_options(&self) -> SolveOptions {
        SolveOptions {
            max_memory: self.max_memory,
            keep_layers: false,
            max_positions: self.max_positions.unwrap_or(STUDY_MAX_POSITIONS),
        }
    }
}

/// A study request, checked: what [`run`] runs.
#[derive(Clone, Debug)]
pub struct PerfectPlayStudy {
    request: PerfectPlayRequest,
}

impl PerfectPlayStudy {
    pub fn request(&self) -> &PerfectPlayRequest {
        &self.request
    }
}

/// One board of the study (a row of the summary).
#[derive(Clone, Debug, Serialize)]
pub struct BoardRow {
    pub pits_per_row: u8,
    pub seeds_per_pit: u8,
    pub counters: u32,
    /// "solved", or "beyond_limit" when the board needs more than the budget.
    pub status: &'static str,
    pub value: Option<i32>,
    pub outcome: Option<&'static str>,
    /// value / counters on the board.
    pub value_share: Option<f64>,
    pub best_moves: Option<String>,
    pub positions: Option<u64>,
    pub random_matches: u64,
    pub random_round1_starter_wins: u64,
    pub random_round1_starter_win_rate: f64,
    pub random_ci_low: f64,
    pub random_ci_high: f64,
    /// Match under perfect round play, first player South: first, second, cycle, endless_round
    /// (or empty when not played); ties broken by the lowest / highest local pit.
    pub match_lowest: Option<&'static str>,
    pub match_lowest_rounds: Option<u32>,
    pub match_highest: Option<&'static str>,
    pub match_highest_rounds: Option<u32>,
    /// Perfect match play (R17) from the match's start, South first: win, draw or loss for
    /// South, and rounds (empty beyond the limit).
    pub match_value: Option<&'static str>,
    pub match_rounds: Option<u32>,
}

/// Timings of one solved board (machine-dependent, kept apart from the summary).
#[derive(Clone, Debug, Serialize)]
pub struct FrontierRow {
    pub pits_per_row: u8,
    pub seeds_per_pit: u8,
    pub positions: u64,
    pub seconds: f64,
    pub positions_per_second: f64,
    pub table_bytes: u64,
    pub bytes_per_position: f64,
    pub peak_bytes: u64,
}

/// What the study tells its caller as it goes; a [`ControlFlow::Break`] answer to `Started`
/// or `Board` stops it ([`PerfectPlayError::Stopped`]).
pub enum PerfectPlayEvent<'a> {
    /// The directory is there; the boards come next.
    Started,
    /// Round 1 of the board of `rules` is being solved.
    Solving(Ruleset),
    Progress(Progress),
    /// Round 1 is solved or beyond the budget; random play and matches come next.
    Solved,
    /// The board's match table is being read or solved.
    MatchTable(Ruleset),
    MatchProgress(MatchProgress),
    /// A board is done, with its timings if it was solved.
    Board {
        row: &'a BoardRow,
        frontier: Option<&'a FrontierRow>,
    },
}

/// The study's boards and the files written.
pub struct PerfectPlayRun {
    pub rows: Vec<BoardRow>,
    pub frontier: Vec<FrontierRow>,
    pub written: Vec<PathBuf>,
    pub seconds: f64,
}

impl PerfectPlayRun {
    /// The boards solved within the budget.
    pub fn boards_solved(&self) -> usize {
        self.rows.iter().filter(|r| r.status == "solved").count()
    }
}

/// Why the study stopped.
#[derive(Debug, thiserror::Error)]
pub enum PerfectPlayError {
    #[error("{0}")]
    Field(#[from] FieldError),
    /// A round solve failed otherwise than by a board beyond the budget.
    #[error("{0}")]
    Solve(SolveError),
    /// A match table failed while being solved or read (not a board too large).
    #[error("{0}")]
    Match(MatchError),
    /// Its caller stopped it.
    #[error("stopped by its caller")]
    Stopped,
    /// A file could not be written.
    #[error("{0}")]
    Failed(String),
}

/// A board beyond the budget is a row of the study, not an error: what is left is a bad field,
/// or a failure while working.
impl crate::app::BadInput for PerfectPlayError {
    fn is_bad_input(&self) -> bool {
        match self {
            PerfectPlayError::Field(_) => true,
            PerfectPlayError::Match(e) => crate::app::BadInput::is_bad_input(e),
            PerfectPlayError::Solve(_)
            | PerfectPlayError::Stopped
            | PerfectPlayError::Failed(_) => false,
        }
    }
}

/// The round-1 outcome in the words of a match value (for the starter).
pub fn round_answer(outcome: &str) -> &'static str {
    match outcome {
        "starter_win" => "win",
        "draw" => "draw",
        _ => "loss",
    }
}
