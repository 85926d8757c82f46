//! Typed records: what the recorders (`recorders.rs`) produce, one record type per table.
//!
//! Records keep the engine's vocabulary ([`Side`], [`BySide`], [`Outcome`], [`MoveSummary`]);
//! the schema ([`super::schema`]) lays them out as columns and turns symbol values into the
//! names written in files. Nothing upstream of the schema handles a column name or a symbol name.

use crate::engine::{BySide, MoveSummary, Outcome, Pit, Side};

/// A value of a symbol column: one of a fixed list of names, or null. The list is the only
/// place a value's name is spelled; files are read back through it.
pub trait Symbol: Copy + PartialEq + 'static {
    /// Every value, with its name in files (None: written as null).
    const NAMES: &'static [(Self, Option<&'static str>)];

    /// The name written for this value.
    #[inline]
    fn name(self) -> Option<&'static str> {
        Self::NAMES
            .iter()
            .find(|(v, _)| *v == self)
            .map(|&(_, n)| n)
            .expect("every value of a symbol type has a name")
    }

    /// The value written as `name`, or None when `name` is not one of this type's.
    fn from_name(name: Option<&str>) -> Option<Self> {
        Self::NAMES.iter().find(|(_, n)| *n == name).map(|&(v, _)| v)
    }

    /// The allowed names, for error messages: "south, north, null".
    fn allowed() -> String {
        Self::NAMES.iter().map(|(_, n)| n.unwrap_or("null")).collect::<Vec<_>>().join(", ")
    }
}

impl Symbol for Side {
    const NAMES: &'static [(Side, Option<&'static str>)] =
        &[(Side::South, Some("south")), (Side::North, Some("north"))];
}

/// A match's winner: null when it is unfinished (R14).
impl Symbol for Option<Side> {
    const NAMES: &'static [(Option<Side>, Option<&'static str>)] =
        &[(Some(Side::South), Some("south")), (Some(Side::North), Some("north")), (None, None)];
}

/// How a match ended, without who won (the `winner` column says that): R14.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MatchOutcome {
    Win,
    /// `max_rounds` rounds without a winner; never a win.
    Unfinished,
}

impl From<Outcome> for MatchOutcome {
    fn from(outcome: Outcome) -> MatchOutcome {
        match outcome {
            Outcome::Won(_) => MatchOutcome::Win,
            Outcome::Unfinished => MatchOutcome::Unfinished,
        }
    }
}

impl Symbol for MatchOutcome {
    const NAMES: &'static [(MatchOutcome, Option<&'static str>)] =
        &[(MatchOutcome::Win, Some("win")), (MatchOutcome::Unfinished, Some("unfinished"))];
}

/// Who won a round (R11): a side, or a tie on equal captures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RoundResult {
    Won(Side),
    Tie,
    /// The round never ended (see [`super::MAX_ROUND_MOVES`]).
    Unfinished,
}

impl RoundResult {
    pub fn from_winner(winner: Option<Side>) -> RoundResult {
        winner.map_or(RoundResult::Tie, RoundResult::Won)
    }

    pub fn winner(self) -> Option<Side> {
        match self {
            RoundResult::Won(side) => Some(side),
            RoundResult::Tie | RoundResult::Unfinished => None,
        }
    }
}

impl Symbol for RoundResult {
    const NAMES: &'static [(RoundResult, Option<&'static str>)] = &[
        (RoundResult::Won(Side::South), Some("south")),
        (RoundResult::Won(Side::North), Some("north")),
        (RoundResult::Tie, Some("tie")),
        (RoundResult::Unfinished, Some("unfinished")),
    ];
}

/// The histograms kept at every detail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HistogramMetric {
    /// Counters sown in a lap.
    LapLength,
    /// Laps of a move.
    LapsPerMove,
}

impl Symbol for HistogramMetric {
    const NAMES: &'static [(HistogramMetric, Option<&'static str>)] = &[
        (HistogramMetric::LapLength, Some("lap_length")),
        (HistogramMetric::LapsPerMove, Some("laps_per_move")),
    ];
}

/// Counters a side captured, by source (R6, R8, R10).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct CaptureCounts<T> {
    /// By pussa (R8), during the side's own moves.
    pub pussa: T,
    /// As fours (R6) during the side's own moves.
    pub own_fours: T,
    /// As fours (R6) during the opponent's moves.
    pub gifted_fours: T,
    /// The remainder collected at a round's end (R10).
    pub remainder: T,
}

