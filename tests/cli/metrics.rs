//! `rajapasu metrics`: files and JSON shape, values recomputed from the rows, and independence
//! from threads, shards and detail.

use std::path::Path;

use rajapasu::sim::table::{ColumnData, Table};
use serde_json::Value;

use crate::common::*;

fn simulate(out: &Path, extra: &[&str]) {
    let mut args = vec![
        "simulate",
        "--matches",
        "90",
        "--seed",
        "5",
        "--south",
        "random",
        "--north",
        "greedy",
        "--out",
        s(out),
        "--quiet",
    ];
    args.extend_from_slice(extra);
    ok(&args);
}

fn metric<'a>(list: &'a Value, name: &str) -> &'a Value {
    list.as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == name)
        .unwrap_or_else(|| panic!("no metric {name} in {list}"))
}

fn syms<'a>(t: &'a Table, c: &str) -> &'a [Option<&'static str>] {
    match t.column(c).unwrap() {
        ColumnData::Sym(v) => v,
        _ => panic!("{c} is not a symbol column"),
    }
}

#[test]
fn metrics_are_written_beside_the_summary_and_agree_with_the_rows() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("d");
    simulate(&d, &["--detail", "move", "--batch-size", "20"]);
    let printed: Value = serde_json::from_str(&ok(&["metrics", s(&d), "--json"])).unwrap();
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("metrics.json")).unwrap()).unwrap();
    assert_eq!(printed, written);
    assert!(d.join("metrics.csv").is_file() && d.join("metrics.txt").is_file());
    let list = &written["metrics"];
    for m in list.as_array().unwrap() {
        for key in ["name", "value", "ci_low", "ci_high", "source"] {
            assert!(m.get(key).is_some(), "{m} lacks {key}");
        }
    }
    assert_eq!(metric(list, "LeadChange")["evaluation"], "holdings difference");
    assert!(metric(list, "AdvantageP1").get("evaluation").is_none());
    // AdvantageP1 and DurationTurns counted from the matches table.
    let t = tables(&d);
    let matches = &t[0];
    let (first, winner) = (syms(matches, "first"), syms(matches, "winner"));
    let points: f64 = (0..90)
        .map(|i| {
            if winner[i].is_none() {
                0.5
            } else if winner[i] == first[i] {
                1.0
            } else {
                0.0
            }
        })
        .sum();
    let adv = metric(list, "AdvantageP1");
    assert!((adv["value"].as_f64().unwrap() - points / 90.0).abs() < 1e-12, "{adv}");
    assert!(
        adv["ci_low"].as_f64().unwrap() < adv["value"].as_f64().unwrap()
            && adv["value"].as_f64().unwrap() < adv["ci_high"].as_f64().unwrap()
    );
    let moves = matches.column("moves").unwrap().as_u64().unwrap();
    let turns = metric(list, "DurationTurns")["value"].as_f64().unwrap();
    assert!((turns - moves.iter().sum::<u64>() as f64 / 90.0).abs() < 1e-9);
    // BranchingFactorAvg from the moves table's legal_moves column: per match, then the mean.
    let mv = t.iter().find(|t| t.name == "moves").unwrap();
    let (ids, legal) = (
        mv.column("match_id").unwrap().as_u64().unwrap(),
        mv.column("legal_moves").unwrap().as_u64().unwrap(),
    );
    let mut per_match = vec![(0u64, 0u64); 90];
    for (id, l) in ids.iter().zip(&legal) {
        per_match[*id as usize].0 += l;
        per_match[*id as usize].1 += 1;
    }
    let bf = per_match.iter().map(|(l, n)| *l as f64 / *n as f64).sum::<f64>() / 90.0;
    assert!((metric(list, "BranchingFactorAvg")["value"].as_f64().unwrap() - bf).abs() < 1e-9);
    assert!(bf > 1.5, "random play has choices: {bf}");
    let text = std::fs::read_to_string(d.join("metrics.txt")).unwrap();
    assert!(text.contains("DecisivenessMoves") && text.contains("starter wins"), "{text}");
    // The seed of the bootstrap is what moves the interval.
    let other: Value = serde_json::from_str(&ok(&[
        "metrics",
        s(&d),
        "--json",
        "--seed",
        "18",
        "--out",
        s(&dir.path().join("o")),
    ]))
    .unwrap();
    let (mine, theirs) =
        (metric(list, "DurationTurns"), metric(&other["metrics"], "DurationTurns"));
    assert_eq!(theirs["value"], mine["value"]);
    assert_ne!(theirs["ci_low"], mine["ci_low"]);
}

