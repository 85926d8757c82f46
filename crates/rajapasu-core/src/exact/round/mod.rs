//! A round solved (R15): its positions enumerated level by level of counters on the board from
//! the top, then valued from the bottom up. In memory (`solver`, numbering each level in a table)
//! or with its levels on disk (`spill`, each level found by delayed duplicate detection in
//! `bucketed` and valued by the lean attractor of `lean_level`); both share the moves' layout,
//! the exit rule and the in-level attractor, and give the same values.

pub(in crate::exact) mod bucketed;
pub(in crate::exact) mod enumerate;
#[cfg(test)]
mod enumerate_tests;
pub(in crate::exact) mod key_table;
pub(in crate::exact) mod layers;
#[cfg(test)]
mod layers_tests;
pub(in crate::exact) mod lean_level;
#[cfg(test)]
mod lean_level_tests;
pub(in crate::exact) mod level_moves;
pub(in crate::exact) mod packed_board;
pub(in crate::exact) mod rank_bitmap;
pub(in crate::exact) mod solve_error;
pub(in crate::exact) mod solver;
pub(in crate::exact) mod spill;
#[cfg(test)]
mod spill_tests;
#[cfg(test)]
mod tests;
