//! The dataset's tables: for each, the typed record it is made of ([`super::record`]), its
//! columnar builder and its documented schema, all generated from one declaration so that
//! code, manifest and docs cannot drift apart. This is where records become columns: each
//! column says how it is read off its record.

use serde::Serialize;

use super::quality::{ByRoundRecord, QualityRecord};
use super::record::*;
use super::table::{Column, ColumnData, ColumnType, Table};
use crate::engine::{BySide, Side};

/// A column's name, type and meaning (written into every manifest).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ColumnSpec {
    pub name: &'static str,
    #[serde(rename = "type")]
    pub ty: ColumnType,
    pub meaning: &'static str,
}

/// A table's name, what one row is, and its columns.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct TableSpec {
    pub name: &'static str,
    pub row: &'static str,
    pub columns: &'static [ColumnSpec],
}

/// A Rust type stored in a column: its column type, and the conversions to and from the
/// format-independent [`ColumnData`].
pub trait ColumnValue: Sized {
    const TYPE: ColumnType;
    fn into_data(values: Vec<Self>) -> ColumnData;
    /// The values of `data`; an error says which value does not belong.
    fn from_data(data: ColumnData) -> Result<Vec<Self>, String>;
    /// The names a symbol column may hold (None: null); empty for other types.
    fn symbols() -> Vec<Option<&'static str>> {
        Vec::new()
    }
    /// The memory of `data`, emptied, when it can hold this type.
    fn reuse(data: ColumnData) -> Vec<Self> {
        let mut v = Self::from_data(data).unwrap_or_default();
        v.clear();
        v
    }
}

macro_rules! plain_values {
    ($($t:ty = $variant:ident),*) => {$(
        impl ColumnValue for $t {
            const TYPE: ColumnType = ColumnType::$variant;
            fn into_data(values: Vec<$t>) -> ColumnData {
                ColumnData::$variant(values)
            }
            fn from_data(data: ColumnData) -> Result<Vec<$t>, String> {
                match data {
                    ColumnData::$variant(v) => Ok(v),
                    other => Err(format!("holds {:?} values, expected {:?}", other.column_type(), ColumnType::$variant)),
                }
            }
        }
    )*};
}

plain_values!(u32 = U32, u64 = U64, bool = Bool, String = Text);

/// Counts and measures: signed in the files (so that users' differences do not wrap) but never
/// negative, so a negative value read back is refused, naming it.
impl ColumnValue for i64 {
    const TYPE: ColumnType = ColumnType::I64;
    fn into_data(values: Vec<i64>) -> ColumnData {
        ColumnData::I64(values)
    }
    fn from_data(data: ColumnData) -> Result<Vec<i64>, String> {
        match data {
            ColumnData::I64(v) => match v.iter().find(|&&x| x < 0) {
                Some(x) => Err(format!("holds {x}: counts are never negative")),
                None => Ok(v),
            },
            other => Err(format!(
                "holds {:?} values, expected {:?}",
                other.column_type(),
                ColumnType::I64
            )),
        }
    }
}

impl<S: Symbol> ColumnValue for S {
    const TYPE: ColumnType = ColumnType::Sym;
    fn into_data(values: Vec<S>) -> ColumnData {
        ColumnData::Sym(values.into_iter().map(S::name).collect())
    }
    fn from_data(data: ColumnData) -> Result<Vec<S>, String> {
        match data {
            ColumnData::Sym(v) => v
                .into_iter()
                .map(|name| {
                    S::from_name(name).ok_or_else(|| {
                        format!("{:?} is not one of {}", name.unwrap_or("null"), S::allowed())
                    })
                })
                .collect(),
            other => Err(format!("holds {:?} values, expected symbols", other.column_type())),
        }
    }
    fn symbols() -> Vec<Option<&'static str>> {
        S::NAMES.iter().map(|p| p.1).collect()
    }
    fn reuse(_: ColumnData) -> Vec<S> {
        Vec::new()
    }
}

