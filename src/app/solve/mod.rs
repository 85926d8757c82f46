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
