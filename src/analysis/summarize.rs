//! Computes an [`ArmSummary`] from a dataset, reading one part file at a time.

use std::collections::BTreeMap;
use std::path::Path;

use super::stats::{difference, half_points, proportion, Distribution};
use super::summary::{
    ArmDifference, ArmSummary, CaptureSources, OpenPits, RoundsByNumber, StudySummary,
};
use crate::engine::{BySide, Side};
use crate::io::{Dataset, DatasetError};
use crate::sim::quality::{ByRound, ByRoundRecord};
use crate::sim::schema::{HistogramColumns, MatchColumns, RoundColumns};
use crate::sim::{Detail, HistogramMetric, MatchOutcome, RoundResult};

fn add(hist: &mut BTreeMap<u64, u64>, value: u64, n: u64) {
    *hist.entry(value).or_default() += n;
}

fn to_bins(hist: &BTreeMap<u64, u64>) -> Vec<(u64, u64)> {
    hist.iter().map(|(&v, &c)| (v, c)).collect()
}

/// At most this many rounds make a group of round numbers a group on their own account (fewer
/// when round 1 has fewer: half of its rounds, so that a small dataset keeps its first rounds
/// apart): about ±3 percentage points of interval at 1,000.
pub const ROUND_GROUP_ROUNDS: u64 = 1000;

/// Groups the round numbers of `tally` (the sums by round number): a round number is a group of its
/// own while it has at least min(1000, half of round 1's rounds) rounds; beyond, consecutive
/// round numbers are put together until a group has that many, and a last group with fewer joins
/// the one before it.
pub fn round_groups(tally: &ByRound) -> Vec<RoundsByNumber> {
    let round1 = tally.rounds.first().map_or(0, |t| t.rounds);
    let least = (round1 / 2).clamp(1, ROUND_GROUP_ROUNDS);
    let mut groups: Vec<(u32, u32, ByRoundRecord)> = Vec::new();
    let mut open: Option<(u32, u32, ByRoundRecord)> = None;
    for t in tally.played() {
        let round = t.round;
        let (first, _, mut sum) = open.take().unwrap_or((round, round, ByRoundRecord::default()));
        sum += t;
        if sum.rounds >= least {
            groups.push((first, round, sum));
        } else {
            open = Some((first, round, sum));
        }
    }
    if let Some((first, last, sum)) = open {
        match groups.last_mut() {
            Some(previous) => {
                previous.1 = last;
                previous.2 += &sum;
            }
            None => groups.push((first, last, sum)),
        }
    }
    groups
        .into_iter()
        .map(|(first_round, last_round, t)| RoundsByNumber {
            first_round,
            last_round,
            rounds: t.rounds,
            tied: t.ties,
            starter_wins: proportion(t.starter_wins, t.rounds),
            first_player_wins: proportion(t.first_player_wins, t.rounds),
        })
        .collect()
}

#[derive(Default)]
struct OpenAcc {
    matches: u64,
    south: u64,
    north: u64,
    starter: u64,
}

/// The sums over a dataset's `matches` table that its summary reports.
#[derive(Default)]
struct MatchTally {
    matches: u64,
    finished: u64,
    first_wins: u64,
    round1_starter_wins: u64,
    /// Matches whose round 1 ended (one that never ends has no winner to count, R17).
    round1_ended: u64,
    seat_wins: BySide<u64>,
    rounds_total: u64,
    starter_round_wins: u64,
    tied_rounds: u64,
    endless: u64,
    rounds_hist: Histogram,
    moves_hist: Histogram,
    sources: BySide<CaptureSources>,
}

impl MatchTally {
    fn read(dataset: &Dataset) -> Result<MatchTally, DatasetError> {
        let mut tally = MatchTally::default();
        dataset.for_each_part("matches", |t| {
            let m = MatchColumns::read(t)
                .map_err(|e| DatasetError::content(&dataset.dir, format!("matches: {e}")))?;
            (0..m.len()).for_each(|i| tally.add(&m, i));
            Ok(())
        })?;
        Ok(tally)
    }

