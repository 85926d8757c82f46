//! Statistics for simulated data: win rates with confidence intervals and exact tests, and
//! summaries of count distributions (laps per move, moves per match, rounds per match, ...).
//!
//! The distributions come from `statrs`; nothing here re-implements a distribution function.

use serde::Serialize;
use statrs::distribution::{Binomial, ContinuousCDF, Discrete, DiscreteCDF, Normal};

/// The confidence level of the interval in a [`Proportion`].
pub const CONFIDENCE: f64 = 0.95;

/// A proportion of successes (for instance, matches won by the first player) with its 95% Wilson
/// score interval and the exact two-sided binomial test of "the true rate is 1/2".
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct Proportion {
    pub successes: u64,
    pub trials: u64,
    /// successes / trials; NaN when there are no trials.
    pub rate: f64,
    /// Wilson score interval at [`CONFIDENCE`]; [0, 1] when there are no trials.
    pub ci_low: f64,
    pub ci_high: f64,
    /// Exact two-sided binomial test against p = 1/2 (see [`binomial_test_half`]); 0 when it is
    /// below the smallest double (about 1e-308): `log10_p_value` has it then.
    pub p_value: f64,
    /// The base-10 logarithm of the same p-value, which does not underflow (see
    /// [`log10_binomial_test_half`]): -2187.54 for 550,119 wins of 1,000,000.
    pub log10_p_value: f64,
}

/// Rate, 95% Wilson interval and exact two-sided binomial test against p = 1/2.
///
/// With no trials the rate is NaN, the interval [0, 1] and the p-value 1.
///
/// # Panics
/// If `successes > trials`.
pub fn proportion(successes: u64, trials: u64) -> Proportion {
    assert!(successes <= trials, "proportion: {successes} successes out of {trials} trials");
    let rate = if trials == 0 { f64::NAN } else { successes as f64 / trials as f64 };
    let (ci_low, ci_high) = wilson(successes, trials, CONFIDENCE);
    let p_value = binomial_test_half(successes, trials);
    Proportion {
        successes,
        trials,
        rate,
        ci_low,
        ci_high,
        p_value,
        log10_p_value: log10_binomial_test_half(successes, trials),
    }
}

/// The Wilson score interval for `successes` out of `trials` at the given two-sided
/// `confidence` (0.95 for a 95% interval):
///
/// ```text
/// centre = (p + z²/2n) / (1 + z²/n)
/// half   = z / (1 + z²/n) * sqrt(p(1-p)/n + z²/4n²)
/// ```
///
/// where p = successes / trials, n = trials and z is the standard normal quantile at
/// 1 - (1 - confidence)/2. This is R's `prop.test(k, n, correct = FALSE)$conf.int`.
/// The interval is clamped to [0, 1], and its end is exactly 0 (or 1) when there are no
/// successes (or no failures). With no trials it is [0, 1].
///
/// # Panics
/// If `successes > trials` or `confidence` is not strictly between 0 and 1.
pub fn wilson(successes: u64, trials: u64, confidence: f64) -> (f64, f64) {
    assert!(successes <= trials, "wilson: {successes} successes out of {trials} trials");
    assert!(
        confidence > 0.0 && confidence < 1.0,
        "wilson: confidence {confidence} is not in (0, 1)"
    );
    if trials == 0 {
        return (0.0, 1.0);
    }
    let z = Normal::standard().inverse_cdf(1.0 - (1.0 - confidence) / 2.0);
    let n = trials as f64;
    let p = successes as f64 / n;
    let z2n = z * z / n;
    let centre = (p + z2n / 2.0) / (1.0 + z2n);
    let half = z / (1.0 + z2n) * (p * (1.0 - p) / n + z2n / (4.0 * n)).sqrt();
    let low = if successes == 0 { 0.0 } else { (centre - half).max(0.0) };
    let high = if successes == trials { 1.0 } else { (centre + half).min(1.0) };
    (low, high)
}

