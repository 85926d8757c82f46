//! Ludii-style game-quality metrics with bootstrap intervals (docs/metrics.md), from the
//! `matches`, `quality` and `by_round` tables that every detail writes, one part file at a time.

pub mod bootstrap;
pub mod exact;
pub mod rows;

use std::path::Path;

use bytemuck::{Pod, Zeroable};
use serde::Serialize;

use self::bootstrap::Blocks;
use super::stats::wilson;
use crate::engine::{BySide, Ruleset, Side};
use crate::io::{Dataset, DatasetError};
use crate::sim::quality::{ByRound, ByRoundRecord, QualityRecord};
use crate::sim::schema::{ByRoundColumns, MatchColumns, QualityColumns};
use crate::sim::CaptureCounts;

/// Bootstrap replicates and the seed of their streams, unless the caller says otherwise.
pub const RESAMPLES: u32 = 1000;
pub const SEED: u64 = 17;
const CONFIDENCE: f64 = 0.95;

/// What the holdings-difference metrics evaluate positions by.
pub const HOLDINGS: &str = "holdings difference";
pub use exact::EXACT;

/// One metric: value and 95% interval.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Metric {
    pub name: &'static str,
    pub value: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    /// The position evaluation it uses, for the evaluation-based metrics.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evaluation: Option<&'static str>,
    /// The Ludii source file it follows (repository Ludeme/Ludii), or `rajapasu`.
    pub source: &'static str,
}

/// The rounds of one number: the starter's and the first player's share of them, open pits.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RoundPoint {
    pub round: u32,
    pub rounds: u64,
    /// Round wins of the round's starter, a tie as half (Wilson interval on wins + ties/2 is
    /// not exact for halves, so wins alone carry the interval).
    pub starter_wins: f64,
    pub starter_ci: (f64, f64),
    pub first_player_wins: f64,
    pub first_player_ci: (f64, f64),
    pub ties: f64,
    pub open_pits_mean: f64,
    pub open_pits_ci: (f64, f64),
}

/// The metrics of one dataset.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ArmMetrics {
    pub name: String,
    pub south: String,
    pub north: String,
    pub rules: String,
    pub matches: u64,
    pub resamples: u32,
    pub seed: u64,
    pub metrics: Vec<Metric>,
    pub by_round: Vec<RoundPoint>,
}

/// Per-match components: every metric is a function of their sums over matches. The sums are
/// kept as one list of numbers, in which a component's place is its place here.
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
#[repr(C)]
struct Components {
    n: f64,
    won: f64,
    first_win: f64,
    second_win: f64,
    south_points: f64,
    moves: f64,
    moves_sq: f64,
    laps: f64,
    sown: f64,
    rounds: f64,
    pussa: f64,
    own_fours: f64,
    gifted_fours: f64,
    remainder: f64,
    bf_avg: f64,
    bf_max: f64,
    bf_change: f64,
    decision_share: f64,
    decision_factor: f64,
    has_decision: f64,
    coverage: f64,
    /// With the holdings difference as the evaluation.
    holdings: Evaluated,
    comeback: f64,
    repetition: f64,
    has_repetition: f64,
    /// With the exact round value (R15) as the evaluation, when asked for.
    exact: Evaluated,
    /// Matches with a counted move (R10's positions of the rounds that ended): the per-position
    /// metrics are means over these, since a match whose only round never ended (R17's cut) has
    /// no position to average.
    played: f64,
}

/// The evaluation-based components of a match, for one evaluation of positions.
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
#[repr(C)]
struct Evaluated {
    lead_change: f64,
    stability: f64,
    drama_avg: f64,
    drama_max: f64,
    drama_share: f64,
    threshold: f64,
    decisive: f64,
}

/// What one match contributes.
#[derive(Clone, Copy, Debug)]
pub struct MatchFacts {
    pub match_id: u64,
    pub first: Side,
    pub winner: Option<Side>,
    pub rounds: u32,
    pub moves: u32,
    pub laps: u64,
    pub sown: u64,
    pub captures: BySide<CaptureCounts<u64>>,
    pub quality: QualityRecord,
    /// The quality record with the exact round value (R15) as the evaluation, when asked for.
    pub exact: Option<QualityRecord>,
}