macro_rules! tables {
    ($(
        $(#[$doc:meta])*
        $record:ident => $builder:ident, $spec:ident, $name:literal, $row_meaning:literal {
            $($column:ident : $cty:ty = |$r:ident| $get:expr, $meaning:literal;)*
        }
    )*) => {$(
        $(#[$doc])*
        /// Columnar builder: one vector per column.
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct $builder {
            $(#[doc = $meaning] pub $column: Vec<$cty>,)*
        }

        impl $builder {
            /// Appends a record as one row.
            #[inline]
            pub fn push(&mut self, record: &$record) {
                $(self.$column.push({
                    let $r = record;
                    $get
                });)*
            }
            pub fn len(&self) -> usize {
                tables!(@first self, $($column)*)
            }
            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }
            pub fn clear(&mut self) {
                $(self.$column.clear();)*
            }
            /// Moves the rows of `other` after these (a batch played in pieces, joined in order).
            pub fn append(&mut self, other: &mut Self) {
                $(self.$column.append(&mut other.$column);)*
            }
            /// Makes room for `rows` more rows in every column.
            pub fn reserve(&mut self, rows: usize) {
                $(self.$column.reserve(rows);)*
            }
            /// Takes back the columns of a table made by `into_table`, emptied (to reuse their memory).
            pub fn recycle(table: Table) -> Self {
                let mut out = Self::default();
                for column in table.columns {
                    match column.name {
                        $(stringify!($column) => out.$column = ColumnValue::reuse(column.data),)*
                        _ => {}
                    }
                }
                out
            }
            /// The typed columns of a table read from a file (checked against this schema);
            /// the error names the column and the value that does not belong.
            pub fn read(table: Table) -> Result<Self, String> {
                let mut out = Self::default();
                for column in table.columns {
                    match column.name {
                        $(stringify!($column) => {
                            out.$column = ColumnValue::from_data(column.data).map_err(|e| format!("column `{}`: {e}", column.name))?
                        })*
                        other => return Err(format!("column `{other}` is not a column of table `{}`", $name)),
                    }
                }
                Ok(out)
            }
            /// Each symbol column's allowed names (None: null), by column.
            pub fn symbols() -> Vec<(&'static str, Vec<Option<&'static str>>)> {
                [$((stringify!($column), <$cty as ColumnValue>::symbols()),)*].into_iter().filter(|c| !c.1.is_empty()).collect()
            }
            pub fn into_table(self) -> Table {
                Table { name: $name, columns: vec![$(Column { name: stringify!($column), data: ColumnValue::into_data(self.$column) },)*] }
            }
        }

        pub const $spec: TableSpec = TableSpec {
            name: $name,
            row: $row_meaning,
            columns: &[$(ColumnSpec { name: stringify!($column), ty: <$cty as ColumnValue>::TYPE, meaning: $meaning },)*],
        };
    )*};
    (@first $s:ident, $f:ident $($rest:ident)*) => { $s.$f.len() };
}

const S: Side = Side::South;
const N: Side = Side::North;

tables! {
    /// One row per match.
    MatchRecord => MatchColumns, MATCHES, "matches", "one match" {
        match_id: u64 = |m| m.match_id, "index of the match in the run, 0-based; (seed, match_id) determine the match";
        seed: u64 = |m| m.seed, "master seed of the run";
        south_player: String = |m| m.players[S].clone(), "player specification of South, canonical with every parameter (e.g. random, minimax:depth=2,nodes=unlimited,eval=match; docs/players.md)";
        north_player: String = |m| m.players[N].clone(), "player specification of North";
        first: Side = |m| m.first, "who started round 1: south or north (R13)";
        outcome: MatchOutcome = |m| MatchOutcome::from(m.outcome), "win, or unfinished when max_rounds rounds were played without a winner (R14) or a round did not end within 10,000 moves (R17, docs/players.md)";
        winner: Option<Side> = |m| m.outcome.winner(), "south or north; null when unfinished";
        rounds: i64 = |m| i64::from(m.totals.rounds), "rounds played to their end (a round cut at 10,000 moves has no row and is not counted)";
        moves: i64 = |m| i64::from(m.totals.moves), "moves played in the rounds counted by `rounds`";
        laps: i64 = |m| m.totals.laps as i64, "laps sown in all moves (R7)";
        sown: i64 = |m| m.totals.sown as i64, "counters sown in all laps";
        south_holdings: i64 = |m| i64::from(m.holdings[S]), "South's holdings at the match's end (R12)";
        north_holdings: i64 = |m| i64::from(m.holdings[N]), "North's holdings at the match's end";
        endless_moves: i64 = |m| i64::from(m.totals.endless_moves), "moves that were endless and stopped at the repeat (R9, endless=stop)";
        round1_winner: RoundResult = |m| m.round1, "winner of round 1: south, north or tie (R11), or unfinished if it did not end within 10,000 moves";
        starter_round_wins: i64 = |m| i64::from(m.totals.starter_round_wins), "rounds won by the player who started them";
        tied_rounds: i64 = |m| i64::from(m.totals.tied_rounds), "rounds with equal captures (R11)";
        south_pussa: i64 = |m| m.totals.captures[S].pussa as i64, "counters South captured by pussa (R8), all rounds";
        south_own_fours: i64 = |m| m.totals.captures[S].own_fours as i64, "counters South captured as fours during its own moves (R6)";
        south_gifted_fours: i64 = |m| m.totals.captures[S].gifted_fours as i64, "counters South captured as fours during North's moves (R6)";
        south_remainder: i64 = |m| m.totals.captures[S].remainder as i64, "counters South collected as remainder (R10)";
        north_pussa: i64 = |m| m.totals.captures[N].pussa as i64, "counters North captured by pussa (R8), all rounds";
        north_own_fours: i64 = |m| m.totals.captures[N].own_fours as i64, "counters North captured as fours during its own moves (R6)";
        north_gifted_fours: i64 = |m| m.totals.captures[N].gifted_fours as i64, "counters North captured as fours during South's moves (R6)";
        north_remainder: i64 = |m| m.totals.captures[N].remainder as i64, "counters North collected as remainder (R10)";
    }

    /// One row per round.
    RoundRecord => RoundColumns, ROUNDS, "rounds", "one round of one match" {
        match_id: u64 = |r| r.match_id, "the match (matches.match_id)";
        round: i64 = |r| i64::from(r.round), "round number, from 1";
        starter: Side = |r| r.starter, "who moved first in the round (R13)";
        first: Side = |r| r.first, "who started round 1 of the match (matches.first, R13)";
        south_holdings: i64 = |r| i64::from(r.holdings[S]), "South's holdings at the round's start: seeds_per_pit × south_open + south_kept (R12)";
        north_holdings: i64 = |r| i64::from(r.holdings[N]), "North's holdings at the round's start";
        south_open: i64 = |r| i64::from(r.open[S]), "South's open pits at the round's start (R12: closed pits are at the left end)";
        north_open: i64 = |r| i64::from(r.open[N]), "North's open pits at the round's start";
        south_closed: i64 = |r| i64::from(r.closed[S]), "South's closed pits in the round: pits_per_row - south_open (R12)";
        north_closed: i64 = |r| i64::from(r.closed[N]), "North's closed pits in the round";
        south_kept: i64 = |r| i64::from(r.kept[S]), "counters South kept off the board this round (R12)";
        north_kept: i64 = |r| i64::from(r.kept[N]), "counters North kept off the board this round";
        moves: i64 = |r| i64::from(r.moves), "moves in the round";
        laps: i64 = |r| r.laps as i64, "laps in the round's moves";
        sown: i64 = |r| r.sown as i64, "counters sown in the round";
        endless_moves: i64 = |r| i64::from(r.endless_moves), "endless moves in the round (R9)";
        collector: Side = |r| r.collector, "who collected the remainder (R10)";
        south_pussa: i64 = |r| i64::from(r.captures[S].pussa), "counters South captured by pussa (R8)";
        south_own_fours: i64 = |r| i64::from(r.captures[S].own_fours), "counters South captured as fours during its own moves (R6)";
        south_gifted_fours: i64 = |r| i64::from(r.captures[S].gifted_fours), "counters South captured as fours during North's moves (R6)";
        south_remainder: i64 = |r| i64::from(r.captures[S].remainder), "remainder South collected (R10)";
        south_total: i64 = |r| i64::from(r.captured[S]), "all South captured in the round, remainder included (R11)";
        north_pussa: i64 = |r| i64::from(r.captures[N].pussa), "counters North captured by pussa (R8)";
        north_own_fours: i64 = |r| i64::from(r.captures[N].own_fours), "counters North captured as fours during its own moves (R6)";
        north_gifted_fours: i64 = |r| i64::from(r.captures[N].gifted_fours), "counters North captured as fours during South's moves (R6)";
        north_remainder: i64 = |r| i64::from(r.captures[N].remainder), "remainder North collected (R10)";
        north_total: i64 = |r| i64::from(r.captured[N]), "all North captured in the round, remainder included (R11)";
        winner: RoundResult = |r| r.result, "south, north or tie (R11)";
    }

    /// One row per move (detail move or lap).
    MoveRecord => MoveColumns, MOVES, "moves", "one move" {
        match_id: u64 = |m| m.match_id, "the match";
        round: i64 = |m| i64::from(m.round), "the round";
        ply: i64 = |m| i64::from(m.ply), "move number in the match, from 1";
        side: Side = |m| m.mover, "the mover: south or north";
        pit: i64 = |m| m.pit.index() as i64, "local pit played, 0 = the mover's left end (R3)";
        legal_moves: i64 = |m| i64::from(m.legal), "moves of the mover before this move: its open pits holding counters (R4); an endless one that R9 forbids (endless = forbid) is counted too, at about 5 positions in a million under final_four = stays and none in a million default matches (docs/metrics.md)";
        laps: i64 = |m| i64::from(m.summary.laps), "laps of the move (R7)";
        sown: i64 = |m| i64::from(m.summary.sown), "counters sown over its laps";
        pussa: i64 = |m| i64::from(m.summary.pussa), "counters the mover captured by pussa (R8)";
        fours_mover: i64 = |m| i64::from(m.summary.fours[m.mover]), "counters captured as fours by the mover (R6)";
        fours_opponent: i64 = |m| i64::from(m.summary.fours[m.mover.other()]), "counters captured as fours by the opponent during this move (R6)";
        endless: bool = |m| m.summary.endless, "the move was endless and stopped at the repeat (R9)";
    }

    /// One row per lap (detail lap).
    LapRecord => LapColumns, LAPS, "laps", "one lap of one move" {
        match_id: u64 = |l| l.match_id, "the match";
        round: i64 = |l| i64::from(l.round), "the round";
        ply: i64 = |l| i64::from(l.ply), "the move (moves.ply)";
        lap: i64 = |l| i64::from(l.lap), "lap number within the move, from 1";
        start_pit: i64 = |l| i64::from(l.start_pit), "global pit lifted to start the lap (R2: South 0..P-1, North P..2P-1)";
        sown: i64 = |l| i64::from(l.sown), "counters sown in the lap";
    }

    /// Histograms, at every detail: summed over a run's part files they give exact distributions.
    HistogramRecord => HistogramColumns, HISTOGRAMS, "histograms", "one bin of one histogram of one part file" {
        metric: HistogramMetric = |h| h.metric, "lap_length (counters sown in a lap) or laps_per_move";
        value: i64 = |h| h.value as i64, "the bin's value";
        count: i64 = |h| h.count as i64, "how many laps (lap_length) or moves (laps_per_move) had this value";
    }

    /// Game-quality tallies, at every detail (docs/metrics.md).
    QualityRecord => QualityColumns, QUALITY, "quality", "one match's game-quality tallies over the positions before each move, in the rounds that ended (a round cut at 10,000 moves, R17, adds no positions, as it adds no moves)" {
        match_id: u64 = |q| q.match_id, "the match";
        decision_moves: i64 = |q| i64::from(q.decision_moves), "positions with more than one legal move";
        legal_sum: i64 = |q| q.legal_sum as i64, "legal moves summed over the positions";
        legal_max: i64 = |q| i64::from(q.legal_max), "most legal moves at a position";
        legal_first: i64 = |q| i64::from(q.legal_first), "legal moves before the first move";
        legal_last: i64 = |q| i64::from(q.legal_last), "legal moves before the last move";
        pits_played: i64 = |q| i64::from(q.pits_played), "distinct pits lifted by a move at least once";
        lead_changes: i64 = |q| i64::from(q.lead_changes), "positions whose leader (South, North or nobody, by holdings difference) differs from the previous position's";
        lead_squares: i64 = |q| q.lead_squares as i64, "squares of South's lead, summed over the positions";
        south_peak: i64 = |q| i64::from(q.peak[S]), "South's largest lead at a position";
        north_peak: i64 = |q| i64::from(q.peak[N]), "North's largest lead at a position";
        south_deficit_sum: i64 = |q| q.deficit_sum[S] as i64, "North's lead summed over the positions where South trails";
        north_deficit_sum: i64 = |q| q.deficit_sum[N] as i64, "South's lead summed over the positions where North trails";
        south_behind: i64 = |q| i64::from(q.behind[S]), "positions where South trails";
        north_behind: i64 = |q| i64::from(q.behind[N]), "positions where North trails";
        decisive_ply: i64 = |q| i64::from(q.decisive_ply), "positions before the winner's lead first exceeds the loser's peak lead (all positions if never, or unfinished)";
        south_round_deficit: i64 = |q| i64::from(q.round_deficit[S]), "South's largest holdings deficit after a round (0: never behind)";
        north_round_deficit: i64 = |q| i64::from(q.round_deficit[N]), "North's largest holdings deficit after a round";
        repeated_positions: i64 = |q| i64::from(q.repeated_positions), "positions equal (pit counts and reserves) to an earlier position of the same round";
    }

    /// Sums by round number, at every detail: summed over part files they give exact counts.
    ByRoundRecord => ByRoundColumns, BY_ROUND, "by_round", "the rounds numbered `round` of one part file" {
        round: i64 = |r| i64::from(r.round), "round number, from 1";
        rounds: i64 = |r| r.rounds as i64, "rounds with this number (one per match that reached it)";
        starter_wins: i64 = |r| r.starter_wins as i64, "of them, won by the player who started them (R13)";
        ties: i64 = |r| r.ties as i64, "of them, tied (R11)";
        first_player_wins: i64 = |r| r.first_player_wins as i64, "of them, won by the match's first player";
        open_pits: i64 = |r| r.open_pits as i64, "open pits of both sides at their starts, summed (R12)";
        open_pits_squares: i64 = |r| r.open_pits_squares as i64, "squares of those open pit counts, summed";
    }
}

impl MatchColumns {
    /// Row `i`'s captures by side (the columns `south_pussa` .. `north_remainder`; never negative).
    pub fn captures(&self, i: usize) -> BySide<CaptureCounts<u64>> {
        BySide::new(
            CaptureCounts {
                pussa: self.south_pussa[i] as u64,
                own_fours: self.south_own_fours[i] as u64,
                gifted_fours: self.south_gifted_fours[i] as u64,
                remainder: self.south_remainder[i] as u64,
            },
            CaptureCounts {
                pussa: self.north_pussa[i] as u64,
                own_fours: self.north_own_fours[i] as u64,
                gifted_fours: self.north_gifted_fours[i] as u64,
                remainder: self.north_remainder[i] as u64,
            },
        )
    }
}

impl RoundColumns {
    /// Row `i`'s open pits at the round's start, by side.
    pub fn open(&self, i: usize) -> BySide<i64> {
        BySide::new(self.south_open[i], self.north_open[i])
    }
}

/// Every table, in dependency order.
pub const ALL_TABLES: [TableSpec; 7] =
    [MATCHES, ROUNDS, MOVES, LAPS, HISTOGRAMS, QUALITY, BY_ROUND];

pub fn table_spec(name: &str) -> Option<&'static TableSpec> {
    ALL_TABLES.iter().find(|t| t.name == name)
}

/// The allowed names of each symbol column of table `name` (None: null), by column.
pub fn table_symbols(name: &str) -> Vec<(&'static str, Vec<Option<&'static str>>)> {
    match name {
        "matches" => MatchColumns::symbols(),
        "rounds" => RoundColumns::symbols(),
        "moves" => MoveColumns::symbols(),
        "laps" => LapColumns::symbols(),
        "histograms" => HistogramColumns::symbols(),
        "quality" => QualityColumns::symbols(),
        "by_round" => ByRoundColumns::symbols(),
        _ => Vec::new(),
    }
}

/// Converts the name/type pairs of a table to an empty [`Table`] of that schema.
pub fn empty_table(spec: &TableSpec) -> Table {
    Table {
        name: spec.name,
        columns: spec
            .columns
            .iter()
            .map(|c| Column { name: c.name, data: ColumnData::new(c.ty) })
            .collect(),
    }
}

/// Every name a Sym column may hold: the names of every [`Symbol`] type, each once.
pub fn symbols() -> &'static [&'static str] {
    static ALL: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        let names = (Side::NAMES.iter().map(|p| p.1))
            .chain(<Option<Side>>::NAMES.iter().map(|p| p.1))
            .chain(RoundResult::NAMES.iter().map(|p| p.1))
            .chain(MatchOutcome::NAMES.iter().map(|p| p.1))
            .chain(HistogramMetric::NAMES.iter().map(|p| p.1));
        let mut all = Vec::new();
        for name in names.flatten() {
            if !all.contains(&name) {
                all.push(name);
            }
        }
        all
    })
}

