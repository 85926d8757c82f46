//! Datasets edited consistently (part files and progress markers agree, as anyone who sends a
//! dataset can make them): impossible numbers are refused when read, naming the table, the match
//! (or round, or bin) and the column, with exit 2; never a panic, an unbounded allocation or a
//! figure that lies.

use std::path::{Path, PathBuf};

use crate::common::*;

/// A small dataset of 120 matches in CSV at round detail, one batch.
fn dataset(dir: &Path) -> PathBuf {
    let out = dir.join("pristine");
    ok(&["simulate", "--matches", "120", "--seed", "3", "--detail", "round", "--format", "csv", "--out", s(&out), "--quiet"]);
    out
}

/// A copy of `pristine` whose `table` part is edited by `edit` (the header and the rows as
/// text fields), its progress marker made to agree.
fn edited(pristine: &Path, name: &str, table: &str, edit: impl FnOnce(&[String], &mut Vec<Vec<String>>)) -> PathBuf {
    let copy = pristine.with_file_name(name);
    assert!(std::process::Command::new("cp").arg("-a").arg(pristine).arg(&copy).status().unwrap().success());
    let part = std::fs::read_dir(copy.join(table))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "csv"))
        .unwrap();
    let mut reader = ::csv::Reader::from_path(&part).unwrap();
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let mut rows: Vec<Vec<String>> = reader.records().map(|r| r.unwrap().iter().map(String::from).collect()).collect();
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

/// Every reader refuses the dataset with exit 2, naming each needle; nothing panics.
fn refused_by_every_reader(dir: &Path, data: &Path, needles: &[&str]) {
    let out = dir.join("out");
    for args in [vec!["summarize", s(data)], vec!["plot", s(data), "--out", s(&out)], vec!["metrics", s(data), "--out", s(&out)]] {
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "rajapasu {}: {err}", args.join(" "));
        assert!(!err.contains("panicked"), "{err}");
        for n in needles {
            assert!(err.contains(n), "rajapasu {} lacks '{n}': {err}", args.join(" "));
        }
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
    refused_by_every_reader(dir.path(), &d, &["table by_round, round 1, column starter_wins", "out of range"]);
    let d = edited(&pristine, "starter_round_wins", "matches", set("starter_round_wins", "10000000", first_row));
    refused_by_every_reader(dir.path(), &d, &["table matches, match 0, column starter_round_wins: 10000000 is out of range"]);
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
    for (name, value) in [("rounds_1e16", "10000000000000000"), ("rounds_max", "9223372036854775807")] {
        let d = edited(&pristine, name, "matches", set("rounds", value, first_row));
        refused_by_every_reader(
            dir.path(),
            &d,
            &[&format!("table matches, match 0, column rounds: {value} is out of range 0..=1000 (max_rounds)")],
        );
    }
    let d = edited(&pristine, "value_1e15", "histograms", set("value", "1000000000000000", |h, r| r[col(h, "metric")] == "laps_per_move"));
    refused_by_every_reader(
        dir.path(),
        &d,
        &["table histograms, row", "laps_per_move bin 1000000000000000", "column value", "out of range"],
    );
}

#[test]
fn tables_that_disagree_with_each_other_are_refused_naming_table_match_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let pristine = dataset(dir.path());
    let d = edited(&pristine, "decision_moves", "quality", set("decision_moves", "1000000000", first_row));
    refused_by_every_reader(dir.path(), &d, &["table quality, match 0, column decision_moves: 1000000000 is out of range"]);
    let d = edited(&pristine, "lead_squares", "quality", set("lead_squares", "9223372036854775807", first_row));
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
    refused_by_every_reader(dir.path(), &d, &["table matches, match 0, column moves: 10000000000000000 is out of range"]);
    // Within the bounds but not the match's rounds rows.
    let d = edited(&pristine, "moves_sum", "matches", |h, rows| {
        let c = col(h, "moves");
        let v: i64 = rows[0][c].parse().unwrap();
        rows[0][c] = (v + 1).to_string();
    });
    refused_by_every_reader(dir.path(), &d, &["table rounds, match 0, column moves: they sum to"]);
}