/// The board: counters in play (evaluations are leads as a share of them) and pits.
#[derive(Clone, Copy, Debug)]
pub struct Board {
    pub counters: f64,
    pub pits: f64,
}

impl Board {
    pub fn of(rules: &Ruleset) -> Board {
        let pits = 2 * rules.pits_per_row as u32;
        Board { counters: (pits * rules.seeds_per_pit as u32) as f64, pits: pits as f64 }
    }
}

fn components(m: &MatchFacts, board: Board) -> Components {
    let q = &m.quality;
    let moves = m.moves.max(1) as f64;
    let t = board.counters;
    let both = |f: fn(&CaptureCounts<u64>) -> u64| {
        (f(&m.captures[Side::South]) + f(&m.captures[Side::North])) as f64
    };
    let mut x = Components {
        n: 1.0,
        played: (m.moves > 0) as u32 as f64,
        won: m.winner.is_some() as u32 as f64,
        first_win: (m.winner == Some(m.first)) as u32 as f64,
        second_win: (m.winner == Some(m.first.other())) as u32 as f64,
        south_points: match m.winner {
            Some(Side::South) => 1.0,
            Some(Side::North) => 0.0,
            None => 0.5,
        },
        moves: m.moves as f64,
        moves_sq: m.moves as f64 * m.moves as f64,
        laps: m.laps as f64,
        sown: m.sown as f64,
        rounds: m.rounds as f64,
        pussa: both(|c| c.pussa),
        own_fours: both(|c| c.own_fours),
        gifted_fours: both(|c| c.gifted_fours),
        remainder: both(|c| c.remainder),
        bf_avg: q.legal_sum as f64 / moves,
        bf_max: q.legal_max as f64,
        bf_change: if m.moves > 1 {
            (q.legal_last as f64 - q.legal_first as f64) / (m.moves - 1) as f64
        } else {
            0.0
        },
        decision_share: q.decision_moves as f64 / moves,
        coverage: q.pits_played as f64 / board.pits,
        repetition: q.repeated_positions as f64 / moves,
        has_repetition: (q.repeated_positions > 0) as u32 as f64,
        holdings: evaluated(q, m.winner, moves, t),
        exact: m
            .exact
            .as_ref()
            .map(|exact| evaluated(exact, m.winner, moves, t))
            .unwrap_or_default(),
        ..Components::default()
    };
    if q.decision_moves > 0 {
        // Positions that are not decisions have exactly one legal move.
        x.decision_factor =
            q.legal_sum.saturating_sub(m.moves.saturating_sub(q.decision_moves) as u64) as f64
                / q.decision_moves as f64;
        x.has_decision = 1.0;
    }
    if let Some(winner) = m.winner {
        x.comeback = (q.round_deficit[winner] > 0) as u32 as f64;
    }
    x
}

/// The evaluation-based components of a match (LeadChange to DecisivenessMoves) from the
/// leads of `q`.
fn evaluated(q: &QualityRecord, winner: Option<Side>, moves: f64, t: f64) -> Evaluated {
    // Each player's evaluation is its lead over the counters in play; the two variances are equal.
    let mean = q.lead_sum as f64 / moves;
    let mut x = Evaluated {
        lead_change: q.lead_changes as f64 / moves,
        stability: 2.0 * ((q.lead_squares as f64 / moves - mean * mean).max(0.0)) / (t * t),
        ..Evaluated::default()
    };
    if let Some(winner) = winner {
        let loser = winner.other();
        // Ludii's Drama: the highest evaluation minus the winner's, 2 * deficit / counters.
        x.drama_avg = 2.0 * q.deficit_sum[winner] as f64 / t / moves;
        x.drama_max = 2.0 * q.peak[loser] as f64 / t;
        x.drama_share = q.behind[winner] as f64 / moves;
        x.threshold = q.peak[loser] as f64 / t;
        x.decisive = q.decisive_ply as f64 / moves;
    }
    x
}

