//! The dataset's tables: one row type per table, its columnar builder and its documented schema,
//! all generated from one declaration so that code, manifest and docs cannot drift apart.

use serde::Serialize;

use super::table::{Column, ColumnData, ColumnType, Table};

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

macro_rules! tables {
    ($(
        $(#[$doc:meta])*
        $row:ident, $builder:ident, $spec:ident, $name:literal, $row_meaning:literal {
            $($field:ident : $fty:ty = $variant:ident, $meaning:literal;)*
        }
    )*) => {$(
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq)]
        pub struct $row {
            $(#[doc = $meaning] pub $field: $fty,)*
        }

        /// Columnar builder for the table's rows.
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct $builder {
            $(pub $field: Vec<$fty>,)*
        }

        impl $builder {
            #[inline]
            pub fn push(&mut self, row: $row) {
                $(self.$field.push(row.$field);)*
            }
            pub fn len(&self) -> usize {
                tables!(@first self, $($field)*)
            }
            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }
            pub fn clear(&mut self) {
                $(self.$field.clear();)*
            }
            /// Makes room for `rows` more rows in every column.
            pub fn reserve(&mut self, rows: usize) {
                $(self.$field.reserve(rows);)*
            }
            /// Takes back the columns of a table made by `into_table` (to reuse their memory).
            pub fn from_table(table: Table) -> Self {
                let mut out = Self::default();
                for column in table.columns {
                    match (column.name, column.data) {
                        $((stringify!($field), ColumnData::$variant(v)) => out.$field = v,)*
                        _ => {}
                    }
                }
                out
            }
            pub fn into_table(self) -> Table {
                Table { name: $name, columns: vec![$(Column { name: stringify!($field), data: ColumnData::$variant(self.$field) },)*] }
            }
        }

        pub const $spec: TableSpec = TableSpec {
            name: $name,
            row: $row_meaning,
            columns: &[$(ColumnSpec { name: stringify!($field), ty: ColumnType::$variant, meaning: $meaning },)*],
        };
    )*};
    (@first $s:ident, $f:ident $($rest:ident)*) => { $s.$f.len() };
}

pub type Sym = Option<&'static str>;

