//! Datasets edited consistently (part files and progress markers agree, as anyone who sends a
//! dataset can make them): impossible numbers are refused when read, naming the table, the match
//! (or round, or bin) and the column, with exit 2; never a panic, an unbounded allocation or a
//! figure that lies.

use std::path::{Path, PathBuf};

use crate::common::*;

/// A small dataset of 120 matches in CSV at round detail, one batch.
fn dataset(dir: &Path) -> PathBuf {
    let out = dir.join("pristine");
    ok(&[
        "simulate",
        "--matches",
        "120",
        "--seed",
        "3",
        "--detail",
        "round",
        "--format",
        "csv",
        "--out",
        s(&out),
        "--quiet",
    ]);
    out
}

/// A copy of `pristine` whose `table` part is edited by `edit` (the header and the rows as
/// text fields), its progress marker made to agree.
fn edited(
    pristine: &Path,
    name: &str,
    table: &str,
    edit: impl FnOnce(&[String], &mut Vec<Vec<String>>),
) -> PathBuf {
    let copy = pristine.with_file_name(name);
    assert!(std::process::Command::new("cp")
        .arg("-a")
        .arg(pristine)
        .arg(&copy)
        .status()
        .unwrap()
        .success());
    let part = std::fs::read_dir(copy.join(table))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "csv"))
        .unwrap();
    let mut reader = ::csv::Reader::from_path(&part).unwrap();
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let mut rows: Vec<Vec<String>> =
        reader.records().map(|r| r.unwrap().iter().map(String::from).collect()).collect();
    edit(&header, &mut rows);
    let mut writer = ::csv::Writer::from_writer(Vec::new());
    writer.write_record(&header).unwrap();
    for row in &rows {
        writer.write_record(row).unwrap();
    }
    rewrite_part_file(&copy, &part, &writer.into_inner().unwrap());
    copy
}

fn col(header: &[String], name: &str) -> usize {
    header.iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name}"))
}

/// Sets `column` of the first row where `pick` holds to `value`.
fn set(
    column: &'static str,
    value: &'static str,
    pick: impl Fn(&[String], &[String]) -> bool,
) -> impl FnOnce(&[String], &mut Vec<Vec<String>>) {
    move |h, rows| {
        let c = col(h, column);
        let row = rows.iter_mut().find(|r| pick(h, r)).expect("a row to edit");
        row[c] = value.to_string();
    }
}

/// Every reader refuses the dataset with exit 2, naming each needle, and writes nothing;
/// nothing panics.
fn refused_by_every_reader(dir: &Path, data: &Path, needles: &[&str]) {
    let out = dir.join("out");
    for args in [
        vec!["summarize", s(data)],
        vec!["plot", s(data), "--out", s(&out)],
        vec!["metrics", s(data), "--out", s(&out)],
    ] {
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "rajapasu {}: {err}", args.join(" "));
        assert!(!err.contains("panicked"), "{err}");
        for n in needles {
            assert!(err.contains(n), "rajapasu {} lacks '{n}': {err}", args.join(" "));
        }
        assert!(!out.exists(), "rajapasu {} left {} behind", args.join(" "), out.display());
    }
}

fn first_row(_: &[String], _: &[String]) -> bool {
    true
}

#[test]
fn impossible_counts_are_refused_not_panicked_on() {
    let dir = tempfile::tempdir().unwrap();
    let pristine = dataset(dir.path());
    ok(&["summarize", s(&pristine)]);
    // by_round: round 1 with more starter wins than rounds (a panic in the statistics before).
    let d = edited(&pristine, "starter_wins", "by_round", |h, rows| {
        let (r, n, w) = (col(h, "round"), col(h, "rounds"), col(h, "starter_wins"));
        let row = rows.iter_mut().find(|row| row[r] == "1").unwrap();
        row[w] = (row[n].parse::<i64>().unwrap() + 1).to_string();
    });
    refused_by_every_reader(
        dir.path(),
        &d,
        &["table by_round, round 1, column starter_wins", "out of range"],
    );
    let d = edited(
        &pristine,
        "starter_round_wins",
        "matches",
        set("starter_round_wins", "10000000", first_row),
    );
    refused_by_every_reader(
        dir.path(),
        &d,
        &["table matches, match 0, column starter_round_wins: 10000000 is out of range"],
    );
    let d = edited(&pristine, "counts", "histograms", |h, rows| {
        let c = col(h, "count");
        for row in rows.iter_mut().take(2) {
            row[c] = i64::MAX.to_string();
        }
    });
    refused_by_every_reader(dir.path(), &d, &["table histograms, metric", "sums to"]);
}

