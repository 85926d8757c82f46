//! The `tournament` job: a round robin from a tournament file, with Bradley-Terry ratings.
//!
//! Every pair of players plays in both seat orders, the first player alternating, and (by
//! default) every player plays itself; each pairing is a dataset under `out_root/NAME/`, played
//! and resumed as a study's arms are. Then: `summary.*` (every pairing, as a summary),
//! `ratings.json`, `ratings.csv`, `pairs.csv`, `ratings.txt` and the charts.

pub mod file;
mod round_robin;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::agents::Resources;
use crate::analysis::summary::StudySummary;
use crate::ratings::report::{describe, rate, Entrant, RatingOptions, Report};

use crate::app::simulate::{Follow, Simulation};
use crate::app::study::outputs::{csv_text, write_json, write_text};
use crate::app::study::StudyError;
use crate::app::study::{open_study, play, write_study_summary, StudyOptions};
use crate::app::FieldError;
use file::{schedule, Tournament};

/// A tournament to play: the tournament and the options, before they are checked.
#[derive(Clone, Debug)]
pub struct TournamentRequest {
    pub tournament: Tournament,
    pub options: StudyOptions,
}

impl TournamentRequest {
    /// The tournament to play, or the first field that is not what it should be (`threads`,
    /// `matches`).
    pub fn validate(self) -> Result<TournamentJob, FieldError> {
        self.options.check()?;
        Ok(TournamentJob { tournament: self.tournament, options: self.options })
    }
}

/// A tournament whose options are checked: what [`run`] plays.
#[derive(Clone, Debug)]
pub struct TournamentJob {
    pub tournament: Tournament,
    pub options: StudyOptions,
}

/// What a finished tournament wrote.
pub struct TournamentRun {
    pub dir: PathBuf,
    pub report: Report,
    /// The ratings as text (ratings.txt).
    pub text: String,
    pub charts: Vec<PathBuf>,
}

/// Plays the round robin (a pairing already finished is kept, an interrupted one continues),
/// then rates the players.
pub fn run(
    job: &TournamentJob,
    players: &Resources,
    follow: &dyn Follow,
) -> Result<TournamentRun, StudyError> {
    let (t, options) = (&job.tournament, &job.options);
    let pairings = schedule(t);
    let datasets: Vec<String> = pairings.iter().map(|p| p.dir.clone()).collect();
    let (dir, _lock) = open_study(options, &t.name, "tournament.toml", &t.source, &datasets)?;
    for (k, p) in pairings.iter().enumerate() {
        let full = p.matches;
        let matches = options.matches.map_or(full, |m| {
            if p.is_self_play() {
                (2 * m).min(full)
            } else {
                m.min(full)
            }
        });
        let label = format!(
            "[{}/{}] {} vs {}",
            k + 1,
            pairings.len(),
            t.players[p.south].name,
            t.players[p.north].name
        );
        let sim = Simulation {
            cfg: p.run_config(t, matches),
            out: dir.join(&p.dir),
            format: crate::io::Formats::Parquet,
            threads: options.threads,
            resume: true,
        };
        play(&sim, players, &options.command, &label, format!("pairing `{}`", p.dir), follow)?;
    }
    let results = round_robin::collect(t, &pairings, &dir)?;
    let study = StudySummary { name: t.name.clone(), arms: results.arms };
    write_study_summary(&study, &dir, &datasets)?;
    let entrants: Vec<Entrant> = t
        .players
        .iter()
        .zip(results.self_play)
        .map(|(p, self_play)| Entrant { name: p.name.clone(), spec: p.spec.to_string(), self_play })
        .collect();
    let options = RatingOptions {
        anchor: t.anchor,
        virtual_draws: t.virtual_draws,
        replicates: t.bootstrap,
        seed: t.seed,
    };
    let report = rate(&t.name, &t.description, &entrants, &results.pairs, &options)
        .map_err(|e| StudyError::Rejected(describe(&e, &entrants)))?;
    write_ratings(&report, &dir)?;
    let text = ratings_text(&report);
    write_text(&dir.join("ratings.txt"), &text)?;
    let charts =
        crate::plot::plot_ratings(&report, &dir.join("charts")).map_err(StudyError::failed)?;
    Ok(TournamentRun { dir, report, text, charts })
}

