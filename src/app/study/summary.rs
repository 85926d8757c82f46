//! The files and text of a summary (first-player advantage and distributions of a dataset or
//! study): summary.json, summary.csv, summary_by_round.csv and the readable table.

use std::fmt::Write as _;
use std::path::Path;

use crate::analysis::stats::{Difference, Distribution, Points, Proportion};
use crate::analysis::summary::{ArmSummary, RoundsByNumber, StudySummary};
use crate::engine::Side;

use super::error::StudyError;
use super::outputs::{create_dir, csv_text, write_json, write_text};

fn pct(x: f64) -> String {
    if x.is_nan() {
        "-".into()
    } else {
        format!("{:.2}%", 100.0 * x)
    }
}

/// A p-value; below the smallest positive double it is written from its logarithm
/// (`2.852e-2188`), never as 0.
fn p_value(p: f64, log10_p: f64) -> String {
    if p > 0.0 {
        return format!("{p:.3e}");
    }
    let exponent = log10_p.floor();
    let mantissa = 10f64.powf(log10_p - exponent);
    // 9.9996 would print as 10.000.
    let (mantissa, exponent) =
        if mantissa >= 9.9995 { (1.0, exponent + 1.0) } else { (mantissa, exponent) };
    format!("{mantissa:.3}e{exponent}")
}

fn prop(p: &Proportion) -> String {
    format!(
        "{:>7} [{}, {}]  p = {}  ({} of {})",
        pct(p.rate),
        pct(p.ci_low),
        pct(p.ci_high),
        p_value(p.p_value, p.log10_p_value),
        p.successes,
        p.trials
    )
}

/// Points with unfinished matches as halves (R16): rate, interval, points of matches.
fn points(p: &Points) -> String {
    format!(
        "{:>7} [{}, {}]  ({} of {} matches, unfinished = 1/2)",
        pct(p.rate),
        pct(p.ci_low),
        pct(p.ci_high),
        p.points,
        p.matches
    )
}

fn dist(d: &Distribution) -> String {
    if d.count == 0 {
        return "-".into();
    }
    format!("mean {:.2}  median {}  p99 {}  max {}", d.mean, d.median, d.p99, d.max)
}

/// The readable table of one arm.
pub fn arm_text(a: &ArmSummary) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "== {}: {} (South) vs {} (North), first {}, seed {}, detail {}",
        a.name, a.south, a.north, a.first, a.seed, a.detail
    );
    let _ = writeln!(s, "   rules {} ({})", a.rules_hash, a.rules);
    let row = |s: &mut String, label: &str, v: String| {
        let _ = writeln!(s, "   {label:<24}{v}");
    };
    row(
        &mut s,
        "matches",
        format!("{} ({} finished, {} unfinished)", a.matches, a.finished, a.unfinished),
    );
    row(
        &mut s,
        "first player wins",
        format!("{}  finished matches only", prop(&a.first_player_wins)),
    );
    row(&mut s, "first player points", points(&a.first_player_points));
    row(&mut s, "South wins", prop(&a.seat_wins[Side::South]));
    row(&mut s, "North wins", prop(&a.seat_wins[Side::North]));
    row(
        &mut s,
        "round starter wins",
        format!("{}  ({} tied rounds)", prop(&a.round_starter_wins), a.tied_rounds),
    );
    row(&mut s, "round 1 starter wins", prop(&a.round1_starter_wins));
    row(&mut s, "rounds per match", dist(&a.rounds_per_match));
    row(&mut s, "moves per match", dist(&a.moves_per_match));
    row(
        &mut s,
        "moves per round",
        a.moves_per_round.as_ref().map_or("- (needs --detail round)".into(), dist),
    );
    row(&mut s, "laps per move", dist(&a.laps_per_move));
    row(&mut s, "lap length (counters)", dist(&a.lap_length));
    for side in Side::ALL {
        let c = &a.capture_sources[side];
        let [p, o, g, r] = c.shares();
        row(
            &mut s,
            &format!("captures by {side}"),
            format!(
                "pussa {}  own fours {}  gifted fours {}  remainder {}  ({} counters)",
                pct(p),
                pct(o),
                pct(g),
                pct(r),
                c.total()
            ),
        );
    }
    if a.open_pits.is_empty() {
        row(&mut s, "open pits by round", "- (needs --detail round)".into());
    } else {
        let picks: Vec<String> = a
            .open_pits
            .iter()
            .filter(|o| {
                [1, 2, 3, 5, 10, 20, 30, 40, 50].contains(&o.round) && o.matches * 100 >= a.matches
            })
            .map(|o| format!("r{} {:.2}/{:.2}", o.round, o.south_mean_open, o.north_mean_open))
            .collect();
        row(&mut s, "open pits S/N by round", picks.join("  "));
    }
    if !a.by_round.is_empty() {
        // Round numbers at which the rates are shown (each group by its first round number).
        let picks = |rate: fn(&RoundsByNumber) -> f64| -> String {
            a.by_round
                .iter()
                .filter(|g| [1, 2, 3, 5, 10, 20, 30, 40, 50].contains(&g.first_round))
                .map(|g| format!("{} {}", round_label(g), pct(rate(g))))
                .collect::<Vec<_>>()
                .join("  ")
        };
        row(&mut s, "starter wins by round", picks(|g| g.starter_wins.rate));
        row(&mut s, "first player by round", picks(|g| g.first_player_wins.rate));
    }
    row(
        &mut s,
        "endless moves",
        format!(
            "{} ({:.3} per 10,000 matches)",
            a.endless_moves,
            a.endless_moves as f64 * 1e4 / a.matches.max(1) as f64
        ),
    );
    s
}

