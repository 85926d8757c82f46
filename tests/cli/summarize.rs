//! `rajapasu summarize`: figures equal to those computed independently from the rows.

use rajapasu::sim::table::{ColumnData, Table};
use serde_json::Value;

use crate::common::*;

fn syms<'a>(t: &'a Table, c: &str) -> &'a [Option<&'static str>] {
    match t.column(c).unwrap() {
        ColumnData::Sym(v) => v,
        _ => panic!(),
    }
}

#[test]
fn summary_figures_equal_an_independent_count_of_the_rows() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d");
    ok(&[
        "simulate",
        "--matches",
        "300",
        "--seed",
        "3",
        "--detail",
        "round",
        "--out",
        s(&out),
        "--quiet",
        "--batch-size",
        "64",
    ]);
    let text = ok(&["summarize", s(&out)]);
    assert!(text.contains("first player wins") && text.contains("round 1 starter wins"), "{text}");
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let arm = &json["arms"][0];
    let t = tables(&out);
    let (matches, hist, rounds) = (&t[0], &t[1], &t[2]);
    let (first, winner, r1) =
        (syms(matches, "first"), syms(matches, "winner"), syms(matches, "round1_winner"));
    let first_wins =
        (0..300).filter(|&i| winner[i].is_some() && winner[i] == first[i]).count() as u64;
    let finished = winner.iter().filter(|w| w.is_some()).count() as u64;
    assert_eq!(arm["matches"], 300);
    assert_eq!(arm["finished"], finished);
    assert_eq!(arm["first_player_wins"]["successes"], first_wins);
    assert_eq!(arm["first_player_wins"]["trials"], finished);
    let rate = first_wins as f64 / finished as f64;
    assert!((arm["first_player_wins"]["rate"].as_f64().unwrap() - rate).abs() < 1e-12);
    let (lo, hi) = (
        arm["first_player_wins"]["ci_low"].as_f64().unwrap(),
        arm["first_player_wins"]["ci_high"].as_f64().unwrap(),
    );
    assert!(lo < rate && rate < hi && hi - lo < 0.12);
    assert_eq!(
        arm["round1_starter_wins"]["successes"],
        (0..300).filter(|&i| r1[i] == first[i]).count() as u64
    );
    // Round starters, from the rounds table.
    let (starter, rwinner) = (syms(rounds, "starter"), syms(rounds, "winner"));
    let starter_wins = (0..rounds.rows()).filter(|&i| rwinner[i] == starter[i]).count() as u64;
    assert_eq!(arm["round_starter_wins"]["successes"], starter_wins);
    assert_eq!(arm["round_starter_wins"]["trials"], rounds.rows() as u64);
    // Mean rounds per match and moves per round.
    let r = matches.column("rounds").unwrap().as_u64().unwrap();
    assert!(
        (arm["rounds_per_match"]["mean"].as_f64().unwrap() - r.iter().sum::<u64>() as f64 / 300.0)
            .abs()
            < 1e-9
    );
    assert_eq!(arm["rounds_per_match"]["max"], *r.iter().max().unwrap());
    let mv = rounds.column("moves").unwrap().as_u64().unwrap();
    assert!(
        (arm["moves_per_round"]["mean"].as_f64().unwrap()
            - mv.iter().sum::<u64>() as f64 / mv.len() as f64)
            .abs()
            < 1e-9
    );
    // Lap statistics from the histograms table.
    let (metric, value, count) = (
        syms(hist, "metric"),
        hist.column("value").unwrap().as_u64().unwrap(),
        hist.column("count").unwrap().as_u64().unwrap(),
    );
    let (mut laps, mut sown) = (0u64, 0u64);
    for i in 0..hist.rows() {
        if metric[i] == Some("lap_length") {
            laps += count[i];
            sown += count[i] * value[i];
        }
    }
    assert!((arm["lap_length"]["mean"].as_f64().unwrap() - sown as f64 / laps as f64).abs() < 1e-9);
    // Capture sources: South's pussa share.
    let sp: u64 = matches.column("south_pussa").unwrap().as_u64().unwrap().iter().sum();
    assert_eq!(arm["capture_sources"][0]["pussa"], sp);
    // Open pits at round 1 are all 7.
    assert_eq!(arm["open_pits"][0]["round"], 1);
    assert_eq!(arm["open_pits"][0]["south_mean_open"], 7.0);
    // The CSV has one row per arm with the same rate.
    let csv = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    assert_eq!(csv.lines().count(), 2);
    assert!(csv.lines().nth(1).unwrap().contains(&rate.to_string()));
    // --json prints the same summary.
    let printed: Value = serde_json::from_str(&ok(&["summarize", s(&out), "--json"])).unwrap();
    assert_eq!(printed, json);
}

