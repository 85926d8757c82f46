//! One round start solved (R15), as a typed request and result with its JSON answer (the same
//! for the command line and the Python module), and the words every solve job shares.

use serde_json::json;

use crate::engine::{BySide, PitSet, Ruleset, Side};
use crate::exact::{
    check_open, round_start, Progress, Solution, SolveError, SolveOptions, SolveStats,
};

use crate::app::FieldError;

/// "starter_win", "draw" or "starter_loss".
pub fn outcome(value: i32) -> &'static str {
    match value.signum() {
        1 => "starter_win",
        0 => "draw",
        _ => "starter_loss",
    }
}

/// The switches other than the board size that differ from the default, or "default".
pub fn other_rules(rules: &Ruleset) -> String {
    let v: Vec<String> = rules
        .non_default()
        .into_iter()
        .filter(|s| !s.starts_with("pits_per_row=") && !s.starts_with("seeds_per_pit="))
        .collect();
    if v.is_empty() {
        "default".to_string()
    } else {
        v.join(" ")
    }
}

/// A round start to solve (R15), before it is checked.
#[derive(Clone, Copy, Debug)]
pub struct RoundRequest {
    pub rules: Ruleset,
    /// Open pits of South and North (R12); None: every pit open (round 1).
    pub open: Option<BySide<u8>>,
    pub starter: Side,
}

impl RoundRequest {
    /// The round start to solve, or why its open pits are not a start of this board (field
    /// `open`).
    pub fn validate(&self) -> Result<RoundStart, FieldError> {
        Ok(RoundStart {
            rules: self.rules,
            open: round_open(&self.rules, self.open)?,
            starter: self.starter,
        })
    }
}

/// A round start of its board, checked: what [`RoundStart::solve`] solves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundStart {
    pub rules: Ruleset,
    pub open: BySide<u8>,
    pub starter: Side,
}

impl RoundStart {
    /// Solves the start within `opts` ([`solve_start`]).
    pub fn solve(
        &self,
        opts: SolveOptions,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<Solved, SolveError> {
        solve_start(self.rules, self.open, self.starter, opts, progress)
    }
}

/// The open pits of a round start of `rules` (None: every pit open), or why they are not one
/// (field `open`).
pub fn round_open(rules: &Ruleset, open: Option<BySide<u8>>) -> Result<BySide<u8>, FieldError> {
    match open {
        Some(open) => {
            check_open(rules, open).map(|()| open).map_err(|e| FieldError::new("open", e))
        }
        None => Ok(BySide::splat(rules.pits_per_row)),
    }
}

/// One solved round start.
pub struct Solved {
    pub open: BySide<u8>,
    pub starter: Side,
    pub value: i32,
    pub best_moves: PitSet,
    pub stats: SolveStats,
}

/// Solves the round start (`open`, checked by [`round_open`], `starter`) within
/// `opts`: its own reachable positions, so its statistics describe this start alone (a
/// store's round solutions hold both starters).
pub fn solve_start(
    rules: Ruleset,
    open: BySide<u8>,
    starter: Side,
    opts: SolveOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<Solved, SolveError> {
    let root = round_start(rules, open, starter);
    let solution = Solution::solve(&[root], opts, progress)?;
    Ok(Solved {
        open,
        starter,
        value: solution.value(&root).expect("the root is reachable"),
        best_moves: solution.best_moves(&root),
        stats: solution.stats().clone(),
    })
}

/// The JSON answer of one solved round start (`solve --json`, the Python package's `solve`).
pub fn solved_json(rules: &Ruleset, solved: &Solved, rss: Option<u64>) -> serde_json::Value {
    let (p, open, starter, st) = (rules.pits_per_row, solved.open, solved.starter, &solved.stats);
    let best: Vec<usize> = solved.best_moves.iter().map(|p| p.index()).collect();
    json!({
            "rules": rules,
            "rules_hash": rules.hash(),
            "pits_per_row": p,
            "seeds_per_pit": rules.seeds_per_pit,
            "open": [open[Side::South], open[Side::North]],
            "starter": starter,
            "value": solved.value,
            "outcome": outcome(solved.value),
            "best_moves": best,
            "positions": st.positions,
            "level_positions": st.level_positions,
            "quiet_moves": st.quiet_moves,
            "exits": st.exits,
            "seconds": st.seconds(),
            "enumerate_seconds": st.enumerate_seconds,
            "solve_seconds": st.solve_seconds,
            "positions_per_second": st.positions_per_second(),
            "table_bytes": st.table_bytes,
            "bytes_per_position": st.bytes_per_position(),
            "peak_bytes": st.peak_bytes,
            "peak_rss_bytes": rss,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::solve::board as rules;

    #[test]
    fn a_bad_round_start_names_the_open_field() {
        let request = RoundRequest {
            rules: rules(3, 2),
            open: Some(BySide::new(4, 1)),
            starter: Side::South,
        };
        let e = request.validate().unwrap_err();
        assert_eq!(e.field, "open");
        assert!(e.message.contains("south opens 4 pits") && !e.message.contains("--"), "{e}");
        let fine = RoundRequest { open: None, ..request };
        assert_eq!(fine.validate().map(|start| start.open), Ok(BySide::splat(3)));
    }
}
