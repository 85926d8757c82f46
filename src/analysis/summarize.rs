//! Computes an [`ArmSummary`] from a dataset, reading one part file at a time.

use std::collections::BTreeMap;
use std::path::Path;

use super::stats::{half_points, proportion, Distribution};
use super::summary::{ArmSummary, CaptureSources, OpenPits, StudySummary};
use crate::engine::{BySide, Side};
use crate::io::{Dataset, DatasetError};
use crate::sim::table::{ColumnData, Table};
use crate::sim::Detail;

fn invalid(path: &Path, what: impl Into<String>) -> DatasetError {
    DatasetError::Invalid { path: path.to_path_buf(), what: what.into() }
}

fn u64s(t: &Table, name: &str) -> Vec<u64> {
    t.column(name).and_then(ColumnData::as_u64).unwrap_or_else(|| panic!("column {name} of {} is numeric by schema", t.name))
}

fn syms<'a>(t: &'a Table, name: &str) -> &'a [Option<&'static str>] {
    match t.column(name) {
        Some(ColumnData::Sym(v)) => v,
        _ => panic!("column {name} of {} is a symbol column by schema", t.name),
    }
}

fn add(hist: &mut BTreeMap<u64, u64>, value: u64, n: u64) {
    *hist.entry(value).or_default() += n;
}

fn to_bins(hist: &BTreeMap<u64, u64>) -> Vec<(u64, u64)> {
    hist.iter().map(|(&v, &c)| (v, c)).collect()
}

#[derive(Default)]
struct OpenAcc {
    matches: u64,
    south: u64,
    north: u64,
    starter: u64,
}

