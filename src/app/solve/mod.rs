//! The `solve` jobs: exact perfect-play values of a round's start (R15) and of match states
//! (R17), one at a time or all of a board, in memory or with their levels on disk, and the
//! perfect_play study over many boards.

pub mod all_starts;
pub mod all_states;
pub mod match_value;
mod meta;
pub mod perfect_match;
pub mod perfect_play;
pub mod round;
pub mod spill;

/// The default switches on a board of `pits` a row and `seeds` a pit, for the tests of the
/// solve jobs.
#[cfg(test)]
fn board(pits: u8, seeds: u8) -> crate::engine::Ruleset {
    crate::engine::Ruleset {
        pits_per_row: pits,
        seeds_per_pit: seeds,
        ..crate::engine::Ruleset::default()
    }
}