tables! {
    /// One row per match.
    MatchRow, MatchColumns, MATCHES, "matches", "one match" {
        match_id: u64 = U64, "index of the match in the run, 0-based; (seed, match_id) determine the match";
        seed: u64 = U64, "master seed of the run";
        south_player: String = Text, "player specification of South, canonical with every parameter (e.g. random, minimax:depth=2,nodes=unlimited,eval=match; docs/players.md)";
        north_player: String = Text, "player specification of North";
        first: Sym = Sym, "who started round 1: south or north (R13)";
        outcome: Sym = Sym, "win, or unfinished when max_rounds rounds were played without a winner (R14)";
        winner: Sym = Sym, "south or north; null when unfinished";
        rounds: u32 = U32, "rounds played";
        moves: u32 = U32, "moves played in all rounds";
        laps: u64 = U64, "laps sown in all moves (R7)";
        sown: u64 = U64, "counters sown in all laps";
        south_holdings: u32 = U32, "South's holdings at the match's end (R12)";
        north_holdings: u32 = U32, "North's holdings at the match's end";
        endless_moves: u32 = U32, "moves that were endless and stopped at the repeat (R9, endless=stop)";
        round1_winner: Sym = Sym, "winner of round 1: south, north or tie (R11)";
        starter_round_wins: u32 = U32, "rounds won by the player who started them";
        tied_rounds: u32 = U32, "rounds with equal captures (R11)";
        south_pussa: u64 = U64, "counters South captured by pussa (R8), all rounds";
        south_own_fours: u64 = U64, "counters South captured as fours during its own moves (R6)";
        south_gifted_fours: u64 = U64, "counters South captured as fours during North's moves (R6)";
        south_remainder: u64 = U64, "counters South collected as remainder (R10)";
        north_pussa: u64 = U64, "counters North captured by pussa (R8), all rounds";
        north_own_fours: u64 = U64, "counters North captured as fours during its own moves (R6)";
        north_gifted_fours: u64 = U64, "counters North captured as fours during South's moves (R6)";
        north_remainder: u64 = U64, "counters North collected as remainder (R10)";
    }

    /// One row per round.
    RoundRow, RoundColumns, ROUNDS, "rounds", "one round of one match" {
        match_id: u64 = U64, "the match (matches.match_id)";
        round: u32 = U32, "round number, from 1";
        starter: Sym = Sym, "who moved first in the round (R13)";
        south_open: u32 = U32, "South's open pits at the round's start (R12: closed pits are at the left end)";
        north_open: u32 = U32, "North's open pits at the round's start";
        south_kept: u32 = U32, "counters South kept off the board this round (R12)";
        north_kept: u32 = U32, "counters North kept off the board this round";
        moves: u32 = U32, "moves in the round";
        laps: u64 = U64, "laps in the round's moves";
        sown: u64 = U64, "counters sown in the round";
        endless_moves: u32 = U32, "endless moves in the round (R9)";
        collector: Sym = Sym, "who collected the remainder (R10)";
        south_pussa: u32 = U32, "counters South captured by pussa (R8)";
        south_own_fours: u32 = U32, "counters South captured as fours during its own moves (R6)";
        south_gifted_fours: u32 = U32, "counters South captured as fours during North's moves (R6)";
        south_remainder: u32 = U32, "remainder South collected (R10)";
        south_total: u32 = U32, "all South captured in the round, remainder included (R11)";
        north_pussa: u32 = U32, "counters North captured by pussa (R8)";
        north_own_fours: u32 = U32, "counters North captured as fours during its own moves (R6)";
        north_gifted_fours: u32 = U32, "counters North captured as fours during South's moves (R6)";
        north_remainder: u32 = U32, "remainder North collected (R10)";
        north_total: u32 = U32, "all North captured in the round, remainder included (R11)";
        winner: Sym = Sym, "south, north or tie (R11)";
    }

    /// One row per move (detail move or lap).
    MoveRow, MoveColumns, MOVES, "moves", "one move" {
        match_id: u64 = U64, "the match";
        round: u32 = U32, "the round";
        ply: u32 = U32, "move number in the match, from 1";
        side: Sym = Sym, "the mover: south or north";
        pit: u32 = U32, "local pit played, 0 = the mover's left end (R3)";
        laps: u32 = U32, "laps of the move (R7)";
        sown: u32 = U32, "counters sown over its laps";
        pussa: u32 = U32, "counters the mover captured by pussa (R8)";
        fours_mover: u32 = U32, "counters captured as fours by the mover (R6)";
        fours_opponent: u32 = U32, "counters captured as fours by the opponent during this move (R6)";
        endless: bool = Bool, "the move was endless and stopped at the repeat (R9)";
    }

    /// One row per lap (detail lap).
    LapRow, LapColumns, LAPS, "laps", "one lap of one move" {
        match_id: u64 = U64, "the match";
        round: u32 = U32, "the round";
        ply: u32 = U32, "the move (moves.ply)";
        lap: u32 = U32, "lap number within the move, from 1";
        start_pit: u32 = U32, "global pit lifted to start the lap (R2: South 0..P-1, North P..2P-1)";
        sown: u32 = U32, "counters sown in the lap";
    }

    /// Histograms, at every detail: summed over a run's part files they give exact distributions.
    HistogramRow, HistogramColumns, HISTOGRAMS, "histograms", "one bin of one histogram of one part file" {
        metric: Sym = Sym, "lap_length (counters sown in a lap) or laps_per_move";
        value: u64 = U64, "the bin's value";
        count: u64 = U64, "how many laps (lap_length) or moves (laps_per_move) had this value";
    }
}

/// Every table, in dependency order.
pub const ALL_TABLES: [TableSpec; 5] = [MATCHES, ROUNDS, MOVES, LAPS, HISTOGRAMS];

pub fn table_spec(name: &str) -> Option<&'static TableSpec> {
    ALL_TABLES.iter().find(|t| t.name == name)
}

/// Converts the name/type pairs of a table to an empty [`Table`] of that schema.
pub fn empty_table(spec: &TableSpec) -> Table {
    Table { name: spec.name, columns: spec.columns.iter().map(|c| Column { name: c.name, data: ColumnData::new(c.ty) }).collect() }
}

/// Every value a Sym column may hold.
pub const SYMBOLS: [&str; 7] = ["south", "north", "tie", "win", "unfinished", "lap_length", "laps_per_move"];

/// Interns a symbol read back from a file (Sym columns hold static strings).
pub fn intern_sym(s: &str) -> Option<&'static str> {
    SYMBOLS.iter().find(|&&k| k == s).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builders_and_schemas_agree() {
        let mut b = LapColumns::default();
        b.push(LapRow { match_id: 3, round: 1, ply: 2, lap: 1, start_pit: 5, sown: 7 });
        let t = b.into_table();
        assert_eq!(t.rows(), 1);
        assert_eq!(t.columns.len(), LAPS.columns.len());
        for (c, spec) in t.columns.iter().zip(LAPS.columns) {
            assert_eq!(c.name, spec.name);
            assert_eq!(c.data.column_type(), spec.ty);
        }
        assert_eq!(t.column("sown"), Some(&ColumnData::U32(vec![7])));
        for spec in ALL_TABLES {
            assert!(spec.columns.iter().all(|c| !c.meaning.is_empty()));
            assert_eq!(empty_table(&spec).columns.len(), spec.columns.len());
        }
    }
}
