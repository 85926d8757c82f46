//! `rajapasu summarize`: first-player advantage and distributions of a dataset or study.

use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::analysis::stats::{Distribution, Points, Proportion};
use crate::analysis::summarize::summarize_path;
use crate::analysis::summary::{ArmSummary, StudySummary};
use crate::engine::Side;
use crate::io::write_string_atomically;

use super::{stdout_error, CliError};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A dataset directory, or a study directory holding one dataset per arm.
    dir: PathBuf,
    /// Print the summary as JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Where to write summary.json and summary.csv (default: DIR).
    #[arg(long)]
    out: Option<PathBuf>,
}

fn pct(x: f64) -> String {
    if x.is_nan() {
        "-".into()
    } else {
        format!("{:.2}%", 100.0 * x)
    }
}

/// A p-value; below the smallest positive double it prints as a bound, not as 0.
fn p_value(p: f64) -> String {
    if p == 0.0 {
        "< 1e-300".into()
    } else {
        format!("{p:.3e}")
    }
}

fn prop(p: &Proportion) -> String {
    let p_text = if p.p_value == 0.0 { "p < 1e-300".to_string() } else { format!("p = {}", p_value(p.p_value)) };
    format!("{:>7} [{}, {}]  {p_text}  ({} of {})", pct(p.rate), pct(p.ci_low), pct(p.ci_high), p.successes, p.trials)
}

/// Points with unfinished matches as halves (R16): rate, interval, points of matches.
fn points(p: &Points) -> String {
    format!("{:>7} [{}, {}]  ({} of {} matches, unfinished = 1/2)", pct(p.rate), pct(p.ci_low), pct(p.ci_high), p.points, p.matches)
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
    let _ =
        writeln!(s, "== {}: {} (South) vs {} (North), first {}, seed {}, detail {}", a.name, a.south, a.north, a.first, a.seed, a.detail);
    let _ = writeln!(s, "   rules {} ({})", a.rules_hash, a.rules);
    let row = |s: &mut String, label: &str, v: String| {
        let _ = writeln!(s, "   {label:<24}{v}");
    };
    row(&mut s, "matches", format!("{} ({} finished, {} unfinished)", a.matches, a.finished, a.unfinished));
    row(&mut s, "first player wins", format!("{}  finished matches only", prop(&a.first_player_wins)));
    row(&mut s, "first player points", points(&a.first_player_points));
    row(&mut s, "South wins", prop(&a.seat_wins[Side::South]));
    row(&mut s, "North wins", prop(&a.seat_wins[Side::North]));
    row(&mut s, "round starter wins", format!("{}  ({} tied rounds)", prop(&a.round_starter_wins), a.tied_rounds));
    row(&mut s, "round 1 starter wins", prop(&a.round1_starter_wins));
    row(&mut s, "rounds per match", dist(&a.rounds_per_match));
    row(&mut s, "moves per match", dist(&a.moves_per_match));
    row(&mut s, "moves per round", a.moves_per_round.as_ref().map_or("- (needs --detail round)".into(), dist));
    row(&mut s, "laps per move", dist(&a.laps_per_move));
    row(&mut s, "lap length (counters)", dist(&a.lap_length));
    for side in Side::ALL {
        let c = &a.capture_sources[side];
        let [p, o, g, r] = c.shares();
        row(
            &mut s,
            &format!("captures by {side}"),
            format!("pussa {}  own fours {}  gifted fours {}  remainder {}  ({} counters)", pct(p), pct(o), pct(g), pct(r), c.total()),
        );
    }
    if a.open_pits.is_empty() {
        row(&mut s, "open pits by round", "- (needs --detail round)".into());
    } else {
        let picks: Vec<String> = a
            .open_pits
            .iter()
            .filter(|o| [1, 2, 3, 5, 10, 20, 30, 40, 50].contains(&o.round) && o.matches * 100 >= a.matches)
            .map(|o| format!("r{} {:.2}/{:.2}", o.round, o.south_mean_open, o.north_mean_open))
            .collect();
        row(&mut s, "open pits S/N by round", picks.join("  "));
    }
    row(
        &mut s,
        "endless moves",
        format!("{} ({:.3} per 10,000 matches)", a.endless_moves, a.endless_moves as f64 * 1e4 / a.matches.max(1) as f64),
    );
    s
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
            "{:<width$}  {:>9}  {:>26}  {:>10}  {:>26}  {:>8}  {:>7}",
            "arm", "matches", "first player wins [95% CI]", "p", "first player pts [95% CI]", "round 1", "rounds"
        );
        for a in &study.arms {
            let f = &a.first_player_wins;
            let _ = writeln!(
                s,
                "{:<width$}  {:>9}  {:>26}  {:>10}  {:>26}  {:>8}  {:>7.2}",
                a.name,
                a.matches,
                format!("{} [{}, {}]", pct(f.rate), pct(f.ci_low), pct(f.ci_high)),
                p_value(f.p_value),
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
    }
    for a in &study.arms {
        s.push_str(&arm_text(a));
        s.push('\n');
    }
    s
}