#[test]
fn values_beyond_the_rules_are_refused_before_anything_is_allocated() {
    let dir = tempfile::tempdir().unwrap();
    let pristine = dataset(dir.path());
    for (name, value) in
        [("rounds_1e16", "10000000000000000"), ("rounds_max", "9223372036854775807")]
    {
        let d = edited(&pristine, name, "matches", set("rounds", value, first_row));
        refused_by_every_reader(
            dir.path(),
            &d,
            &[&format!("table matches, match 0, column rounds: {value} is out of range 0..=1000 (max_rounds)")],
        );
    }
    let d = edited(
        &pristine,
        "value_1e15",
        "histograms",
        set("value", "1000000000000000", |h, r| r[col(h, "metric")] == "laps_per_move"),
    );
    refused_by_every_reader(
        dir.path(),
        &d,
        &[
            "table histograms, row",
            "laps_per_move bin 1000000000000000",
            "column value",
            "out of range",
        ],
    );
}

#[test]
fn tables_that_disagree_with_each_other_are_refused_naming_table_match_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let pristine = dataset(dir.path());
    let d = edited(
        &pristine,
        "decision_moves",
        "quality",
        set("decision_moves", "1000000000", first_row),
    );
    refused_by_every_reader(
        dir.path(),
        &d,
        &["table quality, match 0, column decision_moves: 1000000000 is out of range"],
    );
    let d = edited(
        &pristine,
        "lead_squares",
        "quality",
        set("lead_squares", "9223372036854775807", first_row),
    );
    refused_by_every_reader(dir.path(), &d, &["table quality, match 0, column lead_squares"]);
    let d = edited(&pristine, "duplicated", "by_round", |h, rows| {
        let r = col(h, "round");
        let one = rows.iter().find(|row| row[r] == "1").unwrap().clone();
        rows.push(one);
    });
    refused_by_every_reader(dir.path(), &d, &["table by_round, round 1: a second row"]);
    let d = edited(&pristine, "deleted", "by_round", |h, rows| {
        let r = col(h, "round");
        rows.retain(|row| row[r] != "1");
    });
    refused_by_every_reader(dir.path(), &d, &["table by_round, round 1: no row, but 120 matches"]);
    let d = edited(&pristine, "moves", "matches", set("moves", "10000000000000000", first_row));
    refused_by_every_reader(
        dir.path(),
        &d,
        &["table matches, match 0, column moves: 10000000000000000 is out of range"],
    );
    // Within the bounds but not the match's rounds rows.
    let d = edited(&pristine, "moves_sum", "matches", |h, rows| {
        let c = col(h, "moves");
        let v: i64 = rows[0][c].parse().unwrap();
        rows[0][c] = (v + 1).to_string();
    });
    refused_by_every_reader(dir.path(), &d, &["table rounds, match 0, column moves: they sum to"]);
}

/// A row of a part file, its fields read by column name.
struct Row<'a> {
    header: &'a [String],
    fields: &'a [String],
}

impl Row<'_> {
    fn int(&self, column: &str) -> i64 {
        self.fields[col(self.header, column)]
            .parse()
            .unwrap_or_else(|e| panic!("column {column}: {e}"))
    }
}

type Edit = Box<dyn FnOnce(&[String], &mut Vec<Vec<String>>)>;

