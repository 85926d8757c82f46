//! What a dataset's numbers may be: every value bounded by what the rules allow (`max_rounds`,
//! the board's pits and counters, 10,000 moves a round, R17), and the tables of one batch
//! agreeing with each other (a match's quality row counts at most its positions, the rounds
//! numbered r are the matches that reached round r, the histograms count the matches' moves and
//! laps, the rounds rows of a match are its `rounds` and their moves its `moves`).
//!
//! A dataset is untrusted input: its part files and progress markers can be edited consistently
//! by anyone who sends it. Without these checks a value of 10^16 became an allocation of
//! gigabytes, an impossible count a panic, and a duplicated row figures that lie. The first
//! violation is reported naming the table, the match (or round, or bin), the column and the
//! invariant: each table's are listed once, in [`INVARIANTS`], which docs/data.md lists too.

use std::collections::BTreeMap;

use crate::engine::Ruleset;
use crate::sim::table::{ColumnData, Table};
use crate::sim::MAX_ROUND_MOVES;

/// The limits the rules put on a dataset's values.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    max_rounds: i64,
    pits: i64,
    counters: i64,
    round_moves: i64,
}

impl Limits {
    pub fn new(rules: &Ruleset) -> Limits {
        Limits {
            max_rounds: rules.max_rounds as i64,
            pits: rules.pits_per_row as i64,
            counters: rules.total_counters() as i64,
            round_moves: MAX_ROUND_MOVES as i64,
        }
    }
}

/// The integer column `name` of `t`, if it has it (a narrowed read may not).
fn ints<'a>(t: &'a Table, name: &str) -> Option<&'a [i64]> {
    match t.column(name)? {
        ColumnData::I64(v) => Some(v),
        _ => None,
    }
}

/// What a row is called in messages: its match, or its round number, or its bin.
fn row_name(t: &Table, i: usize) -> String {
    if let Some(ColumnData::U64(ids)) = t.column("match_id") {
        return format!("match {}", ids[i]);
    }
    if let (Some(ColumnData::Sym(metric)), Some(value)) = (t.column("metric"), ints(t, "value")) {
        return format!("row {} ({} bin {})", i + 1, metric[i].unwrap_or("?"), value[i]);
    }
    match ints(t, "round") {
        Some(round) => format!("round {}", round[i]),
        None => format!("row {}", i + 1),
    }
}

/// Checks one column: each value within `lo..=hi(row)`; `why` says where the bound comes from.
fn within(
    t: &Table,
    column: &str,
    lo: i64,
    hi: impl Fn(usize) -> i64,
    why: &str,
) -> Result<(), String> {
    let Some(values) = ints(t, column) else { return Ok(()) };
    for (i, &v) in values.iter().enumerate() {
        let top = hi(i);
        if v < lo || v > top {
            return Err(format!(
                "table {}, {}, column {column}: {v} is out of range {lo}..={top} ({why})",
                t.name,
                row_name(t, i)
            ));
        }
    }
    Ok(())
}

/// A column's value at row i, 0 if the table was read without it.
fn at<'a>(t: &'a Table, column: &str) -> impl Fn(usize) -> i64 + 'a {
    let values = ints(t, column);
    move |i| values.map_or(0, |v| v[i])
}

/// A check of one part file's rows alone, against the rules' limits.
pub type RowCheck = fn(&Table, &Limits) -> Result<(), String>;

/// A check of one table's part against the matches part of its batch (matches first).
pub type BatchCheck = fn(&Table, &Table, &Limits) -> Result<(), String>;

/// How an invariant is checked: on a part file alone, or against its batch's matches.
#[derive(Clone, Copy)]
pub enum Check {
    Row(RowCheck),
    Batch(BatchCheck),
}

/// One thing a table's rows must satisfy: its name (in messages and docs/data.md), the rule
/// in words, and its check.
pub struct Invariant {
    pub name: &'static str,
    pub rule: &'static str,
    pub check: Check,
}

const fn row(name: &'static str, rule: &'static str, check: RowCheck) -> Invariant {
    Invariant { name, rule, check: Check::Row(check) }
}