/// Summarizes one dataset; `name` labels it (an arm name).
pub fn summarize_dataset(dataset: &Dataset, name: &str) -> Result<ArmSummary, DatasetError> {
    let m = dataset.manifest();
    let (mut matches, mut finished, mut first_wins, mut round1_starter_wins) = (0u64, 0u64, 0u64, 0u64);
    let mut seat_wins = BySide::splat(0u64);
    let (mut rounds_total, mut starter_round_wins, mut tied_rounds, mut endless) = (0u64, 0u64, 0u64, 0u64);
    let mut rounds_hist = BTreeMap::new();
    let mut moves_hist = BTreeMap::new();
    let mut sources = BySide::splat(CaptureSources::default());
    dataset.for_each_part("matches", |t| {
        let n = t.rows();
        let (first, outcome, winner, r1) = (syms(&t, "first"), syms(&t, "outcome"), syms(&t, "winner"), syms(&t, "round1_winner"));
        let (rounds, moves) = (u64s(&t, "rounds"), u64s(&t, "moves"));
        let (srw, tied, end) = (u64s(&t, "starter_round_wins"), u64s(&t, "tied_rounds"), u64s(&t, "endless_moves"));
        let cols: Vec<Vec<u64>> = [
            "south_pussa",
            "south_own_fours",
            "south_gifted_fours",
            "south_remainder",
            "north_pussa",
            "north_own_fours",
            "north_gifted_fours",
            "north_remainder",
        ]
        .iter()
        .map(|c| u64s(&t, c))
        .collect();
        for i in 0..n {
            matches += 1;
            if outcome[i] == Some("win") {
                finished += 1;
                first_wins += (winner[i] == first[i]) as u64;
                seat_wins[Side::South] += (winner[i] == Some("south")) as u64;
                seat_wins[Side::North] += (winner[i] == Some("north")) as u64;
            }
            round1_starter_wins += (r1[i] == first[i]) as u64;
            rounds_total += rounds[i];
            starter_round_wins += srw[i];
            tied_rounds += tied[i];
            endless += end[i];
            add(&mut rounds_hist, rounds[i], 1);
            add(&mut moves_hist, moves[i], 1);
            for (side, base) in [(Side::South, 0), (Side::North, 4)] {
                let s = &mut sources[side];
                s.pussa += cols[base][i];
                s.own_fours += cols[base + 1][i];
                s.gifted_fours += cols[base + 2][i];
                s.remainder += cols[base + 3][i];
            }
        }
        Ok(())
    })?;
    let recorded: u64 = dataset.manifests.iter().map(|m| m.rows.get("matches").copied().unwrap_or(0)).sum();
    if matches != recorded {
        return Err(invalid(
            &dataset.dir,
            format!("the matches table has {matches} rows but the manifests record {recorded}: part files are missing"),
        ));
    }
    let mut lap_length = BTreeMap::new();
    let mut laps_per_move = BTreeMap::new();
    dataset.for_each_part("histograms", |t| {
        let (metric, value, count) = (syms(&t, "metric"), u64s(&t, "value"), u64s(&t, "count"));
        for i in 0..t.rows() {
            match metric[i] {
                Some("lap_length") => add(&mut lap_length, value[i], count[i]),
                Some("laps_per_move") => add(&mut laps_per_move, value[i], count[i]),
                other => return Err(invalid(&dataset.dir, format!("unknown histogram metric {other:?}"))),
            }
        }
        Ok(())
    })?;
    let mut moves_per_round = None;
    let mut open_pits = Vec::new();
    if dataset.detail() >= Detail::Round {
        let mut per_round = BTreeMap::new();
        let mut open: BTreeMap<u32, OpenAcc> = BTreeMap::new();
        dataset.for_each_part("rounds", |t| {
            let (round, moves, so, no) = (u64s(&t, "round"), u64s(&t, "moves"), u64s(&t, "south_open"), u64s(&t, "north_open"));
            let starter = syms(&t, "starter");
            for i in 0..t.rows() {
                add(&mut per_round, moves[i], 1);
                let acc = open.entry(round[i] as u32).or_default();
                acc.matches += 1;
                acc.south += so[i];
                acc.north += no[i];
                acc.starter += if starter[i] == Some("south") { so[i] } else { no[i] };
            }
            Ok(())
        })?;
        moves_per_round = Some(Distribution::from_histogram(&to_bins(&per_round)));
        open_pits = open
            .into_iter()
            .map(|(round, a)| {
                let n = a.matches.max(1) as f64;
                OpenPits {
                    round,
                    matches: a.matches,
                    south_mean_open: a.south as f64 / n,
                    north_mean_open: a.north as f64 / n,
                    starter_mean_open: a.starter as f64 / n,
                }
            })
            .collect();
    }
    Ok(ArmSummary {
        name: name.to_string(),
        rules: m.rules.to_string(),
        rules_hash: m.rules_hash.clone(),
        south: m.south.clone(),
        north: m.north.clone(),
        first: m.first.clone(),
        seed: m.seed,
        detail: m.detail.to_string(),
        matches,
        finished,
        unfinished: matches - finished,
        first_player_wins: proportion(first_wins, finished),
        first_player_points: half_points(first_wins, matches - finished, matches),
        seat_wins: seat_wins.map(|w| proportion(w, finished)),
        round_starter_wins: proportion(starter_round_wins, rounds_total),
        tied_rounds,
        round1_starter_wins: proportion(round1_starter_wins, matches),
        rounds_per_match: Distribution::from_histogram(&to_bins(&rounds_hist)),
        moves_per_round,
        moves_per_match: Distribution::from_histogram(&to_bins(&moves_hist)),
        laps_per_move: Distribution::from_histogram(&to_bins(&laps_per_move)),
        lap_length: Distribution::from_histogram(&to_bins(&lap_length)),
        capture_sources: sources,
        open_pits,
        endless_moves: endless,
        lap_length_histogram: to_bins(&lap_length),
        laps_per_move_histogram: to_bins(&laps_per_move),
        rounds_histogram: to_bins(&rounds_hist),
    })
}

/// A dataset directory, or a study directory whose subdirectories are datasets (arms, sorted
/// by name unless `order` gives the arm names in order).
pub fn summarize_path(dir: &Path, order: Option<&[String]>) -> Result<StudySummary, DatasetError> {
    if !dir.is_dir() {
        return Err(invalid(dir, "no such directory"));
    }
    let name = dir.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "dataset".into());
    if !crate::io::dataset::read_manifests(dir)?.is_empty() {
        let dataset = Dataset::open(dir)?;
        return Ok(StudySummary { name: name.clone(), arms: vec![summarize_dataset(&dataset, &name)?] });
    }
    let mut arms: Vec<String> = match order {
        Some(names) => names.to_vec(),
        None => {
            let mut v: Vec<String> = std::fs::read_dir(dir)
                .map_err(|e| invalid(dir, format!("cannot read: {e}")))?
                .filter_map(|e| e.ok())
                .filter(|e| e.path().is_dir() && !crate::io::dataset::read_manifests(&e.path()).map(|m| m.is_empty()).unwrap_or(true))
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            v.sort();
            v
        }
    };
    arms.dedup();
    if arms.is_empty() {
        return Err(invalid(dir, "not a rajapasu dataset (no manifest.json) and holds no datasets"));
    }
    let mut out = Vec::new();
    for arm in arms {
        let dataset = Dataset::open(&dir.join(&arm))?;
        out.push(summarize_dataset(&dataset, &arm)?);
    }
    Ok(StudySummary { name, arms: out })
}
