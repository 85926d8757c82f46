//! The Bradley-Terry model on the Elo scale, fitted by maximum likelihood, with a seeded
//! bootstrap over matches for intervals.
//!
//! Player a's expected score against b is `1 / (1 + 10^((r_b - r_a) / 400))`. A match scores 1
//! for a win, 0 for a loss and 1/2 for an unfinished match (docs/rules.md R16); the fit maximizes
//! `sum over pairs of S_ab ln E_ab + S_ba ln E_ba`, where S_ab is a's points against b (the
//! usual treatment of draws as half a win and half a loss). Only rating differences are
//! identified: the [`Anchor`] fixes the level.
//!
//! A player who scored every point against every other would have an infinite rating: the
//! maximum likelihood exists exactly when every group of players scored some point against the
//! rest (the score graph is strongly connected). [`FitOptions::virtual_draws`] adds that many
//! virtual unfinished matches to every pair that met (as BayesElo's prior does), which keeps every
//! rating finite and moves ratings by little when pairs play many matches.

use rayon::prelude::*;

use crate::engine::Rng;

/// Natural log-odds to Elo points: 400 / ln 10.
const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;

/// Player a's expected score against b (both ratings in Elo points).
pub fn expected_score(ra: f64, rb: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf((rb - ra) / 400.0))
}

/// The matches between players `a` and `b` (indices), in whatever seats: `draws` are the
/// unfinished matches (R16). Several entries for one pair add up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairResults {
    pub a: usize,
    pub b: usize,
    pub a_wins: u64,
    pub b_wins: u64,
    pub draws: u64,
}

impl PairResults {
    pub fn matches(&self) -> u64 {
        self.a_wins + self.b_wins + self.draws
    }
}

/// What fixes the level of the ratings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    /// The ratings average 0.
    Mean,
    /// This player (index) is rated 0.
    Player(usize),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitOptions {
    pub anchor: Anchor,
    /// Virtual unfinished matches added to every pair that met (>= 0).
    pub virtual_draws: f64,
}

/// Why ratings cannot be fitted. Players are indices.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FitError {
    /// Some players never met the others, even through third players.
    #[error("players {players:?} never met the other players, even through third players: their ratings cannot be compared")]
    Disconnected { players: Vec<usize> },
    /// Some players scored every point against the others (or lost every point), so the maximum
    /// likelihood puts them infinitely far apart.
    #[error("players {players:?} scored every point against the others or lost every point to them: their ratings are unbounded (add virtual draws)")]
    Unbounded { players: Vec<usize> },
}

/// Points and matches of every ordered pair, virtual draws included: `points[a * n + b]` is
/// a's points against b.
struct Scores {
    n: usize,
    points: Vec<f64>,
    games: Vec<f64>,
}

impl Scores {
    fn new(n: usize, results: &[PairResults], virtual_draws: f64) -> Scores {
        let mut s = Scores { n, points: vec![0.0; n * n], games: vec![0.0; n * n] };
        for r in results {
            s.add(r.a, r.b, r.a_wins as f64, r.b_wins as f64, r.draws as f64);
        }
        if virtual_draws > 0.0 {
            for a in 0..n {
                for b in a + 1..n {
                    if s.games[a * n + b] > 0.0 {
                        s.add(a, b, 0.0, 0.0, virtual_draws);
                    }
                }
            }
        }
        s
    }

    fn add(&mut self, a: usize, b: usize, a_wins: f64, b_wins: f64, draws: f64) {
        let n = self.n;
        assert!(a < n && b < n && a != b, "pair ({a}, {b}) of {n} players");
        self.points[a * n + b] += a_wins + draws / 2.0;
        self.points[b * n + a] += b_wins + draws / 2.0;
        self.games[a * n + b] += a_wins + b_wins + draws;
        self.games[b * n + a] += a_wins + b_wins + draws;
    }