const fn batch(name: &'static str, rule: &'static str, check: BatchCheck) -> Invariant {
    Invariant { name, rule, check: Check::Batch(check) }
}

/// The invariants of each table, written once: the readers check them in this order (a
/// table's row invariants when its part is read, the batch ones against the matches part
/// after), `rajapasu schema --markdown` lists them in docs/data.md.
pub const INVARIANTS: [(&str, &[Invariant]); 7] = [
    ("matches", &MATCHES),
    ("rounds", &ROUNDS),
    ("moves", &MOVES),
    ("laps", &LAPS),
    ("histograms", &HISTOGRAMS),
    ("quality", &QUALITY),
    ("by_round", &BY_ROUND),
];

/// The invariants of `table` (none for a table without any).
pub fn invariants(table: &str) -> &'static [Invariant] {
    INVARIANTS.iter().find(|(t, _)| *t == table).map_or(&[], |(_, list)| list)
}

/// The tables checked against each batch's matches, in the order they are checked (the
/// rounds before the histograms: a match's own rows name it).
pub const BATCH_TABLES: [&str; 4] = ["quality", "by_round", "rounds", "histograms"];

/// Names the broken invariant after the message that names its table, row and column(s).
fn named(table: &str, inv: &Invariant, r: Result<(), String>) -> Result<(), String> {
    r.map_err(|e| format!("{e} (invariant {table}.{})", inv.name))
}

/// Checks every value of one part file's table against the rules' limits (see the module).
pub fn check_part(t: &Table, limits: &Limits) -> Result<(), String> {
    for inv in invariants(t.name) {
        if let Check::Row(check) = inv.check {
            named(t.name, inv, check(t, limits))?;
        }
    }
    Ok(())
}

/// Checks a part `t` against the matches part `matches` of its batch.
pub fn check_batch(matches: &Table, t: &Table, limits: &Limits) -> Result<(), String> {
    for inv in invariants(t.name) {
        if let Check::Batch(check) = inv.check {
            named(t.name, inv, check(matches, t, limits))?;
        }
    }
    Ok(())
}

/// `column` within lo..=hi on every row.
fn bounded(t: &Table, column: &str, lo: i64, hi: i64, why: &str) -> Result<(), String> {
    within(t, column, lo, |_| hi, why)
}

const SIDES: [&str; 2] = ["south", "north"];
const CAPTURES: [&str; 4] = ["pussa", "own_fours", "gifted_fours", "remainder"];

/// A match's or a round's laps and counters sown, bounded by its moves and laps.
const LAPS_WITHIN_MOVES: Invariant =
    row("laps_within_moves", "0 ≤ `laps` ≤ `moves` × 1,000,000", |t, _| {
        let moves = at(t, "moves");
        within(
            t,
            "laps",
            0,
            |i| moves(i).saturating_mul(1_000_000),
            "a million laps a move at most",
        )
    });
const SOWN_WITHIN_LAPS: Invariant =
    row("sown_within_laps", "0 ≤ `sown` ≤ `laps` × the board's counters", |t, l| {
        let laps = at(t, "laps");
        within(
            t,
            "sown",
            0,
            |i| laps(i).saturating_mul(l.counters),
            "the board's counters a lap at most",
        )
    });

const MATCHES: [Invariant; 8] = [
    row("rounds_within_max_rounds", "0 ≤ `rounds` ≤ max_rounds", |t, l| bounded(t, "rounds", 0, l.max_rounds, "max_rounds")),
    row("moves_within_rounds", "0 ≤ `moves` ≤ `rounds` × 10,000 (R17)", |t, l| {
        let rounds = at(t, "rounds");
        within(t, "moves", 0, |i| rounds(i) * l.round_moves, "10,000 moves a round at most, R17")
    }),
    LAPS_WITHIN_MOVES,
    SOWN_WITHIN_LAPS,
    row("holdings_sum_to_counters", "`south_holdings`, `north_holdings` ≥ 0 and sum to the board's counters", check_holdings),
    row("endless_within_moves", "0 ≤ `endless_moves` ≤ `moves`", |t, _| {
        within(t, "endless_moves", 0, at(t, "moves"), "the match's moves")
    }),
    row(
        "round_wins_within_rounds",
        "`starter_round_wins`, `tied_rounds` ≥ 0 and `starter_round_wins` + `tied_rounds` ≤ `rounds`",
        |t, _| {
            let rounds = at(t, "rounds");
            within(t, "starter_round_wins", 0, &rounds, "the match's rounds")?;
            let wins = at(t, "starter_round_wins");
            within(t, "tied_rounds", 0, |i| rounds(i) - wins(i), "the match's rounds less those the starter won")
        },
    ),
    row(
        "captures_within_rounds",
        "each side's `pussa`, `own_fours`, `gifted_fours`, `remainder` in 0 ..= `rounds` × the board's counters",
        |t, l| {
            let rounds = at(t, "rounds");
            for side in SIDES {
                for kind in CAPTURES {
                    within(t, &format!("{side}_{kind}"), 0, |i| rounds(i) * l.counters, "the board's counters a round")?;
                }
            }
            Ok(())
        },
    ),
];

