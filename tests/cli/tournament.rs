//! `rajapasu tournament`: a small real round robin, its ratings against the datasets' rows,
//! resuming, and malformed files.

use std::path::Path;

use rajapasu::sim::table::ColumnData;
use serde_json::Value;

use crate::common::*;

const MINI: &str = r#"name = "mini"
description = "three cheap players"
players = ["random", "greedy", { name = "mm1", player = "minimax:1" }]
matches_per_pair = 16
seed = 3
anchor = "random"
bootstrap = 200
"#;

fn json(path: &Path) -> Value {
    serde_json::from_str(
        &std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    )
    .unwrap()
}

/// (South's wins, North's wins, unfinished) counted from a dataset's rows.
fn count(dir: &Path) -> (u64, u64, u64) {
    let t = &tables(dir)[0];
    let ColumnData::Sym(winner) = t.column("winner").unwrap() else {
        panic!("winner is a symbol column")
    };
    let n = |w: Option<&str>| winner.iter().filter(|x| **x == w).count() as u64;
    (n(Some("south")), n(Some("north")), n(None))
}

#[test]
fn a_round_robin_rates_its_players_from_the_rows_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mini.toml");
    std::fs::write(&file, MINI).unwrap();
    let root = dir.path().join("data");
    let text = ok(&["tournament", s(&file), "--out-root", s(&root), "--quiet"]);
    let t = root.join("mini");
    assert!(text.contains("rank") && text.contains("mm1") && text.contains("random = 0"), "{text}");
    // The header says what the unfinished column counts; self-play has its own count.
    assert!(
        text.contains("score, matches and unfinished: against the other players only"),
        "{text}"
    );
    let header = text.lines().find(|l| l.starts_with("rank")).unwrap();
    let (unfinished, self_unfinished) =
        (header.find(" unfinished").unwrap(), header.find("self unfinished").unwrap());
    assert!(unfinished < self_unfinished, "{header}");
    // Every pair in both seat orders, and self-play: 9 datasets.
    let mut datasets: Vec<String> = std::fs::read_dir(&t)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.path().join("manifest.json").exists())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    datasets.sort();
    assert_eq!(
        datasets,
        [
            "greedy_vs_greedy",
            "greedy_vs_mm1",
            "greedy_vs_random",
            "mm1_vs_greedy",
            "mm1_vs_mm1",
            "mm1_vs_random",
            "random_vs_greedy",
            "random_vs_mm1",
            "random_vs_random"
        ]
    );
    let r = json(&t.join("ratings.json"));
    let ratings = r["ratings"].as_array().unwrap();
    assert_eq!(ratings.len(), 3);
    for p in ratings {
        let (rating, lo, hi) = (
            p["rating"].as_f64().unwrap(),
            p["ci_low"].as_f64().unwrap(),
            p["ci_high"].as_f64().unwrap(),
        );
        assert!(lo <= rating && rating <= hi, "{p}");
        assert_eq!(p["matches"], 64, "two opponents, both seat orders, 16 matches each");
        assert_eq!(p["self_play"]["matches"], 32);
        let row =
            text.lines().find(|l| l.split_whitespace().nth(1) == p["player"].as_str()).unwrap();
        assert!(row.contains(&format!("{} of 32", p["self_play"]["unfinished"])), "{row}");
    }
    let by_name = |name: &str| ratings.iter().find(|p| p["player"] == name).unwrap();
    assert_eq!(by_name("random")["rating"], 0.0, "the anchor");
    assert_eq!(
        (by_name("random")["ci_low"].as_f64(), by_name("random")["ci_high"].as_f64()),
        (Some(0.0), Some(0.0))
    );
    assert_eq!(by_name("mm1")["spec"], "minimax:depth=1,nodes=unlimited,eval=match");
    // The pairwise table equals a count of the rows of both seat orders.
    for p in r["pairs"].as_array().unwrap() {
        let (a, b) = (p["a"].as_str().unwrap(), p["b"].as_str().unwrap());
        let (ab_s, ab_n, ab_u) = count(&t.join(format!("{a}_vs_{b}")));
        let (ba_s, ba_n, ba_u) = count(&t.join(format!("{b}_vs_{a}")));
        assert_eq!(p["a_wins"], ab_s + ba_n, "{a} vs {b}");
        assert_eq!(p["b_wins"], ab_n + ba_s, "{a} vs {b}");
        assert_eq!(p["unfinished"], ab_u + ba_u);
        assert_eq!(p["matches"], 32);
        let points = (ab_s + ba_n) as f64 + (ab_u + ba_u) as f64 / 2.0;
        assert_eq!(p["a_points"]["points"].as_f64().unwrap(), points);
        // The model's prediction follows the ratings.
        let (ra, rb) =
            (by_name(a)["rating"].as_f64().unwrap(), by_name(b)["rating"].as_f64().unwrap());
        let expected = 1.0 / (1.0 + 10f64.powf((rb - ra) / 400.0));
        assert!((p["expected"].as_f64().unwrap() - expected).abs() < 1e-9);
    }
    // Self-play first-player rates are those of the self-play dataset's summary.
    let summary = json(&t.join("summary.json"));
    let arm = summary["arms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "greedy_vs_greedy")
        .unwrap();
    assert_eq!(by_name("greedy")["self_play"]["first_player_wins"], arm["first_player_wins"]);
    assert_eq!(by_name("greedy")["self_play"]["first_player_points"], arm["first_player_points"]);
    // CSV files, text and charts.
    assert_eq!(std::fs::read_to_string(t.join("ratings.csv")).unwrap().lines().count(), 4);
    assert_eq!(std::fs::read_to_string(t.join("pairs.csv")).unwrap().lines().count(), 4);
    assert_eq!(std::fs::read_to_string(t.join("ratings.txt")).unwrap(), text);
    for chart in ["ratings", "pairwise_scores", "first_player_by_strength"] {
        let png = std::fs::read(t.join(format!("charts/{chart}.png"))).unwrap();
        assert_eq!(&png[1..4], b"PNG");
        assert!(png.len() > 20_000, "{chart}: {} bytes", png.len());
        let svg = std::fs::read_to_string(t.join(format!("charts/{chart}.svg"))).unwrap();
        assert!(svg.contains("mm1"), "{chart}: the players are named");
    }
    // Again: the datasets are kept (same rows) and the ratings are the same.
    let before = tables(&t.join("greedy_vs_mm1"));
    ok(&["tournament", s(&file), "--out-root", s(&root), "--quiet"]);
    assert_eq!(tables(&t.join("greedy_vs_mm1")), before);
    assert_eq!(json(&t.join("ratings.json")), r);
    // On one thread, the same ratings.
    let one = dir.path().join("one");
    ok(&["tournament", s(&file), "--out-root", s(&one), "--quiet", "--threads", "1"]);
    assert_eq!(json(&one.join("mini/ratings.json")), r);
}

