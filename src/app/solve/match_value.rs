//! One match state solved (R17), as a typed request and result with its JSON answer (the same
//! for the command line and the Python module). Match tables come from the caller's
//! [`ExactStore`].

use std::path::PathBuf;
use std::time::Instant;

use serde_json::json;

use crate::app::FieldError;
use crate::engine::{BySide, Ruleset, Side};
use crate::exact::{
    check_holdings, open_pits, table_path, ExactStore, MatchError, MatchProgress, MatchState,
    MatchStats, MatchTable, StateValue,
};

/// A match state to solve (R17), before it is checked.
#[derive(Clone, Copy, Debug)]
pub struct MatchRequest {
    pub rules: Ruleset,
    /// Holdings of South and North at the round's start; None: the match's start.
    pub holdings: Option<BySide<u32>>,
    pub starter: Side,
    /// Stop a solve after this many iterations of its rounds loop (at least 1); None: no limit.
    pub max_iterations: Option<u32>,
}

impl MatchRequest {
    /// The match state to solve, or the first field that is not what it should be
    /// (`holdings`, `max_iterations`).
    pub fn validate(&self) -> Result<MatchJob, FieldError> {
        let holdings = match self.holdings {
            Some(h) => check_holdings(h, &self.rules)
                .map(|()| h)
                .map_err(|e| FieldError::new("holdings", e))?,
            None => BySide::splat(self.rules.total_counters() / 2),
        };
        check_max_iterations(self.max_iterations)?;
        Ok(MatchJob {
            rules: self.rules,
            state: MatchState { holdings, starter: self.starter },
            max_iterations: self.max_iterations,
        })
    }
}

/// A match state of its board, checked: what [`solve_match`] solves.
#[derive(Clone, Copy, Debug)]
pub struct MatchJob {
    pub rules: Ruleset,
    pub state: MatchState,
    pub max_iterations: Option<u32>,
}

/// A bound on the iterations of a match table's rounds loop: at least 1, or none (no limit).
pub fn check_max_iterations(max_iterations: Option<u32>) -> Result<(), FieldError> {
    match max_iterations {
        Some(0) => Err(FieldError::new(
            "max_iterations",
            "0: the rounds loop needs at least 1 iteration (or none: no limit)",
        )),
        _ => Ok(()),
    }
}

/// The match table of `rules` from `store` (its tables directory, where it is solved and kept
/// if absent), a solve stopping after `max_iterations`; whether it was found rather than
/// solved now, and its file.
pub fn match_table(
    store: &ExactStore,
    rules: Ruleset,
    max_iterations: Option<u32>,
    progress: &mut dyn FnMut(MatchProgress),
) -> Result<(std::sync::Arc<MatchTable>, bool, PathBuf), MatchError> {
    let (table, found) = store.match_table_watched(rules, max_iterations, progress)?;
    Ok((table, found, table_path(&store.settings().tables, &rules)))
}

/// One solved match state (R17).
pub struct MatchSolved {
    pub state: MatchState,
    pub value: StateValue,
    pub stats: MatchStats,
    /// The table's file in the tables directory.
    pub table: PathBuf,
    /// The table was found (read from disk), not solved now.
    pub cached: bool,
    pub seconds: f64,
}

/// Solves the match state of `job` from the table of its rules in `store`; an error that
/// [`crate::app::BadInput::is_bad_input`] is a board too large or a tables directory not one's own.
pub fn solve_match(
    store: &ExactStore,
    job: &MatchJob,
    progress: &mut dyn FnMut(MatchProgress),
) -> Result<MatchSolved, MatchError> {
    let state = job.state;
    let started = Instant::now();
    let (table, cached, path) = match_table(store, job.rules, job.max_iterations, progress)?;
    let value = table.value(state).expect("checked holdings are a match state");
    Ok(MatchSolved {
        state,
        value,
        stats: table.stats().clone(),
        table: path,
        cached,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The JSON answer of one solved match state (`solve --match --json`, the Python package's
/// `solve_match`).
pub fn match_solved_json(
    rules: &Ruleset,
    solved: &MatchSolved,
    rss: Option<u64>,
) -> serde_json::Value {
    let MatchState { holdings, starter } = solved.state;
    let open = open_pits(rules, holdings[Side::South]);
    let best: Vec<usize> = solved.value.best_moves.iter().map(|p| p.index()).collect();
    json!({
        "rules": rules,
        "rules_hash": rules.hash(),
        "pits_per_row": rules.pits_per_row,
        "seeds_per_pit": rules.seeds_per_pit,
        "holdings": [holdings[Side::South], holdings[Side::North]],
        "starter": starter,
        "open": [open[Side::South], open[Side::North]],
        "value": solved.value.value,
        "rounds": solved.value.rounds,
        "best_moves": best,
        "table": solved.table.display().to_string(),
        "cached": solved.cached,
        "seconds": solved.seconds,
        "stats": solved.stats,
        "peak_rss_bytes": rss,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::solve::board as rules;
    use crate::exact::StoreSettings;

    #[test]
    fn a_bad_match_state_names_its_field() {
        let r = rules(3, 2);
        for (holdings, max_iterations, field, says) in [
            (Some(BySide::new(5, 6)), None, "holdings", "sum to 11"),
            (Some(BySide::new(1, 11)), None, "holdings", "fewer than seeds_per_pit"),
            (None, Some(0), "max_iterations", "at least 1"),
        ] {
            let e = MatchRequest { rules: r, holdings, starter: Side::North, max_iterations }
                .validate()
                .unwrap_err();
            assert_eq!(e.field, field, "{e}");
            assert!(e.message.contains(says) && !e.message.contains("--"), "{e}");
        }
    }

    /// The store solves the table into its own directory once and answers from it after; the
    /// 2x3 match start is lost in 2 rounds by its starter (the golden solve_match.json).
    #[test]
    fn a_match_state_is_solved_through_the_store_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = ExactStore::new(StoreSettings {
            tables: dir.path().to_path_buf(),
            ..StoreSettings::default()
        });
        let request = MatchRequest {
            rules: rules(2, 3),
            holdings: None,
            starter: Side::South,
            max_iterations: None,
        };
        let job = request.validate().unwrap();
        let first = solve_match(&store, &job, &mut |_| {}).unwrap();
        assert!(!first.cached && first.table.starts_with(dir.path()) && first.table.is_file());
        assert_eq!((first.value.value.name(), first.value.rounds), ("loss", Some(2)));
        let again = solve_match(&store, &job, &mut |_| {}).unwrap();
        assert!(again.cached);
        assert_eq!(store.counts().match_tables, 1);
        let json = match_solved_json(&request.rules, &again, None);
        assert_eq!(
            (json["holdings"].clone(), json["open"].clone()),
            (serde_json::json!([6, 6]), serde_json::json!([2, 2]))
        );
    }
}