/// Interns a symbol read back from a file (Sym columns hold static strings).
pub fn intern_sym(s: &str) -> Option<&'static str> {
    symbols().iter().find(|&&k| k == s).copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MoveSummary;

    #[test]
    fn builders_and_schemas_agree() {
        let mut b = LapColumns::default();
        b.push(&LapRecord { match_id: 3, round: 1, ply: 2, lap: 1, start_pit: 5, sown: 7 });
        let t = b.into_table();
        assert_eq!(t.rows(), 1);
        assert_eq!(t.columns.len(), LAPS.columns.len());
        for (c, spec) in t.columns.iter().zip(LAPS.columns) {
            assert_eq!(c.name, spec.name);
            assert_eq!(c.data.column_type(), spec.ty);
        }
        assert_eq!(t.column("sown"), Some(&ColumnData::I64(vec![7])));
        for spec in ALL_TABLES {
            assert!(spec.columns.iter().all(|c| !c.meaning.is_empty()));
            assert_eq!(empty_table(&spec).columns.len(), spec.columns.len());
        }
    }

    #[test]
    fn records_become_named_columns_and_read_back_typed() {
        let summary =
            MoveSummary { laps: 3, sown: 11, pussa: 2, fours: BySide::new(4, 8), endless: true };
        let pit = crate::engine::Pit::new(5, 7).unwrap();
        let mut b = MoveColumns::default();
        b.push(&MoveRecord {
            match_id: 9,
            round: 2,
            ply: 17,
            mover: Side::North,
            pit,
            legal: 3,
            summary,
        });
        let t = b.clone().into_table();
        // Fours are relative to the mover; the side is written by its name.
        assert_eq!(t.column("fours_mover"), Some(&ColumnData::I64(vec![8])));
        assert_eq!(t.column("fours_opponent"), Some(&ColumnData::I64(vec![4])));
        assert_eq!(t.column("side"), Some(&ColumnData::Sym(vec![Some("north")])));
        assert_eq!(MoveColumns::read(t).unwrap(), b);

        let mut m = MatchColumns::default();
        let captures = BySide::new(
            CaptureCounts { pussa: 1, own_fours: 2, gifted_fours: 3, remainder: 4 },
            CaptureCounts { pussa: 5, own_fours: 6, gifted_fours: 7, remainder: 8 },
        );
        let totals = MatchTotals { rounds: 3, captures, ..MatchTotals::default() };
        for (outcome, round1) in [
            (crate::engine::Outcome::Won(Side::South), RoundResult::Tie),
            (crate::engine::Outcome::Unfinished, RoundResult::Won(Side::North)),
        ] {
            m.push(&MatchRecord {
                match_id: 0,
                seed: 1,
                players: BySide::new(
                    "random".into(),
                    "minimax:depth=2,nodes=unlimited,eval=match".into(),
                ),
                first: Side::North,
                outcome,
                holdings: BySide::new(90, 8),
                round1,
                totals,
            });
        }
        let t = m.clone().into_table();
        assert_eq!(
            t.column("outcome"),
            Some(&ColumnData::Sym(vec![Some("win"), Some("unfinished")]))
        );
        assert_eq!(t.column("winner"), Some(&ColumnData::Sym(vec![Some("south"), None])));
        assert_eq!(
            t.column("round1_winner"),
            Some(&ColumnData::Sym(vec![Some("tie"), Some("north")]))
        );
        assert_eq!(
            t.column("north_player"),
            Some(&ColumnData::Text(vec!["minimax:depth=2,nodes=unlimited,eval=match".into(); 2]))
        );
        assert_eq!(t.column("south_holdings"), Some(&ColumnData::I64(vec![90, 90])));
        assert_eq!(t.column("north_gifted_fours"), Some(&ColumnData::I64(vec![7, 7])));
        let back = MatchColumns::read(t).unwrap();
        assert_eq!(back.captures(1), captures);
        assert_eq!(back, m);
    }

    #[test]
    fn reading_a_symbol_of_another_column_is_an_error_naming_it() {
        let mut t = empty_table(&ROUNDS);
        for c in &mut t.columns {
            c.data = match c.data.column_type() {
                ColumnType::I64 => ColumnData::I64(vec![1]),
                ColumnType::U64 => ColumnData::U64(vec![1]),
                ColumnType::Sym if c.name == "starter" => ColumnData::Sym(vec![Some("tie")]),
                _ => ColumnData::Sym(vec![Some("south")]),
            };
        }
        let err = RoundColumns::read(t.clone()).unwrap_err();
        assert_eq!(err, "column `starter`: \"tie\" is not one of south, north");
        // A negative count (a file written by something else) is refused too.
        for c in &mut t.columns {
            if c.name == "starter" {
                c.data = ColumnData::Sym(vec![Some("north")]);
            }
            if c.name == "north_kept" {
                c.data = ColumnData::I64(vec![-3]);
            }
        }
        assert_eq!(
            RoundColumns::read(t).unwrap_err(),
            "column `north_kept`: holds -3: counts are never negative"
        );
    }

    #[test]
    fn every_count_is_signed_so_that_differences_and_sums_do_not_wrap() {
        // Only the identifiers are unsigned (a seed may use all 64 bits); docs/data.md says why.
        for spec in ALL_TABLES {
            for c in spec.columns {
                let identifier = ["match_id", "seed"].contains(&c.name);
                match c.ty {
                    ColumnType::U32 | ColumnType::U64 => {
                        assert!(identifier, "{}.{} is unsigned", spec.name, c.name)
                    }
                    ColumnType::I64 => {
                        assert!(!identifier, "{}.{} is an identifier", spec.name, c.name)
                    }
                    _ => {}
                }
            }
        }
        let rounds: Vec<&str> = ROUNDS.columns.iter().map(|c| c.name).collect();
        for name in ["first", "south_holdings", "north_holdings", "south_closed", "north_closed"] {
            assert!(rounds.contains(&name), "rounds lacks {name}");
        }
    }

    #[test]
    fn every_symbol_column_and_only_those_lists_its_names() {
        for spec in ALL_TABLES {
            let listed = table_symbols(spec.name);
            for c in spec.columns {
                let names = listed.iter().find(|l| l.0 == c.name).map(|l| l.1.clone());
                assert_eq!(names.is_some(), c.ty == ColumnType::Sym, "{}.{}", spec.name, c.name);
            }
        }
        let matches = table_symbols("matches");
        let of = |name: &str| matches.iter().find(|l| l.0 == name).unwrap().1.clone();
        assert_eq!(of("winner"), [Some("south"), Some("north"), None]);
        assert_eq!(of("first"), [Some("south"), Some("north")]);
    }

    #[test]
    fn the_symbol_list_holds_every_name_once() {
        let mut names = symbols().to_vec();
        names.sort();
        assert_eq!(
            names,
            ["lap_length", "laps_per_move", "north", "south", "tie", "unfinished", "win"]
        );
        assert_eq!(intern_sym("tie"), Some("tie"));
        assert_eq!(intern_sym("draw"), None);
    }
}