fn check_holdings(t: &Table, l: &Limits) -> Result<(), String> {
    let c = l.counters;
    bounded(t, "south_holdings", 0, c, "the board's counters")?;
    bounded(t, "north_holdings", 0, c, "the board's counters")?;
    if let (Some(s), Some(n)) = (ints(t, "south_holdings"), ints(t, "north_holdings")) {
        if let Some(i) = (0..s.len()).find(|&i| s[i] + n[i] != c) {
            return Err(format!(
                "table matches, {}, columns south_holdings and north_holdings: {} and {} do not sum to the board's {c} counters",
                row_name(t, i),
                s[i],
                n[i]
            ));
        }
    }
    Ok(())
}

const ROUNDS: [Invariant; 9] = [
    row("round_within_max_rounds", "1 ≤ `round` ≤ max_rounds", |t, l| bounded(t, "round", 1, l.max_rounds, "max_rounds")),
    row(
        "holdings_within_counters",
        "each side's `holdings`, `kept`, `pussa`, `own_fours`, `gifted_fours`, `remainder`, `total` in 0 ..= the board's counters",
        |t, l| {
            for side in SIDES {
                for kind in ["holdings", "kept", "pussa", "own_fours", "gifted_fours", "remainder", "total"] {
                    bounded(t, &format!("{side}_{kind}"), 0, l.counters, "the board's counters")?;
                }
            }
            Ok(())
        },
    ),
    row("pits_within_row", "each side's `open` ≥ 0, `closed` ≥ 0 and `open` + `closed` ≤ pits_per_row", |t, l| {
        for side in SIDES {
            let open = format!("{side}_open");
            bounded(t, &open, 0, l.pits, "pits_per_row")?;
            let open = at(t, &open);
            within(t, &format!("{side}_closed"), 0, |i| l.pits - open(i), "pits_per_row less the open pits")?;
        }
        Ok(())
    }),
    row("moves_within_round_limit", "0 ≤ `moves` ≤ 10,000 (R17)", |t, l| {
        bounded(t, "moves", 0, l.round_moves, "10,000 moves a round at most, R17")
    }),
    LAPS_WITHIN_MOVES,
    SOWN_WITHIN_LAPS,
    row("endless_within_moves", "0 ≤ `endless_moves` ≤ `moves`", |t, _| {
        within(t, "endless_moves", 0, at(t, "moves"), "the round's moves")
    }),
    row("rounds_numbered_in_order", "a match's rows are numbered 1, 2, 3, ... in order, each number once", |t, _| check_round_numbers(t)),
    batch(
        "rows_are_the_matches_rounds",
        "a match's rows are its `rounds` in table matches, their `moves` sum to its `moves`",
        |m, t, _| check_rounds(m, t),
    ),
];

