//! The `metrics` job: Ludii-style game-quality metrics with 95% bootstrap intervals of a
//! dataset or of each arm of a study (docs/metrics.md), written as metrics.json, metrics.csv and
//! metrics.txt beside the summary, and for a study a chart of small multiples.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::analysis::metrics::exact::ExactOptions;
use crate::analysis::metrics::{dataset_metrics, ArmMetrics};
use crate::io::{Dataset, DatasetError};

use super::study::outputs::{create_dir, csv_text, write_json, write_text};
use super::study::StudyError;
use super::FieldError;
use crate::agents::Resources;
use crate::exact::SolveOptions;

/// The metrics of a dataset (one arm) or of each arm of a study, in arm order.
pub struct StudyMetrics {
    pub study: bool,
    pub arms: Vec<ArmMetrics>,
}

/// Computes the metrics of `dir`, a dataset or a study (arms in `order`, else sorted by name).
pub fn metrics_path(
    dir: &Path,
    resamples: u32,
    seed: u64,
    exact: Option<ExactOptions>,
) -> Result<StudyMetrics, DatasetError> {
    if !dir.is_dir() {
        return Err(DatasetError::NoDirectory { path: dir.to_path_buf() });
    }
    if !crate::io::dataset::manifest_names(dir)?.is_empty() {
        let name = dir
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "dataset".into());
        return Ok(StudyMetrics {
            study: false,
            arms: vec![dataset_metrics(
                &open_dataset(dir, exact.is_some())?,
                &name,
                resamples,
                seed,
                exact,
            )?],
        });
    }
    // The arms as summarize lists them: a broken arm is an error naming it, not left out.
    let arms = crate::analysis::summarize::study_arms(dir, None)?;
    let arms = arms
        .iter()
        .map(|a| {
            dataset_metrics(
                &open_dataset(&dir.join(a), exact.is_some())?,
                a,
                resamples,
                seed,
                exact.clone(),
            )
        })
        .collect::<Result<_, _>>()?;
    Ok(StudyMetrics { study: true, arms })
}

/// Opens a dataset; with --exact, refuses one made with other match tables than those read now:
/// its perfect:match players would be played again with other tables (other moves).
fn open_dataset(dir: &Path, exact: bool) -> Result<Dataset, DatasetError> {
    let dataset = Dataset::open(dir)?;
    if let (true, Some(recorded)) = (exact, &dataset.manifest().tables) {
        let now =
            crate::io::dataset::tables_digest(&dataset.manifest().config())?.unwrap_or_default();
        if &now != recorded {
            return Err(DatasetError::Tables(format!(
                "{}: made with the match tables of sha256 {recorded}, but the tables read now give {now}: --exact would play \
                 its perfect:match players again with other tables; point RAJAPASU_TABLES at the tables it was made with",
                dir.display()
            )));
        }
    }
    Ok(dataset)
}

fn arm_json(a: &ArmMetrics) -> Value {
    serde_json::to_value(&a.metrics).expect("metrics serialize")
}

/// metrics.json: `{"metrics": [...]}` for a dataset, `{"arms": {name: [...]}}` for a study;
/// each with the run it describes and the metrics by round number beside.
pub fn to_json(m: &StudyMetrics) -> Value {
    let about = |a: &ArmMetrics| {
        json!({ "south": a.south, "north": a.north, "rules": a.rules, "matches": a.matches,
                "bootstrap": { "resamples": a.resamples, "seed": a.seed, "confidence": 0.95 } })
    };
    if m.study {
        let arms: serde_json::Map<String, Value> =
            m.arms.iter().map(|a| (a.name.clone(), arm_json(a))).collect();
        let by_round: serde_json::Map<String, Value> = m
            .arms
            .iter()
            .map(|a| (a.name.clone(), serde_json::to_value(&a.by_round).expect("rounds serialize")))
            .collect();
        let runs: serde_json::Map<String, Value> =
            m.arms.iter().map(|a| (a.name.clone(), about(a))).collect();
        json!({ "arms": arms, "runs": runs, "by_round": by_round })
    } else {
        let a = &m.arms[0];
        json!({ "metrics": arm_json(a), "run": about(a), "by_round": a.by_round })
    }
}