/// The exact two-sided binomial test of `successes` out of `trials` against p = 1/2, as R's
/// `binom.test(k, n, 0.5)$p.value`.
///
/// For p = 1/2 the distribution is symmetric, and the two-sided p-value is
/// min(1, 2 min(P[X <= k], P[X >= k])). As P[X >= k] = P[X <= n - k], this is
/// min(1, 2 P[X <= min(k, n - k)]): one lower tail, which the binomial CDF gives in constant
/// time (a regularized incomplete beta function) and without cancellation, however large n.
/// With no trials the p-value is 1.
///
/// Accuracy: the relative error is a few 1e-13 for n in the hundreds, and grows with n like
/// n ln n x 1e-16 (from the log-gamma terms of the incomplete beta function): about 2e-8 at
/// n = 10 million, 2e-7 at 40 million and 1e-6 at 100 million. That is far below anything a
/// test decision can depend on; the far tail is as good (1.8e-219, at 31.6 standard deviations
/// from n/2 with n = 10 million, has a relative error of 4e-11).
///
/// # Panics
/// If `successes > trials`.
pub fn binomial_test_half(successes: u64, trials: u64) -> f64 {
    assert!(successes <= trials, "binomial test: {successes} successes out of {trials} trials");
    let m = successes.min(trials - successes);
    if 2 * m + 1 >= trials {
        // m = floor(n/2) (or no trials): the lower tail holds at least half the mass, and the
        // p-value is exactly 1 (computing it would give 1 - 1e-15 or so).
        return 1.0;
    }
    let binomial = Binomial::new(0.5, trials).expect("1/2 is a valid probability");
    (2.0 * binomial.cdf(m)).min(1.0)
}

/// The base-10 logarithm of [`binomial_test_half`], accurate where the p-value itself underflows
/// to 0 (a million matches at 55% give 10^-2187.5).
///
/// Where the p-value is above 1e-250 this is its logarithm. Below, it is computed from the
/// lower tail as a sum relative to its last term: P[X <= m] = pmf(m) (1 + r_m + r_m r_(m-1) + ...)
/// with r_k = pmf(k-1)/pmf(k) = k / (n - k + 1) < 1 so far from n/2; the terms fall geometrically
/// and the sum stops when they no longer change it. `ln pmf(m)` comes from statrs.
pub fn log10_binomial_test_half(successes: u64, trials: u64) -> f64 {
    let p = binomial_test_half(successes, trials);
    if p > 1e-250 {
        return p.log10();
    }
    log10_lower_tail_doubled(successes.min(trials - successes), trials)
}

/// log10(2 P[X <= m]) for X ~ Binomial(n, 1/2), m well below n/2, by the series above.
fn log10_lower_tail_doubled(m: u64, n: u64) -> f64 {
    let ln_last = Binomial::new(0.5, n).expect("1/2 is a valid probability").ln_pmf(m);
    let (mut term, mut sum, mut k) = (1.0f64, 1.0f64, m);
    while k > 0 {
        term *= k as f64 / (n - k + 1) as f64;
        k -= 1;
        sum += term;
        if term < sum * 1e-17 {
            break;
        }
    }
    (std::f64::consts::LN_2 + ln_last + sum.ln()) / std::f64::consts::LN_10
}

/// The difference of two proportions, a - b, with Newcombe's hybrid score interval (method 10 of
/// Newcombe 1998, from the two Wilson intervals at [`CONFIDENCE`]) and the two-sided pooled
/// two-proportion z test of "no difference".
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct Difference {
    /// a's rate minus b's; NaN when either has no trials.
    pub difference: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    /// (p_a - p_b) / sqrt(p (1 - p) (1/n_a + 1/n_b)), p the pooled rate; 0 when undefined.
    pub z: f64,
    /// Two-sided normal p-value of z; 0 when below the smallest double (see `log10_p_value`).
    pub p_value: f64,
    /// Its base-10 logarithm, which does not underflow.
    pub log10_p_value: f64,
}

/// a - b with its interval and test (see [`Difference`]).
pub fn difference(a: &Proportion, b: &Proportion) -> Difference {
    if a.trials == 0 || b.trials == 0 {
        return Difference {
            difference: f64::NAN,
            ci_low: -1.0,
            ci_high: 1.0,
            z: 0.0,
            p_value: 1.0,
            log10_p_value: 0.0,
        };
    }
    let d = a.rate - b.rate;
    let low = d - ((a.rate - a.ci_low).powi(2) + (b.ci_high - b.rate).powi(2)).sqrt();
    let high = d + ((a.ci_high - a.rate).powi(2) + (b.rate - b.ci_low).powi(2)).sqrt();
    let (na, nb) = (a.trials as f64, b.trials as f64);
    let pooled = (a.successes + b.successes) as f64 / (na + nb);
    let se = (pooled * (1.0 - pooled) * (1.0 / na + 1.0 / nb)).sqrt();
    let z = if se > 0.0 { d / se } else { 0.0 };
    let (p_value, log10_p_value) = normal_two_sided(z);
    Difference {
        difference: d,
        ci_low: low.max(-1.0),
        ci_high: high.min(1.0),
        z,
        p_value,
        log10_p_value,
    }
}