const MOVES: [Invariant; 6] = [
    row("round_within_max_rounds", "1 ≤ `round` ≤ max_rounds", |t, l| {
        bounded(t, "round", 1, l.max_rounds, "max_rounds")
    }),
    row("ply_within_match", "1 ≤ `ply` ≤ max_rounds × 10,000", |t, l| {
        bounded(t, "ply", 1, l.max_rounds * l.round_moves, "max_rounds times 10,000 moves")
    }),
    row(
        "pit_within_row",
        "0 ≤ `pit` < pits_per_row, 0 ≤ `legal_moves` ≤ pits_per_row",
        |t, l| {
            bounded(t, "pit", 0, l.pits - 1, "pits_per_row")?;
            bounded(t, "legal_moves", 0, l.pits, "pits_per_row")
        },
    ),
    row("laps_within_limit", "1 ≤ `laps` ≤ 1,000,000", |t, _| {
        bounded(t, "laps", 1, 1_000_000, "a million laps a move at most")
    }),
    row("sown_within_laps", "0 ≤ `sown` ≤ `laps` × the board's counters", |t, l| {
        let laps = at(t, "laps");
        within(t, "sown", 0, |i| laps(i) * l.counters, "the board's counters a lap")
    }),
    row(
        "captures_within_counters",
        "`pussa`, `fours_mover`, `fours_opponent` in 0 ..= the board's counters",
        |t, l| {
            for column in ["pussa", "fours_mover", "fours_opponent"] {
                bounded(t, column, 0, l.counters, "the board's counters")?;
            }
            Ok(())
        },
    ),
];

const LAPS: [Invariant; 5] = [
    row("round_within_max_rounds", "1 ≤ `round` ≤ max_rounds", |t, l| {
        bounded(t, "round", 1, l.max_rounds, "max_rounds")
    }),
    row("ply_within_match", "1 ≤ `ply` ≤ max_rounds × 10,000", |t, l| {
        bounded(t, "ply", 1, l.max_rounds * l.round_moves, "max_rounds times 10,000 moves")
    }),
    row("lap_within_limit", "1 ≤ `lap` ≤ 1,000,000", |t, _| {
        bounded(t, "lap", 1, 1_000_000, "a million laps a move at most")
    }),
    row("start_pit_on_board", "0 ≤ `start_pit` < 2 × pits_per_row", |t, l| {
        bounded(t, "start_pit", 0, 2 * l.pits - 1, "the board's pits")
    }),
    row("sown_within_counters", "1 ≤ `sown` ≤ the board's counters", |t, l| {
        bounded(t, "sown", 1, l.counters, "the board's counters")
    }),
];

const HISTOGRAMS: [Invariant; 3] = [
    row("value_within_metric", "1 ≤ `value` ≤ the board's counters (`lap_length`) or 1,000,000 (`laps_per_move`)", check_histogram_values),
    row("count_positive", "`count` ≥ 1", |t, _| bounded(t, "count", 1, i64::MAX, "a bin counts at least one")),
    batch("bins_count_the_matches", "the bins sum to the matches' `moves` and `laps` (`laps_per_move`), `laps` and `sown` (`lap_length`), plus at most a cut round an unfinished match", check_histograms),
];

fn check_histogram_values(t: &Table, l: &Limits) -> Result<(), String> {
    let metric = match t.column("metric") {
        Some(ColumnData::Sym(m)) => m.clone(),
        _ => Vec::new(),
    };
    let lap = |i: usize| metric.get(i).copied().flatten() == Some("lap_length");
    within(
        t,
        "value",
        1,
        |i| if lap(i) { l.counters } else { 1_000_000 },
        "the board's counters a lap, a million laps a move",
    )
}

const QUALITY: [Invariant; 4] = [
    batch("same_matches", "the rows are the matches of table matches, in its order", check_quality_matches),
    batch("counts_within_positions", "`decision_moves`, `lead_changes`, `south_behind`, `north_behind`, `decisive_ply`, `repeated_positions` in 0 ..= the match's positions (`moves` + `rounds` + 1 of table matches)", check_quality_counts),
    batch("legal_within_pits", "`legal_sum` ≤ positions × pits_per_row; `legal_max`, `legal_first`, `legal_last` ≤ pits_per_row; `pits_played` ≤ 2 × pits_per_row; all ≥ 0", check_quality_legal),
    batch("leads_within_counters", "`lead_squares` ≤ positions × counters²; each side's `peak`, `round_deficit` ≤ counters, `deficit_sum` ≤ positions × counters; all ≥ 0", check_quality_leads),
];

