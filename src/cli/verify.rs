//! `rajapasu verify`: checks a dataset, or every dataset of a study, file by file before it is
//! published: the manifests (one run, complete, every shard), every part file against its
//! batch's progress marker (present, same size, same SHA-256), no extra or foreign files, and
//! the row counts of the markers against the manifests. For a study, every arm of its
//! `experiment.toml` must be there, written by that arm's rules, players and seed. A
//! `summary.json` beside the data must describe it (matches, rules hash, seed of every arm), and
//! a `datapackage.json` (dataset or study) must agree with the manifests and progress markers.
//! A match played from its moves (the manifest's `played`) must have the rows its moves give.
//!
//! A tables directory (match tables, `match-<rules hash>.json`): every table's digest and
//! invariants; `--stamp-digests` writes the digest of a table written before tables carried
//! one, once its invariants are checked.

use std::path::{Path, PathBuf};

use crate::io::dataset::{manifest_names, read_manifests};
use crate::io::Dataset;

use super::output::Output;
use super::CliError;
use crate::app::study::experiment::Experiment;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A dataset directory, a study directory holding one dataset per arm, or a tables
    /// directory (match tables).
    dir: PathBuf,
    /// In a tables directory: check each match table written before tables carried a digest
    /// (its invariants) and write its digest; the others are checked as without the flag.
    #[arg(long)]
    stamp_digests: bool,
}

/// The match tables of a tables directory, by name.
fn match_tables(dir: &Path) -> Result<Vec<PathBuf>, CliError> {
    let mut tables: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| CliError::failed(format!("{}: cannot read: {e}", dir.display())))?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("match-") && n.ends_with(".json"))
        })
        .collect();
    tables.sort();
    Ok(tables)
}

/// Every match table of a tables directory checked (and stamped, if asked): one report.
fn verify_tables(dir: &Path, tables: &[PathBuf], stamp: bool) -> Report {
    let mut report = Report { dir: dir.to_path_buf(), problems: Vec::new(), ok: String::new() };
    let mut stamped = 0;
    for path in tables {
        let checked = if stamp {
            crate::exact::stamp_checkpoint(path).map(|s| s == crate::exact::Stamped::Stamped)
        } else {
            crate::exact::read_checkpoint(path).map(|_| false)
        };
        match checked {
            Ok(true) => stamped += 1,
            Ok(false) => {}
            Err(e) => report.problems.push(e.to_string()),
        }
    }
    let n = tables.len();
    report.ok = format!(
        "ok: {n} match table{} checked against their SHA-256 and invariants{}",
        if n == 1 { "" } else { "s" },
        if stamp {
            format!(" ({stamped} without a digest checked by their invariants and stamped)")
        } else {
            String::new()
        }
    );
    report
}

/// What was found in one dataset: a line saying it holds, or its problems.
struct Report {
    dir: PathBuf,
    problems: Vec<String>,
    ok: String,
}

fn verify_dataset(dir: &Path) -> Report {
    let mut report = Report { dir: dir.to_path_buf(), problems: Vec::new(), ok: String::new() };
    let dataset = match Dataset::open_unverified(dir) {
        Ok(d) => d,
        Err(e) => {
            report.problems.push(e.to_string());
            return report;
        }
    };
    match dataset.verify() {
        Ok(problems) => report.problems.extend(problems.iter().map(|p| p.to_string())),
        Err(e) => report.problems.push(e.to_string()),
    }
    // A match played from its moves: its rows are checked against the moves replayed (once the
    // part files are those the markers record).
    if report.problems.is_empty() {
        match crate::io::dataset::played_problems(&dataset) {
            Ok(problems) => report.problems.extend(problems),
            Err(e) => report.problems.push(e.to_string()),
        }
    }
    report.problems.extend(crate::io::datapackage::check(&dataset));
    let layout = dataset.layout();
    let m = dataset.manifest();
    let rows: Vec<String> = m
        .rows
        .keys()
        .map(|t| {
            format!("{} {t}", dataset.manifests.iter().filter_map(|m| m.rows.get(t)).sum::<u64>())
        })
        .collect();
    let replayed = if m.played.is_some() {
        "; every row equal to the rows of the manifest's moves replayed"
    } else {
        ""
    };
    report.ok = format!(
        "ok: {} batches, {} part files checked against their SHA-256 ({}){replayed}",
        layout.batches,
        layout.batches * (layout.tables.len() * layout.formats.len()) as u64,
        rows.join(", ")
    );
    report
}

/// The arms of a study's experiment file that are missing or were written by another run.
fn check_study_arms(dir: &Path, reports: &mut Vec<Report>) -> Result<(), CliError> {
    let file = dir.join("experiment.toml");
    if !file.is_file() {
        return Ok(());
    }
    let experiment = Experiment::load(&file)?;
    for arm in &experiment.arms {
        let arm_dir = dir.join(&arm.name);
        let mut problem = None;
        if !arm_dir.is_dir() {
            problem = Some(format!("arm `{}` of experiment.toml has no dataset", arm.name));
        } else if let Ok(manifests) = read_manifests(&arm_dir) {
            let cfg = arm.run_config(arm.matches);
            if let Some((path, m)) = manifests.iter().find(|(_, m)| m.run_id != cfg.run_id()) {
                problem = Some(format!(
                    "{}: run {} is not arm `{}` of experiment.toml (its rules, players, first player and seed give run {})",
                    path.display(),
                    m.run_id,
                    arm.name,
                    cfg.run_id()
                ));
            }
        }
        if let Some(p) = problem {
            match reports.iter_mut().find(|r| r.dir == arm_dir) {
                Some(r) => r.problems.push(p),
                None => reports.push(Report { dir: arm_dir, problems: vec![p], ok: String::new() }),
            }
        }
    }
    Ok(())
}