/// An invariant (`table.name`), the table edited, the edit, and what the refusal must name.
type Breach = (&'static str, &'static str, Edit, &'static str);

/// Sets `column` of the first row where `pick` holds to `value` of that row.
fn to(column: &'static str, pick: fn(&Row) -> bool, value: fn(&Row) -> i64) -> Edit {
    Box::new(move |header, rows| {
        let c = col(header, column);
        let row =
            rows.iter_mut().find(|r| pick(&Row { header, fields: r })).expect("a row to edit");
        let v = value(&Row { header, fields: row });
        row[c] = v.to_string();
    })
}

fn any(_: &Row) -> bool {
    true
}

fn round_1(r: &Row) -> bool {
    r.int("round") == 1
}

fn round_2(r: &Row) -> bool {
    r.int("round") == 2
}

/// One edit for each invariant of the tables a round-detail dataset holds: the invariant, the
/// table edited, the edit (breaking that invariant and, where the tables allow, no other
/// checked before it), and the table, row and column(s) the refusal must name.
fn breaches() -> Vec<Breach> {
    let mut all = breaches_of_matches_and_rounds();
    all.extend(breaches_beside_the_matches());
    all
}

/// [`breaches`] of the matches and rounds tables.
fn breaches_of_matches_and_rounds() -> Vec<Breach> {
    const MAX: i64 = i64::MAX;
    vec![
        (
            "matches.rounds_within_max_rounds",
            "matches",
            to("rounds", any, |_| 1001),
            "table matches, match 0, column rounds: 1001",
        ),
        (
            "matches.moves_within_rounds",
            "matches",
            to("moves", any, |r| r.int("rounds") * 10_000 + 1),
            "table matches, match 0, column moves",
        ),
        (
            "matches.laps_within_moves",
            "matches",
            to("laps", any, |r| r.int("moves") * 1_000_000 + 1),
            "table matches, match 0, column laps",
        ),
        (
            "matches.sown_within_laps",
            "matches",
            to("sown", any, |_| MAX),
            "table matches, match 0, column sown",
        ),
        (
            "matches.holdings_sum_to_counters",
            "matches",
            to("south_holdings", |r| r.int("south_holdings") > 0, |r| r.int("south_holdings") - 1),
            "columns south_holdings and north_holdings",
        ),
        (
            "matches.endless_within_moves",
            "matches",
            to("endless_moves", any, |r| r.int("moves") + 1),
            "table matches, match 0, column endless_moves",
        ),
        (
            "matches.round_wins_within_rounds",
            "matches",
            to("tied_rounds", any, |r| r.int("rounds") - r.int("starter_round_wins") + 1),
            "table matches, match 0, column tied_rounds",
        ),
        (
            "matches.captures_within_rounds",
            "matches",
            to("north_remainder", any, |_| MAX),
            "table matches, match 0, column north_remainder",
        ),
        (
            "rounds.round_within_max_rounds",
            "rounds",
            to("round", any, |_| 1001),
            "table rounds, match 0, column round: 1001",
        ),
        (
            "rounds.holdings_within_counters",
            "rounds",
            to("south_kept", any, |_| 1_000_000),
            "table rounds, match 0, column south_kept",
        ),
        (
            "rounds.pits_within_row",
            "rounds",
            to("north_closed", any, |r| 100 - r.int("north_open")),
            "table rounds, match 0, column north_closed",
        ),
        (
            "rounds.moves_within_round_limit",
            "rounds",
            to("moves", any, |_| 10_001),
            "table rounds, match 0, column moves: 10001",
        ),
        (
            "rounds.laps_within_moves",
            "rounds",
            to("laps", any, |r| r.int("moves") * 1_000_000 + 1),
            "table rounds, match 0, column laps",
        ),
        (
            "rounds.sown_within_laps",
            "rounds",
            to("sown", any, |_| MAX),
            "table rounds, match 0, column sown",
        ),
        (
            "rounds.endless_within_moves",
            "rounds",
            to("endless_moves", any, |r| r.int("moves") + 1),
            "table rounds, match 0, column endless_moves",
        ),
        (
            "rounds.rounds_numbered_in_order",
            "rounds",
            to("round", |r| r.int("round") == 2, |_| 3),
            "column round: 3 where round 2 belongs",
        ),
        (
            "rounds.rows_are_the_matches_rounds",
            "rounds",
            to("moves", any, |r| r.int("moves") + 1),
            "table rounds, match 0, column moves: they sum to",
        ),
    ]
}

/// [`breaches`] of the histograms, quality and by_round tables.
fn breaches_beside_the_matches() -> Vec<Breach> {
    vec![
        (
            "histograms.value_within_metric",
            "histograms",
            to("value", |r| r.fields.iter().any(|f| f == "laps_per_move"), |_| 1_000_001),
            "table histograms, row",
        ),
        (
            "histograms.count_positive",
            "histograms",
            to("count", any, |_| 0),
            "table histograms, row 1",
        ),
        (
            "histograms.bins_count_the_matches",
            "histograms",
            to("count", any, |r| r.int("count") + 1),
            "table histograms, metric",
        ),
        (
            "quality.same_matches",
            "quality",
            to("match_id", any, |_| 1_000_000),
            "table quality, row 1: match",
        ),
        (
            "quality.counts_within_positions",
            "quality",
            to("lead_changes", any, |_| 1_000_000_000),
            "table quality, match 0, column lead_changes",
        ),
        (
            "quality.legal_within_pits",
            "quality",
            to("legal_max", any, |_| 100),
            "table quality, match 0, column legal_max",
        ),
        (
            "quality.leads_within_counters",
            "quality",
            to("north_peak", any, |_| 1_000_000),
            "table quality, match 0, column north_peak",
        ),
        (
            "by_round.round_within_max_rounds",
            "by_round",
            to("round", round_2, |_| 1001),
            "table by_round, round 1001, column round",
        ),
        (
            "by_round.rounds_non_negative",
            "by_round",
            to("rounds", round_2, |_| -1),
            "table by_round, round 2, column rounds: -1",
        ),
        (
            "by_round.wins_within_rounds",
            "by_round",
            to("first_player_wins", round_2, |r| r.int("rounds") - r.int("ties") + 1),
            "table by_round, round 2, column first_player_wins",
        ),
        (
            "by_round.round1_starter_is_first_player",
            "by_round",
            to("first_player_wins", round_1, |r| r.int("starter_wins") - 1),
            "table by_round, round 1, columns starter_wins and first_player_wins",
        ),
        (
            "by_round.open_pits_within_pits",
            "by_round",
            to("open_pits", round_2, |r| r.int("rounds") * 1000),
            "table by_round, round 2, column open_pits",
        ),
        (
            "by_round.one_row_per_round_reached",
            "by_round",
            to("rounds", round_2, |r| r.int("rounds") + 1),
            "table by_round, round 2, column rounds",
        ),
        (
            "by_round.wins_sum_to_matches",
            "by_round",
            to(
                "starter_wins",
                |r| r.int("round") >= 2 && r.int("starter_wins") > 0,
                |r| r.int("starter_wins") - 1,
            ),
            "table by_round, every row, column starter_wins: it sums to",
        ),
    ]
}

#[test]
fn every_invariant_broken_alone_is_refused_by_every_reader_naming_table_row_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let pristine = dataset(dir.path());
    ok(&["summarize", s(&pristine)]);
    let cases = breaches();
    // Every invariant of the tables read at round detail has its case (moves and laps are
    // not tables of this detail).
    let read = ["matches", "rounds", "histograms", "quality", "by_round"];
    let mut want: Vec<String> = Vec::new();
    for (table, list) in rajapasu::io::rows::INVARIANTS.iter().filter(|(t, _)| read.contains(t)) {
        want.extend(list.iter().map(|inv| format!("{table}.{}", inv.name)));
    }
    let mut have: Vec<String> = cases.iter().map(|c| c.0.to_string()).collect();
    want.sort();
    have.sort();
    assert_eq!(have, want, "one case per invariant");
    for (invariant, table, edit, names) in cases {
        let d = edited(&pristine, invariant, table, edit);
        refused_by_every_reader(dir.path(), &d, &[names, &format!("(invariant {invariant})")]);
        std::fs::remove_dir_all(&d).unwrap();
    }
}