/// A study directory is checked before it is reused, pairing names must not
/// collide, and the errors of `run` and `tournament` name the arm or pairing (they have no --out).
#[test]
fn a_study_directory_is_checked_before_reuse_and_errors_name_the_arm_or_pairing() {
    let dir = tempfile::tempdir().unwrap();
    let tournament = dir.path().join("mini.toml");
    std::fs::write(&tournament, MINI.replace("matches_per_pair = 16", "matches_per_pair = 2"))
        .unwrap();
    let experiment = dir.path().join("exp.toml");
    let exp_text = "name = \"mini\"\n[defaults]\nmatches = 10\nseed = 1\n[[arms]]\nname = \"a\"\n";
    std::fs::write(&experiment, exp_text).unwrap();
    // `run` and `tournament` have --out-root, not --out.
    let not_out = |err: &str| assert!(!err.replace("--out-root", "").contains("--out"), "{err}");
    // A tournament named like a `run` study, and a `run` study named like a tournament.
    let root = dir.path().join("runs");
    ok(&["run", s(&experiment), "--out-root", s(&root), "--quiet"]);
    let summary = std::fs::read(root.join("mini/summary.json")).unwrap();
    let err = usage_error(
        &["tournament", s(&tournament), "--out-root", s(&root), "--quiet"],
        &["holds a study of `rajapasu run` (experiment.toml)"],
    );
    not_out(&err);
    assert_eq!(
        std::fs::read(root.join("mini/summary.json")).unwrap(),
        summary,
        "the run study's summary is kept"
    );
    assert!(!root.join("mini/tournament.toml").exists());
    let root = dir.path().join("tournaments");
    ok(&["tournament", s(&tournament), "--out-root", s(&root), "--quiet"]);
    usage_error(
        &["run", s(&experiment), "--out-root", s(&root), "--quiet"],
        &["holds a study of `rajapasu tournament` (tournament.toml)"],
    );
    assert!(!root.join("mini/experiment.toml").exists());
    // A directory holding unrelated files, named.
    let root = dir.path().join("other");
    std::fs::create_dir_all(root.join("mini")).unwrap();
    std::fs::write(root.join("mini/notes.txt"), "mine").unwrap();
    for command in [["run", s(&experiment)], ["tournament", s(&tournament)]] {
        usage_error(
            &[&command[..], &["--out-root", s(&root), "--quiet"]].concat(),
            &["not part of this study", "notes.txt"],
        );
    }
    assert_eq!(files(&root), ["mini/notes.txt"]);
    // Errors in one dataset name its pairing or arm.
    let root = dir.path().join("named");
    std::fs::create_dir_all(root.join("mini/random_vs_greedy")).unwrap();
    std::fs::write(root.join("mini/random_vs_greedy/notes.txt"), "mine").unwrap();
    let err = usage_error(
        &["tournament", s(&tournament), "--out-root", s(&root), "--quiet"],
        &["pairing `random_vs_greedy`", "notes.txt"],
    );
    not_out(&err);
    let root = dir.path().join("runs");
    std::fs::write(&experiment, exp_text.replace("seed = 1", "seed = 2")).unwrap();
    let err = usage_error(
        &["run", s(&experiment), "--out-root", s(&root), "--quiet"],
        &["arm `a`", "holds a different dataset"],
    );
    not_out(&err);
    // Pairings whose directory names collide: both named.
    let colliding = dir.path().join("collide.toml");
    std::fs::write(
        &colliding,
        "name = \"c\"\nplayers = [{ name = \"a\", player = \"random\" }, { name = \"b_vs_c\", player = \"greedy\" }, \
         { name = \"a_vs_b\", player = \"minimax:1\" }, { name = \"c\", player = \"minimax:2\" }]\nmatches_per_pair = 2\nseed = 1\n",
    )
    .unwrap();
    usage_error(
        &["tournament", s(&colliding), "--out-root", s(&root)],
        &["line 2", "the pairings 'a' vs 'b_vs_c' and 'a_vs_b' vs 'c' would both be written to the directory a_vs_b_vs_c"],
    );
}