#[test]
fn bad_datasets_give_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    usage_error(&["summarize", s(&dir.path().join("missing"))], &["no such directory"]);
    std::fs::write(dir.path().join("notes.txt"), "hello").unwrap();
    usage_error(&["summarize", s(dir.path())], &["not a rajapasu dataset"]);
    // A part file of another run mixed into a dataset.
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    ok(&[
        "simulate",
        "--matches",
        "20",
        "--seed",
        "1",
        "--out",
        s(&a),
        "--quiet",
        "--detail",
        "match",
    ]);
    ok(&[
        "simulate",
        "--matches",
        "20",
        "--seed",
        "2",
        "--out",
        s(&b),
        "--quiet",
        "--detail",
        "match",
    ]);
    let stray = std::fs::read_dir(b.join("matches")).unwrap().next().unwrap().unwrap().path();
    std::fs::copy(&stray, a.join("matches").join(stray.file_name().unwrap())).unwrap();
    usage_error(
        &["summarize", s(&a)],
        &["mixed into a dataset", "different rules, players or seed"],
    );
    // A sharded run with a shard missing.
    let c = dir.path().join("c");
    ok(&[
        "simulate",
        "--matches",
        "20",
        "--seed",
        "1",
        "--out",
        s(&c),
        "--quiet",
        "--detail",
        "match",
        "--shard",
        "1/2",
    ]);
    usage_error(&["summarize", s(&c)], &["shards 2 of 2 are missing"]);
    // Manifests of different runs in one directory.
    let e = dir.path().join("e");
    ok(&[
        "simulate",
        "--matches",
        "20",
        "--seed",
        "2",
        "--out",
        s(&e),
        "--quiet",
        "--detail",
        "match",
        "--shard",
        "2/2",
    ]);
    std::fs::copy(e.join("manifest-shard-2-of-2.json"), c.join("manifest-shard-2-of-2.json"))
        .unwrap();
    usage_error(&["summarize", s(&c)], &["mixes datasets"]);
    // A missing part file is named (tests/cli/verify.rs damages every table every way).
    let d = dir.path().join("d");
    ok(&[
        "simulate",
        "--matches",
        "20",
        "--seed",
        "1",
        "--out",
        s(&d),
        "--quiet",
        "--detail",
        "match",
        "--batch-size",
        "5",
    ]);
    let part = std::fs::read_dir(d.join("matches")).unwrap().next().unwrap().unwrap().path();
    std::fs::remove_file(&part).unwrap();
    let name = part.file_name().unwrap().to_string_lossy().into_owned();
    usage_error(&["summarize", s(&d)], &[&format!("matches/{name}: missing"), "--resume"]);
}