const BY_ROUND: [Invariant; 7] = [
    row("round_within_max_rounds", "1 ≤ `round` ≤ max_rounds", |t, l| bounded(t, "round", 1, l.max_rounds, "max_rounds")),
    row("rounds_non_negative", "`rounds` ≥ 0", |t, _| bounded(t, "rounds", 0, i64::MAX, "a count")),
    row("wins_within_rounds", "`starter_wins`, `ties`, `first_player_wins` ≥ 0, `starter_wins` + `ties` ≤ `rounds` and `first_player_wins` + `ties` ≤ `rounds` (a tied round has no winner)", check_by_round_wins),
    row("round1_starter_is_first_player", "in round 1, `starter_wins` = `first_player_wins` (the first player starts round 1, R13)", check_round1_starter),
    row("open_pits_within_pits", "0 ≤ `open_pits` ≤ `rounds` × 2 × pits_per_row, 0 ≤ `open_pits_squares` ≤ `rounds` × (2 × pits_per_row)²", |t, l| {
        let rounds = at(t, "rounds");
        within(t, "open_pits", 0, |i| rounds(i).saturating_mul(2 * l.pits), "both rows' pits a round")?;
        within(t, "open_pits_squares", 0, |i| rounds(i).saturating_mul(4 * l.pits * l.pits), "the square of both rows' pits a round")
    }),
    batch("one_row_per_round_reached", "one row per round number; `rounds` of round r is the number of matches of table matches that played round r to its end", |m, t, _| check_by_round(m, t)),
    batch("wins_sum_to_matches", "`starter_wins` sums to the batch's `starter_round_wins` of table matches, `ties` to its `tied_rounds`", |m, t, _| check_by_round_sums(m, t)),
];

fn check_by_round_wins(t: &Table, _: &Limits) -> Result<(), String> {
    let (rounds, ties) = (at(t, "rounds"), at(t, "ties"));
    within(t, "starter_wins", 0, &rounds, "the rounds counted")?;
    let wins = at(t, "starter_wins");
    within(t, "ties", 0, |i| rounds(i) - wins(i), "the rounds counted less the starter's wins")?;
    within(t, "first_player_wins", 0, |i| rounds(i) - ties(i), "the rounds counted less the ties")
}

fn check_round1_starter(t: &Table, _: &Limits) -> Result<(), String> {
    let (Some(round), Some(s), Some(f)) =
        (ints(t, "round"), ints(t, "starter_wins"), ints(t, "first_player_wins"))
    else {
        return Ok(());
    };
    match (0..round.len()).find(|&i| round[i] == 1 && s[i] != f[i]) {
        Some(i) => Err(format!(
            "table by_round, round 1, columns starter_wins and first_player_wins: {} and {} differ, but the first player starts round 1 (R13)",
            s[i], f[i]
        )),
        None => Ok(()),
    }
}

/// The sums of by_round's `starter_wins` and `ties` against the matches' (in i128: no sum of
/// i64 counts overflows it).
fn check_by_round_sums(matches: &Table, by_round: &Table) -> Result<(), String> {
    let sum = |t: &Table, column: &str| {
        ints(t, column).map(|v| v.iter().map(|&x| x as i128).sum::<i128>())
    };
    for (column, of_matches) in [("starter_wins", "starter_round_wins"), ("ties", "tied_rounds")] {
        let (Some(got), Some(want)) = (sum(by_round, column), sum(matches, of_matches)) else {
            continue;
        };
        if got != want {
            return Err(format!(
                "table by_round, every row, column {column}: it sums to {got}, but column {of_matches} of table matches sums to {want}"
            ));
        }
    }
    Ok(())
}

/// Checks a quality part holds the matches of the matches part beside it, in its order.
fn check_quality_matches(matches: &Table, quality: &Table, _: &Limits) -> Result<(), String> {
    let (Some(ColumnData::U64(ids)), Some(ColumnData::U64(qids))) =
        (matches.column("match_id"), quality.column("match_id"))
    else {
        return Ok(());
    };
    if let Some(i) = (0..ids.len().max(qids.len())).find(|&i| ids.get(i) != qids.get(i)) {
        return Err(format!(
            "table quality, row {}: match {:?} beside match {:?} of table matches (the tables must hold the same matches in the same order)",
            i + 1,
            qids.get(i),
            ids.get(i)
        ));
    }
    Ok(())
}