#[test]
fn metrics_do_not_depend_on_threads_shards_batches_or_detail() {
    let dir = tempfile::tempdir().unwrap();
    let (one, sharded, coarse) =
        (dir.path().join("one"), dir.path().join("sharded"), dir.path().join("coarse"));
    simulate(&one, &["--threads", "1", "--detail", "move", "--batch-size", "7"]);
    for k in 1..=3 {
        simulate(
            &sharded,
            &[
                "--threads",
                "2",
                "--detail",
                "move",
                "--batch-size",
                "7",
                "--shard",
                &format!("{k}/3"),
            ],
        );
    }
    simulate(&coarse, &["--threads", "2", "--detail", "match", "--batch-size", "50"]);
    let of = |d: &Path| -> Value {
        let v: Value = serde_json::from_str(&ok(&[
            "metrics",
            s(d),
            "--json",
            "--out",
            s(&d.with_extension("m")),
        ]))
        .unwrap();
        serde_json::json!({ "metrics": v["metrics"], "by_round": v["by_round"] })
    };
    let reference = of(&one);
    assert_eq!(reference, of(&sharded));
    assert_eq!(reference, of(&coarse), "detail match streams what detail move streams");
}

#[test]
fn a_study_has_an_object_of_arms_a_chart_and_summarize_points_to_it() {
    let dir = tempfile::tempdir().unwrap();
    let study = dir.path().join("study");
    for (arm, rules) in
        [("default--random", "final_four=owner"), ("skip_origin--random", "skip_origin=true")]
    {
        ok(&[
            "simulate",
            "--matches",
            "40",
            "--seed",
            "2",
            "--rule",
            rules,
            "--detail",
            "match",
            "--out",
            s(&study.join(arm)),
            "--quiet",
        ]);
    }
    let v: Value = serde_json::from_str(&ok(&["metrics", s(&study), "--json"])).unwrap();
    let arms = v["arms"].as_object().unwrap();
    assert_eq!(arms.keys().collect::<Vec<_>>(), ["default--random", "skip_origin--random"]);
    assert!(metric(&arms["skip_origin--random"], "Completion")["value"].as_f64().unwrap() > 0.0);
    assert_ne!(arms["default--random"], arms["skip_origin--random"]);
    let mut reader =
        png::Decoder::new(std::fs::File::open(study.join("charts/metrics.png")).unwrap())
            .read_info()
            .unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert!(info.width >= 1200 && info.height >= 1000);
    let channels = info.color_type.samples();
    let pixels: Vec<&[u8]> = buf[..info.buffer_size()].chunks(channels).collect();
    // The first player's colour (blue of the palette) marks each arm's value in every panel.
    let coloured =
        pixels.iter().filter(|p| p[0] < 40 && p[1] > 90 && p[1] < 140 && p[2] > 150).count();
    assert!(coloured > 200, "marks are drawn in colour: {coloured} coloured pixels");
    let svg = std::fs::read_to_string(study.join("charts/metrics.svg")).unwrap();
    assert!(svg.contains("LeadChange") && svg.contains("AdvantageP1"));
    let summary = ok(&["summarize", s(&study)]);
    assert!(summary.contains("metrics.txt"), "{summary}");
    // A directory that is neither: a usage error naming it.
    usage_error(&["metrics", s(&dir.path().join("nothing"))], &["no such directory"]);
    // An arm whose manifest is broken is an error naming it, for metrics as for summarize,
    // never an arm left out of the study.
    let arm = std::fs::read_dir(&study)
        .unwrap()
        .flatten()
        .find(|e| e.path().is_dir() && e.path().join("manifest.json").is_file())
        .unwrap()
        .path();
    std::fs::write(arm.join("manifest.json"), "{ not json").unwrap();
    for command in ["metrics", "summarize"] {
        let (code, out, err) = run(&[command, s(&study)]);
        assert_ne!(code, 0, "{command}: {out}");
        assert!(
            err.contains(&*arm.file_name().unwrap().to_string_lossy())
                && err.contains("manifest.json"),
            "{command}: {err}"
        );
    }
}