type Stat = fn(&Components) -> f64;

/// Each metric: name, source, evaluation, statistic; its place here is its place in the report.
const METRICS: &[(&str, &str, Option<&str>, Stat)] = &[
    ("AdvantageP1", "Evaluation/src/metrics/single/outcome/AdvantageP1.java", None, |s| {
        (s.first_win + 0.5 * (s.n - s.won)) / s.n
    }),
    ("Balance", "Evaluation/src/metrics/single/outcome/Balance.java", None, |s| {
        1.0 - (s.first_win - s.second_win).abs() / s.n
    }),
    ("Completion", "Evaluation/src/metrics/single/outcome/Completion.java", None, |s| s.won / s.n),
    ("Drawishness", "Evaluation/src/metrics/single/outcome/Drawishness.java", None, |s| {
        1.0 - s.won / s.n
    }),
    ("Timeouts", "Evaluation/src/metrics/single/outcome/Timeouts.java", None, |s| {
        1.0 - s.won / s.n
    }),
    (
        "OutcomeUniformity",
        "Evaluation/src/metrics/single/outcome/OutcomeUniformity.java",
        None,
        |s| {
            let mean = (s.first_win - s.second_win) / s.n;
            1.0 - (s.won / s.n - mean * mean)
        },
    ),
    ("SouthScore", "rajapasu", None, |s| s.south_points / s.n),
    ("DurationTurns", "Evaluation/src/metrics/single/duration/DurationTurns.java", None, |s| {
        s.moves / s.n
    }),
    (
        "DurationTurnsStdDev",
        "Evaluation/src/metrics/single/duration/DurationTurnsStdDev.java",
        None,
        |s| {
            let mean = s.moves / s.n;
            (s.moves_sq / s.n - mean * mean).max(0.0).sqrt()
        },
    ),
    ("DurationMoves", "Evaluation/src/metrics/single/duration/DurationMoves.java", None, |s| {
        s.laps / s.n
    }),
    ("DurationRounds", "rajapasu", None, |s| s.rounds / s.n),
    ("DecisionMoves", "Evaluation/src/metrics/single/complexity/DecisionMoves.java", None, |s| {
        s.decision_share / s.played
    }),
    (
        "DecisionFactorAvg",
        "Evaluation/src/metrics/multiple/metrics/DecisionFactor.java",
        None,
        |s| s.decision_factor / s.has_decision,
    ),
    (
        "BranchingFactorAvg",
        "Evaluation/src/metrics/multiple/metrics/BranchingFactor.java",
        None,
        |s| s.bf_avg / s.played,
    ),
    (
        "BranchingFactorMax",
        "Evaluation/src/metrics/multiple/metrics/BranchingFactor.java",
        None,
        |s| s.bf_max / s.played,
    ),
    (
        "BranchingFactorChangeAverage",
        "Evaluation/src/metrics/multiple/MultiMetricFramework.java",
        None,
        |s| s.bf_change / s.played,
    ),
    ("BoardCoverage", "Evaluation/src/metrics/multiple/metrics/BoardCoverage.java", None, |s| {
        s.coverage / s.played
    }),
    (
        "PositionalRepetition",
        "Evaluation/src/metrics/single/stateRepetition/PositionalRepetition.java",
        None,
        |s| s.repetition / s.played,
    ),
    (
        "PositionalRepetitionMatches",
        "Evaluation/src/metrics/single/stateRepetition/PositionalRepetition.java",
        None,
        |s| s.has_repetition / s.played,
    ),
    (
        "LeadChange",
        "Evaluation/src/metrics/single/stateEvaluation/LeadChange.java",
        Some(HOLDINGS),
        |s| s.holdings.lead_change / s.played,
    ),
    (
        "Stability",
        "Evaluation/src/metrics/single/stateEvaluation/Stability.java",
        Some(HOLDINGS),
        |s| s.holdings.stability / s.played,
    ),
    ("DramaAverage", "Evaluation/src/metrics/multiple/metrics/Drama.java", Some(HOLDINGS), |s| {
        s.holdings.drama_avg / s.won
    }),
    ("DramaMax", "Evaluation/src/metrics/multiple/metrics/Drama.java", Some(HOLDINGS), |s| {
        s.holdings.drama_max / s.won
    }),
    ("DramaShare", "rajapasu", Some(HOLDINGS), |s| s.holdings.drama_share / s.won),
    (
        "DecisivenessThreshold",
        "Evaluation/src/metrics/single/stateEvaluation/decisiveness/DecisivenessThreshold.java",
        Some(HOLDINGS),
        |s| s.holdings.threshold / s.won,
    ),
    (
        "DecisivenessMoves",
        "Evaluation/src/metrics/single/stateEvaluation/decisiveness/DecisivenessMoves.java",
        Some(HOLDINGS),
        |s| s.holdings.decisive / s.won,
    ),
    ("Comebacks", "rajapasu", Some(HOLDINGS), |s| s.comeback / s.won),
    (
        "LeadChange",
        "Evaluation/src/metrics/single/stateEvaluation/LeadChange.java",
        Some(EXACT),
        |s| s.exact.lead_change / s.played,
    ),
    (
        "Stability",
        "Evaluation/src/metrics/single/stateEvaluation/Stability.java",
        Some(EXACT),
        |s| s.exact.stability / s.played,
    ),
    ("DramaAverage", "Evaluation/src/metrics/multiple/metrics/Drama.java", Some(EXACT), |s| {
        s.exact.drama_avg / s.won
    }),
    ("DramaMax", "Evaluation/src/metrics/multiple/metrics/Drama.java", Some(EXACT), |s| {
        s.exact.drama_max / s.won
    }),
    ("DramaShare", "rajapasu", Some(EXACT), |s| s.exact.drama_share / s.won),
    (
        "DecisivenessThreshold",
        "Evaluation/src/metrics/single/stateEvaluation/decisiveness/DecisivenessThreshold.java",
        Some(EXACT),
        |s| s.exact.threshold / s.won,
    ),
    (
        "DecisivenessMoves",
        "Evaluation/src/metrics/single/stateEvaluation/decisiveness/DecisivenessMoves.java",
        Some(EXACT),
        |s| s.exact.decisive / s.won,
    ),
    ("LapsPerMove", "rajapasu", None, |s| s.laps / s.moves),
    ("CountersPerLap", "rajapasu", None, |s| s.sown / s.laps),
    ("CaptureSharePussa", "rajapasu", None, |s| s.pussa / captured(s)),
    ("CaptureShareOwnFours", "rajapasu", None, |s| s.own_fours / captured(s)),
    ("CaptureShareGiftedFours", "rajapasu", None, |s| s.gifted_fours / captured(s)),
    ("CaptureShareRemainder", "rajapasu", None, |s| s.remainder / captured(s)),
];

