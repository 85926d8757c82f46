//! A tournament's ratings as reported: each player's rating with its interval, the pairwise
//! table with the model's prediction, and the goodness-of-fit check.

use serde::Serialize;
use statrs::distribution::{ChiSquared, ContinuousCDF, Normal};

use super::bradley_terry::{
    bootstrap, expected_score, fit, quantile, Anchor, FitError, FitOptions, PairResults,
};
use crate::analysis::stats::{half_points, Points, Proportion, CONFIDENCE};

/// How the ratings were computed, as recorded in `ratings.json`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Method {
    pub model: &'static str,
    /// "mean 0", or the name of the player rated 0.
    pub anchor: String,
    pub virtual_draws: f64,
    pub unfinished: &'static str,
    pub interval: &'static str,
    pub bootstrap_replicates: u32,
    pub bootstrap_seed: u64,
    pub confidence: f64,
}

/// Self-play of a player: its first-player rate both ways of counting unfinished matches.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SelfPlay {
    pub matches: u64,
    pub unfinished: u64,
    /// Among finished matches.
    pub first_player_wins: Proportion,
    /// Over all matches, an unfinished one counting as half a win (R16).
    pub first_player_points: Points,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayerRating {
    pub player: String,
    /// The player's specification (the full parameters).
    pub spec: String,
    /// 1 for the highest rating.
    pub rank: usize,
    pub rating: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    /// Matches against other players (self-play excluded).
    pub matches: u64,
    pub unfinished: u64,
    /// Points against other players, unfinished matches as halves (R16).
    pub points: f64,
    /// points / matches.
    pub score: f64,
    pub self_play: Option<SelfPlay>,
}

/// The matches of two players, both seat orders together, from `a`'s side.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairRow {
    pub a: String,
    pub b: String,
    pub matches: u64,
    pub a_wins: u64,
    pub b_wins: u64,
    pub unfinished: u64,
    /// a's points and score (points / matches) with its 95% interval (unfinished = 1/2).
    pub a_points: Points,
    /// a's expected score under the fitted ratings.
    pub expected: f64,
    /// (observed - expected points) / standard deviation: see [`GoodnessOfFit`].
    pub z: f64,
    /// |z| above the threshold: the pair does not follow the ratings (e.g. a non-transitive
    /// cycle of players).
    pub flagged: bool,
}

/// How well the ratings explain the pairwise scores. Each pair's residual z is its observed
/// points minus the expected, over the standard deviation of the points of its matches under
/// the model (the variance of a win/half/loss outcome with the expected score and the pair's
/// observed share of unfinished matches). A pair is flagged when |z| exceeds the two-sided
/// Bonferroni threshold at 5% for the number of pairs; `statistic` is the sum of z², compared
/// with a chi-squared distribution with pairs - (players - 1) degrees of freedom.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GoodnessOfFit {
    pub statistic: f64,
    pub degrees_of_freedom: u64,
    /// NaN when there are no degrees of freedom.
    pub p_value: f64,
    pub threshold_z: f64,
    /// "a vs b" of the flagged pairs.
    pub flagged: Vec<String>,
}

/// Everything `ratings.json` holds.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub name: String,
    pub description: String,
    pub method: Method,
    /// Highest rating first.
    pub ratings: Vec<PlayerRating>,
    /// Every pair that met, in the order of the players' list.
    pub pairs: Vec<PairRow>,
    pub goodness_of_fit: GoodnessOfFit,
}

/// A player of the tournament: its name and specification.
#[derive(Clone, Debug, PartialEq)]
pub struct Entrant {
    pub name: String,
    pub spec: String,
    pub self_play: Option<SelfPlay>,
}

/// What the ratings are computed with.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingOptions {
    /// The player rated 0 (index), or None for mean 0.
    pub anchor: Option<usize>,
    pub virtual_draws: f64,
    pub replicates: u32,
    pub seed: u64,
}

/// A fit that failed, with the players named.
pub fn describe(error: &FitError, entrants: &[Entrant]) -> String {
    let names = |players: &[usize]| {
        players.iter().map(|&i| entrants[i].name.as_str()).collect::<Vec<_>>().join(", ")
    };
    match error {
        FitError::Disconnected { players } => {
            format!("{} never met the other players, even through third players: their ratings cannot be compared", names(players))
        }
        FitError::Unbounded { players } => format!(
            "the ratings of {} are unbounded (every point won or every point lost against the rest); set virtual_draws above 0",
            names(players)
        ),
    }
}

/// Rates the entrants from the results of their matches (self-play excluded).
pub fn rate(
    name: &str,
    description: &str,
    entrants: &[Entrant],
    results: &[PairResults],
    options: &RatingOptions,
) -> Result<Report, FitError> {
    let n = entrants.len();
    let fit_options = FitOptions {
        anchor: options.anchor.map_or(Anchor::Mean, Anchor::Player),
        virtual_draws: options.virtual_draws,
    };
    let ratings = fit(n, results, &fit_options)?;
    let replicates = bootstrap(n, results, &fit_options, options.replicates, options.seed)?;
    let intervals = percentile_intervals(n, &replicates);
    let pair_totals = pair_totals(results);
    let (pairs, goodness_of_fit) = pair_rows(&pair_totals, &ratings, entrants);
    let players = player_ratings(entrants, &pair_totals, &ratings, &intervals);
    Ok(Report {
        name: name.to_string(),
        description: description.to_string(),
        method: Method {
            model: "Bradley-Terry on the Elo scale: a's expected score against b is 1 / (1 + 10^((r_b - r_a) / 400))",
            anchor: options.anchor.map_or_else(|| "mean 0".to_string(), |i| format!("{} = 0", entrants[i].name)),
            virtual_draws: options.virtual_draws,
            unfinished: "an unfinished match is a draw: half a point to each player (R16)",
            interval: "percentile bootstrap: every seat order of every pair resampled with replacement, ratings fitted again",
            bootstrap_replicates: options.replicates,
            bootstrap_seed: options.seed,
            confidence: CONFIDENCE,
        },
        ratings: players,
        pairs,
        goodness_of_fit,
    })
}

