//! One board of the perfect_play study: round 1 solved (R15), random play on the same board,
//! matches under perfect round play with either tie-break, and the perfect-match value (R17).

use std::collections::HashMap;
use std::ops::ControlFlow;

use rayon::prelude::*;

use crate::agents::AgentSpec;
use crate::analysis::stats::{proportion, Proportion};
use crate::engine::{BySide, Ruleset, Side};
use crate::exact::{
    perfect_match, ChainOutcome, ExactStore, SolveError, SolveOptions, StateValue, TieBreak,
};
use crate::sim::{simulate_batch, Detail, FirstPolicy, RunConfig, Shard};

use super::{
    BoardRow, FrontierRow, PerfectPlayError, PerfectPlayEvent, PerfectPlayRequest,
    CHAIN_MAX_POSITIONS, MATCH_MAX_POSITIONS,
};
use crate::app::solve::match_value::match_table;
use crate::app::solve::round::{outcome, solve_start, Solved};
use crate::app::BadInput;

/// One board: round 1 solved, random play, the matches under perfect round play and the
/// perfect-match value.
pub(super) fn board(
    request: &PerfectPlayRequest,
    rules: Ruleset,
    store: Option<&ExactStore>,
    watch: &mut dyn FnMut(PerfectPlayEvent) -> ControlFlow<()>,
) -> Result<(BoardRow, Option<FrontierRow>), PerfectPlayError> {
    let opts = request.solve_options();
    let _ = watch(PerfectPlayEvent::Solving(rules));
    let solved =
        solve_start(rules, BySide::splat(rules.pits_per_row), Side::South, opts, &mut |p| {
            let _ = watch(PerfectPlayEvent::Progress(p));
        });
    let _ = watch(PerfectPlayEvent::Solved);
    let solved = match solved {
        Ok(solved) => Some(solved),
        Err(
            SolveError::PositionLimit { .. }
            | SolveError::MemoryLimit { .. }
            | SolveError::TooManyCounters { .. }
            | SolveError::TooManyArrangements { .. }
            | SolveError::IndexLimit { .. },
        ) => None,
        Err(e) => return Err(PerfectPlayError::Solve(e)),
    };
    let wins = random_round1(rules, request.matches, request.seed);
    let rate = proportion(wins, request.matches);
    let (lowest, highest) = match &solved {
        Some(x) if x.stats.positions <= CHAIN_MAX_POSITIONS => {
            (chain(rules, TieBreak::Lowest, opts).ok(), chain(rules, TieBreak::Highest, opts).ok())
        }
        _ => (None, None),
    };
    let match_solved = match (&solved, store) {
        (Some(x), Some(store))
            if x.stats.positions <= MATCH_MAX_POSITIONS || store.has_match_table(&rules) =>
        {
            match_value(store, rules, watch)?
        }
        _ => None,
    };
    let row = board_row(
        rules,
        solved.as_ref(),
        request.matches,
        wins,
        rate,
        [lowest, highest],
        match_solved,
    );
    Ok((row, solved.as_ref().map(|x| frontier_row(rules, x))))
}

#[allow(clippy::too_many_arguments)]
fn board_row(
    rules: Ruleset,
    solved: Option<&Solved>,
    matches: u64,
    wins: u64,
    rate: Proportion,
    [lowest, highest]: [Option<(&'static str, u32)>; 2],
    match_solved: Option<StateValue>,
) -> BoardRow {
    let counters = rules.total_counters();
    BoardRow {
        pits_per_row: rules.pits_per_row,
        seeds_per_pit: rules.seeds_per_pit,
        counters,
        status: if solved.is_some() { "solved" } else { "beyond_limit" },
        value: solved.map(|x| x.value),
        outcome: solved.map(|x| outcome(x.value)),
        value_share: solved.map(|x| x.value as f64 / counters as f64),
        best_moves: solved.map(|x| x.best_moves.to_string()),
        positions: solved.map(|x| x.stats.positions),
        random_matches: matches,
        random_round1_starter_wins: wins,
        random_round1_starter_win_rate: rate.rate,
        random_ci_low: rate.ci_low,
        random_ci_high: rate.ci_high,
        match_lowest: lowest.map(|c| c.0),
        match_lowest_rounds: lowest.map(|c| c.1),
        match_highest: highest.map(|c| c.0),
        match_highest_rounds: highest.map(|c| c.1),
        match_value: match_solved.map(|v| v.value.name()),
        match_rounds: match_solved.and_then(|v| v.rounds),
    }
}

fn frontier_row(rules: Ruleset, solved: &Solved) -> FrontierRow {
    let st = &solved.stats;
    FrontierRow {
        pits_per_row: rules.pits_per_row,
        seeds_per_pit: rules.seeds_per_pit,
        positions: st.positions,
        seconds: st.seconds(),
        positions_per_second: st.positions_per_second(),
        table_bytes: st.table_bytes,
        bytes_per_position: st.bytes_per_position(),
        peak_bytes: st.peak_bytes,
    }
}

/// Round-1 starter wins under random play on `rules` (first player alternating).
fn random_round1(rules: Ruleset, matches: u64, seed: u64) -> u64 {
    let cfg = RunConfig {
        rules,
        south: AgentSpec::Random,
        north: AgentSpec::Random,
        first: FirstPolicy::Alternate,
        seed,
        matches,
        detail: Detail::Match,
        batch_size: Detail::Match.default_batch_size().min(matches.max(1)),
        shard: Shard::WHOLE,
    };
    let players = crate::agents::Resources::default();
    (0..cfg.batches())
        .into_par_iter()
        .map(|b| {
            let batch = simulate_batch(&cfg, &players, b).expect("random players always decide");
            let m = &batch.matches;
            m.first.iter().zip(&m.round1_winner).filter(|(f, w)| w.winner() == Some(**f)).count()
                as u64
        })
        .sum()
}

/// A match under perfect round play, South first: its outcome and rounds.
fn chain(
    rules: Ruleset,
    tie: TieBreak,
    opts: SolveOptions,
) -> Result<(&'static str, u32), SolveError> {
    let mut cache = HashMap::new();
    let m = perfect_match(rules, Side::South, tie, opts, &mut cache)?;
    let rounds = match m.outcome {
        ChainOutcome::Cycle { to, .. } => to - 1,
        _ => m.rounds.len() as u32,
    };
    Ok((m.outcome.label(Side::South), rounds))
}

/// The perfect-match value of the board's match (South first), from the store's tables
/// directory or solved there; None when it does not fit the store's limits (or its table is
/// not one).
fn match_value(
    store: &ExactStore,
    rules: Ruleset,
    watch: &mut dyn FnMut(PerfectPlayEvent) -> ControlFlow<()>,
) -> Result<Option<StateValue>, PerfectPlayError> {
    let _ = watch(PerfectPlayEvent::MatchTable(rules));
    match match_table(store, rules, None, &mut |p| {
        let _ = watch(PerfectPlayEvent::MatchProgress(p));
    }) {
        Ok((table, _, _)) => Ok(Some(table.match_value(Side::South))),
        Err(e) if e.is_bad_input() => Ok(None),
        Err(e) => Err(PerfectPlayError::Match(e)),
    }
}