fn captured(s: &Components) -> f64 {
    s.pussa + s.own_fours + s.gifted_fours + s.remainder
}

/// The metrics of the table, in the order they are reported: name and evaluation (those of
/// the exact evaluation, [`EXACT`], are reported when asked for).
pub fn declared_metrics() -> impl Iterator<Item = (&'static str, Option<&'static str>)> {
    METRICS.iter().map(|m| (m.0, m.2))
}

/// The names of the metrics, in the order they are reported.
pub fn metric_names() -> impl Iterator<Item = &'static str> {
    declared_metrics().map(|m| m.0)
}

/// Accumulates matches and round sums; [`Accumulator::finish`] gives the metrics.
pub struct Accumulator {
    board: Board,
    blocks: Blocks<Components>,
    by_round: ByRound,
    matches: u64,
    /// Matches with an exact evaluation: the exact metrics are reported when every match has one.
    exact: u64,
}

impl Accumulator {
    pub fn new(board: Board) -> Accumulator {
        Accumulator {
            board,
            blocks: Blocks::default(),
            by_round: ByRound::default(),
            matches: 0,
            exact: 0,
        }
    }

    pub fn add_match(&mut self, m: &MatchFacts) {
        self.matches += 1;
        self.exact += m.exact.is_some() as u64;
        self.blocks.add(m.match_id, &components(m, self.board));
    }

