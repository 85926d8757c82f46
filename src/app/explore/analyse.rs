//! The `analyse` job: the analysis of one position (its moves' exact round values, R15, and
//! match values, R17) as a typed request and one JSON object, the same for the command line
//! and the server. The exact values come from the caller's [`ExactStore`] (the command's own,
//! or the server's, kept between requests), solved there on first use with the job's progress.

use std::sync::Arc;

use serde_json::{json, Value};

use super::game::Start;
use crate::app::job::Job;
use crate::app::FieldError;
use crate::engine::{Outcome, Pit, PitSet, Position, Ruleset, Side};
use crate::exact::{
    analyse, Analysis, ExactStore, MatchOutlook, RoundContext, RoundMatch, RoundValuesError,
    Solution, SolveError,
};

/// Which position to analyse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionSpec {
    /// A match's start, a round's start from each side's holdings, or a position inside a
    /// round (a set-up position's round and ply are not counted from a match's start: `round`
    /// and `ply` are null).
    pub start: Start,
    /// The moves (local pits) played from there.
    pub moves: Vec<usize>,
}

/// A validated analysis request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalyseRequest {
    pub rules: Ruleset,
    pub position: PositionSpec,
    /// Whether to look for match values (R17) at all.
    pub with_match: bool,
}

/// Why a request was not answered.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AnalyseError {
    /// Bad input: the field and what is wrong with it (exit 2; HTTP 400).
    #[error("{field}: {message}")]
    Field { field: &'static str, message: String },
    /// The round cannot be solved within the solver's limits (exit 2; HTTP 400), the limit
    /// met and the figures in the solver's error.
    #[error("the round cannot be solved within the budget: {0}")]
    RoundBudget(SolveError),
    /// The moves' values cannot be had within the budget (exit 2; HTTP 400), with the figures.
    #[error("{0}")]
    Budget(String),
    /// The job was cancelled.
    #[error("cancelled")]
    Cancelled,
}

impl crate::app::BadInput for AnalyseError {
    fn is_bad_input(&self) -> bool {
        !matches!(self, AnalyseError::Cancelled)
    }
}

fn field(field: &'static str, message: impl std::fmt::Display) -> AnalyseError {
    AnalyseError::Field { field, message: message.to_string() }
}

/// The position of a request, with what is known of its match.
struct Located {
    pos: Position,
    /// The match's round and the moves played (known from moves only).
    round: Option<u32>,
    ply: Option<u32>,
    context: Option<RoundContext>,
    /// The match ended with the moves given.
    over: Option<Outcome>,
}

/// The most moves a request may give (the longest of a million random matches is about 5,000).
pub const MAX_MOVES: usize = 100_000;

fn locate(rules: Ruleset, spec: &PositionSpec) -> Result<Located, AnalyseError> {
    let (start, moves) = (&spec.start, &spec.moves);
    if moves.len() > MAX_MOVES {
        return Err(field(
            "moves",
            format!("{} moves; at most {MAX_MOVES} are analysed", moves.len()),
        ));
    }
    let from_field = |e: FieldError| AnalyseError::Field { field: e.field, message: e.message };
    let mut game = start.begin(rules).map_err(from_field)?;
    for (i, &pit) in moves.iter().enumerate() {
        game.play(pit).map_err(|e| {
            field("moves", format!("move {} (pit {pit}) cannot be played: {e}", i + 1))
        })?;
    }
    let rs = game.round_start();
    // Inside a set-up round, what each side kept at the round's start is not known (R17 needs
    // it under next_starter = round_winner); from the next round on it is.
    let context = match start {
        Start::Board { .. } if game.round() == 1 => None,
        _ => Some(RoundContext { kept_south: rs.kept[Side::South], starter: rs.starter }),
    };
    let counted = !start.is_set_up();
    Ok(Located {
        pos: *game.position(),
        round: counted.then(|| game.round()),
        ply: counted.then(|| game.ply()),
        context,
        over: game.outcome(),
    })
}

/// The position a request names (its moves played, its round's start or board set up).
pub fn position_of(rules: Ruleset, spec: &PositionSpec) -> Result<Position, AnalyseError> {
    locate(rules, spec).map(|at| at.pos)
}

/// The R15 solution holding `pos`: its round's, kept in `store`, or for a set-up position its
/// round's start does not reach, one solved from it alone (not kept).
fn round_of(pos: &Position, store: &ExactStore, job: &Job) -> Result<Arc<Solution>, AnalyseError> {
    let budget = |e: SolveError| match e {
        SolveError::Cancelled => AnalyseError::Cancelled,
        e => AnalyseError::RoundBudget(e),
    };
    let (rules, open) = (*pos.rules(), pos.open().map(|set| set.len() as u8));
    let opts = store.settings().solve;
    job.stage("round values (R15)", 0);
    let solution = store
        .round_solution_watched(rules, open, opts, &mut job.solve_watch("round values (R15)"))
        .map_err(budget)?;
    if solution.value(pos).is_some() {
        return Ok(solution);
    }
    Solution::solve_watched(
        &[*pos],
        opts,
        &mut job.solve_watch("the set-up position's values (R15)"),
    )
    .map(Arc::new)
    .map_err(budget)
}