/// A study whose metrics were computed can be run again: `run` counts the files of `metrics`
/// as the study's own (it refused the directory before, naming metrics.csv and metrics.txt).
#[test]
fn a_study_with_its_metrics_can_be_run_again() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("two.toml");
    std::fs::write(
        &file,
        "name = \"two\"\n[defaults]\nseed = 3\ndetail = \"match\"\n\n[[arms]]\nname = \"a\"\nmatches = 30\n\n[[arms]]\nname = \"b\"\nmatches = 30\nrules = { skip_origin = true }\n",
    )
    .unwrap();
    let root = s(dir.path());
    ok(&["run", s(&file), "--out-root", root, "--quiet"]);
    let study = dir.path().join("two");
    ok(&["metrics", s(&study)]);
    for f in ["metrics.json", "metrics.csv", "metrics.txt", "charts/metrics.png"] {
        assert!(study.join(f).is_file(), "{f}");
    }
    let before = std::fs::read_to_string(study.join("metrics.csv")).unwrap();
    ok(&["run", s(&file), "--out-root", root, "--quiet"]);
    assert_eq!(
        std::fs::read_to_string(study.join("metrics.csv")).unwrap(),
        before,
        "left as it was"
    );
    // A file that is no study's output is still refused, named.
    std::fs::write(study.join("notes.txt"), "mine").unwrap();
    usage_error(&["run", s(&file), "--out-root", root, "--quiet"], &["notes.txt"]);
}

/// `--exact` adds the evaluation-based metrics with the exact round value (R15) as the
/// evaluation, at match detail too (the matches are played again), beside the holdings ones.
#[test]
fn exact_adds_the_evaluation_metrics_from_the_round_solver() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("d");
    ok(&[
        "simulate",
        "--matches",
        "60",
        "--seed",
        "4",
        "--rule",
        "pits_per_row=4",
        "--rule",
        "seeds_per_pit=4",
        "--detail",
        "match",
        "--out",
        s(&data),
        "--quiet",
    ]);
    let of = |v: &Value, evaluation: &str| -> Vec<(String, f64)> {
        v["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["evaluation"] == evaluation)
            .map(|m| (m["name"].as_str().unwrap().to_string(), m["value"].as_f64().unwrap()))
            .collect()
    };
    let plain: Value = serde_json::from_str(&ok(&["metrics", s(&data), "--json"])).unwrap();
    assert!(of(&plain, "exact round value (R15)").is_empty(), "only with --exact");
    let exact: Value =
        serde_json::from_str(&ok(&["metrics", s(&data), "--json", "--exact"])).unwrap();
    let names: Vec<String> =
        of(&exact, "exact round value (R15)").into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        [
            "LeadChange",
            "Stability",
            "DramaAverage",
            "DramaMax",
            "DramaShare",
            "DecisivenessThreshold",
            "DecisivenessMoves"
        ]
    );
    assert_eq!(
        of(&exact, "holdings difference"),
        of(&plain, "holdings difference"),
        "the holdings metrics are unchanged"
    );
    for (name, value) in of(&exact, "exact round value (R15)") {
        assert!((0.0..=1.0).contains(&value), "{name} = {value}");
    }
    // The exact evaluation sees the round's value before its captures: a different series.
    assert_ne!(
        of(&exact, "exact round value (R15)").iter().map(|m| m.1).collect::<Vec<_>>(),
        of(&plain, "holdings difference").iter().take(7).map(|m| m.1).collect::<Vec<_>>()
    );
    usage_error(&["metrics", s(&data), "--max-memory", "1G"], &["--exact"]);
}
