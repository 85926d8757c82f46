//! `rajapasu run`: studies from experiment files, and the shipped experiments.

use serde_json::Value;

use crate::common::*;

#[test]
fn a_study_writes_datasets_summary_and_charts_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let exp = dir.path().join("mini.toml");
    std::fs::write(
        &exp,
        r#"
name = "mini"
[defaults]
matches = 60
seed = 4
[[arms]]
name = "default"
[[arms]]
name = "stays"
north = "greedy"
rules = { final_four = "stays" }
"#,
    )
    .unwrap();
    let root = dir.path().join("data");
    let text = ok(&["run", s(&exp), "--out-root", s(&root), "--quiet"]);
    assert!(text.contains("default") && text.contains("stays"));
    let study = root.join("mini");
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(study.join("summary.json")).unwrap())
            .unwrap();
    let arms = summary["arms"].as_array().unwrap();
    assert_eq!(arms.len(), 2);
    assert_eq!(arms[1]["north"], "greedy");
    assert!(arms[1]["rules"].as_str().unwrap().contains("final_four=stays"));
    assert!(study.join("charts/first_player_win_rate.png").exists());
    assert!(study.join("experiment.toml").exists());
    // Running again keeps the finished arms (same rows) and rewrites the summary.
    let before = tables(&study.join("stays"));
    ok(&["run", s(&exp), "--out-root", s(&root), "--quiet"]);
    assert_eq!(tables(&study.join("stays")), before);
    // The study summary is also available through summarize on the study directory.
    let again: Value = serde_json::from_str(&ok(&["summarize", s(&study), "--json"])).unwrap();
    assert_eq!(again["arms"].as_array().unwrap().len(), 2);
}

#[test]
fn malformed_experiment_files_name_the_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let exp = dir.path().join("bad.toml");
    std::fs::write(
        &exp,
        "name = \"bad\"\n[defaults]\nmatches = 10\n\n[[arms]]\nname = \"x\"\nsouth = \"grdy\"\n",
    )
    .unwrap();
    usage_error(&["run", s(&exp), "--out-root", s(dir.path())], &["line 7", "grdy", "bad.toml"]);
    std::fs::write(&exp, "name = \"bad\"\n[[arms]]\nname = \"x\"\nmatchs = 10\n").unwrap();
    usage_error(&["run", s(&exp), "--out-root", s(dir.path())], &["line 4", "matchs"]);
    // `human` (a person's seat, only in a match played from its moves) is not a player, in
    // [defaults] or in an arm: the line and field, and the players allowed.
    std::fs::write(
        &exp,
        "name = \"bad\"\n[defaults]\nmatches = 10\n\n[[arms]]\nname = \"x\"\nnorth = \"human\"\n",
    )
    .unwrap();
    usage_error(
        &["run", s(&exp), "--out-root", s(dir.path())],
        &[
            "line 7",
            "north = \"human\"",
            "unknown player 'human'",
            "allowed: random, greedy",
            "bad.toml",
        ],
    );
    std::fs::write(
        &exp,
        "name = \"bad\"\n[defaults]\nmatches = 10\nsouth = \"human\"\n\n[[arms]]\nname = \"y\"\n",
    )
    .unwrap();
    usage_error(
        &["run", s(&exp), "--out-root", s(dir.path())],
        &["line 4", "south = \"human\"", "unknown player 'human'", "allowed: random"],
    );
    assert!(!dir.path().join("bad").exists(), "nothing is written");
    usage_error(&["run", s(&dir.path().join("none.toml"))], &["none.toml"]);
}

#[test]
fn the_shipped_experiments_are_valid() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments");
    let mut n = 0;
    for e in std::fs::read_dir(root).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "toml") {
            // Tournament files (a list of players) live beside the experiment files.
            if std::fs::read_to_string(&path).unwrap().lines().any(|l| l.starts_with("players")) {
                rajapasu::app::tournament::file::Tournament::load(&path)
                    .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
            } else {
                rajapasu::app::study::experiment::Experiment::load(&path)
                    .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
            }
            n += 1;
        }
    }
    assert!(n >= 4);
}

#[test]
fn match_and_batch_limits_are_those_of_simulate() {
    let dir = tempfile::tempdir().unwrap();
    let exp = dir.path().join("big.toml");
    std::fs::write(
        &exp,
        "name = \"big\"\n[defaults]\nmatches = 10\nbatch_size = 20000000\n[[arms]]\nname = \"a\"\n",
    )
    .unwrap();
    let root = dir.path().join("data");
    usage_error(
        &["run", s(&exp), "--out-root", s(&root)],
        &["line 4", "batch_size", "1..=10000000"],
    );
    usage_error(
        &["simulate", "--matches", "10", "--batch-size", "20000000", "--out", s(&root)],
        &["--batch-size", "1..=10000000"],
    );
    usage_error(
        &["run", "experiments/quickstart.toml", "--matches", "0", "--out-root", s(&root)],
        &["--matches", "1..="],
    );
    assert!(!root.exists(), "nothing is written");
}

#[test]
fn the_ladder_file_and_its_findings_give_the_same_running_time() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let ladder = std::fs::read_to_string(root.join("experiments/ladder.toml")).unwrap();
    let section = std::fs::read_to_string(root.join("docs/guide/ladder.md")).unwrap();
    // The number before every "minutes".
    let minutes = |text: &str| -> Vec<String> {
        let words: Vec<&str> = text.split_whitespace().collect();
        words.windows(2).filter(|w| w[1].starts_with("minutes")).map(|w| w[0].to_string()).collect()
    };
    let (said, page_said) = (minutes(&ladder), minutes(&section));
    assert!(!said.is_empty() && !page_said.is_empty(), "both give the ladder's time");
    assert!(
        said.iter().all(|m| page_said.contains(m)),
        "experiments/ladder.toml says {said:?} minutes, docs/guide/ladder.md {page_said:?}"
    );
}