/// Where `summary.json` (written by summarize or run) does not describe the datasets it sits
/// with: a summary left from an earlier run would publish figures of other data. `arms` are
/// the arm names and dataset directories it should describe.
fn check_summary(dir: &Path, arms: &[(String, PathBuf)]) -> Vec<String> {
    let path = dir.join("summary.json");
    let Ok(text) = std::fs::read_to_string(&path) else { return Vec::new() };
    let Ok(summary) = serde_json::from_str::<serde_json::Value>(&text) else {
        return vec![
            "summary.json: not a rajapasu summary; run `rajapasu summarize` again".to_string()
        ];
    };
    let listed = summary["arms"].as_array().cloned().unwrap_or_default();
    let mut problems = Vec::new();
    for (name, arm_dir) in arms {
        let Some(arm) = listed.iter().find(|a| a["name"].as_str() == Some(name)) else {
            problems
                .push(format!("summary.json: has no arm `{name}`; run `rajapasu summarize` again"));
            continue;
        };
        let Ok(manifests) = read_manifests(arm_dir) else { continue };
        let Some((_, first)) = manifests.first() else { continue };
        let matches: u64 = manifests.iter().filter_map(|(_, m)| m.rows.get("matches")).sum();
        let stale = [
            ("matches", arm["matches"].as_u64().map(|v| v.to_string()), matches.to_string()),
            ("rules hash", arm["rules_hash"].as_str().map(String::from), first.rules_hash.clone()),
            ("seed", arm["seed"].as_u64().map(|v| v.to_string()), first.seed.to_string()),
        ];
        for (what, in_summary, in_data) in stale {
            if in_summary.as_deref() != Some(in_data.as_str()) {
                problems.push(format!(
                    "summary.json: arm `{name}` has {what} {}, its dataset {in_data}: the summary is of other data; run `rajapasu summarize` again",
                    in_summary.unwrap_or_else(|| "none".into())
                ));
            }
        }
    }
    problems
}

pub fn run(args: Args) -> Result<(), CliError> {
    let dir = &args.dir;
    if !dir.is_dir() {
        return Err(CliError::usage(format!(
            "{}: no such directory (expected a dataset or a study directory)",
            dir.display()
        )));
    }
    let mut reports = Vec::new();
    let tables = match_tables(dir)?;
    if args.stamp_digests && tables.is_empty() {
        return Err(CliError::usage(format!(
            "{}: --stamp-digests is for a tables directory, and it holds no match table",
            dir.display()
        )));
    }
    // A manifest that cannot be read is reported as the dataset's problem, not skipped.
    if !tables.is_empty() {
        reports.push(verify_tables(dir, &tables, args.stamp_digests));
    } else if !manifest_names(dir)?.is_empty() {
        let mut report = verify_dataset(dir);
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        report.problems.extend(check_summary(dir, &[(name, dir.clone())]));
        reports.push(report);
    } else {
        let mut arms: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| CliError::failed(format!("{}: cannot read: {e}", dir.display())))?
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.is_dir() && manifest_names(p).is_ok_and(|m| !m.is_empty()))
            .collect();
        arms.sort();
        reports.extend(arms.iter().map(|a| verify_dataset(a)));
        check_study_arms(dir, &mut reports)?;
        let named: Vec<(String, PathBuf)> = arms
            .iter()
            .map(|a| {
                (
                    a.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
                    a.clone(),
                )
            })
            .collect();
        let mut stale = check_summary(dir, &named);
        stale.extend(crate::io::datapackage::check_study(dir, &named));
        if !stale.is_empty() {
            reports.push(Report { dir: dir.clone(), problems: stale, ok: String::new() });
        }
        if reports.is_empty() {
            return Err(CliError::usage(format!(
                "{}: not a rajapasu dataset (no manifest.json) and holds no datasets",
                dir.display()
            )));
        }
    }
    let mut out = Output::lines();
    let mut problems = 0;
    for r in &reports {
        if r.problems.is_empty() {
            out.line(format_args!("{}: {}", r.dir.display(), r.ok))?;
        } else {
            problems += r.problems.len();
            out.line(format_args!(
                "{}: {} problem{}",
                r.dir.display(),
                r.problems.len(),
                if r.problems.len() == 1 { "" } else { "s" }
            ))?;
            for p in &r.problems {
                for line in p.lines() {
                    out.line(format_args!("  {line}"))?;
                }
            }
        }
    }
    out.finish()?;
    if problems > 0 {
        return Err(CliError::usage(format!(
            "{}: {problems} problem{} found; do not publish it until `rajapasu verify` passes",
            dir.display(),
            if problems == 1 { "" } else { "s" }
        )));
    }
    Ok(())
}