/// The two-sided p-value of a standard normal z, and its base-10 logarithm: from statrs where
/// the p-value is a normal double, else from the asymptotic series of the normal tail,
/// ln P[Z > x] = -x²/2 - ln(x sqrt(2 pi)) + ln(1 - 1/x² + 3/x⁴ - 15/x⁶) (|z| > 37 there).
pub fn normal_two_sided(z: f64) -> (f64, f64) {
    let x = z.abs();
    let p = (2.0 * Normal::standard().cdf(-x)).min(1.0);
    if p > 1e-300 {
        return (p, p.log10());
    }
    let (x2, pi2) = (x * x, 2.0 * std::f64::consts::PI);
    let ln_tail = -x2 / 2.0 - (x * pi2.sqrt()).ln()
        + (1.0 - 1.0 / x2 + 3.0 / (x2 * x2) - 15.0 / (x2 * x2 * x2)).ln();
    (p, (std::f64::consts::LN_2 + ln_tail) / std::f64::consts::LN_10)
}

/// A score with unfinished matches counted as half a win (docs/rules.md R16): `points` = wins + 1/2
/// x unfinished, out of `matches` (finished and unfinished), with a 95% interval for the rate
/// (see [`half_point_interval`]).
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct Points {
    pub points: f64,
    pub matches: u64,
    /// points / matches; NaN when there are no matches.
    pub rate: f64,
    /// Score interval for a win/half/loss outcome at [`CONFIDENCE`] (see
    /// [`half_point_interval`]); [0, 1] when there are no matches.
    pub ci_low: f64,
    pub ci_high: f64,
}

/// `wins` and `halves` (unfinished matches, R16) out of `matches`: points, rate and 95% interval.
///
/// # Panics
/// If `wins + halves > matches`.
pub fn half_points(wins: u64, halves: u64, matches: u64) -> Points {
    assert!(
        wins + halves <= matches,
        "half points: {wins} wins and {halves} halves out of {matches} matches"
    );
    let points = wins as f64 + halves as f64 / 2.0;
    let rate = if matches == 0 { f64::NAN } else { points / matches as f64 };
    let (ci_low, ci_high) = half_point_interval(wins, halves, matches, CONFIDENCE);
    Points { points, matches, rate, ci_low, ci_high }
}

/// A score interval for the mean of a win (1) / half (1/2) / loss (0) outcome: `wins` and
/// `halves` out of `matches`, at the two-sided `confidence`.
///
/// Wilson's interval on `points` out of `matches` would take the variance of a win/loss outcome,
/// p(1 - p), and overstate the spread when halves are common; a Wald interval with the observed
/// variance collapses to a point when every match is a half (or every match a win). This interval
/// is Wilson's construction with the variance of the three-valued outcome: it holds every rate p
/// with
///
/// ```text
/// (p̂ - p)² <= z²/n · v(p),   v(p) = p(1 - p) - h(p)/4,   h(p) = min(ĥ, 2 min(p, 1 - p))
/// ```
///
/// where p̂ = points / n, ĥ = halves / n, and v(p) is the variance of the outcome whose mean is p
/// and whose share of halves is the observed one (capped at the largest share a mean of p
/// allows). Without halves it is exactly Wilson's interval ([`wilson`]); when every match is a
/// half it is 1/2 ± z²/(2(n + z²)). The ends are found by bisection to 1e-12; with no matches
/// it is [0, 1].
///
/// # Panics
/// If `wins + halves > matches` or `confidence` is not strictly between 0 and 1.
pub fn half_point_interval(wins: u64, halves: u64, matches: u64, confidence: f64) -> (f64, f64) {
    assert!(
        wins + halves <= matches,
        "half-point interval: {wins} wins and {halves} halves out of {matches} matches"
    );
    assert!(
        confidence > 0.0 && confidence < 1.0,
        "half-point interval: confidence {confidence} is not in (0, 1)"
    );
    if matches == 0 {
        return (0.0, 1.0);
    }
    if halves == 0 {
        return wilson(wins, matches, confidence);
    }
    let z = Normal::standard().inverse_cdf(1.0 - (1.0 - confidence) / 2.0);
    let n = matches as f64;
    let (mean, share) = ((wins as f64 + halves as f64 / 2.0) / n, halves as f64 / n);
    let k = z * z / n;
    // Inside the interval where this is <= 0; it is < 0 at the observed mean (v > 0 there
    // unless every match is a half, when it is 0).
    let excess = |p: f64| {
        let h = share.min(2.0 * p.min(1.0 - p));
        (mean - p).powi(2) - k * (p * (1.0 - p) - h / 4.0)
    };
    let bisect = |mut inside: f64, mut outside: f64| {
        while (inside - outside).abs() > 1e-12 {
            let mid = (inside + outside) / 2.0;
            if excess(mid) <= 0.0 {
                inside = mid;
            } else {
                outside = mid;
            }
        }
        inside
    };
    let low = if excess(0.0) <= 0.0 { 0.0 } else { bisect(mean, 0.0) };
    let high = if excess(1.0) <= 0.0 { 1.0 } else { bisect(mean, 1.0) };
    (low, high)
}