    /// Adds the matches and rounds of `other` (other part files of the same board).
    pub fn merge(&mut self, other: &Accumulator) {
        self.matches += other.matches;
        self.exact += other.exact;
        self.blocks.merge(&other.blocks);
        self.by_round.merge(&other.by_round);
    }

    pub fn add_by_round(&mut self, r: &ByRound) {
        self.by_round.merge(r);
    }

    pub fn matches(&self) -> u64 {
        self.matches
    }

    /// The metrics, in [`METRICS`] order, and the per-round-number points.
    pub fn finish(&self, resamples: u32, seed: u64) -> (Vec<Metric>, Vec<RoundPoint>) {
        let stats: Vec<Stat> = METRICS.iter().map(|m| m.3).collect();
        let values = self.blocks.intervals(&stats, resamples, seed, CONFIDENCE);
        let exact = self.matches > 0 && self.exact == self.matches;
        let metrics = METRICS
            .iter()
            .zip(values)
            .filter(|(m, _)| exact || m.2 != Some(EXACT))
            .map(|(&(name, source, evaluation, _), (value, ci_low, ci_high))| Metric {
                name,
                value,
                ci_low,
                ci_high,
                evaluation,
                source,
            })
            .collect();
        (metrics, self.by_round.played().map(round_point).collect())
    }
}

fn round_point(r: &ByRoundRecord) -> RoundPoint {
    let n = r.rounds as f64;
    let mean = r.open_pits as f64 / n;
    let var = (r.open_pits_squares as f64 / n - mean * mean).max(0.0);
    let half = 1.96 * (var / n).sqrt();
    RoundPoint {
        round: r.round,
        rounds: r.rounds,
        starter_wins: r.starter_wins as f64 / n,
        starter_ci: wilson(r.starter_wins, r.rounds, CONFIDENCE),
        first_player_wins: r.first_player_wins as f64 / n,
        first_player_ci: wilson(r.first_player_wins, r.rounds, CONFIDENCE),
        ties: r.ties as f64 / n,
        open_pits_mean: mean,
        open_pits_ci: (mean - half, mean + half),
    }
}

/// The facts of row `i` of a matches part and the quality record beside it.
pub fn match_facts(m: &MatchColumns, i: usize, quality: QualityRecord) -> MatchFacts {
    MatchFacts {
        match_id: m.match_id[i],
        first: m.first[i],
        winner: m.winner[i],
        rounds: m.rounds[i] as u32,
        moves: m.moves[i] as u32,
        laps: m.laps[i] as u64,
        sown: m.sown[i] as u64,
        captures: m.captures(i),
        quality,
        exact: None,
    }
}

/// Row `i` of a quality table (counts are never negative: the reader refuses them).
pub fn quality_record(q: &QualityColumns, i: usize) -> QualityRecord {
    let (u, w) = (|x: i64| x as u32, |x: i64| x as u64);
    let deficit_sum = BySide::new(w(q.south_deficit_sum[i]), w(q.north_deficit_sum[i]));
    QualityRecord {
        match_id: q.match_id[i],
        decision_moves: u(q.decision_moves[i]),
        legal_sum: w(q.legal_sum[i]),
        legal_max: u(q.legal_max[i]),
        legal_first: u(q.legal_first[i]),
        legal_last: u(q.legal_last[i]),
        pits_played: u(q.pits_played[i]),
        lead_changes: u(q.lead_changes[i]),
        // South's lead summed: what it led by, less what it trailed by.
        lead_sum: q.north_deficit_sum[i] - q.south_deficit_sum[i],
        lead_squares: w(q.lead_squares[i]),
        peak: BySide::new(u(q.south_peak[i]), u(q.north_peak[i])),
        deficit_sum,
        behind: BySide::new(u(q.south_behind[i]), u(q.north_behind[i])),
        decisive_ply: u(q.decisive_ply[i]),
        round_deficit: BySide::new(u(q.south_round_deficit[i]), u(q.north_round_deficit[i])),
        repeated_positions: u(q.repeated_positions[i]),
    }
}