    /// Players reachable from `start` along edges a -> b where `edge(a, b)`.
    fn reachable(&self, start: usize, edge: impl Fn(usize, usize) -> bool) -> Vec<bool> {
        let mut seen = vec![false; self.n];
        let mut stack = vec![start];
        seen[start] = true;
        while let Some(a) = stack.pop() {
            for (b, seen_b) in seen.iter_mut().enumerate() {
                if !*seen_b && edge(a, b) {
                    *seen_b = true;
                    stack.push(b);
                }
            }
        }
        seen
    }

    /// Checks that the maximum likelihood exists (see the module's documentation).
    fn check(&self) -> Result<(), FitError> {
        let n = self.n;
        let outside = |seen: Vec<bool>| -> Vec<usize> { (0..n).filter(|&i| !seen[i]).collect() };
        let met = outside(self.reachable(0, |a, b| self.games[a * n + b] > 0.0));
        if !met.is_empty() {
            return Err(FitError::Disconnected { players: met });
        }
        // Strongly connected: every player reaches player 0 and is reached from it along
        // "scored a point against" edges.
        let mut unbounded = outside(self.reachable(0, |a, b| self.points[a * n + b] > 0.0));
        unbounded.extend(outside(self.reachable(0, |a, b| self.points[b * n + a] > 0.0)));
        unbounded.sort_unstable();
        unbounded.dedup();
        if unbounded.is_empty() {
            Ok(())
        } else {
            Err(FitError::Unbounded { players: unbounded })
        }
    }

    fn log_likelihood(&self, theta: &[f64]) -> f64 {
        let n = self.n;
        let mut ll = 0.0;
        for a in 0..n {
            for b in 0..n {
                let w = self.points[a * n + b];
                if w > 0.0 {
                    // ln sigma(x) = -ln(1 + e^-x), computed stably.
                    let x = theta[a] - theta[b];
                    ll -= w * if x > 0.0 { (-x).exp().ln_1p() } else { -x + x.exp().ln_1p() };
                }
            }
        }
        ll
    }

    /// Newton's method with step halving on the log-likelihood (concave), player 0 fixed at 0;
    /// natural log-odds units.
    fn maximize(&self) -> Vec<f64> {
        let n = self.n;
        let mut theta = vec![0.0; n];
        if n < 2 {
            return theta;
        }
        let total: f64 = self.games.iter().sum::<f64>() / 2.0;
        let mut ll = self.log_likelihood(&theta);
        for _ in 0..500 {
            // Gradient and negative Hessian over players 1..n.
            let m = n - 1;
            let mut grad = vec![0.0; m];
            let mut info = vec![0.0; m * m];
            for a in 0..n {
                for b in 0..n {
                    let g = self.games[a * n + b];
                    if a == b || g == 0.0 {
                        continue;
                    }
                    let p = 1.0 / (1.0 + (theta[b] - theta[a]).exp());
                    if a > 0 {
                        grad[a - 1] += self.points[a * n + b] - g * p;
                        let w = g * p * (1.0 - p);
                        info[(a - 1) * m + (a - 1)] += w;
                        if b > 0 {
                            info[(a - 1) * m + (b - 1)] -= w;
                        }
                    }
                }
            }
            if grad.iter().all(|g| g.abs() <= 1e-11 * total.max(1.0)) {
                break;
            }
            let Some(step) = solve(&mut info, &mut grad, m) else { break };
            let mut scale = 1.0;
            let mut improved = false;
            for _ in 0..60 {
                let trial: Vec<f64> = theta
                    .iter()
                    .enumerate()
                    .map(|(i, t)| if i == 0 { 0.0 } else { t + scale * step[i - 1] })
                    .collect();
                let trial_ll = self.log_likelihood(&trial);
                if trial_ll >= ll {
                    theta = trial;
                    ll = trial_ll;
                    improved = true;
                    break;
                }
                scale /= 2.0;
            }
            if !improved || step.iter().all(|s| (scale * s).abs() < 1e-13) {
                break;
            }
        }
        theta
    }
}

