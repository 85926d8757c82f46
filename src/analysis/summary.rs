//! The figures `summarize` reports for a dataset (an arm) and for a study of several arms.

use serde::Serialize;

use super::stats::{Difference, Distribution, Points, Proportion};
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

/// The rounds of one round number, or of several consecutive ones where few matches get that
/// far (see [`crate::analysis::summarize::round_groups`]): how often the round's starter won them
/// and how often the match's first player did. A tied round (R11) is won by nobody.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RoundsByNumber {
    /// The group's first and last round number (equal for a single round number).
    pub first_round: u32,
    pub last_round: u32,
    /// Rounds in the group: one per match that reached each of its round numbers.
    pub rounds: u64,
    pub tied: u64,
    /// Rounds won by their starter (R13), of all the group's rounds.
    pub starter_wins: Proportion,
    /// Rounds won by the match's first player (who started round 1), of all the group's rounds:
    /// the first player's share of the round wins, ties counting for neither.
    pub first_player_wins: Proportion,
}

/// An arm's first-player win rate (finished matches) against the study's first arm's.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ArmDifference {
    /// The first arm's name.
    pub reference: String,
    /// This arm's difference from it, in the same test ([`crate::analysis::stats::difference`]).
    #[serde(flatten)]
    pub difference: Difference,
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
    /// Round results by round number, grouped where sparse; needs round detail.
    pub by_round: Vec<RoundsByNumber>,
    /// The first-player rate against the study's first arm's; None for the first arm (and for a
    /// lone dataset).
    pub first_player_vs_first_arm: Option<ArmDifference>,
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