    fn add(&mut self, m: &MatchColumns, i: usize) {
        self.matches += 1;
        let first = m.first[i];
        if m.outcome[i] == MatchOutcome::Win {
            self.finished += 1;
            if let Some(winner) = m.winner[i] {
                self.first_wins += (winner == first) as u64;
                self.seat_wins[winner] += 1;
            }
        }
        self.round1_starter_wins += (m.round1_winner[i] == RoundResult::Won(first)) as u64;
        self.round1_ended += (m.round1_winner[i] != RoundResult::Unfinished) as u64;
        self.rounds_total += m.rounds[i] as u64;
        self.starter_round_wins += m.starter_round_wins[i] as u64;
        self.tied_rounds += m.tied_rounds[i] as u64;
        self.endless += m.endless_moves[i] as u64;
        add(&mut self.rounds_hist, m.rounds[i] as u64, 1);
        add(&mut self.moves_hist, m.moves[i] as u64, 1);
        let captured = m.captures(i);
        for side in Side::ALL {
            self.sources[side] += captured[side];
        }
    }
}

/// A histogram: count by value.
type Histogram = BTreeMap<u64, u64>;

/// The lap-length and laps-per-move histograms of a dataset's `histograms` table.
fn read_lap_histograms(dataset: &Dataset) -> Result<(Histogram, Histogram), DatasetError> {
    let (mut lap_length, mut laps_per_move) = (BTreeMap::new(), BTreeMap::new());
    dataset.for_each_part("histograms", |t| {
        let h = HistogramColumns::read(t)
            .map_err(|e| DatasetError::content(&dataset.dir, format!("histograms: {e}")))?;
        for i in 0..h.len() {
            let hist = match h.metric[i] {
                HistogramMetric::LapLength => &mut lap_length,
                HistogramMetric::LapsPerMove => &mut laps_per_move,
            };
            add(hist, h.value[i] as u64, h.count[i] as u64);
        }
        Ok(())
    })?;
    Ok((lap_length, laps_per_move))
}

/// What a dataset of round detail or finer adds: moves per round, open pits by round number,
/// and the simulator's sums by round number (table by_round, the ones `metrics` reports).
struct RoundDetails {
    moves_per_round: Option<Distribution>,
    open_pits: Vec<OpenPits>,
    by_round: Vec<RoundsByNumber>,
}

impl RoundDetails {
    fn read(dataset: &Dataset) -> Result<RoundDetails, DatasetError> {
        if dataset.detail() < Detail::Round {
            return Ok(RoundDetails {
                moves_per_round: None,
                open_pits: Vec::new(),
                by_round: Vec::new(),
            });
        }
        let mut per_round = BTreeMap::new();
        let mut open: BTreeMap<u32, OpenAcc> = BTreeMap::new();
        dataset.for_each_part("rounds", |t| {
            let r = RoundColumns::read(t)
                .map_err(|e| DatasetError::content(&dataset.dir, format!("rounds: {e}")))?;
            for i in 0..r.len() {
                add(&mut per_round, r.moves[i] as u64, 1);
                let open_pits = r.open(i);
                let acc = open.entry(r.round[i] as u32).or_default();
                acc.matches += 1;
                acc.south += open_pits[Side::South] as u64;
                acc.north += open_pits[Side::North] as u64;
                acc.starter += open_pits[r.starter[i]] as u64;
            }
            Ok(())
        })?;
        let open_pits = open
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
        Ok(RoundDetails {
            moves_per_round: Some(Distribution::from_histogram(&to_bins(&per_round))),
            open_pits,
            by_round: round_groups(&crate::analysis::metrics::read_by_round(dataset)?),
        })
    }
}