/// metrics.csv: one row per arm and metric.
pub fn to_csv(m: &StudyMetrics) -> Result<String, StudyError> {
    let num = |x: f64| if x.is_finite() { x.to_string() } else { String::new() };
    let rows = m.arms.iter().flat_map(|a| {
        a.metrics.iter().map(move |x| {
            [
                a.name.clone(),
                x.name.into(),
                num(x.value),
                num(x.ci_low),
                num(x.ci_high),
                x.evaluation.unwrap_or("").into(),
                x.source.into(),
            ]
        })
    });
    csv_text(["arm", "metric", "value", "ci_low", "ci_high", "evaluation", "source"], rows)
}

fn fmt(x: f64) -> String {
    if !x.is_finite() {
        "-".into()
    } else if x.abs() >= 100.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.4}")
    }
}

/// metrics.txt: each arm's metrics as a table, then its first rounds.
pub fn to_text(m: &StudyMetrics) -> String {
    let mut s = String::new();
    for a in &m.arms {
        let _ = writeln!(
            s,
            "== {}: {} (South) vs {} (North), {} matches",
            a.name, a.south, a.north, a.matches
        );
        let _ = writeln!(s, "   rules {}", a.rules);
        let _ = writeln!(
            s,
            "   95% intervals: percentile bootstrap over matches, {} replicates, seed {}",
            a.resamples, a.seed
        );
        for x in &a.metrics {
            let eval = x.evaluation.map(|e| format!("  ({e})")).unwrap_or_default();
            let _ = writeln!(
                s,
                "   {:<30}{:>10}  [{}, {}]{eval}",
                x.name,
                fmt(x.value),
                fmt(x.ci_low),
                fmt(x.ci_high)
            );
        }
        let _ = writeln!(
            s,
            "   {:<8}{:>10}{:>24}{:>24}{:>10}",
            "round", "rounds", "starter wins [95% CI]", "first player [95% CI]", "open pits"
        );
        for r in a.by_round.iter().filter(|r| r.round <= 10 || r.round % 10 == 0) {
            let _ = writeln!(
                s,
                "   {:<8}{:>10}{:>24}{:>24}{:>10.2}",
                r.round,
                r.rounds,
                format!("{:.3} [{:.3}, {:.3}]", r.starter_wins, r.starter_ci.0, r.starter_ci.1),
                format!(
                    "{:.3} [{:.3}, {:.3}]",
                    r.first_player_wins, r.first_player_ci.0, r.first_player_ci.1
                ),
                r.open_pits_mean
            );
        }
        s.push('\n');
    }
    s
}

/// The files the metrics job writes beside a summary (a study's chart goes to its charts/):
/// part of a study's directory, which `run` and `tournament` reuse.
pub const METRICS_FILES: [&str; 3] = ["metrics.json", "metrics.csv", "metrics.txt"];

/// Writes metrics.json, metrics.csv and metrics.txt into `dir`, and a study's chart into
/// `dir/charts`; returns the chart files.
pub fn write_metrics(m: &StudyMetrics, dir: &Path) -> Result<Vec<PathBuf>, StudyError> {
    create_dir(dir)?;
    write_json(&dir.join(METRICS_FILES[0]), &to_json(m))?;
    write_text(&dir.join(METRICS_FILES[1]), &to_csv(m)?)?;
    write_text(&dir.join(METRICS_FILES[2]), &to_text(m))?;
    if m.study {
        return crate::plot::metrics::plot_metrics(&m.arms, &dir.join("charts"))
            .map_err(StudyError::failed);
    }
    Ok(Vec::new())
}

/// Most bootstrap replicates per interval.
pub const MAX_RESAMPLES: u32 = 100_000;

