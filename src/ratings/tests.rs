use super::bradley_terry::*;
use super::report::{rate, Entrant, RatingOptions};
use crate::engine::Rng;

const TRUTH: [f64; 5] = [0.0, 120.0, 280.0, -150.0, 450.0];

/// The share of unfinished matches between players whose expected score is `e`: up to 20%, and
/// never more than 0.4 min(e, 1 - e), so that both players keep some wins.
fn draw_share(e: f64) -> f64 {
    0.4 * e.min(1.0 - e)
}

fn uniform(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// Every pair of [`TRUTH`] with `n` matches whose counts follow the expected scores exactly
/// (rounded to whole matches), with [`draw_share`] of them unfinished.
fn exact_results(n: u64) -> Vec<PairResults> {
    let mut out = Vec::new();
    for (a, &ra) in TRUTH.iter().enumerate() {
        for (b, &rb) in TRUTH.iter().enumerate().skip(a + 1) {
            let e = expected_score(ra, rb);
            let d = draw_share(e);
            let draws = (d * n as f64).round() as u64;
            let a_wins = ((e - d / 2.0) * n as f64).round() as u64;
            out.push(PairResults { a, b, a_wins, b_wins: n - draws - a_wins, draws });
        }
    }
    out
}

/// Matches drawn from the model with [`TRUTH`]: each match unfinished with probability
/// d = [`draw_share`], won by a with probability E - d/2, so that a's expected score is E. Seat
/// orders are separate entries (`n` matches each).
fn sampled_results(n: u64, rng: &mut Rng) -> Vec<PairResults> {
    let mut out = Vec::new();
    for (a, &ra) in TRUTH.iter().enumerate() {
        for (b, &rb) in TRUTH.iter().enumerate() {
            if a == b {
                continue;
            }
            let e = expected_score(ra, rb);
            let d = draw_share(e);
            let mut r = PairResults { a, b, a_wins: 0, b_wins: 0, draws: 0 };
            for _ in 0..n {
                let u = uniform(rng);
                if u < d {
                    r.draws += 1;
                } else if u < e + d / 2.0 {
                    r.a_wins += 1;
                } else {
                    r.b_wins += 1;
                }
            }
            out.push(r);
        }
    }
    out
}

const ANCHORED: FitOptions = FitOptions { anchor: Anchor::Player(0), virtual_draws: 0.0 };

#[test]
fn the_fit_recovers_ratings_from_an_exact_score_matrix() {
    let fitted = fit(5, &exact_results(100_000), &ANCHORED).unwrap();
    for (f, t) in fitted.iter().zip(TRUTH) {
        assert!((f - t).abs() < 0.5, "fitted {fitted:?}, truth {TRUTH:?}");
    }
    // Mean 0: the same differences, shifted.
    let mean =
        fit(5, &exact_results(100_000), &FitOptions { anchor: Anchor::Mean, ..ANCHORED }).unwrap();
    assert!(mean.iter().sum::<f64>().abs() < 1e-6);
    let shift = TRUTH.iter().sum::<f64>() / 5.0;
    for (m, t) in mean.iter().zip(TRUTH) {
        assert!((m - (t - shift)).abs() < 0.5, "{mean:?}");
    }
    // Virtual draws pull the ratings together, by little with many matches.
    let pulled =
        fit(5, &exact_results(100_000), &FitOptions { virtual_draws: 1.0, ..ANCHORED }).unwrap();
    assert!(pulled[4] < fitted[4] && fitted[4] - pulled[4] < 1.0, "{pulled:?} vs {fitted:?}");
}

#[test]
fn bootstrap_intervals_cover_the_true_ratings_about_95_percent_of_the_time() {
    // 200 simulated tournaments of 200 matches per seat order; the four non-anchored players'
    // 95% intervals (200 replicates each) hold the true rating in 92% to 98% of the 800 cases
    // (the four intervals of a tournament are correlated, so the count varies more than a
    // binomial's).
    let mut rng = Rng::from_seed(11);
    let (mut covered, mut total, mut worst) = (0, 0, 0.0f64);
    for t in 0..200 {
        let results = sampled_results(200, &mut rng);
        let fitted = fit(5, &results, &ANCHORED).unwrap();
        let reps = bootstrap(5, &results, &ANCHORED, 200, t).unwrap();
        for i in 1..5 {
            let mut v: Vec<f64> = reps.iter().map(|r| r[i]).collect();
            let (lo, hi) = (quantile(&mut v, 0.025), quantile(&mut v, 0.975));
            assert!(lo <= fitted[i] && fitted[i] <= hi);
            covered += (lo <= TRUTH[i] && TRUTH[i] <= hi) as u32;
            total += 1;
            worst = worst.max((fitted[i] - TRUTH[i]).abs());
        }
    }
    let share = covered as f64 / total as f64;
    eprintln!("coverage {covered} of {total}, largest error {worst:.1}");
    assert!((0.92..=0.98).contains(&share), "coverage {covered} of {total}");
    assert!(worst < 120.0, "largest error {worst}");
}

#[test]
fn bootstrap_replicates_do_not_depend_on_the_thread_count() {
    let results = sampled_results(50, &mut Rng::from_seed(3));
    let options = FitOptions { anchor: Anchor::Mean, virtual_draws: 1.0 };
    let on = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| bootstrap(5, &results, &options, 64, 9).unwrap())
    };
    let one = on(1);
    assert_eq!(one, on(3));
    assert_ne!(
        one,
        bootstrap(5, &results, &options, 64, 10).unwrap(),
        "another seed, other replicates"
    );
}