/// Summarizes one dataset; `name` labels it (an arm name).
pub fn summarize_dataset(dataset: &Dataset, name: &str) -> Result<ArmSummary, DatasetError> {
    let m = dataset.manifest();
    let t = MatchTally::read(dataset)?;
    let (lap_length, laps_per_move) = read_lap_histograms(dataset)?;
    let rounds = RoundDetails::read(dataset)?;
    Ok(ArmSummary {
        name: name.to_string(),
        rules: m.rules.to_string(),
        rules_hash: m.rules_hash.clone(),
        south: m.south.to_string(),
        north: m.north.to_string(),
        first: m.first.to_string(),
        seed: m.seed,
        detail: m.detail.to_string(),
        matches: t.matches,
        finished: t.finished,
        unfinished: t.matches - t.finished,
        first_player_wins: proportion(t.first_wins, t.finished),
        first_player_points: half_points(t.first_wins, t.matches - t.finished, t.matches),
        seat_wins: t.seat_wins.map(|w| proportion(w, t.finished)),
        round_starter_wins: proportion(t.starter_round_wins, t.rounds_total),
        tied_rounds: t.tied_rounds,
        round1_starter_wins: proportion(t.round1_starter_wins, t.round1_ended),
        rounds_per_match: Distribution::from_histogram(&to_bins(&t.rounds_hist)),
        moves_per_round: rounds.moves_per_round,
        moves_per_match: Distribution::from_histogram(&to_bins(&t.moves_hist)),
        laps_per_move: Distribution::from_histogram(&to_bins(&laps_per_move)),
        lap_length: Distribution::from_histogram(&to_bins(&lap_length)),
        capture_sources: t.sources,
        open_pits: rounds.open_pits,
        by_round: rounds.by_round,
        first_player_vs_first_arm: None,
        endless_moves: t.endless,
        lap_length_histogram: to_bins(&lap_length),
        laps_per_move_histogram: to_bins(&laps_per_move),
        rounds_histogram: to_bins(&t.rounds_hist),
    })
}

/// A dataset directory, or a study directory whose subdirectories are datasets (arms, sorted
/// by name unless `order` gives the arm names in order).
pub fn summarize_path(dir: &Path, order: Option<&[String]>) -> Result<StudySummary, DatasetError> {
    if !dir.is_dir() {
        return Err(DatasetError::NoDirectory { path: dir.to_path_buf() });
    }
    let name = dir
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "dataset".into());
    if !crate::io::dataset::manifest_names(dir)?.is_empty() {
        let dataset = Dataset::open(dir)?;
        return Ok(StudySummary {
            name: name.clone(),
            arms: vec![summarize_dataset(&dataset, &name)?],
        });
    }
    let arms = study_arms(dir, order)?;
    let mut out = Vec::new();
    for arm in arms {
        let dataset = Dataset::open(&dir.join(&arm))?;
        out.push(summarize_dataset(&dataset, &arm)?);
    }
    compare_with_first_arm(&mut out);
    Ok(StudySummary { name, arms: out })
}

/// The arms of a study directory: `order` if given, else its subdirectories that hold a
/// manifest, sorted by name. An arm whose manifest cannot be read is listed (opening it is then
/// the error that names it), never left out. Shared by `summarize` and `metrics`.
pub fn study_arms(dir: &Path, order: Option<&[String]>) -> Result<Vec<String>, DatasetError> {
    let mut arms: Vec<String> = match order {
        Some(names) => names.to_vec(),
        None => {
            let mut v: Vec<String> = std::fs::read_dir(dir)
                .map_err(|e| DatasetError::content(dir, format!("cannot read: {e}")))?
                .filter_map(|e| e.ok())
                .filter(|e| {
                    e.path().is_dir()
                        && crate::io::dataset::manifest_names(&e.path())
                            .is_ok_and(|m| !m.is_empty())
                })
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            v.sort();
            v
        }
    };
    arms.dedup();
    if arms.is_empty() {
        return Err(DatasetError::NoDatasets { dir: dir.to_path_buf() });
    }
    Ok(arms)
}

/// Sets each arm's first-player rate difference from the first arm (the first arm has none).
pub fn compare_with_first_arm(arms: &mut [ArmSummary]) {
    let Some((first, rest)) = arms.split_first_mut() else { return };
    for arm in rest {
        arm.first_player_vs_first_arm = Some(ArmDifference {
            reference: first.name.clone(),
            difference: difference(&arm.first_player_wins, &first.first_player_wins),
        });
    }
}