/// The metrics of a dataset or study to compute.
#[derive(Clone, Debug)]
pub struct MetricsRequest {
    /// A dataset directory, or a study directory holding one dataset per arm.
    pub dir: PathBuf,
    /// Where the files are written; None: `dir`.
    pub out: Option<PathBuf>,
    /// Bootstrap replicates per interval (0: no intervals).
    pub resamples: u32,
    /// Seed of the bootstrap's random streams.
    pub seed: u64,
    /// Also the evaluation-based metrics with the exact round value (R15), each round solved
    /// within these limits; None: not computed.
    pub exact: Option<SolveOptions>,
}

impl MetricsRequest {
    /// The metrics to compute, or the first field that is not what it should be (`resamples`,
    /// `max_memory`).
    pub fn validate(self) -> Result<MetricsJob, FieldError> {
        if self.resamples > MAX_RESAMPLES {
            return Err(FieldError::new(
                "resamples",
                format!(
                    "{} is more than {MAX_RESAMPLES} (allowed: 0..={MAX_RESAMPLES})",
                    self.resamples
                ),
            ));
        }
        if let Some(SolveOptions { max_memory: 0, .. }) = self.exact {
            return Err(FieldError::new("max_memory", "0 bytes: a solve needs some memory"));
        }
        Ok(MetricsJob {
            out: self.out.unwrap_or_else(|| self.dir.clone()),
            dir: self.dir,
            resamples: self.resamples,
            seed: self.seed,
            exact: self.exact,
        })
    }
}

/// The metrics of a dataset or study, checked: what [`run`] computes.
#[derive(Clone, Debug)]
pub struct MetricsJob {
    /// A dataset directory, or a study directory holding one dataset per arm.
    pub dir: PathBuf,
    /// Where the files are written.
    pub out: PathBuf,
    /// Bootstrap replicates per interval, at most [`MAX_RESAMPLES`] (0: no intervals).
    pub resamples: u32,
    pub seed: u64,
    /// The exact round value's solve limits (some memory); None: not computed.
    pub exact: Option<SolveOptions>,
}

/// The metrics computed and the charts written.
pub struct MetricsRun {
    pub metrics: StudyMetrics,
    pub charts: Vec<PathBuf>,
}

/// Computes the metrics of the job, with the exact results of `players`' store, and writes
/// their files.
pub fn run(job: &MetricsJob, players: &Resources) -> Result<MetricsRun, StudyError> {
    let exact = job.exact.map(|solve| ExactOptions { solve, store: players.exact.clone() });
    let metrics = metrics_path(&job.dir, job.resamples, job.seed, exact)?;
    let charts = write_metrics(&metrics, &job.out)?;
    Ok(MetricsRun { metrics, charts })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_metrics_request_names_its_field() {
        let dir = tempfile::tempdir().unwrap();
        let good = MetricsRequest {
            dir: dir.path().to_path_buf(),
            out: None,
            resamples: 10,
            seed: 1,
            exact: None,
        };
        let exact = SolveOptions { max_memory: 1 << 20, keep_layers: false, max_positions: 1000 };
        for (request, field) in [
            (MetricsRequest { resamples: MAX_RESAMPLES + 1, ..good.clone() }, "resamples"),
            (
                MetricsRequest {
                    exact: Some(SolveOptions { max_memory: 0, ..exact }),
                    ..good.clone()
                },
                "max_memory",
            ),
        ] {
            match request.validate() {
                Err(e) => assert!(e.field == field && !e.message.contains("--"), "{e}"),
                Ok(job) => panic!("{field}: accepted {job:?}"),
            }
        }
        // A good request over an empty directory fails on the directory, not on a field.
        let job = good.validate().unwrap();
        assert_eq!(job.out, job.dir, "written beside the dataset by default");
        assert!(matches!(run(&job, &Resources::default()), Err(StudyError::Dataset(_))));
    }
}