/// The positions of each match of a matches part: a position before each move, and at most
/// one more a round whose end is a position too (R9).
fn positions(matches: &Table) -> impl Fn(usize) -> i64 + '_ {
    let (moves, rounds) = (at(matches, "moves"), at(matches, "rounds"));
    move |i| moves(i) + rounds(i) + 1
}

/// Each tally of a quality part at most the match's positions (same matches, same order:
/// `same_matches` is checked first).
fn check_quality_counts(matches: &Table, q: &Table, _: &Limits) -> Result<(), String> {
    let positions = positions(matches);
    let counts = [
        "decision_moves",
        "lead_changes",
        "south_behind",
        "north_behind",
        "decisive_ply",
        "repeated_positions",
    ];
    for column in counts {
        within(
            q,
            column,
            0,
            &positions,
            "the match's positions: its moves and rounds in table matches",
        )?;
    }
    Ok(())
}

fn check_quality_legal(matches: &Table, q: &Table, limits: &Limits) -> Result<(), String> {
    let (positions, p) = (positions(matches), limits.pits);
    within(
        q,
        "legal_sum",
        0,
        |i| positions(i) * p,
        "pits_per_row at each of the match's positions",
    )?;
    for column in ["legal_max", "legal_first", "legal_last"] {
        within(q, column, 0, |_| p, "pits_per_row")?;
    }
    within(q, "pits_played", 0, |_| 2 * p, "the board's pits")
}

fn check_quality_leads(matches: &Table, q: &Table, limits: &Limits) -> Result<(), String> {
    let (positions, c) = (positions(matches), limits.counters);
    within(
        q,
        "lead_squares",
        0,
        |i| positions(i).saturating_mul(c * c),
        "the board's counters squared at each position",
    )?;
    for side in SIDES {
        within(q, &format!("{side}_peak"), 0, |_| c, "the board's counters")?;
        within(
            q,
            &format!("{side}_deficit_sum"),
            0,
            |i| positions(i).saturating_mul(c),
            "the board's counters at each position",
        )?;
        within(q, &format!("{side}_round_deficit"), 0, |_| c, "the board's counters")?;
    }
    Ok(())
}

/// A match's rows in a rounds part are its rounds 1, 2, 3, ... in order (as written), so no
/// round is counted twice or in another's place.
fn check_round_numbers(t: &Table) -> Result<(), String> {
    let (Some(ColumnData::U64(ids)), Some(round)) = (t.column("match_id"), ints(t, "round")) else {
        return Ok(());
    };
    let mut next: BTreeMap<u64, i64> = BTreeMap::new();
    for (i, (&id, &r)) in ids.iter().zip(round).enumerate() {
        let want = next.entry(id).or_insert(1);
        if r != *want {
            return Err(format!(
                "table rounds, row {} (match {id}), column round: {r} where round {want} belongs",
                i + 1
            ));
        }
        *want += 1;
    }
    Ok(())
}

/// Checks a by_round part against the matches part of its batch: one row per round number,
/// and the rounds numbered r are the matches that played round r to its end.
fn check_by_round(matches: &Table, by_round: &Table) -> Result<(), String> {
    let (Some(rounds), Some(numbers), Some(counted)) =
        (ints(matches, "rounds"), ints(by_round, "round"), ints(by_round, "rounds"))
    else {
        return Ok(());
    };
    let mut reached: BTreeMap<i64, i64> = BTreeMap::new();
    for &r in rounds {
        // Bounded by max_rounds already (check_part).
        for k in 1..=r {
            *reached.entry(k).or_default() += 1;
        }
    }
    let mut seen = BTreeMap::new();
    for (i, (&k, &n)) in numbers.iter().zip(counted).enumerate() {
        if seen.insert(k, i).is_some() {
            return Err(format!("table by_round, round {k}: a second row for the same round number (rows are one per round number)"));
        }
        let want = reached.get(&k).copied().unwrap_or(0);
        if n != want {
            return Err(format!(
                "table by_round, round {k}, column rounds: {n}, but {want} matches of table matches played round {k} to its end"
            ));
        }
    }
    if let Some((&k, &want)) = reached.iter().find(|(k, _)| !seen.contains_key(k)) {
        return Err(format!("table by_round, round {k}: no row, but {want} matches of table matches played round {k} to its end"));
    }
    Ok(())
}