#[test]
fn a_read_only_dataset_is_summarized_and_the_unwritten_files_fail_with_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ro");
    ok(&["simulate", "--matches", "50", "--seed", "3", "--out", s(&out), "--quiet"]);
    // summary.json cannot be written: a directory holds its name (this fails for every user,
    // root included), and the dataset is made read-only.
    std::fs::create_dir(out.join("summary.json")).unwrap();
    let read_only = |on: bool| {
        for d in [out.clone(), out.join("summary.json")] {
            let mut p = std::fs::metadata(&d).unwrap().permissions();
            p.set_readonly(on);
            std::fs::set_permissions(&d, p).unwrap();
        }
    };
    read_only(true);
    for json in [false, true] {
        let args: Vec<&str> =
            [&["summarize", s(&out)][..], if json { &["--json"] } else { &[] }].concat();
        let (code, text, err) = run(&args);
        read_only(false);
        // One rule for every command: a file it could not write is a failure, exit 1.
        assert_eq!(code, 1, "{err}");
        assert!(
            text.contains("first player wins") || text.contains("\"first_player_wins\""),
            "the summary is printed: {text}"
        );
        assert!(
            err.contains("not written") && err.contains("summary.json") && err.contains("--out"),
            "{err}"
        );
        read_only(true);
    }
    // Asked for explicitly with --out, an unwritable place is an error, after the summary.
    let blocked = dir.path().join("file");
    std::fs::write(&blocked, "x").unwrap();
    let (code, text, err) = run(&["summarize", s(&out), "--out", s(&blocked.join("sub"))]);
    read_only(false);
    assert_eq!(code, 1, "{err}");
    assert!(text.contains("first player wins") && err.contains("sub"), "{text}{err}");
}

/// The half-point interval found by scanning rates on a grid of 1e-6 (the definition, not the
/// bisection): every p with (mean - p)² <= z²/n (p(1 - p) - min(h, 2 min(p, 1 - p))/4).
fn scanned_interval(wins: f64, halves: f64, n: f64) -> (f64, f64) {
    let z2 = 1.959_963_984_540_054f64.powi(2);
    let (mean, h) = ((wins + halves / 2.0) / n, halves / n);
    let inside: Vec<f64> = (0..=1_000_000)
        .map(|k| k as f64 / 1e6)
        .filter(|&p| {
            (mean - p).powi(2) <= z2 / n * (p * (1.0 - p) - h.min(2.0 * p.min(1.0 - p)) / 4.0)
        })
        .collect();
    (inside[0], *inside.last().unwrap())
}

#[test]
fn unfinished_matches_count_as_half_a_win_in_the_points_r16() {
    // A hand-made dataset: 10 matches whose outcomes are rewritten so that the first player wins
    // 5, loses 2, and 3 are unfinished.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("hand");
    ok(&[
        "simulate",
        "--matches",
        "10",
        "--seed",
        "2",
        "--detail",
        "match",
        "--format",
        "csv",
        "--out",
        s(&out),
        "--quiet",
    ]);
    let part = std::fs::read_dir(out.join("matches"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "csv"))
        .unwrap();
    let mut reader = ::csv::Reader::from_path(&part).unwrap();
    let header = reader.headers().unwrap().clone();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (first, outcome, winner) = (col("first"), col("outcome"), col("winner"));
    let mut writer = ::csv::Writer::from_writer(Vec::new());
    writer.write_record(&header).unwrap();
    for (i, row) in reader.records().enumerate() {
        let mut row: Vec<String> = row.unwrap().iter().map(String::from).collect();
        let other = if row[first] == "south" { "north" } else { "south" };
        let (o, w) = match i {
            0..=4 => ("win", row[first].clone()),
            5..=6 => ("win", other.to_string()),
            _ => ("unfinished", String::new()),
        };
        row[outcome] = o.into();
        row[winner] = w;
        writer.write_record(&row).unwrap();
    }
    rewrite_part_file(&out, &part, &writer.into_inner().unwrap());

    let json: Value = serde_json::from_str(&ok(&["summarize", s(&out), "--json"])).unwrap();
    let arm = &json["arms"][0];
    assert_eq!((arm["finished"].as_u64(), arm["unfinished"].as_u64()), (Some(7), Some(3)));
    assert_eq!(
        (
            arm["first_player_wins"]["successes"].as_u64(),
            arm["first_player_wins"]["trials"].as_u64()
        ),
        (Some(5), Some(7))
    );
    let points = &arm["first_player_points"];
    assert_eq!(points["points"], 6.5);
    assert_eq!(points["matches"], 10);
    assert_eq!(points["rate"], 0.65);
    let (lo, hi) = scanned_interval(5.0, 3.0, 10.0);
    assert!((points["ci_low"].as_f64().unwrap() - lo).abs() < 2e-6, "{points} vs ({lo}, {hi})");
    assert!((points["ci_high"].as_f64().unwrap() - hi).abs() < 2e-6, "{points} vs ({lo}, {hi})");
    // Text and CSV say which is which.
    let text = ok(&["summarize", s(&out)]);
    assert!(text.contains("71.43%") && text.contains("finished matches only"), "{text}");
    assert!(
        text.contains("65.00%") && text.contains("6.5 of 10 matches, unfinished = 1/2"),
        "{text}"
    );
    let mut csv = ::csv::Reader::from_path(out.join("summary.csv")).unwrap();
    let h = csv.headers().unwrap().clone();
    let row = csv.records().next().unwrap().unwrap();
    let get = |name: &str| row[h.iter().position(|x| x == name).unwrap()].to_string();
    assert_eq!(
        (get("first_player_points"), get("first_player_points_rate")),
        ("6.5".into(), "0.65".into())
    );
    assert_eq!(get("first_player_win_rate"), (5.0f64 / 7.0).to_string());
}