impl<T: Copy + Into<u64>> CaptureCounts<T> {
    /// These counts, widened.
    pub fn widen(self) -> CaptureCounts<u64> {
        CaptureCounts {
            pussa: self.pussa.into(),
            own_fours: self.own_fours.into(),
            gifted_fours: self.gifted_fours.into(),
            remainder: self.remainder.into(),
        }
    }

    pub fn total(self) -> u64 {
        self.pussa.into() + self.own_fours.into() + self.gifted_fours.into() + self.remainder.into()
    }
}

impl CaptureCounts<u64> {
    /// Shares of the total, in the order pussa, own fours, gifted fours, remainder.
    pub fn shares(&self) -> [f64; 4] {
        let t = self.total().max(1) as f64;
        [
            self.pussa as f64 / t,
            self.own_fours as f64 / t,
            self.gifted_fours as f64 / t,
            self.remainder as f64 / t,
        ]
    }
}

impl std::ops::AddAssign for CaptureCounts<u64> {
    fn add_assign(&mut self, o: CaptureCounts<u64>) {
        self.pussa += o.pussa;
        self.own_fours += o.own_fours;
        self.gifted_fours += o.gifted_fours;
        self.remainder += o.remainder;
    }
}

/// What the moves and rounds of a match added up to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MatchTotals {
    pub rounds: u32,
    pub moves: u32,
    pub laps: u64,
    pub sown: u64,
    pub endless_moves: u32,
    /// Rounds won by the player who started them.
    pub starter_round_wins: u32,
    pub tied_rounds: u32,
    pub captures: BySide<CaptureCounts<u64>>,
}

/// One match (table `matches`).
#[derive(Clone, Debug, PartialEq)]
pub struct MatchRecord {
    pub match_id: u64,
    pub seed: u64,
    /// Each seat's player, canonical (its identity), or its name as played.
    pub players: BySide<String>,
    /// Who started round 1 (R13).
    pub first: Side,
    pub outcome: Outcome,
    /// Holdings at the match's end (R12).
    pub holdings: BySide<u32>,
    /// Round 1's winner (R11).
    pub round1: RoundResult,
    pub totals: MatchTotals,
}

/// One round (table `rounds`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoundRecord {
    pub match_id: u64,
    pub round: u32,
    pub starter: Side,
    /// Who started the match's round 1 (R13).
    pub first: Side,
    /// Holdings at the round's start (R12): on the board in open pits, plus kept.
    pub holdings: BySide<u32>,
    /// Open pits at the round's start (R12).
    pub open: BySide<u8>,
    /// Closed pits in the round (R12): the row's pits that are not open.
    pub closed: BySide<u8>,
    /// Counters kept off the board (R12).
    pub kept: BySide<u32>,
    pub moves: u32,
    pub laps: u64,
    pub sown: u64,
    pub endless_moves: u32,
    /// Who collected the remainder (R10).
    pub collector: Side,
    pub captures: BySide<CaptureCounts<u32>>,
    /// All captured in the round, remainder included (R11).
    pub captured: BySide<u32>,
    pub result: RoundResult,
}

/// One move (table `moves`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoveRecord {
    pub match_id: u64,
    pub round: u32,
    pub ply: u32,
    pub mover: Side,
    pub pit: Pit,
    /// Legal moves before the move (R4, R9).
    pub legal: u32,
    pub summary: MoveSummary,
}

/// One lap of a move (table `laps`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LapRecord {
    pub match_id: u64,
    pub round: u32,
    pub ply: u32,
    /// From 1.
    pub lap: u32,
    /// Global pit lifted (R2).
    pub start_pit: u8,
    pub sown: u8,
}

/// One bin of a histogram (table `histograms`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HistogramRecord {
    pub metric: HistogramMetric,
    pub value: u64,
    pub count: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trips<S: Symbol + std::fmt::Debug>() {
        for &(value, name) in S::NAMES {
            assert_eq!(value.name(), name);
            assert_eq!(S::from_name(name), Some(value));
        }
        assert_eq!(S::from_name(Some("sideways")), None);
    }

    #[test]
    fn every_symbol_value_has_one_name_and_reads_back() {
        round_trips::<Side>();
        round_trips::<Option<Side>>();
        round_trips::<MatchOutcome>();
        round_trips::<RoundResult>();
        round_trips::<HistogramMetric>();
        assert_eq!(<Option<Side>>::from_name(None), Some(None));
        assert_eq!(Side::from_name(None), None, "a side column is never null");
        assert_eq!(RoundResult::allowed(), "south, north, tie, unfinished");
    }
}