#[test]
fn a_perfect_score_is_unbounded_without_virtual_draws() {
    // Player 2 wins every match; 0 and 1 split theirs.
    let results = [
        PairResults { a: 0, b: 1, a_wins: 5, b_wins: 5, draws: 0 },
        PairResults { a: 2, b: 0, a_wins: 10, b_wins: 0, draws: 0 },
        PairResults { a: 1, b: 2, a_wins: 0, b_wins: 10, draws: 0 },
    ];
    assert_eq!(fit(3, &results, &ANCHORED), Err(FitError::Unbounded { players: vec![2] }));
    // One unfinished match is enough for a finite rating.
    let mut drawn = results;
    drawn[1].draws = 1;
    assert!(fit(3, &drawn, &ANCHORED).unwrap()[2].is_finite());
    // So is one virtual draw per pair: 10.5 of 11 points against each is about +520.
    let r = fit(3, &results, &FitOptions { virtual_draws: 1.0, ..ANCHORED }).unwrap();
    assert!((r[2] - 400.0 * (10.5f64 / 0.5).log10()).abs() < 1.0, "{r:?}");
    // Players that never meet cannot be compared.
    let apart = [
        PairResults { a: 0, b: 1, a_wins: 3, b_wins: 3, draws: 0 },
        PairResults { a: 2, b: 3, a_wins: 3, b_wins: 3, draws: 0 },
    ];
    assert_eq!(fit(4, &apart, &ANCHORED), Err(FitError::Disconnected { players: vec![2, 3] }));
}

fn entrants(names: &[&str]) -> Vec<Entrant> {
    names
        .iter()
        .map(|n| Entrant { name: n.to_string(), spec: n.to_string(), self_play: None })
        .collect()
}

#[test]
fn the_report_flags_a_non_transitive_cycle_and_not_a_transitive_ladder() {
    let options = RatingOptions { anchor: Some(0), virtual_draws: 1.0, replicates: 100, seed: 1 };
    let ladder =
        rate("t", "", &entrants(&["a", "b", "c", "d", "e"]), &exact_results(2000), &options)
            .unwrap();
    assert!(ladder.goodness_of_fit.flagged.is_empty(), "{:?}", ladder.goodness_of_fit);
    assert!(ladder.pairs.iter().all(|p| p.z.abs() < 1.0));
    assert_eq!(
        ladder.ratings.iter().map(|r| r.player.as_str()).collect::<Vec<_>>(),
        ["e", "c", "b", "a", "d"]
    );
    assert_eq!(ladder.ratings[3].rating, 0.0, "the anchor");
    assert_eq!(ladder.pairs.len(), 10);
    // Rock, paper, scissors: each beats the next 90% of the time; a fourth player draws level
    // with all. Every rating is about the same, and the cycle's pairs are far from it.
    let cycle = [
        PairResults { a: 0, b: 1, a_wins: 180, b_wins: 20, draws: 0 },
        PairResults { a: 1, b: 2, a_wins: 180, b_wins: 20, draws: 0 },
        PairResults { a: 2, b: 0, a_wins: 180, b_wins: 20, draws: 0 },
        PairResults { a: 3, b: 0, a_wins: 100, b_wins: 100, draws: 0 },
        PairResults { a: 3, b: 1, a_wins: 90, b_wins: 90, draws: 20 },
        PairResults { a: 3, b: 2, a_wins: 100, b_wins: 100, draws: 0 },
    ];
    let report =
        rate("t", "", &entrants(&["rock", "paper", "scissors", "even"]), &cycle, &options).unwrap();
    let fit = &report.goodness_of_fit;
    assert_eq!(fit.flagged, ["rock vs paper", "rock vs scissors", "paper vs scissors"], "{fit:?}");
    assert!(fit.p_value < 1e-6 && fit.degrees_of_freedom == 3, "{fit:?}");
    let even = report.pairs.iter().find(|p| p.a == "paper" && p.b == "even").unwrap();
    assert_eq!(
        (even.matches, even.a_wins, even.unfinished, even.a_points.points),
        (200, 90, 20, 100.0)
    );
    assert!(!even.flagged);
}
