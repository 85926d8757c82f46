//! What a dataset's numbers may be: every value bounded by what the rules allow (`max_rounds`,
//! the board's pits and counters, 10,000 moves a round, R17), and the tables of one batch
//! agreeing with each other (a match's quality row counts at most its positions, the rounds
//! numbered r are the matches that reached round r, the histograms count the matches' moves and
//! laps, the rounds rows of a match are its `rounds` and their moves its `moves`).
//!
//! A dataset is untrusted input: its part files and progress markers can be edited consistently
//! by anyone who sends it. Without these checks a value of 10^16 became an allocation of
//! gigabytes, an impossible count a panic, and a duplicated row figures that lie. The first
//! violation is reported naming the table, the match (or round, or bin) and the column.

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
fn within(t: &Table, column: &str, lo: i64, hi: impl Fn(usize) -> i64, why: &str) -> Result<(), String> {
    let Some(values) = ints(t, column) else { return Ok(()) };
    for (i, &v) in values.iter().enumerate() {
        let top = hi(i);
        if v < lo || v > top {
            return Err(format!("table {}, {}, column {column}: {v} is out of range {lo}..={top} ({why})", t.name, row_name(t, i)));
        }
    }
    Ok(())
}

/// A column's value at row i, 0 if the table was read without it.
fn at<'a>(t: &'a Table, column: &str) -> impl Fn(usize) -> i64 + 'a {
    let values = ints(t, column);
    move |i| values.map_or(0, |v| v[i])
}

/// A check of one table's part against the matches part of its batch.
pub type BatchCheck = fn(&Table, &Table, &Limits) -> Result<(), String>;

/// The tables checked against each batch's matches, in the order they are checked (the
/// rounds before the histograms: a match's own rows name it).
pub const BATCH_CHECKS: [(&str, BatchCheck); 4] = [
    ("quality", check_quality),
    ("by_round", |m, t, _| check_by_round(m, t)),
    ("rounds", |m, t, _| check_rounds(m, t)),
    ("histograms", check_histograms),
];

/// Checks every value of one part file's table against the rules' limits (see the module).
pub fn check_part(t: &Table, limits: &Limits) -> Result<(), String> {
    match t.name {
        "matches" => check_matches_limits(t, limits),
        "rounds" => check_rounds_limits(t, limits),
        "moves" => check_moves_limits(t, limits),
        "laps" => check_laps_limits(t, limits),
        "histograms" => check_histograms_limits(t, limits),
        "by_round" => check_by_round_limits(t, limits),
        _ => Ok(()),
    }
}

/// `column` within lo..=hi on every row.
fn bounded(t: &Table, column: &str, lo: i64, hi: i64, why: &str) -> Result<(), String> {
    within(t, column, lo, |_| hi, why)
}