#[test]
fn a_p_value_below_the_smallest_double_is_written_as_its_logarithm() {
    // Greedy always starts against random: the first player's record is far from 1/2.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d");
    let args = [
        "--matches",
        "3000",
        "--seed",
        "5",
        "--south",
        "greedy",
        "--north",
        "random",
        "--first",
        "south",
        "--detail",
        "match",
    ];
    ok(&[&["simulate", "--out", s(&out), "--quiet"][..], &args].concat());
    let text = ok(&["summarize", s(&out)]);
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let wins = &json["arms"][0]["first_player_wins"];
    let log10 = wins["log10_p_value"].as_f64().unwrap();
    assert_eq!(wins["p_value"], 0.0, "the p-value underflows here: {wins}");
    assert!(log10 < -308.0 && log10.is_finite(), "{wins}");
    // The CSV has the logarithm in its own column, the text the p-value written from it.
    let csv = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let (header, row) = (csv.lines().next().unwrap(), csv.lines().nth(1).unwrap());
    let column = header
        .split(',')
        .position(|h| h == "first_player_log10_p_value")
        .expect("a log10 p column");
    // (serde_json reads floats to within an ulp.)
    assert!(
        (row.split(',').nth(column).unwrap().parse::<f64>().unwrap() - log10).abs() < 1e-9,
        "{row}"
    );
    let exponent = log10.floor();
    let line = text.lines().find(|l| l.contains("first player wins")).unwrap();
    assert!(line.contains(&format!("e{exponent}  (")), "{line}");
    assert!(!text.contains("< 1e-300"), "{text}");
}