/// "r3", or "r41-45" for a group of round numbers.
fn round_label(g: &RoundsByNumber) -> String {
    if g.first_round == g.last_round {
        format!("r{}", g.first_round)
    } else {
        format!("r{}-{}", g.first_round, g.last_round)
    }
}

/// A signed difference of rates in percentage points.
fn points_diff(x: f64) -> String {
    if x.is_nan() {
        "-".into()
    } else {
        format!("{:+.2}", 100.0 * x)
    }
}

/// What the two first-player columns count (R16).
const STUDY_NOTE: &str = "first player wins: finished matches only (p: exact test of 50%); \
first player pts: every match, an unfinished one counting as half a win (R16)\n";

/// The readable table of a study: a comparison line per arm, then each arm.
pub fn study_text(study: &StudySummary) -> String {
    let mut s = String::new();
    if study.arms.len() > 1 {
        let width = study.arms.iter().map(|a| a.name.len()).max().unwrap_or(3).max(3);
        let _ = writeln!(
            s,
            "{:<width$}  {:>9}  {:>26}  {:>11}  {:>26}  {:>8}  {:>7}",
            "arm",
            "matches",
            "first player wins [95% CI]",
            "p",
            "first player pts [95% CI]",
            "round 1",
            "rounds"
        );
        for a in &study.arms {
            let f = &a.first_player_wins;
            let _ = writeln!(
                s,
                "{:<width$}  {:>9}  {:>26}  {:>11}  {:>26}  {:>8}  {:>7.2}",
                a.name,
                a.matches,
                format!("{} [{}, {}]", pct(f.rate), pct(f.ci_low), pct(f.ci_high)),
                p_value(f.p_value, f.log10_p_value),
                format!(
                    "{} [{}, {}]",
                    pct(a.first_player_points.rate),
                    pct(a.first_player_points.ci_low),
                    pct(a.first_player_points.ci_high)
                ),
                pct(a.round1_starter_wins.rate),
                a.rounds_per_match.mean
            );
        }
        s.push_str(STUDY_NOTE);
        s.push('\n');
        let _ = writeln!(
            s,
            "first player wins against the first arm ({}): difference in percentage points, Newcombe 95% interval, two-proportion z test",
            study.arms[0].name
        );
        for a in &study.arms[1..] {
            if let Some(d) = &a.first_player_vs_first_arm {
                let d = &d.difference;
                let _ = writeln!(
                    s,
                    "{:<width$}  {:>7} [{}, {}]  z = {:.2}  p = {}",
                    a.name,
                    points_diff(d.difference),
                    points_diff(d.ci_low),
                    points_diff(d.ci_high),
                    d.z,
                    p_value(d.p_value, d.log10_p_value)
                );
            }
        }
        s.push('\n');
    }
    for a in &study.arms {
        s.push_str(&arm_text(a));
        s.push('\n');
    }
    s
}