fn check_matches_limits(t: &Table, limits: &Limits) -> Result<(), String> {
    let Limits { max_rounds, counters, round_moves, .. } = *limits;
    let c = counters;
    let rounds = at(t, "rounds");
    let moves = at(t, "moves");
    let laps = at(t, "laps");
    bounded(t, "rounds", 0, max_rounds, "max_rounds")?;
    within(t, "moves", 0, |i| rounds(i) * round_moves, "10,000 moves a round at most, R17")?;
    within(t, "laps", 0, |i| moves(i).saturating_mul(1_000_000), "a million laps a move at most")?;
    within(t, "sown", 0, |i| laps(i).saturating_mul(c), "the board's counters a lap at most")?;
    bounded(t, "south_holdings", 0, c, "the board's counters")?;
    bounded(t, "north_holdings", 0, c, "the board's counters")?;
    within(t, "endless_moves", 0, &moves, "the match's moves")?;
    within(t, "starter_round_wins", 0, &rounds, "the match's rounds")?;
    within(t, "tied_rounds", 0, |i| rounds(i) - at(t, "starter_round_wins")(i), "the match's rounds less those the starter won")?;
    for side in ["south", "north"] {
        for kind in ["pussa", "own_fours", "gifted_fours", "remainder"] {
            within(t, &format!("{side}_{kind}"), 0, |i| rounds(i) * c, "the board's counters a round")?;
        }
    }
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

fn check_rounds_limits(t: &Table, limits: &Limits) -> Result<(), String> {
    let Limits { max_rounds, pits, counters, round_moves } = *limits;
    let c = counters;
    let moves = at(t, "moves");
    let laps = at(t, "laps");
    bounded(t, "round", 1, max_rounds, "max_rounds")?;
    for side in ["south", "north"] {
        bounded(t, &format!("{side}_holdings"), 0, c, "the board's counters")?;
        bounded(t, &format!("{side}_open"), 0, pits, "pits_per_row")?;
        within(t, &format!("{side}_closed"), 0, |i| pits - at(t, &format!("{side}_open"))(i), "pits_per_row less the open pits")?;
        bounded(t, &format!("{side}_kept"), 0, c, "the board's counters")?;
        for kind in ["pussa", "own_fours", "gifted_fours", "remainder", "total"] {
            bounded(t, &format!("{side}_{kind}"), 0, c, "the board's counters")?;
        }
    }
    bounded(t, "moves", 0, round_moves, "10,000 moves a round at most, R17")?;
    within(t, "laps", 0, |i| moves(i).saturating_mul(1_000_000), "a million laps a move at most")?;
    within(t, "sown", 0, |i| laps(i).saturating_mul(c), "the board's counters a lap at most")?;
    within(t, "endless_moves", 0, &moves, "the round's moves")?;
    Ok(())
}

fn check_moves_limits(t: &Table, limits: &Limits) -> Result<(), String> {
    let Limits { max_rounds, pits, counters, round_moves } = *limits;
    let c = counters;
    bounded(t, "round", 1, max_rounds, "max_rounds")?;
    bounded(t, "ply", 1, max_rounds * round_moves, "max_rounds times 10,000 moves")?;
    bounded(t, "pit", 0, pits - 1, "pits_per_row")?;
    bounded(t, "legal_moves", 0, pits, "pits_per_row")?;
    bounded(t, "laps", 1, 1_000_000, "a million laps a move at most")?;
    within(t, "sown", 0, |i| at(t, "laps")(i) * c, "the board's counters a lap")?;
    for column in ["pussa", "fours_mover", "fours_opponent"] {
        bounded(t, column, 0, c, "the board's counters")?;
    }
    Ok(())
}

fn check_laps_limits(t: &Table, limits: &Limits) -> Result<(), String> {
    let Limits { max_rounds, pits, counters, round_moves } = *limits;
    let c = counters;
    bounded(t, "round", 1, max_rounds, "max_rounds")?;
    bounded(t, "ply", 1, max_rounds * round_moves, "max_rounds times 10,000 moves")?;
    bounded(t, "lap", 1, 1_000_000, "a million laps a move at most")?;
    bounded(t, "start_pit", 0, 2 * pits - 1, "the board's pits")?;
    bounded(t, "sown", 1, c, "the board's counters")?;
    Ok(())
}

fn check_histograms_limits(t: &Table, limits: &Limits) -> Result<(), String> {
    let Limits { counters, .. } = *limits;
    let c = counters;
    let metric = match t.column("metric") {
        Some(ColumnData::Sym(m)) => m.clone(),
        _ => Vec::new(),
    };
    let lap = |i: usize| metric.get(i).copied().flatten() == Some("lap_length");
    within(t, "value", 1, |i| if lap(i) { c } else { 1_000_000 }, "the board's counters a lap, a million laps a move")?;
    bounded(t, "count", 1, i64::MAX, "a bin counts at least one")?;
    Ok(())
}

fn check_by_round_limits(t: &Table, limits: &Limits) -> Result<(), String> {
    let Limits { max_rounds, pits, .. } = *limits;
    let rounds = at(t, "rounds");
    bounded(t, "round", 1, max_rounds, "max_rounds")?;
    bounded(t, "rounds", 0, i64::MAX, "a count")?;
    within(t, "starter_wins", 0, &rounds, "the rounds counted")?;
    within(t, "ties", 0, |i| rounds(i) - at(t, "starter_wins")(i), "the rounds counted less the starter's wins")?;
    within(t, "first_player_wins", 0, &rounds, "the rounds counted")?;
    within(t, "open_pits", 0, |i| rounds(i).saturating_mul(2 * pits), "both rows' pits a round")?;
    within(t, "open_pits_squares", 0, |i| rounds(i).saturating_mul(4 * pits * pits), "the square of both rows' pits a round")?;
    Ok(())
}

/// Checks a quality part against the matches part beside it (same matches, same order): each
/// tally at most what the match's positions allow (a position before each move, and at most
/// one more a round, R9).
pub fn check_quality(matches: &Table, quality: &Table, limits: &Limits) -> Result<(), String> {
    let (Some(ColumnData::U64(ids)), Some(ColumnData::U64(qids))) = (matches.column("match_id"), quality.column("match_id")) else {
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
    let (moves, rounds) = (at(matches, "moves"), at(matches, "rounds"));
    // Positions counted: a move's and at most one more a round whose end is a position too.
    let positions = |i: usize| moves(i) + rounds(i) + 1;
    let (p, c) = (limits.pits, limits.counters);
    let q = quality;
    let counts = ["decision_moves", "lead_changes", "south_behind", "north_behind", "decisive_ply", "repeated_positions"];
    for column in counts {
        within(q, column, 0, positions, "the match's positions: its moves and rounds in table matches")?;
    }
    within(q, "legal_sum", 0, |i| positions(i) * p, "pits_per_row at each of the match's positions")?;
    for column in ["legal_max", "legal_first", "legal_last"] {
        within(q, column, 0, |_| p, "pits_per_row")?;
    }
    within(q, "pits_played", 0, |_| 2 * p, "the board's pits")?;
    within(q, "lead_squares", 0, |i| positions(i).saturating_mul(c * c), "the board's counters squared at each position")?;
    for side in ["south", "north"] {
        within(q, &format!("{side}_peak"), 0, |_| c, "the board's counters")?;
        within(q, &format!("{side}_deficit_sum"), 0, |i| positions(i).saturating_mul(c), "the board's counters at each position")?;
        within(q, &format!("{side}_round_deficit"), 0, |_| c, "the board's counters")?;
    }
    Ok(())
}

/// Checks a by_round part against the matches part of its batch: one row per round number,
/// and the rounds numbered r are the matches that played round r to its end.
pub fn check_by_round(matches: &Table, by_round: &Table) -> Result<(), String> {
    let (Some(rounds), Some(numbers), Some(counted)) = (ints(matches, "rounds"), ints(by_round, "round"), ints(by_round, "rounds")) else {
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
pub fn check_rounds(matches: &Table, rounds_table: &Table) -> Result<(), String> {
    let (Some(ColumnData::U64(ids)), Some(rounds), Some(moves)) =
        (matches.column("match_id"), ints(matches, "rounds"), ints(matches, "moves"))
    else {
        return Ok(());
    };
    let (Some(ColumnData::U64(rids)), Some(rmoves)) = (rounds_table.column("match_id"), ints(rounds_table, "moves")) else { return Ok(()) };
    let mut per_match: BTreeMap<u64, (i64, i64)> = BTreeMap::new();
    for (&id, &m) in rids.iter().zip(rmoves) {
        let e = per_match.entry(id).or_default();
        e.0 += 1;
        e.1 += m;
    }
    for (i, &id) in ids.iter().enumerate() {
        let (n, m) = per_match.remove(&id).unwrap_or((0, 0));
        if n != rounds[i] {
            return Err(format!("table rounds, match {id}: {n} rows, but column rounds of table matches says {}", rounds[i]));
        }
        if m != moves[i] {
            return Err(format!(
                "table rounds, match {id}, column moves: they sum to {m}, but column moves of table matches says {}",
                moves[i]
            ));
        }
    }
    if let Some(id) = per_match.keys().next() {
        return Err(format!("table rounds, match {id}: rows of a match that table matches does not hold"));
    }
    Ok(())
}

/// Checks a histograms part against the matches part of its batch: `laps_per_move` counts the
/// matches' moves and their laps, `lap_length` their laps and counters sown, and besides them only
/// those of a round cut at 10,000 moves (R17), which the matches rows leave out: at most one a
/// match that is unfinished. Sums in i128: no count can overflow them.
pub fn check_histograms(matches: &Table, histograms: &Table, limits: &Limits) -> Result<(), String> {
    let sum = |column: &str| ints(matches, column).map(|v| v.iter().map(|&x| x as i128).sum::<i128>());
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
    let (cut_moves, cut_laps) = (unfinished * MAX_ROUND_MOVES as i128, unfinished * MAX_ROUND_MOVES as i128 * 1_000_000);
    let checks = [
        ("laps_per_move", "moves", cut_moves, "laps", cut_laps),
        ("lap_length", "laps", cut_laps, "sown", cut_laps * limits.counters as i128),
    ];
    for (name, items, items_slack, weighted, weighted_slack) in checks {
        let rows = (0..metric.len()).filter(|&i| metric[i] == Some(name));
        let (n, total) = rows.fold((0i128, 0i128), |(n, t), i| (n + count[i] as i128, t + count[i] as i128 * value[i] as i128));
        for (got, column, slack, what) in [(n, items, items_slack, "count"), (total, weighted, weighted_slack, "value times count")] {
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