/// A summary of a distribution of non-negative integers (laps per move, moves per match, ...).
///
/// Quantiles use the "lower" definition (R's `quantile(type = 1)`, the inverse of the empirical
/// distribution function): the q-quantile is the smallest observed value v such that at least a
/// fraction q of the observations are <= v. It is always an observed value; for an even count
/// the median is the lower of the two middle values (the median of 1, 2, 3, 4 is 2, not 2.5).
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct Distribution {
    /// Number of observations.
    pub count: u64,
    /// Arithmetic mean; NaN when there are no observations.
    pub mean: f64,
    /// The 0.5 quantile (lower definition); NaN when there are no observations.
    pub median: f64,
    /// The 0.99 quantile (lower definition); NaN when there are no observations.
    pub p99: f64,
    /// Largest observed value; 0 when there are no observations.
    pub max: u64,
    /// Smallest observed value; 0 when there are no observations.
    pub min: u64,
}

impl Distribution {
    /// Summarizes a histogram of `(value, count)` bins. The bins may come in any order and may
    /// repeat a value (their counts add up); bins with a zero count are ignored (they do not
    /// make a value the minimum or the maximum). No bins, or only empty ones, give count 0,
    /// NaN mean, median and p99, and max and min 0.
    ///
    /// # Panics
    /// If the total count overflows a `u64`.
    pub fn from_histogram(bins: &[(u64, u64)]) -> Distribution {
        let mut bins: Vec<(u64, u64)> = bins.iter().copied().filter(|&(_, c)| c > 0).collect();
        bins.sort_unstable_by_key(|&(v, _)| v);
        // Merge repeated values, so that the quantile walk sees each value once.
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(bins.len());
        for (v, c) in bins {
            match merged.last_mut() {
                Some(last) if last.0 == v => {
                    last.1 = last.1.checked_add(c).expect("histogram count overflows u64")
                }
                _ => merged.push((v, c)),
            }
        }
        let (Some(&(min, _)), Some(&(max, _))) = (merged.first(), merged.last()) else {
            return Distribution {
                count: 0,
                mean: f64::NAN,
                median: f64::NAN,
                p99: f64::NAN,
                max: 0,
                min: 0,
            };
        };
        let count = merged
            .iter()
            .try_fold(0u64, |acc, &(_, c)| acc.checked_add(c))
            .expect("histogram count overflows u64");
        // Exact integer sum (value x count can exceed u64), rounded once.
        let sum: u128 = merged.iter().map(|&(v, c)| v as u128 * c as u128).sum();
        let mean = sum as f64 / count as f64;
        Distribution {
            count,
            mean,
            median: quantile_lower(&merged, count, 1, 2) as f64,
            p99: quantile_lower(&merged, count, 99, 100) as f64,
            max,
            min,
        }
    }

    /// Summarizes raw observations, through [`Distribution::from_histogram`].
    pub fn from_values(values: &[u64]) -> Distribution {
        let mut sorted = values.to_vec();
        sorted.sort_unstable();
        let mut bins: Vec<(u64, u64)> = Vec::new();
        for v in sorted {
            match bins.last_mut() {
                Some(last) if last.0 == v => last.1 += 1,
                _ => bins.push((v, 1)),
            }
        }
        Distribution::from_histogram(&bins)
    }
}

