//! Matches (R12-R14) under perfect play: the match value of every match state (R17), found by
//! the rounds loop over each open-pit configuration's round graph (`round_graph`, its moves
//! converted from the enumeration's in `graph_moves`), kept in memory (`match_solver`), on disk
//! (`match_spill`) or split into tasks across machines (`match_cluster`), the masks of a range
//! of a level on disk computed by `range_masks`; the values a perfect player reads in one round
//! (`round_values`); the match tables on disk and their checks (`tables`, `table_check`); and
//! the chain of rounds under perfect round play (`chain`, its rounds in memory or on disk:
//! `chain_spill`).

pub(in crate::exact) mod chain;
pub(in crate::exact) mod chain_spill;
#[cfg(test)]
mod chain_spill_tests;
pub(in crate::exact) mod graph_moves;
pub(in crate::exact) mod match_cluster;
pub(in crate::exact) mod match_solver;
pub(in crate::exact) mod match_spill;
#[cfg(test)]
pub(in crate::exact) mod match_spill_tests;
#[cfg(test)]
pub(in crate::exact) mod match_tests;
pub(in crate::exact) mod range_masks;
pub(in crate::exact) mod round_graph;
pub(in crate::exact) mod round_values;
pub(in crate::exact) mod table_check;
pub(in crate::exact) mod tables;