/// Reads a dataset's matches, quality and by_round tables. The matches and quality part files
/// are read in parallel, a few pairs at a time (bounded memory), and their sums merged in part
/// order, so the result does not depend on the thread count.
pub fn accumulate(
    dataset: &Dataset,
    exact: Option<exact::ExactOptions>,
) -> Result<Accumulator, DatasetError> {
    use rayon::prelude::*;
    let dir = &dataset.dir;
    let board = Board::of(&dataset.manifest().rules);
    let solutions = match exact {
        Some(opts) => {
            let played = "the exact evaluation plays the matches again by their players, and this match was played from its moves";
            if dataset.manifest().played.is_some() {
                return Err(DatasetError::content(dir, played));
            }
            // Only a match played from its moves has a person's seat (the manifest is checked).
            let cfg = dataset
                .manifest()
                .player_config()
                .ok_or_else(|| DatasetError::content(dir, played))?;
            exact::check_players(&cfg).map_err(|e| DatasetError::content(dir, e))?;
            Some(exact::Solutions::new(cfg, opts))
        }
        None => None,
    };
    let mut acc = Accumulator::new(board);
    let (match_parts, quality_parts) = (dataset.parts("matches")?, dataset.parts("quality")?);
    if match_parts.len() != quality_parts.len() {
        return Err(DatasetError::content(
            dir,
            format!(
                "{} matches part files but {} quality part files",
                match_parts.len(),
                quality_parts.len()
            ),
        ));
    }
    let pairs: Vec<(&std::path::PathBuf, &std::path::PathBuf)> =
        match_parts.iter().zip(&quality_parts).collect();
    for chunk in pairs.chunks(2 * rayon::current_num_threads()) {
        let parts: Vec<Result<Accumulator, DatasetError>> = chunk
            .par_iter()
            .map(|&(mp, qp)| part_accumulator(board, mp, qp, solutions.as_ref()))
            .collect();
        for part in parts {
            acc.merge(&part?);
        }
    }
    acc.add_by_round(&read_by_round(dataset)?);
    Ok(acc)
}

/// The columns of the matches table that [`match_facts`] reads (match_id first: it gives the
/// row count); the players' and other columns are not decoded.
const MATCH_COLUMNS: &[&str] = &[
    "match_id",
    "first",
    "winner",
    "rounds",
    "moves",
    "laps",
    "sown",
    "south_pussa",
    "south_own_fours",
    "south_gifted_fours",
    "south_remainder",
    "north_pussa",
    "north_own_fours",
    "north_gifted_fours",
    "north_remainder",
];

/// A dataset's `by_round` table summed over its part files: the simulator's sums by round
/// number (every detail), which `summarize` and `metrics` both report from.
pub fn read_by_round(dataset: &Dataset) -> Result<ByRound, DatasetError> {
    let dir = &dataset.dir;
    let mut by_round = ByRound::default();
    let max_rounds = dataset.manifest().rules.max_rounds;
    dataset.for_each_part("by_round", |t| {
        let r = ByRoundColumns::read(t)
            .map_err(|e| DatasetError::content(dir, format!("by_round: {e}")))?;
        let mut part = ByRound::default();
        for i in 0..r.len() {
            let round = r.round[i];
            if round == 0 || round > max_rounds as i64 {
                return Err(DatasetError::content(
                    dir,
                    format!("by_round: round {round} out of range 1..={max_rounds} (max_rounds)"),
                ));
            }
            part.rounds.resize_with(part.rounds.len().max(round as usize), Default::default);
            let slot = &mut part.rounds[round as usize - 1];
            slot.round = round as u32;
            slot.rounds += r.rounds[i] as u64;
            slot.starter_wins += r.starter_wins[i] as u64;
            slot.ties += r.ties[i] as u64;
            slot.first_player_wins += r.first_player_wins[i] as u64;
            slot.open_pits += r.open_pits[i] as u64;
            slot.open_pits_squares += r.open_pits_squares[i] as u64;
        }
        by_round.merge(&part);
        Ok(())
    })?;
    Ok(by_round)
}