#[test]
fn round_results_by_round_number_equal_a_count_of_the_rounds_table() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d");
    ok(&[
        "simulate",
        "--matches",
        "400",
        "--seed",
        "8",
        "--detail",
        "round",
        "--out",
        s(&out),
        "--quiet",
        "--batch-size",
        "100",
    ]);
    ok(&["summarize", s(&out)]);
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let t = tables(&out);
    let (matches, rounds) = (&t[0], &t[2]);
    // Per round number: (rounds, tied, starter wins, first player wins), the first player read
    // from the matches table (the rounds table's `first` must agree with it).
    let first_of: std::collections::BTreeMap<u64, Option<&str>> = matches
        .column("match_id")
        .unwrap()
        .as_u64()
        .unwrap()
        .into_iter()
        .zip(syms(matches, "first").iter().copied())
        .collect();
    let (ids, number) = (
        rounds.column("match_id").unwrap().as_u64().unwrap(),
        rounds.column("round").unwrap().as_u64().unwrap(),
    );
    let (starter, winner, first) =
        (syms(rounds, "starter"), syms(rounds, "winner"), syms(rounds, "first"));
    let mut count: std::collections::BTreeMap<u64, [u64; 4]> = Default::default();
    for i in 0..rounds.rows() {
        assert_eq!(first[i], first_of[&ids[i]], "rounds.first is matches.first");
        let c = count.entry(number[i]).or_default();
        c[0] += 1;
        c[1] += (winner[i] == Some("tie")) as u64;
        c[2] += (winner[i] == starter[i]) as u64;
        c[3] += (winner[i] == first[i]) as u64;
    }
    let groups = json["arms"][0]["by_round"].as_array().unwrap();
    let least = (count[&1][0] / 2).min(1000);
    let mut next = 1;
    for (k, g) in groups.iter().enumerate() {
        let (a, b) = (g["first_round"].as_u64().unwrap(), g["last_round"].as_u64().unwrap());
        assert_eq!(a, next, "groups follow each other");
        next = b + 1;
        let mut sum = [0u64; 4];
        for r in a..=b {
            for (s, c) in sum.iter_mut().zip(count.get(&r).copied().unwrap_or_default()) {
                *s += c;
            }
        }
        assert_eq!(
            [
                g["rounds"].clone(),
                g["tied"].clone(),
                g["starter_wins"]["successes"].clone(),
                g["first_player_wins"]["successes"].clone()
            ],
            sum.map(Value::from),
            "rounds {a}-{b}"
        );
        assert_eq!(g["starter_wins"]["trials"], sum[0]);
        // A round number is its own group while it has enough rounds; a group is only as
        // large as it must be (the last one excepted).
        if count[&a][0] >= least {
            assert_eq!(a, b, "round {a} has {} rounds", count[&a][0]);
        }
        if k + 1 < groups.len() {
            assert!(sum[0] >= least && sum[0] - count[&b][0] < least, "rounds {a}-{b}: {sum:?}");
        }
        let rate = sum[2] as f64 / sum[0] as f64;
        let (lo, hi) = (
            g["starter_wins"]["ci_low"].as_f64().unwrap(),
            g["starter_wins"]["ci_high"].as_f64().unwrap(),
        );
        assert!(
            (g["starter_wins"]["rate"].as_f64().unwrap() - rate).abs() < 1e-12
                && lo <= rate
                && rate <= hi
        );
    }
    assert_eq!(next, count.keys().max().unwrap() + 1, "every round number is in a group");
    assert!(groups.len() >= 5, "{groups:?}");
    // The CSV has a row per group with the same figures; the text shows round 1.
    let csv = std::fs::read_to_string(out.join("summary_by_round.csv")).unwrap();
    assert_eq!(csv.lines().count(), groups.len() + 1);
    let row1: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(
        (row1[1], row1[3], row1[5]),
        (
            "1",
            &*groups[0]["rounds"].to_string(),
            &*groups[0]["starter_wins"]["successes"].to_string()
        )
    );
    let text = ok(&["summarize", s(&out)]);
    let line = text.lines().find(|l| l.contains("starter wins by round")).unwrap();
    assert!(
        line.contains(&format!("r1 {:.2}%", 100.0 * count[&1][2] as f64 / count[&1][0] as f64)),
        "{line}"
    );
}