/// Each player's bootstrap interval at [`CONFIDENCE`] (NaN without replicates).
fn percentile_intervals(n: usize, replicates: &[Vec<f64>]) -> Vec<(f64, f64)> {
    let tail = (1.0 - CONFIDENCE) / 2.0;
    (0..n)
        .map(|i| {
            if replicates.is_empty() {
                return (f64::NAN, f64::NAN);
            }
            let mut values: Vec<f64> = replicates.iter().map(|r| r[i]).collect();
            (quantile(&mut values, tail), quantile(&mut values, 1.0 - tail))
        })
        .collect()
}

/// The results by pair: both seat orders (and any repeated entries) together, a before b in
/// list order, pairs that played no match left out.
fn pair_totals(results: &[PairResults]) -> Vec<PairResults> {
    let mut totals: Vec<PairResults> = Vec::new();
    for r in results {
        let (a, b, aw, bw) =
            if r.a < r.b { (r.a, r.b, r.a_wins, r.b_wins) } else { (r.b, r.a, r.b_wins, r.a_wins) };
        match totals.iter_mut().find(|p| p.a == a && p.b == b) {
            Some(p) => {
                p.a_wins += aw;
                p.b_wins += bw;
                p.draws += r.draws;
            }
            None => totals.push(PairResults { a, b, a_wins: aw, b_wins: bw, draws: r.draws }),
        }
    }
    totals.sort_by_key(|p| (p.a, p.b));
    totals.retain(|p| p.matches() > 0);
    totals
}

/// Each pair's score against the one its ratings expect, and the fit's chi-squared test over
/// the pairs (a pair flagged beyond the Bonferroni-corrected 5% threshold).
fn pair_rows(
    pair_totals: &[PairResults],
    ratings: &[f64],
    entrants: &[Entrant],
) -> (Vec<PairRow>, GoodnessOfFit) {
    let threshold_z = if pair_totals.is_empty() {
        f64::INFINITY
    } else {
        Normal::standard().inverse_cdf(1.0 - 0.05 / (2.0 * pair_totals.len() as f64))
    };
    let mut statistic = 0.0;
    let mut flagged = Vec::new();
    let pairs: Vec<PairRow> = pair_totals
        .iter()
        .map(|p| {
            let m = p.matches() as f64;
            let expected = expected_score(ratings[p.a], ratings[p.b]);
            let points = half_points(p.a_wins, p.draws, p.matches());
            let share = p.draws as f64 / m;
            let variance =
                expected * (1.0 - expected) - share.min(2.0 * expected.min(1.0 - expected)) / 4.0;
            let diff = points.points - m * expected;
            let z = if diff.abs() < 1e-9 { 0.0 } else { diff / (m * variance.max(1e-12)).sqrt() };
            statistic += z * z;
            let is_flagged = z.abs() > threshold_z;
            if is_flagged {
                flagged.push(format!("{} vs {}", entrants[p.a].name, entrants[p.b].name));
            }
            PairRow {
                a: entrants[p.a].name.clone(),
                b: entrants[p.b].name.clone(),
                matches: p.matches(),
                a_wins: p.a_wins,
                b_wins: p.b_wins,
                unfinished: p.draws,
                a_points: points,
                expected,
                z,
                flagged: is_flagged,
            }
        })
        .collect();
    let degrees_of_freedom =
        (pairs.len() as u64).saturating_sub(entrants.len().saturating_sub(1) as u64);
    let p_value = match ChiSquared::new(degrees_of_freedom as f64) {
        Ok(chi) if degrees_of_freedom > 0 => chi.sf(statistic),
        _ => f64::NAN,
    };
    (pairs, GoodnessOfFit { statistic, degrees_of_freedom, p_value, threshold_z, flagged })
}

/// The players' rows, highest rating first (equal ratings keep the list order), ranked.
fn player_ratings(
    entrants: &[Entrant],
    pair_totals: &[PairResults],
    ratings: &[f64],
    intervals: &[(f64, f64)],
) -> Vec<PlayerRating> {
    let mut players: Vec<PlayerRating> = entrants
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let (mut matches, mut unfinished, mut points) = (0u64, 0u64, 0.0);
            for p in pair_totals {
                if p.a == i || p.b == i {
                    matches += p.matches();
                    unfinished += p.draws;
                    points +=
                        if p.a == i { p.a_wins } else { p.b_wins } as f64 + p.draws as f64 / 2.0;
                }
            }
            PlayerRating {
                player: e.name.clone(),
                spec: e.spec.clone(),
                rank: 0,
                rating: ratings[i],
                ci_low: intervals[i].0,
                ci_high: intervals[i].1,
                matches,
                unfinished,
                points,
                score: if matches == 0 { f64::NAN } else { points / matches as f64 },
                self_play: e.self_play.clone(),
            }
        })
        .collect();
    players.sort_by(|x, y| y.rating.total_cmp(&x.rating));
    for (k, p) in players.iter_mut().enumerate() {
        p.rank = k + 1;
    }
    players
}