/// Checks a rounds part against the matches part of its batch: a match's rows are its
/// `rounds`, their moves its `moves`.
fn check_rounds(matches: &Table, rounds_table: &Table) -> Result<(), String> {
    let (Some(ColumnData::U64(ids)), Some(rounds), Some(moves)) =
        (matches.column("match_id"), ints(matches, "rounds"), ints(matches, "moves"))
    else {
        return Ok(());
    };
    let (Some(ColumnData::U64(rids)), Some(rmoves)) =
        (rounds_table.column("match_id"), ints(rounds_table, "moves"))
    else {
        return Ok(());
    };
    let mut per_match: BTreeMap<u64, (i64, i64)> = BTreeMap::new();
    for (&id, &m) in rids.iter().zip(rmoves) {
        let e = per_match.entry(id).or_default();
        e.0 += 1;
        e.1 += m;
    }
    for (i, &id) in ids.iter().enumerate() {
        let (n, m) = per_match.remove(&id).unwrap_or((0, 0));
        if n != rounds[i] {
            return Err(format!(
                "table rounds, match {id}: {n} rows, but column rounds of table matches says {}",
                rounds[i]
            ));
        }
        if m != moves[i] {
            return Err(format!(
                "table rounds, match {id}, column moves: they sum to {m}, but column moves of table matches says {}",
                moves[i]
            ));
        }
    }
    if let Some(id) = per_match.keys().next() {
        return Err(format!(
            "table rounds, match {id}: rows of a match that table matches does not hold"
        ));
    }
    Ok(())
}

/// Checks a histograms part against the matches part of its batch: `laps_per_move` counts the
/// matches' moves and their laps, `lap_length` their laps and counters sown, and besides them only
/// those of a round cut at 10,000 moves (R17), which the matches rows leave out: at most one a
/// match that is unfinished. Sums in i128: no count can overflow them.
fn check_histograms(matches: &Table, histograms: &Table, limits: &Limits) -> Result<(), String> {
    let sum =
        |column: &str| ints(matches, column).map(|v| v.iter().map(|&x| x as i128).sum::<i128>());
    let (Some(ColumnData::Sym(metric)), Some(value), Some(count)) =
        (histograms.column("metric"), ints(histograms, "value"), ints(histograms, "count"))
    else {
        return Ok(());
    };
    let unfinished = match matches.column("outcome") {
        Some(ColumnData::Sym(o)) => o.iter().filter(|o| **o == Some("unfinished")).count() as i128,
        _ => 0,
    };
    // What cut rounds may add: their moves, a million laps each, the board's counters a lap.
    let (cut_moves, cut_laps) =
        (unfinished * MAX_ROUND_MOVES as i128, unfinished * MAX_ROUND_MOVES as i128 * 1_000_000);
    let checks = [
        ("laps_per_move", "moves", cut_moves, "laps", cut_laps),
        ("lap_length", "laps", cut_laps, "sown", cut_laps * limits.counters as i128),
    ];
    for (name, items, items_slack, weighted, weighted_slack) in checks {
        let rows = (0..metric.len()).filter(|&i| metric[i] == Some(name));
        let (n, total) = rows.fold((0i128, 0i128), |(n, t), i| {
            (n + count[i] as i128, t + count[i] as i128 * value[i] as i128)
        });
        for (got, column, slack, what) in [
            (n, items, items_slack, "count"),
            (total, weighted, weighted_slack, "value times count"),
        ] {
            let Some(want) = sum(column) else { continue };
            if got < want || got - want > slack {
                let cut = if slack > 0 {
                    format!(" (plus at most {slack} from the rounds cut at 10,000 moves of its unfinished matches)")
                } else {
                    String::new()
                };
                return Err(format!(
                    "table histograms, metric {name}: the bins' {what} sums to {got}, but column {column} of table matches sums to {want}{cut}"
                ));
            }
        }
    }
    Ok(())
}