/// The smallest value v of `bins` (sorted by value, distinct, non-empty, counts summing to
/// `count`) with cumulative count >= (num/den) x count, compared in exact integer arithmetic.
fn quantile_lower(bins: &[(u64, u64)], count: u64, num: u64, den: u64) -> u64 {
    let need = num as u128 * count as u128;
    let mut cumulative: u128 = 0;
    for &(v, c) in bins {
        cumulative += c as u128;
        if cumulative * den as u128 >= need {
            return v;
        }
    }
    bins.last().expect("quantile of an empty histogram").0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// Relative closeness, for p-values that can be tiny.
    fn rel_close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs()
    }

    // Reference values below were computed with 40-50 significant digits of arbitrary
    // precision arithmetic from the formulas quoted in each comment (exact binomial sums for the
    // tests, the closed form for Wilson), and agree with R where R's printout is quoted.

    #[test]
    fn normal_quantile_for_95_percent() {
        // z = sqrt(2) erfinv(0.95) = 1.959963984540054...
        let z = Normal::standard().inverse_cdf(0.975);
        assert!(close(z, 1.959_963_984_540_054, 1e-12), "{z}");
    }

    #[test]
    fn wilson_55_of_100() {
        // p = 0.55, n = 100, z² = 3.841459: centre = 0.5692073 / 1.0384146 = 0.5481504,
        // half = 1.8874590 x sqrt(0.002475 + 0.0000960365) = 0.0957043, so
        // (0.4524460, 0.6438546) = R's prop.test(55, 100, correct = FALSE)$conf.int.
        let (lo, hi) = wilson(55, 100, 0.95);
        assert!(close(lo, 0.452_446_029_974_421_3, 1e-12), "{lo}");
        assert!(close(hi, 0.643_854_620_204_880_2, 1e-12), "{hi}");
        assert_eq!((format!("{lo:.4}"), format!("{hi:.4}")), ("0.4524".into(), "0.6439".into()));
    }

    #[test]
    fn wilson_at_the_edges() {
        // k = 0: the lower end is exactly 0 and the upper end is (z²/n) / (1 + z²/n)
        // = 0.3841459 / 1.3841459 = 0.2775328; k = n mirrors it.
        let (lo, hi) = wilson(0, 10, 0.95);
        assert_eq!(lo, 0.0);
        assert!(close(hi, 0.277_532_799_862_889_25, 1e-12), "{hi}");
        let (lo, hi) = wilson(10, 10, 0.95);
        assert!(close(lo, 0.722_467_200_137_110_8, 1e-12), "{lo}");
        assert_eq!(hi, 1.0);
        // One trial: (0, z²/(1 + z²)) = (0, 0.7934507).
        let (lo, hi) = wilson(0, 1, 0.95);
        assert_eq!(lo, 0.0);
        assert!(close(hi, 0.793_450_685_622_762_6, 1e-12), "{hi}");
        // No trials: the whole unit interval.
        assert_eq!(wilson(0, 0, 0.95), (0.0, 1.0));
    }

    #[test]
    fn wilson_is_symmetric_and_narrows_with_confidence() {
        // 5 of 10: centred on 1/2, (0.2365931, 0.7634069).
        let (lo, hi) = wilson(5, 10, 0.95);
        assert!(close(lo, 0.236_593_090_512_563_98, 1e-12), "{lo}");
        assert!(close(lo + hi, 1.0, 1e-15));
        let (lo90, hi90) = wilson(5, 10, 0.90);
        assert!(lo90 > lo && hi90 < hi);
        // Large n: 5.5 M of 10 M gives (0.5496916, 0.5503083).
        let (lo, hi) = wilson(5_500_000, 10_000_000, 0.95);
        assert!(close(lo, 0.549_691_636_715_977_5, 1e-12), "{lo}");
        assert!(close(hi, 0.550_308_324_869_449, 1e-12), "{hi}");
    }

    #[test]
    fn binomial_test_small_n() {
        // binom.test(60, 100): 2 P[X <= 40] = 0.05688793 (R prints p-value = 0.05689).
        assert!(rel_close(binomial_test_half(60, 100), 0.056_887_933_640_980_79, 1e-9));
        assert!(rel_close(binomial_test_half(40, 100), 0.056_887_933_640_980_79, 1e-9));
        // binom.test(61, 100): 0.03520020.
        assert!(rel_close(binomial_test_half(61, 100), 0.035_200_200_217_704_82, 1e-9));
        // binom.test(5, 10): the observed count is the mode, p = 1.
        assert_eq!(binomial_test_half(5, 10), 1.0);
        // binom.test(0, 10) = binom.test(10, 10) = 2 / 2^10 = 0.001953125.
        assert!(rel_close(binomial_test_half(0, 10), 0.001_953_125, 1e-12));
        assert!(rel_close(binomial_test_half(10, 10), 0.001_953_125, 1e-12));
        // binom.test(3, 10) = 2 (1 + 10 + 45 + 120) / 1024 = 352 / 1024 = 0.34375.
        assert!(rel_close(binomial_test_half(3, 10), 0.343_75, 1e-12));
        // Odd n, k next to n/2: 2 P[X <= 2] for n = 5 is 2 x 16/32 = 1.
        assert_eq!(binomial_test_half(2, 5), 1.0);
        assert_eq!(binomial_test_half(3, 5), 1.0);
        // binom.test(1, 1) = 1; no trials gives 1.
        assert_eq!(binomial_test_half(1, 1), 1.0);
        assert_eq!(binomial_test_half(0, 0), 1.0);
    }

    #[test]
    fn binomial_test_large_n() {
        // Exact values from summing the binomial pmf at 50 digits, checked to the accuracy
        // documented on binomial_test_half (relative error ~ n ln n x 1e-16). The normal
        // approximation with continuity correction, erfc(z / sqrt 2) with
        // z = (|k - n/2| - 1/2) / (sqrt(n)/2), agrees with them to about 1e-9 at these n (for
        // p = 1/2 its error is O(1/n)).
        let normal = |k: u64, n: u64| {
            let z = ((k as f64 - n as f64 / 2.0).abs() - 0.5) / ((n as f64).sqrt() / 2.0);
            2.0 * Normal::standard().sf(z)
        };
        for (k, n, exact, rel) in [
            (500_500u64, 1_000_000u64, 0.317_794_691_363_305_5, 1e-8),
            (5_002_000, 10_000_000, 0.206_016_602_795_027_85, 1e-7),
            (4_998_000, 10_000_000, 0.206_016_602_795_027_85, 1e-7),
            (20_004_000, 40_000_000, 0.205_959_901_660_392_27, 1e-6),
            (50_003_000, 100_000_000, 0.548_572_882_633_283, 1e-5),
        ] {
            let p = binomial_test_half(k, n);
            assert!(rel_close(p, exact, rel), "k = {k}, n = {n}: {p} vs {exact}");
            assert!(
                close(p, normal(k, n), 1e-6),
                "k = {k}, n = {n}: {p} vs normal {}",
                normal(k, n)
            );
        }
        // Far in the tail: k = 5 050 000 of 10 000 000 is 31.6 standard deviations out.
        // Exact: 1.7988462e-219; the normal approximation gives 1.8139e-219 (within 1%).
        let p = binomial_test_half(5_050_000, 10_000_000);
        assert!(rel_close(p, 1.798_846_242_552_914e-219, 1e-8), "{p}");
        assert!(rel_close(p, normal(5_050_000, 10_000_000), 0.01), "{p}");
        // k = n/2 of an odd n: the lower tail at floor(n/2) is exactly 1/2, so p = 1.
        assert_eq!(binomial_test_half(5_000_000, 10_000_001), 1.0);
        assert_eq!(binomial_test_half(5_000_000, 10_000_000), 1.0);
    }

    #[test]
    fn binomial_test_is_fast_for_tens_of_millions() {
        let start = std::time::Instant::now();
        for k in (25_000_000..25_010_000).step_by(100) {
            let p = binomial_test_half(k, 50_000_000);
            assert!((0.0..=1.0).contains(&p));
        }
        assert!(start.elapsed().as_secs_f64() < 1.0, "100 tests took {:?}", start.elapsed());
    }

    #[test]
    fn proportion_fields() {
        let p = proportion(60, 100);
        assert_eq!((p.successes, p.trials), (60, 100));
        assert_eq!(p.rate, 0.6);
        // (0.5020026, 0.6905987) = prop.test(60, 100, correct = FALSE)$conf.int.
        assert!(close(p.ci_low, 0.502_002_586_791_061_8, 1e-12), "{}", p.ci_low);
        assert!(close(p.ci_high, 0.690_598_713_567_541_1, 1e-12), "{}", p.ci_high);
        assert!(rel_close(p.p_value, 0.056_887_933_640_980_79, 1e-9));
        let json = serde_json::to_value(&p).unwrap();
        assert_eq!(json["successes"], 60);
        assert_eq!(json["rate"], 0.6);
    }

    #[test]
    fn the_log10_p_value_does_not_underflow() {
        // References: log10(2 sum_{k<=m} C(n,k) / 2^n) in 40-digit arithmetic (mpmath).
        for (k, n, want) in [
            (550_119, 1_000_000, -2_187.544_831_987_2),
            (780_537, 1_000_000, -72_494.886_053_571_7),
            (300, 1000, -36.752_869_689_706_02),
        ] {
            let got = log10_binomial_test_half(k, n);
            assert!(close(got, want, 1e-8 * want.abs()), "{k} of {n}: {got}, want {want}");
            assert_eq!(log10_binomial_test_half(n - k, n), got, "symmetric");
        }
        assert_eq!(binomial_test_half(550_119, 1_000_000), 0.0, "the p-value itself underflows");
        // Where both exist, the series and the logarithm of the p-value agree.
        let direct = binomial_test_half(300, 1000).log10();
        assert!(close(log10_lower_tail_doubled(300, 1000), direct, 1e-9), "{direct}");
        let p = proportion(550_119, 1_000_000);
        assert!(p.log10_p_value < -2187.0 && p.p_value == 0.0);
        assert_eq!(proportion(50, 100).log10_p_value, 0.0);
        assert_eq!(proportion(0, 0).log10_p_value, 0.0);
    }

    #[test]
    fn the_difference_of_two_proportions_has_newcombes_interval_and_the_z_test() {
        // Newcombe (1998), table II, example (a): 56/70 - 48/80 = 0.2, interval 0.0524 to 0.3339.
        let d = difference(&proportion(56, 70), &proportion(48, 80));
        assert!(close(d.difference, 0.2, 1e-12));
        assert!(close(d.ci_low, 0.0524, 5e-5) && close(d.ci_high, 0.3339, 5e-5), "{d:?}");
        // Pooled z: 104/150 overall.
        let p = 104.0 / 150.0;
        let z = 0.2 / (p * (1.0 - p) * (1.0 / 70.0 + 1.0 / 80.0f64)).sqrt();
        assert!(close(d.z, z, 1e-12));
        assert!(
            close(d.p_value, 2.0 * Normal::standard().cdf(-z), 1e-15)
                && close(d.log10_p_value, d.p_value.log10(), 1e-12)
        );
        // Far in the tail the p-value underflows, its logarithm does not, and the two formulas
        // meet where both hold (z = 30: 2 P[Z > 30] = 9.8e-198).
        let (p30, l30) = normal_two_sided(30.0);
        let x2 = 900.0f64;
        let series =
            (std::f64::consts::LN_2 - x2 / 2.0 - (30.0 * (2.0 * std::f64::consts::PI).sqrt()).ln()
                + (1.0 - 1.0 / x2 + 3.0 / (x2 * x2) - 15.0 / (x2 * x2 * x2)).ln())
                / std::f64::consts::LN_10;
        assert!(close(l30, series, 1e-9) && close(p30.log10(), series, 1e-9), "{l30} {series}");
        let (p50, l50) = normal_two_sided(-50.0);
        assert_eq!(p50, 0.0);
        assert!((l50 + 544.665_305_866).abs() < 1e-6, "{l50}");
        assert!(difference(&proportion(0, 0), &proportion(3, 4)).difference.is_nan());
    }

    #[test]
    fn proportion_without_trials() {
        let p = proportion(0, 0);
        assert!(p.rate.is_nan());
        assert_eq!((p.ci_low, p.ci_high, p.p_value), (0.0, 1.0, 1.0));
    }

    #[test]
    #[should_panic(expected = "11 successes out of 10 trials")]
    fn proportion_rejects_more_successes_than_trials() {
        proportion(11, 10);
    }

    fn assert_empty(d: &Distribution) {
        assert_eq!((d.count, d.max, d.min), (0, 0, 0));
        assert!(d.mean.is_nan() && d.median.is_nan() && d.p99.is_nan(), "{d:?}");
    }

    #[test]
    fn empty_distributions() {
        assert_empty(&Distribution::from_histogram(&[]));
        assert_empty(&Distribution::from_histogram(&[(3, 0), (7, 0)]));
        assert_empty(&Distribution::from_values(&[]));
    }

    #[test]
    fn small_histogram_by_hand() {
        // Values 1, 2, 3, 3 given unsorted: mean 9/4; median: the cumulative counts are 1, 2, 4
        // and 2 >= 0.5 x 4 first at value 2; p99: 4 >= 0.99 x 4 = 3.96 first at value 3.
        let d = Distribution::from_histogram(&[(3, 2), (1, 1), (2, 1)]);
        assert_eq!(d, Distribution { count: 4, mean: 2.25, median: 2.0, p99: 3.0, max: 3, min: 1 });
        assert_eq!(Distribution::from_values(&[3, 1, 3, 2]), d);
    }

    #[test]
    fn repeated_and_empty_bins() {
        // (5, 1) twice is (5, 2): values 1, 5, 5; median 5 (cumulative 1 < 1.5, then 3).
        // The empty bins at 0 and 9 change neither the minimum nor the maximum.
        let d = Distribution::from_histogram(&[(5, 1), (0, 0), (5, 1), (1, 1), (9, 0)]);
        assert_eq!((d.count, d.median, d.p99, d.max, d.min), (3, 5.0, 5.0, 5, 1));
        assert!(close(d.mean, 11.0 / 3.0, 1e-15));
    }

    #[test]
    fn p99_takes_the_value_that_reaches_exactly_99_percent() {
        // 90 ones, 9 twos, 1 ten: cumulative 90, 99, 100; 99 >= 0.99 x 100, so p99 = 2, and
        // the median is 1. Mean (90 + 18 + 10) / 100 = 1.18.
        let d = Distribution::from_histogram(&[(1, 90), (2, 9), (10, 1)]);
        assert_eq!((d.count, d.median, d.p99, d.max, d.min), (100, 1.0, 2.0, 10, 1));
        assert!(close(d.mean, 1.18, 1e-15));
        // One more ten: 99 < 0.99 x 101 = 99.99, so p99 = 10.
        let d = Distribution::from_histogram(&[(1, 90), (2, 9), (10, 2)]);
        assert_eq!(d.p99, 10.0);
    }

    #[test]
    fn quantiles_of_one_to_n() {
        // 1..=100: median 50 (the lower middle value), p99 99; 1..=200: p99 198; 1..=101:
        // median 51 (51 >= 50.5), p99 100 (100 >= 99.99).
        let d = Distribution::from_values(&(1..=100).collect::<Vec<u64>>());
        assert_eq!((d.median, d.p99, d.mean), (50.0, 99.0, 50.5));
        assert_eq!(Distribution::from_values(&(1..=200).collect::<Vec<u64>>()).p99, 198.0);
        let d = Distribution::from_values(&(1..=101).collect::<Vec<u64>>());
        assert_eq!((d.median, d.p99, d.mean), (51.0, 100.0, 51.0));
        // A single value is every quantile.
        let d = Distribution::from_values(&[7]);
        assert_eq!(d, Distribution { count: 1, mean: 7.0, median: 7.0, p99: 7.0, max: 7, min: 7 });
    }

    #[test]
    fn large_counts_do_not_overflow() {
        // Sum 1e12 x 1e9 = 1e21 exceeds u64; the mean is still exact.
        let d =
            Distribution::from_histogram(&[(1_000_000_000_000, 1_000_000_000), (0, 1_000_000_000)]);
        assert_eq!(d.count, 2_000_000_000);
        assert_eq!(d.mean, 5e11);
        assert_eq!((d.median, d.p99), (0.0, 1e12));
    }
}

