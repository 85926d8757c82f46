//! The `solve` jobs: the exact perfect-play value of a round's start (R15) and of a match
//! state (R17), as typed requests and results, with their JSON answers (the same for the
//! command line and the Python module). Match tables come from the caller's [`ExactStore`].

use std::path::PathBuf;
use std::time::Instant;

use serde_json::json;

use crate::engine::{BySide, PitSet, Ruleset, Side};
use crate::exact::{
    check_holdings, check_open, open_pits, round_start, table_path, ExactStore, MatchError, MatchProgress, MatchState, MatchStats,
    MatchTable, Progress, Solution, SolveError, SolveOptions, SolveStats, SpillError, StateValue,
};

use crate::app::FieldError;

/// Parses a memory size: bytes, or a number with K, M, G or T (powers of 1024), optionally
/// followed by B or iB.
pub fn parse_memory(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let bad = || format!("bad memory size '{text}': expected bytes or a number with K, M, G or T (binary units), e.g. 512M, 4G");
    let upper = t.to_ascii_uppercase();
    let body = upper.trim_end_matches("IB").trim_end_matches('B');
    let (number, unit) = match body.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&body[..i], Some(c)),
        _ => (body, None),
    };
    let shift = match unit {
        None => 0,
        Some('K') => 10,
        Some('M') => 20,
        Some('G') => 30,
        Some('T') => 40,
        Some(_) => return Err(bad()),
    };
    let v: f64 = number.trim().parse().map_err(|_| bad())?;
    if v == 0.0 {
        return Err(format!("'{text}' is 0 bytes: a size must be more than 0"));
    }
    if !v.is_finite() || v < 0.0 {
        return Err(bad());
    }
    let bytes = v * (1u64 << shift) as f64;
    if bytes >= u64::MAX as f64 {
        return Err(bad());
    }
    Ok(bytes as u64)
}

/// Peak resident memory of this process (Linux: VmHWM), in bytes.
pub fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

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
    let v: Vec<String> =
        rules.non_default().into_iter().filter(|s| !s.starts_with("pits_per_row=") && !s.starts_with("seeds_per_pit=")).collect();
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
    /// The open pits of the start, or why they are not a start of this board (field `open`).
    pub fn validate(&self) -> Result<BySide<u8>, FieldError> {
        round_open(&self.rules, self.open)
    }
}