/// Two players with the same specification under different names are one
/// player (their pairings would be identical datasets): refused, naming both.
#[test]
fn two_names_for_one_specification_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("twins.toml");
    let root = dir.path().join("data");
    for (players, needles) in [
        ("[\"random\", { name = \"r2\", player = \"random\" }]", ["players 'random' and 'r2'", "same specification (random)"]),
        (
            "[\"greedy\", \"minimax:2\", { name = \"deep\", player = \"minimax:depth=2,eval=match\" }]",
            ["players 'minimax:2' and 'deep'", "same specification (minimax:depth=2,nodes=unlimited,eval=match)"],
        ),
    ] {
        std::fs::write(&file, format!("name = \"twins\"\nplayers = {players}\nmatches_per_pair = 2\nseed = 1\n")).unwrap();
        usage_error(&["tournament", s(&file), "--out-root", s(&root), "--quiet"], &needles);
    }
    assert!(!root.exists(), "nothing is written");
}

#[test]
fn malformed_tournament_files_name_the_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.toml");
    let root = dir.path().join("data");
    let cases = [
        (MINI.replace("\"greedy\"", "\"greedy:2\""), vec!["line 3", "players", "greedy:2"]),
        (
            MINI.replace("matches_per_pair = 16", "matches_per_pair = -1"),
            vec!["line 4", "matches_per_pair"],
        ),
        (
            MINI.replace("anchor = \"random\"", "anchor = \"best\""),
            vec!["line 6", "anchor", "'best' is not a player", "random, greedy, mm1"],
        ),
        (MINI.replace("seed = 3", "sed = 3"), vec!["line 5", "sed"]),
        (
            MINI.replace("\"greedy\"", "{ name = \"someone\", player = \"human\" }"),
            vec!["line 3", "field `players`", "unknown player 'human'", "allowed: random, greedy"],
        ),
        (
            format!("{MINI}[rules]\nfinal_four = \"maybe\"\n"),
            vec!["line 8", "rules.final_four", "maybe"],
        ),
    ];
    for (text, needles) in cases {
        std::fs::write(&file, text).unwrap();
        let mut all = needles.clone();
        all.push("bad.toml");
        usage_error(&["tournament", s(&file), "--out-root", s(&root)], &all);
    }
    usage_error(&["tournament", s(&dir.path().join("none.toml"))], &["none.toml"]);
    // An experiment file is not a tournament file, and the other way round.
    usage_error(
        &["tournament", "experiments/quickstart.toml", "--out-root", s(&root)],
        &["unknown field", "rajapasu run"],
    );
    usage_error(
        &["run", "experiments/ladder.toml", "--out-root", s(&root)],
        &["players", "rajapasu tournament"],
    );
    assert!(!root.exists(), "nothing is written");
}