/// A column of the summary CSV: its header and how its value is read off an arm.
type SummaryColumn = (&'static str, fn(&ArmSummary) -> String);

/// The summary CSV's columns, in order: the header and the values come from this one list.
const SUMMARY_COLUMNS: &[SummaryColumn] = &[
    ("arm", |a| a.name.clone()),
    ("south", |a| a.south.clone()),
    ("north", |a| a.north.clone()),
    ("first", |a| a.first.clone()),
    ("seed", |a| a.seed.to_string()),
    ("rules_hash", |a| a.rules_hash.clone()),
    ("rules", |a| a.rules.clone()),
    ("matches", |a| a.matches.to_string()),
    ("finished", |a| a.finished.to_string()),
    ("unfinished", |a| a.unfinished.to_string()),
    ("first_player_wins", |a| a.first_player_wins.successes.to_string()),
    ("first_player_win_rate", |a| a.first_player_wins.rate.to_string()),
    ("first_player_ci_low", |a| a.first_player_wins.ci_low.to_string()),
    ("first_player_ci_high", |a| a.first_player_wins.ci_high.to_string()),
    ("first_player_p_value", |a| a.first_player_wins.p_value.to_string()),
    // The p-value underflows to 0 below about 1e-308; its logarithm does not.
    ("first_player_log10_p_value", |a| a.first_player_wins.log10_p_value.to_string()),
    // R16: unfinished matches counted as half a win.
    ("first_player_points", |a| a.first_player_points.points.to_string()),
    ("first_player_points_rate", |a| a.first_player_points.rate.to_string()),
    ("first_player_points_ci_low", |a| a.first_player_points.ci_low.to_string()),
    ("first_player_points_ci_high", |a| a.first_player_points.ci_high.to_string()),
    ("south_win_rate", |a| a.seat_wins[Side::South].rate.to_string()),
    ("north_win_rate", |a| a.seat_wins[Side::North].rate.to_string()),
    ("round_starter_win_rate", |a| a.round_starter_wins.rate.to_string()),
    ("round_starter_ci_low", |a| a.round_starter_wins.ci_low.to_string()),
    ("round_starter_ci_high", |a| a.round_starter_wins.ci_high.to_string()),
    ("round1_starter_win_rate", |a| a.round1_starter_wins.rate.to_string()),
    ("round1_starter_ci_low", |a| a.round1_starter_wins.ci_low.to_string()),
    ("round1_starter_ci_high", |a| a.round1_starter_wins.ci_high.to_string()),
    ("tied_rounds", |a| a.tied_rounds.to_string()),
    ("rounds_mean", |a| a.rounds_per_match.mean.to_string()),
    ("rounds_median", |a| a.rounds_per_match.median.to_string()),
    ("rounds_p99", |a| a.rounds_per_match.p99.to_string()),
    ("rounds_max", |a| a.rounds_per_match.max.to_string()),
    ("moves_per_round_mean", |a| {
        a.moves_per_round.as_ref().map_or(String::new(), |d| d.mean.to_string())
    }),
    ("laps_per_move_mean", |a| a.laps_per_move.mean.to_string()),
    ("laps_per_move_p99", |a| a.laps_per_move.p99.to_string()),
    ("laps_per_move_max", |a| a.laps_per_move.max.to_string()),
    ("lap_length_mean", |a| a.lap_length.mean.to_string()),
    ("lap_length_median", |a| a.lap_length.median.to_string()),
    ("lap_length_p99", |a| a.lap_length.p99.to_string()),
    ("lap_length_max", |a| a.lap_length.max.to_string()),
    ("south_pussa_share", |a| a.capture_sources[Side::South].shares()[0].to_string()),
    ("south_own_fours_share", |a| a.capture_sources[Side::South].shares()[1].to_string()),
    ("south_gifted_fours_share", |a| a.capture_sources[Side::South].shares()[2].to_string()),
    ("south_remainder_share", |a| a.capture_sources[Side::South].shares()[3].to_string()),
    ("north_pussa_share", |a| a.capture_sources[Side::North].shares()[0].to_string()),
    ("north_own_fours_share", |a| a.capture_sources[Side::North].shares()[1].to_string()),
    ("north_gifted_fours_share", |a| a.capture_sources[Side::North].shares()[2].to_string()),
    ("north_remainder_share", |a| a.capture_sources[Side::North].shares()[3].to_string()),
    ("endless_moves", |a| a.endless_moves.to_string()),
    // The first-player rate against the study's first arm (empty for the first arm).
    ("first_player_diff_vs_first_arm", |a| vs_first(a, |d| d.difference.to_string())),
    ("first_player_diff_ci_low", |a| vs_first(a, |d| d.ci_low.to_string())),
    ("first_player_diff_ci_high", |a| vs_first(a, |d| d.ci_high.to_string())),
    ("first_player_diff_p_value", |a| vs_first(a, |d| d.p_value.to_string())),
    ("first_player_diff_log10_p_value", |a| vs_first(a, |d| d.log10_p_value.to_string())),
];

fn vs_first(a: &ArmSummary, value: fn(&Difference) -> String) -> String {
    a.first_player_vs_first_arm.as_ref().map_or(String::new(), |d| value(&d.difference))
}

/// A column of `summary_by_round.csv`: its header and how its value is read off a group.
type ByRoundColumn = (&'static str, fn(&RoundsByNumber) -> String);

/// The columns of `summary_by_round.csv`: one row per arm and group of round numbers.
const BY_ROUND_COLUMNS: &[ByRoundColumn] = &[
    ("first_round", |g| g.first_round.to_string()),
    ("last_round", |g| g.last_round.to_string()),
    ("rounds", |g| g.rounds.to_string()),
    ("tied", |g| g.tied.to_string()),
    ("starter_wins", |g| g.starter_wins.successes.to_string()),
    ("starter_win_rate", |g| g.starter_wins.rate.to_string()),
    ("starter_ci_low", |g| g.starter_wins.ci_low.to_string()),
    ("starter_ci_high", |g| g.starter_wins.ci_high.to_string()),
    ("first_player_wins", |g| g.first_player_wins.successes.to_string()),
    ("first_player_win_rate", |g| g.first_player_wins.rate.to_string()),
    ("first_player_ci_low", |g| g.first_player_wins.ci_low.to_string()),
    ("first_player_ci_high", |g| g.first_player_wins.ci_high.to_string()),
];

/// One CSV row per arm and group of round numbers (round detail).
pub fn by_round_csv(study: &StudySummary) -> Result<String, StudyError> {
    let header = std::iter::once("arm").chain(BY_ROUND_COLUMNS.iter().map(|(header, _)| *header));
    let rows = study.arms.iter().flat_map(|a| {
        a.by_round.iter().map(|g| {
            std::iter::once(a.name.clone())
                .chain(BY_ROUND_COLUMNS.iter().map(|(_, value)| value(g)))
        })
    });
    csv_text(header, rows)
}

/// One CSV row per arm with the headline figures.
pub fn study_csv(study: &StudySummary) -> Result<String, StudyError> {
    let rows = study.arms.iter().map(|a| SUMMARY_COLUMNS.iter().map(|(_, value)| value(a)));
    csv_text(SUMMARY_COLUMNS.iter().map(|(header, _)| header), rows)
}

/// Writes summary.json and summary.csv into `dir`.
pub fn write_summary(study: &StudySummary, dir: &Path) -> Result<(), StudyError> {
    create_dir(dir)?;
    write_json(&dir.join("summary.json"), study)?;
    write_text(&dir.join("summary.csv"), &study_csv(study)?)?;
    write_text(&dir.join("summary_by_round.csv"), &by_round_csv(study)?)
}
