//! A game exported as files: its move list, its trace (the JSON lines of `replay`) and the
//! self-contained replay page of `show`, the same for the command line and the server.

use super::game::{GameSpec, Start};
use crate::app::FieldError;
use crate::engine::{Ruleset, Side};
use crate::show::{page_html, Film, PageInfo};

/// The moves as `replay --moves` takes them: local pits, comma-separated, one line.
pub fn move_list(moves: &[usize]) -> String {
    let items: Vec<String> = moves.iter().map(usize::to_string).collect();
    format!("{}\n", items.join(","))
}

/// The trace of the game: exactly the lines `replay` prints for its moves (one JSON object a
/// line).
pub fn trace_lines(spec: &GameSpec) -> Result<String, FieldError> {
    let mut out = String::new();
    spec.trace(|event| {
        out.push_str(&event.to_json());
        out.push('\n');
    })?;
    Ok(out)
}

/// The replay page of the game, opening at `ply` (0: the match's start, as `show` opens; None:
/// after the last move).
pub fn replay_page(spec: &GameSpec, ply: Option<u32>) -> Result<String, FieldError> {
    let film = spec.film()?;
    let ply = ply.unwrap_or(film.plies());
    if ply > film.plies() {
        return Err(FieldError::new(
            "ply",
            format!("{ply}: the game has {} moves (plies 0..={})", film.plies(), film.plies()),
        ));
    }
    let mut info = match &spec.start {
        Start::Match { first } => moves_page_info(&spec.rules, *first, spec.moves.len(), &film),
        _ => set_up_page_info(&spec.rules, spec.moves.len(), &film),
    };
    info.initial_ply = ply;
    Ok(page_html(&film, &info))
}

/// The title and lines of the replay page of `moves` moves from a match's start (`show --moves`).
pub fn moves_page_info(rules: &Ruleset, first: Side, moves: usize, film: &Film) -> PageInfo {
    let about = vec![
        format!("{} moved first; {moves} moves given on the command line.", capital(first)),
        rules_line(rules),
        outcome_line(film),
    ];
    PageInfo { title: format!("Raja Pasu: a replay of {moves} moves"), about, initial_ply: 0 }
}

fn set_up_page_info(rules: &Ruleset, moves: usize, film: &Film) -> PageInfo {
    let about = vec![
        format!("{} moved first from a set-up position; {moves} moves played from it (rounds counted from it).", capital(film.first)),
        rules_line(rules),
        outcome_line(film),
    ];
    PageInfo {
        title: format!("Raja Pasu: {moves} moves from a set-up position"),
        about,
        initial_ply: 0,
    }
}

pub fn capital(side: Side) -> &'static str {
    match side {
        Side::South => "South",
        Side::North => "North",
    }
}

/// The rules of a replay page: their hash and the switches that differ from the defaults.
pub fn rules_line(rules: &Ruleset) -> String {
    let changed = rules.non_default();
    let what = if changed.is_empty() {
        "the default rules".to_string()
    } else {
        format!("the default rules but {}", changed.join(", "))
    };
    format!("Rules {} ({what}).", rules.hash())
}

/// How the match of a replay page ends, or where its moves stop.
pub fn outcome_line(film: &Film) -> String {
    let moves = film.plies();
    let rounds = film.rounds.len();
    match film.over {
        Some(o) => match o.winner {
            Some(w) => format!(
                "{} won the match after {rounds} rounds and {moves} moves, holding {} of {} counters (R14).",
                capital(w),
                o.holdings[w],
                film.rules.total_counters()
            ),
            None => format!("The match is unfinished after {rounds} rounds (max_rounds, R14) and {moves} moves."),
        },
        None => format!("The moves stop in round {rounds}, after {moves} moves, before the match's end."),
    }
}