/// The moves and laps invariants, each broken alone: `show`, which reads a batch's moves, refuses
/// the dataset with exit 2 naming table, match, column and invariant, and writes no page.
#[test]
fn every_moves_and_laps_invariant_broken_alone_is_refused_by_show() {
    let dir = tempfile::tempdir().unwrap();
    let pristine = dir.path().join("pristine");
    ok(&[
        "simulate",
        "--matches",
        "4",
        "--seed",
        "3",
        "--detail",
        "lap",
        "--format",
        "csv",
        "--out",
        s(&pristine),
        "--quiet",
    ]);
    let out = dir.path().join("page.html");
    ok(&["show", s(&pristine), "--match", "0", "--out", s(&out)]);
    std::fs::remove_file(&out).unwrap();
    let cases: Vec<Breach> = vec![
        (
            "moves.round_within_max_rounds",
            "moves",
            to("round", any, |_| 1001),
            "column round: 1001",
        ),
        ("moves.ply_within_match", "moves", to("ply", any, |_| 0), "column ply: 0"),
        (
            "moves.pit_within_row",
            "moves",
            to("legal_moves", any, |_| 100),
            "column legal_moves: 100",
        ),
        ("moves.laps_within_limit", "moves", to("laps", any, |_| 0), "column laps: 0"),
        ("moves.sown_within_laps", "moves", to("sown", any, |_| i64::MAX), "column sown"),
        (
            "moves.captures_within_counters",
            "moves",
            to("fours_opponent", any, |_| 1_000_000),
            "column fours_opponent",
        ),
        ("laps.round_within_max_rounds", "laps", to("round", any, |_| 1001), "column round: 1001"),
        ("laps.ply_within_match", "laps", to("ply", any, |_| 0), "column ply: 0"),
        ("laps.lap_within_limit", "laps", to("lap", any, |_| 0), "column lap: 0"),
        ("laps.start_pit_on_board", "laps", to("start_pit", any, |_| 100), "column start_pit: 100"),
        ("laps.sown_within_counters", "laps", to("sown", any, |_| 0), "column sown: 0"),
    ];
    let mut want: Vec<String> = Vec::new();
    for (table, list) in
        rajapasu::io::rows::INVARIANTS.iter().filter(|(t, _)| ["moves", "laps"].contains(t))
    {
        want.extend(list.iter().map(|inv| format!("{table}.{}", inv.name)));
    }
    let mut have: Vec<String> = cases.iter().map(|c| c.0.to_string()).collect();
    want.sort();
    have.sort();
    assert_eq!(have, want, "one case per invariant");
    for (invariant, table, edit, column) in cases {
        let d = edited(&pristine, invariant, table, edit);
        let err = usage_error(
            &["show", s(&d), "--match", "0", "--out", s(&out)],
            &[&format!("table {table}, match 0, {column}")],
        );
        assert!(err.contains(&format!("(invariant {invariant})")), "{err}");
        assert!(!out.exists(), "a page for a refused dataset");
        std::fs::remove_dir_all(&d).unwrap();
    }
}