fn pct(x: f64) -> String {
    if x.is_nan() {
        "-".into()
    } else {
        format!("{:.1}%", 100.0 * x)
    }
}

/// The readable table: ratings, self-play first-player rates, pairs far from the ratings.
pub fn ratings_text(r: &Report) -> String {
    let mut s = ratings_heading(r);
    ratings_table(&mut s, r);
    goodness_of_fit_line(&mut s, r);
    s.push('\n');
    pairs_lines(&mut s, r);
    s
}

/// The tournament's name and how the ratings are made.
fn ratings_heading(r: &Report) -> String {
    let mut s = String::new();
    let m = &r.method;
    let _ = writeln!(
        s,
        "== {}: {} players{}",
        r.name,
        r.ratings.len(),
        if r.description.is_empty() { String::new() } else { format!(" ({})", r.description) }
    );
    let _ = writeln!(
        s,
        "   Bradley-Terry ratings on the Elo scale, {}; 95% intervals from {} bootstrap replicates; unfinished matches are draws (R16); {} virtual draw(s) per pair",
        m.anchor, m.bootstrap_replicates, m.virtual_draws
    );
    s
}

/// A row per player, by rank: rating, score and self-play.
fn ratings_table(s: &mut String, r: &Report) {
    let width = r.ratings.iter().map(|p| p.player.len()).max().unwrap_or(6).max(6);
    let _ = writeln!(
        s,
        "   score, matches and unfinished: against the other players only; self-play (a player against itself) has its own columns"
    );
    let _ = writeln!(
        s,
        "{:>4}  {:<width$}  {:>7}  {:>17}  {:>7}  {:>8}  {:>10}  {:>15}  {:>30}  {:>30}",
        "rank",
        "player",
        "rating",
        "95% CI",
        "score",
        "matches",
        "unfinished",
        "self unfinished",
        "self-play 1st wins (finished)",
        "self-play 1st pts (unfin.=1/2)"
    );
    for p in &r.ratings {
        let self_unfinished = p
            .self_play
            .as_ref()
            .map_or("-".to_string(), |sp| format!("{} of {}", sp.unfinished, sp.matches));
        let (wins, points) = match &p.self_play {
            Some(sp) => (
                format!(
                    "{} [{}, {}]",
                    pct(sp.first_player_wins.rate),
                    pct(sp.first_player_wins.ci_low),
                    pct(sp.first_player_wins.ci_high)
                ),
                format!(
                    "{} [{}, {}]",
                    pct(sp.first_player_points.rate),
                    pct(sp.first_player_points.ci_low),
                    pct(sp.first_player_points.ci_high)
                ),
            ),
            None => ("-".into(), "-".into()),
        };
        let _ = writeln!(
            s,
            "{:>4}  {:<width$}  {:>7.1}  {:>17}  {:>7}  {:>8}  {:>10}  {:>15}  {:>30}  {:>30}",
            p.rank,
            p.player,
            p.rating,
            format!("[{:.1}, {:.1}]", p.ci_low, p.ci_high),
            pct(p.score),
            p.matches,
            p.unfinished,
            self_unfinished,
            wins,
            points
        );
    }
}

/// The goodness of fit and the pairs far from the ratings.
fn goodness_of_fit_line(s: &mut String, r: &Report) {
    let g = &r.goodness_of_fit;
    let _ = writeln!(
        s,
        "   goodness of fit: chi-squared {:.2} on {} degrees of freedom, p = {}; pairs far from the ratings (|z| > {:.2}): {}",
        g.statistic,
        g.degrees_of_freedom,
        if g.p_value.is_nan() { "-".to_string() } else { format!("{:.3e}", g.p_value) },
        g.threshold_z,
        if g.flagged.is_empty() { "none".to_string() } else { g.flagged.join("; ") }
    );
}