/// Solves `matrix x = rhs` (symmetric positive definite, `m` x `m`) by Gaussian elimination with
/// partial pivoting; None if it is singular.
fn solve(matrix: &mut [f64], rhs: &mut [f64], m: usize) -> Option<Vec<f64>> {
    for col in 0..m {
        let pivot = (col..m)
            .max_by(|&i, &j| matrix[i * m + col].abs().total_cmp(&matrix[j * m + col].abs()))?;
        if matrix[pivot * m + col].abs() < 1e-300 {
            return None;
        }
        if pivot != col {
            for k in 0..m {
                matrix.swap(pivot * m + k, col * m + k);
            }
            rhs.swap(pivot, col);
        }
        for row in col + 1..m {
            let f = matrix[row * m + col] / matrix[col * m + col];
            if f != 0.0 {
                for k in col..m {
                    matrix[row * m + k] -= f * matrix[col * m + k];
                }
                rhs[row] -= f * rhs[col];
            }
        }
    }
    let mut x = vec![0.0; m];
    for row in (0..m).rev() {
        let s: f64 = (row + 1..m).map(|k| matrix[row * m + k] * x[k]).sum();
        x[row] = (rhs[row] - s) / matrix[row * m + row];
    }
    Some(x)
}

/// The maximum-likelihood ratings of `players` players (Elo points), levelled by the anchor.
pub fn fit(
    players: usize,
    results: &[PairResults],
    options: &FitOptions,
) -> Result<Vec<f64>, FitError> {
    assert!(
        options.virtual_draws >= 0.0 && options.virtual_draws.is_finite(),
        "virtual draws {}",
        options.virtual_draws
    );
    if players == 0 {
        return Ok(Vec::new());
    }
    let scores = Scores::new(players, results, options.virtual_draws);
    scores.check()?;
    let theta = scores.maximize();
    let level = match options.anchor {
        Anchor::Mean => theta.iter().sum::<f64>() / players as f64,
        Anchor::Player(i) => theta[i],
    };
    Ok(theta.iter().map(|t| (t - level) * ELO_PER_NAT).collect())
}

/// `replicates` bootstrap fits: each resamples, with replacement, the matches of every entry
/// of `results` (as many as it holds) and fits again. Replicate k draws from the stream
/// (seed, k), so the replicates do not depend on the thread count. Returns one rating vector per
/// replicate.
pub fn bootstrap(
    players: usize,
    results: &[PairResults],
    options: &FitOptions,
    replicates: u32,
    seed: u64,
) -> Result<Vec<Vec<f64>>, FitError> {
    (0..replicates)
        .into_par_iter()
        .map(|k| {
            let mut rng = Rng::for_stream(seed, k as u64, BOOTSTRAP_STREAM);
            let resampled: Vec<PairResults> =
                results.iter().map(|r| resample(r, &mut rng)).collect();
            fit(players, &resampled, options)
        })
        .collect()
}

/// Stream number of the bootstrap's generators (apart from the players' streams 1 and 2).
const BOOTSTRAP_STREAM: u64 = 0x6274_7374; // "btst"

/// The matches of `r`, drawn again with replacement.
fn resample(r: &PairResults, rng: &mut Rng) -> PairResults {
    let n = r.matches();
    assert!(n <= u32::MAX as u64, "a pair of {n} matches is too large to resample");
    let (mut a_wins, mut b_wins, mut draws) = (0, 0, 0);
    for _ in 0..n {
        let k = rng.below(n as u32) as u64;
        if k < r.a_wins {
            a_wins += 1;
        } else if k < r.a_wins + r.b_wins {
            b_wins += 1;
        } else {
            draws += 1;
        }
    }
    PairResults { a_wins, b_wins, draws, ..*r }
}

/// The `q` quantile of `values` (sorted in place), interpolating linearly between order
/// statistics (R's `quantile(type = 7)`).
pub fn quantile(values: &mut [f64], q: f64) -> f64 {
    assert!(!values.is_empty() && (0.0..=1.0).contains(&q));
    values.sort_by(f64::total_cmp);
    let h = (values.len() - 1) as f64 * q;
    let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
    values[lo] + (h - lo as f64) * (values[hi] - values[lo])
}