/// One CSV row per arm with the headline figures.
pub fn study_csv(study: &StudySummary) -> Result<String, CliError> {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    let header = [
        "arm",
        "south",
        "north",
        "first",
        "seed",
        "rules_hash",
        "rules",
        "matches",
        "finished",
        "unfinished",
        "first_player_wins",
        "first_player_win_rate",
        "first_player_ci_low",
        "first_player_ci_high",
        "first_player_p_value",
        "first_player_points",
        "first_player_points_rate",
        "first_player_points_ci_low",
        "first_player_points_ci_high",
        "south_win_rate",
        "north_win_rate",
        "round_starter_win_rate",
        "round_starter_ci_low",
        "round_starter_ci_high",
        "round1_starter_win_rate",
        "round1_starter_ci_low",
        "round1_starter_ci_high",
        "tied_rounds",
        "rounds_mean",
        "rounds_median",
        "rounds_p99",
        "rounds_max",
        "moves_per_round_mean",
        "laps_per_move_mean",
        "laps_per_move_p99",
        "laps_per_move_max",
        "lap_length_mean",
        "lap_length_median",
        "lap_length_p99",
        "lap_length_max",
        "south_pussa_share",
        "south_own_fours_share",
        "south_gifted_fours_share",
        "south_remainder_share",
        "north_pussa_share",
        "north_own_fours_share",
        "north_gifted_fours_share",
        "north_remainder_share",
        "endless_moves",
    ];
    w.write_record(header).map_err(CliError::failed)?;
    for a in &study.arms {
        let (f, r, r1) = (&a.first_player_wins, &a.round_starter_wins, &a.round1_starter_wins);
        let mut rec: Vec<String> = vec![
            a.name.clone(),
            a.south.clone(),
            a.north.clone(),
            a.first.clone(),
            a.seed.to_string(),
            a.rules_hash.clone(),
            a.rules.clone(),
            a.matches.to_string(),
            a.finished.to_string(),
            a.unfinished.to_string(),
            f.successes.to_string(),
        ];
        let nums = [
            f.rate,
            f.ci_low,
            f.ci_high,
            f.p_value,
            a.first_player_points.points,
            a.first_player_points.rate,
            a.first_player_points.ci_low,
            a.first_player_points.ci_high,
            a.seat_wins[Side::South].rate,
            a.seat_wins[Side::North].rate,
            r.rate,
            r.ci_low,
            r.ci_high,
            r1.rate,
            r1.ci_low,
            r1.ci_high,
        ];
        rec.extend(nums.iter().map(|x| x.to_string()));
        rec.push(a.tied_rounds.to_string());
        let d = &a.rounds_per_match;
        rec.extend([d.mean.to_string(), d.median.to_string(), d.p99.to_string(), d.max.to_string()]);
        rec.push(a.moves_per_round.as_ref().map_or(String::new(), |d| d.mean.to_string()));
        let d = &a.laps_per_move;
        rec.extend([d.mean.to_string(), d.p99.to_string(), d.max.to_string()]);
        let d = &a.lap_length;
        rec.extend([d.mean.to_string(), d.median.to_string(), d.p99.to_string(), d.max.to_string()]);
        for side in Side::ALL {
            rec.extend(a.capture_sources[side].shares().iter().map(|x| x.to_string()));
        }
        rec.push(a.endless_moves.to_string());
        w.write_record(&rec).map_err(CliError::failed)?;
    }
    String::from_utf8(w.into_inner().map_err(CliError::failed)?).map_err(CliError::failed)
}

/// Writes summary.json and summary.csv into `dir`.
pub fn write_summary(study: &StudySummary, dir: &Path) -> Result<(), CliError> {
    std::fs::create_dir_all(dir).map_err(|e| CliError::failed(format!("{}: cannot create: {e}", dir.display())))?;
    let json = serde_json::to_string_pretty(study).map_err(CliError::failed)? + "\n";
    write_string_atomically(&dir.join("summary.json"), &json).map_err(CliError::failed)?;
    write_string_atomically(&dir.join("summary.csv"), &study_csv(study)?).map_err(CliError::failed)?;
    Ok(())
}

pub fn run(args: Args) -> Result<(), CliError> {
    let study = summarize_path(&args.dir, None)?;
    write_summary(&study, args.out.as_deref().unwrap_or(&args.dir))?;
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&study).map_err(CliError::failed)?).map_err(stdout_error)?;
    } else {
        out.write_all(study_text(&study).as_bytes()).map_err(stdout_error)?;
    }
    Ok(())
}