#[cfg(test)]
mod half_point_tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn without_halves_it_is_wilson() {
        for (w, n) in [(55, 100), (0, 10), (10, 10), (3, 7)] {
            assert_eq!(half_point_interval(w, 0, n, 0.95), wilson(w, n, 0.95));
        }
        let p = half_points(55, 0, 100);
        assert_eq!((p.points, p.matches, p.rate), (55.0, 100, 0.55));
    }

    #[test]
    fn all_halves_give_the_closed_form() {
        // h(p) = 2 min(p, 1 - p) near 1/2: v(1/2 - e) = e/2 - e², so e <= k / (2 (1 + k)) with
        // k = z²/n: for n = 5, k = 0.7683, e = 0.21718.
        let (lo, hi) = half_point_interval(0, 5, 5, 0.95);
        let k = 1.959_963_984_540_054f64.powi(2) / 5.0;
        let e = k / (2.0 * (1.0 + k));
        assert!(close(lo, 0.5 - e, 1e-9) && close(hi, 0.5 + e, 1e-9), "({lo}, {hi}) vs ±{e}");
        let p = half_points(0, 5, 5);
        assert_eq!((p.points, p.rate), (2.5, 0.5));
        assert_eq!(half_points(0, 0, 0).ci_low, 0.0);
        assert!(half_points(0, 0, 0).rate.is_nan());
    }

    #[test]
    fn halves_narrow_the_interval_against_wilson_on_points() {
        // 40 wins, 40 halves, 20 losses (60 points of 100): narrower than Wilson's on 60 of 100,
        // since the halves lower the variance; it contains the rate and is inside [0, 1].
        let (lo, hi) = half_point_interval(40, 40, 100, 0.95);
        let (wlo, whi) = wilson(60, 100, 0.95);
        assert!(wlo < lo && hi < whi, "({lo}, {hi}) vs Wilson ({wlo}, {whi})");
        assert!(lo < 0.6 && 0.6 < hi);
        // Mirror symmetry: losses and wins exchanged.
        let (mlo, mhi) = half_point_interval(20, 40, 100, 0.95);
        assert!(close(mlo, 1.0 - hi, 1e-9) && close(mhi, 1.0 - lo, 1e-9));
    }

    #[test]
    fn coverage_is_near_95_percent() {
        // Matches drawn from win 0.3, half 0.4, loss 0.3 (true rate 0.5) and from win 0.7,
        // half 0.2, loss 0.1 (true rate 0.8), 60 matches each, 4,000 replicates from a fixed
        // stream: the interval holds the true rate in 93% to 97% of them.
        let mut rng = crate::engine::Rng::from_seed(9);
        for (pw, ph, truth) in [(0.3, 0.4, 0.5), (0.7, 0.2, 0.8)] {
            let mut covered = 0;
            let reps = 4000;
            for _ in 0..reps {
                let (mut w, mut h) = (0, 0);
                for _ in 0..60 {
                    let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                    if u < pw {
                        w += 1;
                    } else if u < pw + ph {
                        h += 1;
                    }
                }
                let (lo, hi) = half_point_interval(w, h, 60, 0.95);
                covered += (lo <= truth && truth <= hi) as u32;
            }
            let share = covered as f64 / reps as f64;
            assert!((0.93..=0.97).contains(&share), "coverage {share} at rate {truth}");
        }
    }
}