/// Per-position figures are averaged over a match's moves, so its quality row counts the
/// positions of the rounds that ended (unfinished, `decisive_ply` counts them all: one a move,
/// and at most one more a round, R9). A row that counts a cut round's positions too was
/// written before the cut round was left out of the quality table: an error naming the match.
fn counted_positions(m: &MatchColumns, q: &QualityColumns, i: usize) -> Result<(), String> {
    if m.winner[i].is_none() && q.decisive_ply[i] > m.moves[i] + m.rounds[i] {
        return Err(format!(
            "row {i}: match {} counts {} positions in its quality row against {} moves in {} rounds: it was written by a \
             version that counted the positions of a round cut at 10,000 moves (docs/data.md, table quality); simulate it again",
            m.match_id[i], q.decisive_ply[i], m.moves[i], m.rounds[i]
        ));
    }
    Ok(())
}

/// The matches of one matches part file and the quality part file beside it.
fn part_accumulator(
    board: Board,
    mp: &Path,
    qp: &Path,
    solutions: Option<&exact::Solutions>,
) -> Result<Accumulator, DatasetError> {
    let (mspec, qspec) = (&crate::sim::schema::MATCHES, &crate::sim::schema::QUALITY);
    let mut acc = Accumulator::new(board);
    let m = crate::io::read_table_columns(mp, mspec, MATCH_COLUMNS)?;
    let m =
        MatchColumns::read(m).map_err(|e| DatasetError::content(mp, format!("matches: {e}")))?;
    let q = QualityColumns::read(crate::io::read_table(qp, qspec)?)
        .map_err(|e| DatasetError::content(qp, format!("quality: {e}")))?;
    if m.len() != q.len() {
        return Err(DatasetError::content(
            qp,
            format!("{} quality rows beside {} matches rows", q.len(), m.len()),
        ));
    }
    let exact = match solutions {
        Some(solutions) => {
            let recorded: Vec<exact::Recorded> = (0..m.len())
                .map(|i| exact::Recorded {
                    match_id: m.match_id[i],
                    moves: m.moves[i] as u32,
                    winner: m.winner[i],
                })
                .collect();
            Some(
                exact::exact_records(&recorded, solutions)
                    .map_err(|e| DatasetError::content(mp, format!("exact evaluation: {e}")))?,
            )
        }
        None => None,
    };
    for i in 0..m.len() {
        if m.match_id[i] != q.match_id[i] {
            return Err(DatasetError::content(
                qp,
                format!(
                    "row {i}: quality of match {} beside match {}",
                    q.match_id[i], m.match_id[i]
                ),
            ));
        }
        counted_positions(&m, &q, i).map_err(|e| DatasetError::content(qp, e))?;
        let facts = MatchFacts {
            exact: exact.as_ref().map(|e| e[&m.match_id[i]]),
            ..match_facts(&m, i, quality_record(&q, i))
        };
        acc.add_match(&facts);
    }
    Ok(acc)
}

/// The metrics of one dataset.
/// With `exact`, also the evaluation-based metrics from the exact round value (R15; the
/// matches played again, see [`exact`]), each round solved within those options.
pub fn dataset_metrics(
    dataset: &Dataset,
    name: &str,
    resamples: u32,
    seed: u64,
    exact: Option<exact::ExactOptions>,
) -> Result<ArmMetrics, DatasetError> {
    let acc = accumulate(dataset, exact)?;
    let (metrics, by_round) = acc.finish(resamples, seed);
    let m = dataset.manifest();
    Ok(ArmMetrics {
        name: name.to_string(),
        south: m.south.to_string(),
        north: m.north.to_string(),
        rules: m.rules.to_string(),
        matches: acc.matches(),
        resamples,
        seed,
        metrics,
        by_round,
    })
}

#[cfg(test)]
mod tests;
