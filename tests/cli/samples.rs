//! The committed samples under data/ are what the current code writes (a summary that
//! predates a change would publish old figures, and `git status` would be dirty after the README's
//! first command). Each sample's study is run again, small, and compared with the committed
//! files: the same files, every key of the JSON summaries, every column of the CSV files and every
//! row of the text summaries. The values differ (fewer matches); their shape may not. After a
//! change of the outputs, regenerate the samples (`scripts/reproduce.sh`, README).

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use crate::common::*;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every key path of `v` ("arms[].first_player_wins.rate"), array elements merged.
fn keys(v: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(map) => {
            for (k, x) in map {
                let path = format!("{prefix}.{k}");
                out.insert(path.clone());
                keys(x, &path, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|x| keys(x, &format!("{prefix}[]"), out)),
        _ => {}
    }
}

fn json_keys(path: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = BTreeSet::new();
    keys(&serde_json::from_str(&text).unwrap(), "", &mut out);
    out
}

/// The rows of a text summary by their labels (the text before the first double space).
fn text_rows(path: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // A row without a double space ("goodness of fit: chi-squared ...") is labelled by its text
    // before the first colon: the figures after it change with the number of matches.
    let label = |l: &str| -> String {
        let l = l.trim();
        // The rules row names the rules, which a check on a smaller board changes.
        if l.starts_with("rules ") {
            return "rules".into();
        }
        if l.contains("  ") {
            l.split("  ").next().unwrap().to_string()
        } else {
            l.split(':').next().unwrap().to_string()
        }
    };
    // A row of a table by round number is labelled by its round: which rounds are reached
    // depends on the number of matches, not on the code.
    text.lines()
        .map(label)
        .filter(|l| !l.is_empty() && !l.chars().all(|c| c.is_ascii_digit()))
        .collect()
}

/// A data package's top-level fields and its resources' names.
fn package_outline(path: &Path) -> (BTreeSet<String>, BTreeSet<String>) {
    let package: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let fields = package.as_object().unwrap().keys().cloned().collect();
    let names = package["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_owned())
        .collect();
    (fields, names)
}

/// The files of a study directory and its charts (datasets, which are not committed, left out).
fn study_files(dir: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for sub in ["", "charts"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            assert!(!sub.is_empty(), "{}: no such directory", dir.display());
            continue;
        };
        for e in entries {
            let e = e.unwrap();
            // Lock files are not committed. The study's datapackage.json is: it lists its
            // datasets' files with their digests, which the same command writes again.
            let name = e.file_name().to_string_lossy().into_owned();
            if e.path().is_file() && !name.starts_with('.') {
                out.insert(format!("{sub}/{}", e.file_name().to_string_lossy()));
            }
        }
    }
    out
}

/// The committed study `name` against `fresh`, the same study run again small.
fn same_shape(name: &str, fresh: &Path) {
    same_shape_besides(name, fresh, &[]);
}

/// [`same_shape`], the committed files `besides` (written by other commands of the sample's
/// script, or not committed) left out of the comparison of file lists.
fn same_shape_besides(name: &str, fresh: &Path, besides: &[&str]) {
    let committed = repo().join("data").join(name);
    let drop = |mut files: BTreeSet<String>| {
        files.retain(|f| !besides.contains(&&f[1..]));
        files
    };
    let (have, want) = (drop(study_files(&committed)), drop(study_files(fresh)));
    assert_eq!(have, want, "data/{name}: the committed files are not those the study writes now (regenerate the sample)");
    for file in want {
        let (old, new) = (committed.join(&file[1..]), fresh.join(&file[1..]));
        let stale = format!("data/{name}{file} is stale: regenerate the sample");
        if file.ends_with("datapackage.json") {
            // A resource of one file carries its digest, one of several files its parts': the
            // committed full run and the small one differ there, not in their tables.
            let (have, want) = (package_outline(&old), package_outline(&new));
            assert_eq!(have, want, "{stale}: other resources or fields");
        } else if file.ends_with(".json") {
            let (have, want) = (json_keys(&old), json_keys(&new));
            let missing: Vec<&String> = want.difference(&have).collect();
            let extra: Vec<&String> = have.difference(&want).collect();
            assert!(
                missing.is_empty() && extra.is_empty(),
                "{stale}: keys missing {missing:?}, no longer written {extra:?}"
            );
        } else if file.ends_with(".csv") {
            let header = |p: &Path| {
                std::fs::read_to_string(p).unwrap().lines().next().unwrap_or_default().to_string()
            };
            assert_eq!(header(&old), header(&new), "{stale}: other columns");
        } else if file.ends_with(".txt") {
            let (have, want) = (text_rows(&old), text_rows(&new));
            let missing: Vec<&String> = want.difference(&have).collect();
            let extra: Vec<&String> = have.difference(&want).collect();
            assert!(
                missing.is_empty() && extra.is_empty(),
                "{stale}: rows missing {missing:?}, no longer written {extra:?}"
            );
        }
    }
}

#[test]
fn the_committed_study_samples_are_what_the_code_writes_now() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (name, matches) in [("quickstart", "300"), ("rule_variants", "100")] {
        let file = repo().join("experiments").join(format!("{name}.toml"));
        ok(&["run", s(&file), "--matches", matches, "--out-root", s(root), "--quiet"]);
        // Its datapackage.json (arms in the file's order) is what verify finds on disk.
        ok(&["verify", s(&root.join(name))]);
        same_shape(name, &root.join(name));
    }
}

