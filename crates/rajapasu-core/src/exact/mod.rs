//! Exact analysis of small boards: the perfect-play value of round positions (docs/rules.md R15)
//! by retrograde analysis, and matches played by perfect round play. Depends on the engine only.

mod analysis;
mod files;
mod index;
mod matches;
mod once_cache;
pub(crate) mod perfect;
mod prefetch;
mod round;
mod setting;
mod store;
#[cfg(test)]
mod test_rules;
mod unranker;

pub use analysis::{
    analyse, round_solution, Analysis, AnalysisError, MatchOutlook, MoveAnalysis, RoundContext,
    RoundMatch, LINE_MOVES,
};
pub use files::temporaries::remove_stale_temporaries;
pub use index::{Compositions, RankSet};
pub use matches::chain::{
    perfect_match, play_chain, ChainOutcome, ChainRound, ChainRounds, PerfectMatch, RoundRecord,
};
pub use matches::chain_spill::{SpilledChainRound, SpilledRounds};
pub use matches::match_cluster::{ClusterFigures, ClusterSolve, Step as ClusterStep, MAX_BUCKETS};
pub use matches::match_solver::{
    open_pits, state_holdings, MatchCheckpoint, MatchError, MatchProgress, MatchState, MatchStats,
    MatchTable, MatchValue, MatchWatch, StateValue, NEVER,
};
pub use matches::round_values::RoundValuesError;
pub use matches::tables::{
    default_tables_dir, load_or_solve, load_or_solve_spilled, load_or_solve_watched,
    match_spill_dir, read_checkpoint, stamp_checkpoint, table_path, table_stored, tables_dir,
    write_checkpoint, NoTablesDir, Stamped, MAX_TABLE_BYTES, TABLES_ENV,
};
pub use perfect::{PerfectError, PerfectKind, PerfectPlayer};
pub use round::solver::{
    check_board_size, Progress, SendWatch, Solution, SolveError, SolveOptions, SolveStats,
    TieBreak, Watch, DEFAULT_MAX_MEMORY, MAX_COUNTERS,
};
pub use round::spill::{LevelFigures, SpillError, SpillOptions, SpilledRound};
pub use setting::{Naming, Setting};
pub use store::{ExactStore, StoreCounts, StoreSettings, DEFAULT_CACHE_BYTES};

use crate::engine::{BySide, Position, Ruleset, Side};

/// The starting position of a round with `open` pits per side (R12: open pits at the right
/// end, each holding `seeds_per_pit`), `starter` to move. Reserves are irrelevant to R15.
pub fn round_start(rules: Ruleset, open: BySide<u8>, starter: Side) -> Position {
    let s = rules.seeds_per_pit as u32;
    Position::round_start(rules, open.map(|o| o as u32 * s), starter).0
}

/// Checks an open-pit configuration: each side opens 1..=pits_per_row pits (R12).
pub fn check_open(rules: &Ruleset, open: BySide<u8>) -> Result<(), String> {
    let p = rules.pits_per_row;
    for side in Side::ALL {
        if !(1..=p).contains(&open[side]) {
            return Err(format!(
                "{side} opens {} pits; each side opens 1..={p} pits on a {p}-pit row (R12)",
                open[side]
            ));
        }
    }
    Ok(())
}

/// Checks holdings (South, North) at a round's start, a match state of `rules`: they sum to
/// the board's total and each side holds enough to open a pit (R12, R14).
pub fn check_holdings(h: BySide<u32>, rules: &Ruleset) -> Result<(), String> {
    let total = rules.total_counters() as u64;
    let s = rules.seeds_per_pit as u32;
    let sum = h[Side::South] as u64 + h[Side::North] as u64;
    if sum != total {
        return Err(format!("the holdings sum to {sum}; this board has {total} counters (2 x pits_per_row x seeds_per_pit)"));
    }
    match Side::ALL.into_iter().find(|&side| h[side] < s) {
        Some(side) => Err(format!(
            "{side} holds {} counters, fewer than seeds_per_pit = {s}: the match is over (R14)",
            h[side]
        )),
        None => Ok(()),
    }
}