/// A line per pair: its score against the ratings' prediction.
fn pairs_lines(s: &mut String, r: &Report) {
    let _ = writeln!(s, "   pairs (both seat orders): a's score against b, unfinished = 1/2 (R16), and the ratings' prediction");
    let pw = r.pairs.iter().map(|p| p.a.len() + p.b.len() + 4).max().unwrap_or(4);
    for p in &r.pairs {
        let _ = writeln!(
            s,
            "   {:<pw$}  {:>6} matches  {:>5} : {:<5} ({} unfinished)  score {} [{}, {}]  expected {}  z {:+.2}{}",
            format!("{} vs {}", p.a, p.b),
            p.matches,
            p.a_wins,
            p.b_wins,
            p.unfinished,
            pct(p.a_points.rate),
            pct(p.a_points.ci_low),
            pct(p.a_points.ci_high),
            pct(p.expected),
            p.z,
            if p.flagged { "  FLAGGED" } else { "" }
        );
    }
}

/// Writes ratings.json, ratings.csv (one row per player) and pairs.csv (one row per pair).
pub fn write_ratings(r: &Report, dir: &Path) -> Result<(), StudyError> {
    write_json(&dir.join("ratings.json"), r)?;
    let header = [
        "rank",
        "player",
        "spec",
        "rating",
        "ci_low",
        "ci_high",
        "matches",
        "unfinished",
        "points",
        "score",
        "self_play_matches",
        "self_play_unfinished",
        "self_play_first_player_win_rate",
        "self_play_first_player_ci_low",
        "self_play_first_player_ci_high",
        "self_play_first_player_points_rate",
        "self_play_first_player_points_ci_low",
        "self_play_first_player_points_ci_high",
    ];
    let mut rows = Vec::new();
    for p in &r.ratings {
        let mut row = vec![p.rank.to_string(), p.player.clone(), p.spec.clone()];
        row.extend([p.rating, p.ci_low, p.ci_high].map(|x| x.to_string()));
        row.extend([
            p.matches.to_string(),
            p.unfinished.to_string(),
            p.points.to_string(),
            p.score.to_string(),
        ]);
        match &p.self_play {
            Some(sp) => {
                row.extend([sp.matches.to_string(), sp.unfinished.to_string()]);
                let (w, pts) = (&sp.first_player_wins, &sp.first_player_points);
                row.extend(
                    [w.rate, w.ci_low, w.ci_high, pts.rate, pts.ci_low, pts.ci_high]
                        .map(|x| x.to_string()),
                );
            }
            None => row.extend(std::iter::repeat_n(String::new(), 8)),
        }
        rows.push(row);
    }
    write_text(&dir.join("ratings.csv"), &csv_text(header, rows)?)?;
    let header = [
        "a",
        "b",
        "matches",
        "a_wins",
        "b_wins",
        "unfinished",
        "a_points",
        "a_score",
        "a_score_ci_low",
        "a_score_ci_high",
        "expected",
        "z",
        "flagged",
    ];
    let mut rows = Vec::new();
    for p in &r.pairs {
        let mut row = vec![
            p.a.clone(),
            p.b.clone(),
            p.matches.to_string(),
            p.a_wins.to_string(),
            p.b_wins.to_string(),
            p.unfinished.to_string(),
        ];
        row.extend(
            [
                p.a_points.points,
                p.a_points.rate,
                p.a_points.ci_low,
                p.a_points.ci_high,
                p.expected,
                p.z,
            ]
            .map(|x| x.to_string()),
        );
        row.push(p.flagged.to_string());
        rows.push(row);
    }
    write_text(&dir.join("pairs.csv"), &csv_text(header, rows)?)
}