#[test]
fn the_committed_ladder_sample_is_what_the_code_writes_now() {
    // On a 4x4 board: the perfect players' tables of the real board take minutes and gigabytes
    // to compute (docs/guide/match-solution.md), and the shape of the outputs does not depend on
    // the board.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(repo().join("experiments/ladder.toml")).unwrap();
    assert!(
        !text.contains("[rules]"),
        "experiments/ladder.toml has a [rules] table: merge the test's board into it"
    );
    let file = dir.path().join("ladder.toml");
    std::fs::write(&file, format!("{text}\n[rules]\npits_per_row = 4\nseeds_per_pit = 4\n"))
        .unwrap();
    let out = bin()
        .args(["tournament", s(&file), "--matches", "1", "--out-root", s(dir.path()), "--quiet"])
        .env("RAJAPASU_TABLES", dir.path().join("tables"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // The ladder's datapackage.json is not committed (.gitignore): it lists the part files of
    // 169 pairings' datasets (7 MB), which are regenerated with it, not committed.
    same_shape_besides("ladder", &dir.path().join("ladder"), &["datapackage.json"]);
}

#[test]
fn the_committed_readings_sample_is_what_the_code_writes_now() {
    let dir = tempfile::tempdir().unwrap();
    let file = repo().join("experiments/readings.toml");
    ok(&["run", s(&file), "--matches", "2", "--out-root", s(dir.path()), "--quiet"]);
    let study = dir.path().join("readings");
    ok(&["metrics", s(&study), "--resamples", "20"]);
    // metrics.json is not committed (metrics.csv and metrics.txt hold its figures).
    same_shape_besides("readings", &study, &["metrics.json"]);
}

#[test]
fn the_committed_perfect_play_and_match_solution_samples_are_what_the_code_writes_now() {
    let dir = tempfile::tempdir().unwrap();
    let (study, tables) = (dir.path().join("perfect_play"), dir.path().join("tables"));
    ok(&[
        "solve",
        "--study",
        "--out",
        s(&study),
        "--format",
        "csv",
        "--matches",
        "10",
        "--max-positions",
        "3000",
        "--tables",
        s(&tables),
        "--quiet",
    ]);
    // scripts/perfect_play.sh writes these with other commands (summary.md is the study's output).
    same_shape_besides("perfect_play", &study, &["summary.md", "real_board_match.txt"]);
    let states = dir.path().join("match_solution").join("default");
    ok(&[
        "solve",
        "--match",
        "--all-states",
        "--rule",
        "pits_per_row=3",
        "--rule",
        "seeds_per_pit=3",
        "--out",
        s(&states),
        "--format",
        "csv",
        "--tables",
        s(&tables),
        "--quiet",
    ]);
    same_shape("match_solution/default", &states);
}
