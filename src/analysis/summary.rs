//! The figures `summarize` reports for a dataset (an arm) and for a study of several arms.

use serde::Serialize;

use super::stats::{Distribution, Points, Proportion};
use crate::engine::BySide;

/// Counters a side captured, by source (R6, R8, R10), over all matches of an arm.
pub type CaptureSources = crate::sim::CaptureCounts<u64>;

/// Mean open pits of each side at the start of round `round` (R12: the closed-pit dynamics).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct OpenPits {
    pub round: u32,
    /// Matches that reached this round.
    pub matches: u64,
    pub south_mean_open: f64,
    pub north_mean_open: f64,
    /// Mean open pits of the round's starter.
    pub starter_mean_open: f64,
}

/// Everything `summarize` reports for one dataset.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ArmSummary {
    /// Arm name (the dataset directory's name).
    pub name: String,
    pub rules: String,
    pub rules_hash: String,
    pub south: String,
    pub north: String,
    pub first: String,
    pub seed: u64,
    pub detail: String,
    pub matches: u64,
    pub finished: u64,
    pub unfinished: u64,
    /// Wins of the player who started round 1, among finished matches.
    pub first_player_wins: Proportion,
    /// The first player's points over all matches, an unfinished match counting as half a win
    /// (R16).
    pub first_player_points: Points,
    /// Wins of each seat among finished matches.
    pub seat_wins: BySide<Proportion>,
    /// Rounds won by their starter, among all rounds (tied rounds count as not won).
    pub round_starter_wins: Proportion,
    pub tied_rounds: u64,
    /// Round 1 won by its starter, among all matches.
    pub round1_starter_wins: Proportion,
    pub rounds_per_match: Distribution,
    /// Needs round detail; None at match detail.
    pub moves_per_round: Option<Distribution>,
    pub moves_per_match: Distribution,
    pub laps_per_move: Distribution,
    pub lap_length: Distribution,
    pub capture_sources: BySide<CaptureSources>,
    /// Needs round detail; empty at match detail.
    pub open_pits: Vec<OpenPits>,
    pub endless_moves: u64,
    /// Histograms behind the distributions, for charts: (value, count), sorted by value.
    pub lap_length_histogram: Vec<(u64, u64)>,
    pub laps_per_move_histogram: Vec<(u64, u64)>,
    pub rounds_histogram: Vec<(u64, u64)>,
}

/// A study: one summary per arm, side by side.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StudySummary {
    pub name: String,
    pub arms: Vec<ArmSummary>,
}
