//! A batch's records: the tables of its matches, the histograms and the quality tallies, and
//! the memory they are kept in from one batch to the next.

use super::config::Detail;
use super::laps::Histograms;
use super::quality::{ByRound, QualityScratch};
use super::schema::*;
use super::table::Table;

/// The records of one batch of matches.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Batch {
    pub index: u64,
    pub matches: MatchColumns,
    pub rounds: RoundColumns,
    pub moves: MoveColumns,
    pub laps: LapColumns,
    pub histograms: Histograms,
    /// Game-quality tallies, a row per match, and sums by round number (every detail).
    pub quality: QualityColumns,
    pub by_round: ByRound,
    /// Memory of the current match's quality tally (see [`super::quality::QualityTally`]).
    pub(super) scratch: QualityScratch,
}

impl Batch {
    /// Takes back the memory of tables made by [`Batch::into_tables`], emptied, for the next
    /// batch: a batch at round detail is tens of megabytes, and allocating it afresh costs
    /// page faults for every batch.
    pub fn recycle(tables: Vec<Table>) -> Batch {
        let mut batch = Batch::default();
        for table in tables {
            match table.name {
                name if name == MATCHES.name => batch.matches = MatchColumns::recycle(table),
                name if name == ROUNDS.name => batch.rounds = RoundColumns::recycle(table),
                name if name == MOVES.name => batch.moves = MoveColumns::recycle(table),
                name if name == LAPS.name => batch.laps = LapColumns::recycle(table),
                name if name == QUALITY.name => batch.quality = QualityColumns::recycle(table),
                _ => {}
            }
        }
        batch.clear();
        batch
    }

    /// Moves the rows of `other`, the next matches of the same batch, after these.
    pub(super) fn append(&mut self, mut other: Batch) {
        self.matches.append(&mut other.matches);
        self.rounds.append(&mut other.rounds);
        self.moves.append(&mut other.moves);
        self.laps.append(&mut other.laps);
        self.histograms.merge(&other.histograms);
        self.quality.append(&mut other.quality);
        self.by_round.merge(&other.by_round);
    }

    pub(super) fn clear(&mut self) {
        self.matches.clear();
        self.rounds.clear();
        self.moves.clear();
        self.laps.clear();
        self.histograms = Histograms::default();
        self.quality.clear();
        self.by_round = ByRound::default();
    }

    /// The tables of this batch that `detail` records.
    pub fn into_tables(self, detail: Detail) -> Vec<Table> {
        let recorded = detail.tables();
        [
            self.matches.into_table(),
            self.histograms.to_columns().into_table(),
            self.rounds.into_table(),
            self.moves.into_table(),
            self.laps.into_table(),
            self.quality.into_table(),
            by_round_columns(&self.by_round).into_table(),
        ]
        .into_iter()
        .filter(|t| recorded.contains(&t.name))
        .collect()
    }
}

fn by_round_columns(by_round: &ByRound) -> ByRoundColumns {
    let mut out = ByRoundColumns::default();
    for r in by_round.played() {
        out.push(r);
    }
    out
}