/// The match values (R17) of the round of `at`, or why there are none.
fn round_match_of(
    rules: Ruleset,
    at: &Located,
    store: &ExactStore,
    job: &Job,
) -> Result<Result<RoundMatch, String>, AnalyseError> {
    job.check().map_err(|_| AnalyseError::Cancelled)?;
    job.stage("match table (R17)", 0);
    let table = match store.match_table_cancellable(rules, &mut job.match_watch()) {
        Ok(table) => table,
        Err(crate::exact::MatchError::Solve(SolveError::Cancelled)) => {
            return Err(AnalyseError::Cancelled)
        }
        Err(e) => return Ok(Err(e.to_string())),
    };
    job.check().map_err(|_| AnalyseError::Cancelled)?;
    job.stage("the round's match values (R17)", 0);
    let open = at.pos.open().map(|set| set.len() as u8);
    match store.round_match_watched(&table, open, at.context, &mut job.round_match_watch()) {
        Err(RoundValuesError::Cancelled) => Err(AnalyseError::Cancelled),
        values => Ok(values.map_err(|e| e.to_string())),
    }
}

/// Answers a request: the JSON object that `analyse --json` prints and `GET /api/analyse` returns.
pub fn run(request: &AnalyseRequest, store: &ExactStore, job: &Job) -> Result<Value, AnalyseError> {
    let rules = request.rules;
    let at = locate(rules, &request.position)?;
    if at.over.is_some() {
        return Ok(report(&rules, &at, None, None));
    }
    let solution = round_of(&at.pos, store, job)?;
    let (matches, note) = if request.with_match {
        match round_match_of(rules, &at, store, job)? {
            Ok(m) => (Some(m), None),
            Err(e) => (None, Some(format!("no match values: {e}"))),
        }
    } else {
        (None, None)
    };
    let (analysis, why) = analyse(&at.pos, &solution, matches.as_ref())
        .map_err(|e| AnalyseError::Budget(e.to_string()))?;
    Ok(report(&rules, &at, Some(&analysis), note.or(why.map(|w| format!("no match values: {w}")))))
}

fn outlook_json(o: Option<MatchOutlook>) -> Value {
    o.map_or(Value::Null, |o| json!({ "value": o.value.name(), "rounds": o.rounds }))
}

fn pits(set: PitSet) -> Vec<usize> {
    set.iter().map(Pit::index).collect()
}

/// The JSON object of an analysis (see docs/serve.md).
fn report(
    rules: &Ruleset,
    at: &Located,
    analysis: Option<&Analysis>,
    note: Option<String>,
) -> Value {
    let pos = &at.pos;
    let moves: Vec<Value> = analysis.map_or(Vec::new(), |a| {
        a.moves
            .iter()
            .map(|m| json!({ "pit": m.pit.index(), "round_value": m.round_value, "match": outlook_json(m.match_outlook) }))
            .collect()
    });
    // The round's end when the mover has no legal move (R10): the other side collects.
    let round_end = analysis
        .filter(|a| a.moves.is_empty())
        .map_or(Value::Null, |a| json!({ "collector": pos.turn().other(), "remainder": pos.on_board(), "value": a.value }));
    let match_end = at.over.map_or(Value::Null, |o| json!({ "winner": o.winner() }));
    json!({
        "rules": rules,
        "rules_hash": rules.hash(),
        "to_move": pos.turn(),
        "round": at.round,
        "ply": at.ply,
        "board": board_json(pos),
        "reserve": pos.reserve(),
        "value": analysis.map(|a| a.value),
        "match_value": outlook_json(analysis.and_then(|a| a.match_outlook)),
        "moves": moves,
        "best_round": analysis.map_or(Vec::new(), |a| pits(a.best_round)),
        "best_match": analysis.map_or(Vec::new(), |a| pits(a.best_match)),
        "line": analysis.map_or(Vec::new(), |a| a.line.iter().map(|p| p.index()).collect()),
        "round_end": round_end,
        "match_end": match_end,
        "match_note": note,
    })
}

/// The board as 2P entries in global order: a count, or null for a closed pit (R12).
fn board_json(pos: &Position) -> Vec<Option<u8>> {
    let p = pos.rules().pits_per_row as usize;
    pos.board()
        .iter()
        .enumerate()
        .map(|(g, &n)| {
            pos.open()[Side::from_index(g / p)].contains(Pit::new_unchecked(g % p)).then_some(n)
        })
        .collect()
}