#[test]
fn each_arm_is_compared_with_the_first_arm() {
    let dir = tempfile::tempdir().unwrap();
    let study = dir.path().join("study");
    // Arm a: random against random; arm b: greedy always first against random.
    ok(&[
        "simulate",
        "--matches",
        "300",
        "--seed",
        "2",
        "--detail",
        "match",
        "--out",
        s(&study.join("a")),
        "--quiet",
    ]);
    let b = ["--south", "greedy", "--first", "south"];
    ok(&[
        &[
            "simulate",
            "--matches",
            "300",
            "--seed",
            "2",
            "--detail",
            "match",
            "--out",
            s(&study.join("b")),
            "--quiet",
        ][..],
        &b,
    ]
    .concat());
    let text = ok(&["summarize", s(&study)]);
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(study.join("summary.json")).unwrap())
            .unwrap();
    let arms = json["arms"].as_array().unwrap();
    assert!(arms[0]["first_player_vs_first_arm"].is_null());
    let d = &arms[1]["first_player_vs_first_arm"];
    assert_eq!(d["reference"], "a");
    // Computed here from the two arms' counts: the difference, Newcombe's interval from the two
    // Wilson intervals, and the pooled z.
    let w = |a: &Value| {
        let f = &a["first_player_wins"];
        (
            f["successes"].as_f64().unwrap(),
            f["trials"].as_f64().unwrap(),
            f["ci_low"].as_f64().unwrap(),
            f["ci_high"].as_f64().unwrap(),
        )
    };
    let ((k1, n1, l1, u1), (k0, n0, l0, u0)) = (w(&arms[1]), w(&arms[0]));
    let (p1, p0) = (k1 / n1, k0 / n0);
    let diff = p1 - p0;
    let low = diff - ((p1 - l1).powi(2) + (u0 - p0).powi(2)).sqrt();
    let high = diff + ((u1 - p1).powi(2) + (p0 - l0).powi(2)).sqrt();
    let pooled = (k1 + k0) / (n1 + n0);
    let z = diff / (pooled * (1.0 - pooled) * (1.0 / n1 + 1.0 / n0)).sqrt();
    let close = |key: &str, want: f64| {
        assert!((d[key].as_f64().unwrap() - want).abs() < 1e-9, "{key}: {d} against {want}")
    };
    close("difference", diff);
    close("ci_low", low);
    close("ci_high", high);
    close("z", z);
    assert!(diff > 0.2 && d["p_value"].as_f64().unwrap() < 1e-6, "greedy first is far ahead: {d}");
    // In the CSV (empty for the first arm) and in the text.
    let csv = std::fs::read_to_string(study.join("summary.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let column = header.iter().position(|h| *h == "first_player_diff_vs_first_arm").unwrap();
    let cells = |line: usize| -> Vec<String> {
        let mut r = ::csv::Reader::from_reader(csv.as_bytes());
        r.records().nth(line).unwrap().unwrap().iter().map(str::to_owned).collect()
    };
    assert_eq!(cells(0)[column], "");
    assert!(
        (cells(1)[column].parse::<f64>().unwrap() - d["difference"].as_f64().unwrap()).abs()
            < 1e-12
    );
    assert!(
        text.contains("first player wins against the first arm (a)")
            && text.contains(&format!("{:+.2} [", 100.0 * diff)),
        "{text}"
    );
}

#[test]
fn a_round_1_that_never_ended_is_left_out_of_the_round_1_rate() {
    // Perfect match play on 4x4 against greedy: match 1's round 1 is played forever (R17) and
    // cut at 10,000 moves, so round 1 has no winner there.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d");
    let o = bin()
        .env("RAJAPASU_TABLES", dir.path().join("tables"))
        .args([
            "simulate",
            "--matches",
            "6",
            "--seed",
            "2024",
            "--south",
            "perfect:match",
            "--north",
            "greedy",
        ])
        .args([
            "--rule",
            "pits_per_row=4",
            "--rule",
            "seeds_per_pit=4",
            "--rule",
            "max_rounds=30",
            "--out",
            s(&out),
            "--quiet",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let t = tables(&out);
    let matches = t.iter().find(|t| t.name == "matches").unwrap();
    let round1 = syms(matches, "round1_winner");
    let unfinished = round1.iter().filter(|w| **w == Some("unfinished")).count();
    assert_eq!(unfinished, 1, "{round1:?}");
    let json: Value = serde_json::from_str(&ok(&["summarize", s(&out), "--json"])).unwrap();
    assert_eq!(json["arms"][0]["round1_starter_wins"]["trials"].as_u64(), Some(5));
}