/// The open pits of a round start of `rules` (None: every pit open), or why they are not one
/// (field `open`).
pub fn round_open(rules: &Ruleset, open: Option<BySide<u8>>) -> Result<BySide<u8>, FieldError> {
    match open {
        Some(open) => check_open(rules, open).map(|()| open).map_err(|e| FieldError::new("open", e)),
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

/// Solves the round start (`open`, checked by [`RoundRequest::validate`], `starter`) within
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
    /// The match state, or the first field that is not what it should be (`holdings`,
    /// `max_iterations`).
    pub fn validate(&self) -> Result<MatchState, FieldError> {
        let holdings = match self.holdings {
            Some(h) => check_holdings(h, &self.rules).map(|()| h).map_err(|e| FieldError::new("holdings", e))?,
            None => BySide::splat(self.rules.total_counters() / 2),
        };
        if self.max_iterations == Some(0) {
            return Err(FieldError::new("max_iterations", "0: the rounds loop needs at least 1 iteration (or none: no limit)"));
        }
        Ok(MatchState { holdings, starter: self.starter })
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

/// Solves the match state of `request` from the table of its rules in `store`.
pub fn solve_match(
    store: &ExactStore,
    request: &MatchRequest,
    progress: &mut dyn FnMut(MatchProgress),
) -> Result<MatchSolved, SolveMatchError> {
    let state = request.validate()?;
    let started = Instant::now();
    let (table, cached, path) = match_table(store, request.rules, request.max_iterations, progress)?;
    let value = table.value(state).expect("checked holdings are a match state");
    Ok(MatchSolved { state, value, stats: table.stats().clone(), table: path, cached, seconds: started.elapsed().as_secs_f64() })
}

/// Why a match state was not solved.
#[derive(Debug, thiserror::Error)]
pub enum SolveMatchError {
    #[error("{0}")]
    Field(#[from] FieldError),
    /// The table could not be solved or read (see [`match_error_is_bad_input`]).
    #[error("{0}")]
    Match(#[from] MatchError),
}

/// Whether a match table's error is bad input (a board too large, a tables directory that is
/// not one's own) rather than a failure while working.
pub fn match_error_is_bad_input(e: &MatchError) -> bool {
    match e {
        MatchError::Spill(e) => spill_error_is_bad_input(e),
        e => !matches!(e, MatchError::Io(_) | MatchError::Interrupted { .. }),
    }
}

/// Whether a spilled solve's error is bad input (a board or a disk allowance too small, a
/// directory or file that is not this solve's) rather than a failure while working or a stop
/// as asked.
pub fn spill_error_is_bad_input(e: &SpillError) -> bool {
    matches!(e, SpillError::Solve(_) | SpillError::BadFile(_) | SpillError::OtherSolve { .. } | SpillError::DiskLimit { .. })
}

/// The JSON answer of one solved match state (`solve --match --json`, the Python package's
/// `solve_match`).
pub fn match_solved_json(rules: &Ruleset, solved: &MatchSolved, rss: Option<u64>) -> serde_json::Value {
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
    use crate::exact::StoreSettings;

    fn rules(pits: u8, seeds: u8) -> Ruleset {
        Ruleset { pits_per_row: pits, seeds_per_pit: seeds, ..Ruleset::default() }
    }

    #[test]
    fn memory_sizes() {
        assert_eq!(parse_memory("4G"), Ok(4 << 30));
        assert_eq!(parse_memory("512MiB"), Ok(512 << 20));
        assert_eq!(parse_memory("1.5k"), Ok(1536));
        assert_eq!(parse_memory("1000"), Ok(1000));
        assert_eq!(parse_memory("2TB"), Ok(2 << 40));
        for bad in ["", "G", "-1G", "4X", "lots"] {
            assert!(parse_memory(bad).unwrap_err().contains("512M"), "{bad}");
        }
        for zero in ["0", "0K", "0.0G"] {
            assert!(parse_memory(zero).unwrap_err().ends_with("is 0 bytes: a size must be more than 0"), "{zero}");
        }
    }

    #[test]
    fn a_bad_round_start_names_the_open_field() {
        let request = RoundRequest { rules: rules(3, 2), open: Some(BySide::new(4, 1)), starter: Side::South };
        let e = request.validate().unwrap_err();
        assert_eq!(e.field, "open");
        assert!(e.message.contains("south opens 4 pits") && !e.message.contains("--"), "{e}");
        let fine = RoundRequest { open: None, ..request };
        assert_eq!(fine.validate(), Ok(BySide::splat(3)));
    }

    #[test]
    fn a_bad_match_state_names_its_field() {
        let r = rules(3, 2);
        for (holdings, max_iterations, field, says) in [
            (Some(BySide::new(5, 6)), None, "holdings", "sum to 11"),
            (Some(BySide::new(1, 11)), None, "holdings", "fewer than seeds_per_pit"),
            (None, Some(0), "max_iterations", "at least 1"),
        ] {
            let e = MatchRequest { rules: r, holdings, starter: Side::North, max_iterations }.validate().unwrap_err();
            assert_eq!(e.field, field, "{e}");
            assert!(e.message.contains(says) && !e.message.contains("--"), "{e}");
        }
    }

    /// The store solves the table into its own directory once and answers from it after; the
    /// 2x3 match start is lost in 2 rounds by its starter (the golden solve_match.json).
    #[test]
    fn a_match_state_is_solved_through_the_store_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = ExactStore::new(StoreSettings { tables: dir.path().to_path_buf(), ..StoreSettings::default() });
        let request = MatchRequest { rules: rules(2, 3), holdings: None, starter: Side::South, max_iterations: None };
        let first = solve_match(&store, &request, &mut |_| {}).unwrap();
        assert!(!first.cached && first.table.starts_with(dir.path()) && first.table.is_file());
        assert_eq!((first.value.value.name(), first.value.rounds), ("loss", Some(2)));
        let again = solve_match(&store, &request, &mut |_| {}).unwrap();
        assert!(again.cached);
        assert_eq!(store.counts().match_tables, 1);
        let json = match_solved_json(&request.rules, &again, None);
        assert_eq!((json["holdings"].clone(), json["open"].clone()), (serde_json::json!([6, 6]), serde_json::json!([2, 2])));
    }
}
