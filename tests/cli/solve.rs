use serde_json::Value;

use crate::common::*;

fn solve_json(args: &[&str]) -> Value {
    let mut all = vec!["solve", "--json"];
    all.extend_from_slice(args);
    serde_json::from_str(ok(&all).trim()).unwrap()
}

#[test]
fn solve_reproduces_the_golden_values() {
    let cases: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(golden("solve.json")).unwrap()).unwrap();
    for case in cases {
        let mut args = vec![
            format!("--rule=pits_per_row={}", case["pits_per_row"]),
            format!("--rule=seeds_per_pit={}", case["seeds_per_pit"]),
            format!("--open={},{}", case["open"][0], case["open"][1]),
            format!("--starter={}", case["starter"].as_str().unwrap()),
        ];
        for (k, v) in case["rules"].as_object().unwrap() {
            args.push(format!("--rule={k}={}", v.as_str().map_or(v.to_string(), str::to_owned)));
        }
        let got = solve_json(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(got["value"], case["value"], "{case}");
        assert_eq!(got["best_moves"], case["best_moves"], "{case}");
        assert_eq!(got["positions"], case["positions"], "{case}");
        let outcome = match case["value"].as_i64().unwrap().signum() {
            1 => "starter_win",
            0 => "draw",
            _ => "starter_loss",
        };
        assert_eq!(got["outcome"], outcome);
        assert!(
            got["peak_bytes"].as_u64().unwrap() > 0
                && got["bytes_per_position"].as_f64().unwrap() > 0.0
        );
    }
}

#[test]
fn solve_prints_a_readable_report() {
    let text = ok(&["solve", "--rule", "pits_per_row=3", "--rule", "seeds_per_pit=2"]);
    for needle in [
        "value: 10 for south (starter win)",
        "best moves: 2\n",
        "positions: 39\n",
        "positions/s",
        "bytes/position",
    ] {
        assert!(text.contains(needle), "lacks {needle:?}:\n{text}");
    }
}

#[test]
fn solve_rejects_bad_input_with_exit_2() {
    usage_error(&["solve", "--open", "0,3"], &["--open 0,3", "south opens 0 pits", "1..=7"]);
    usage_error(&["solve", "--open", "8,2"], &["--open 8,2", "south opens 8 pits", "1..=7"]);
    usage_error(
        &["solve", "--rule", "pits_per_row=3", "--open", "2,4"],
        &["north opens 4 pits", "1..=3"],
    );
    usage_error(&["solve", "--open", "3"], &["expected S,N"]);
    usage_error(&["solve", "--open", "a,3"], &["'a' is not a number"]);
    usage_error(&["solve", "--max-memory", "lots"], &["--max-memory", "512M"]);
    usage_error(&["solve", "--starter", "east"], &["east"]);
    // The real board does not fit 64 MiB: a clear error, not a crash.
    // The way out is named: the spilled solver, which the board fits.
    usage_error(
        &["solve", "--max-memory", "64M"],
        &["more than the allowed memory", "--max-memory", "(--spill)"],
    );
    usage_error(
        &["solve", "--max-positions", "1000"],
        &["more than 1000 reachable positions", "--max-positions"],
    );
    usage_error(
        &["solve", "--rule", "pits_per_row=9", "--rule", "seeds_per_pit=8"],
        &["144 counters", "at most 127"],
    );
    usage_error(&["solve", "--all-starts"], &["--out"]);
}

#[test]
fn all_starts_writes_the_table_and_heat_map() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("starts");
    let v: Value = serde_json::from_str(
        ok(&[
            "solve",
            "--all-starts",
            "--json",
            "--rule",
            "pits_per_row=3",
            "--rule",
            "seeds_per_pit=2",
            "--out",
            s(&out),
        ])
        .trim(),
    )
    .unwrap();
    let starts = v["starts"].as_array().unwrap();
    assert_eq!(starts.len(), 3 * 3 * 2);
    // Round 1 (all open, South starts) is the golden 3x2 case.
    let round1 = starts
        .iter()
        .find(|r| r["open"] == serde_json::json!([3, 3]) && r["starter"] == "south")
        .unwrap();
    assert_eq!((round1["value"].as_i64(), round1["positions"].as_u64()), (Some(10), Some(39)));
    // Each start agrees with a single solve, and mirrored starts have the same value.
    for r in starts {
        let (so, no) = (r["open"][0].as_u64().unwrap(), r["open"][1].as_u64().unwrap());
        let starter = r["starter"].as_str().unwrap();
        let mirror = starts
            .iter()
            .find(|m| m["open"] == serde_json::json!([no, so]) && m["starter"] != r["starter"])
            .unwrap();
        assert_eq!(mirror["value"], r["value"], "{r} vs {mirror}");
        assert_eq!(mirror["best_moves"], r["best_moves"]);
        if so == 2 && no == 1 {
            let single = solve_json(&[
                "--rule=pits_per_row=3",
                "--rule=seeds_per_pit=2",
                "--open=2,1",
                &format!("--starter={starter}"),
            ]);
            assert_eq!(
                (&single["value"], &single["best_moves"], &single["positions"]),
                (&r["value"], &r["best_moves"], &r["positions"])
            );
        }
    }
    let names = files(&out);
    assert_eq!(
        names,
        ["solve.json", "start_values.png", "start_values.svg", "starts.csv", "starts.parquet"]
    );
    // The CSV and the Parquet file hold the same rows.
    use rajapasu::sim::schema::{ColumnSpec, TableSpec};
    use rajapasu::sim::table::ColumnType::*;
    let column = |name, ty| ColumnSpec { name, ty, meaning: "" };
    let columns = [
        column("rules_hash", Text),
        column("pits_per_row", I64),
        column("seeds_per_pit", I64),
        column("south_open", I64),
        column("north_open", I64),
        column("starter", Sym),
        column("value", I64),
        column("outcome", Text),
        column("best_moves", Text),
        column("positions", I64),
    ];
    let columns: &'static [ColumnSpec] = Box::leak(Box::new(columns));
    let spec = TableSpec { name: "starts", row: "", columns };
    let from_csv = rajapasu::io::read_table(&out.join("starts.csv"), &spec).unwrap();
    let from_parquet = rajapasu::io::read_table(&out.join("starts.parquet"), &spec).unwrap();
    assert_eq!(from_csv, from_parquet);
    assert_eq!(from_csv.rows(), 18);
    let csv = std::fs::read_to_string(out.join("starts.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "rules_hash,pits_per_row,seeds_per_pit,south_open,north_open,starter,value,outcome,best_moves,positions"
    );
    assert_eq!(lines.count(), 18);
    assert!(csv.contains(",3,2,3,3,south,10,starter_win,2,39\n"), "{csv}");
    // The heat map is a real PNG of the chart size.
    let png = std::fs::read(out.join("start_values.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let (w, h) = (
        u32::from_be_bytes(png[16..20].try_into().unwrap()),
        u32::from_be_bytes(png[20..24].try_into().unwrap()),
    );
    assert_eq!((w, h), (1200, 750));
    let svg = std::fs::read_to_string(out.join("start_values.svg")).unwrap();
    assert!(
        svg.contains("Perfect-play value of a round for its starter")
            && svg.contains("south starts")
    );
}

/// Boards whose positions the solver cannot number (8x7, 9x5, 9x6, 9x7 with
/// every pit open) are refused with exit 2, not a panic; `--all-starts` refuses them before
/// solving anything, and `--study` counts them beyond its limit.
#[test]
fn boards_too_large_to_number_are_refused_with_exit_2() {
    for (pits, seeds) in [(8, 7), (9, 5), (9, 6), (9, 7)] {
        let (p, s) = (format!("pits_per_row={pits}"), format!("seeds_per_pit={seeds}"));
        usage_error(
            &["solve", "--rule", &p, "--rule", &s],
            &["more than 2^63 arrangements", "solve a smaller board"],
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("starts");
    usage_error(
        &[
            "solve",
            "--all-starts",
            "--rule",
            "pits_per_row=9",
            "--rule",
            "seeds_per_pit=5",
            "--out",
            s(&out),
        ],
        &["2^63"],
    );
    assert!(!out.exists(), "nothing written");
    let study = dir.path().join("study");
    let args = [
        "--study-pits",
        "8",
        "--study-seeds",
        "7",
        "--max-positions",
        "500",
        "--matches",
        "2",
        "--format",
        "csv",
    ];
    ok(&[&["solve", "--study", "--quiet", "--out", s(&study)][..], &args].concat());
    let csv = std::fs::read_to_string(study.join("summary.csv")).unwrap();
    // A board beyond the limit has its exact columns absent (empty), not 0 or NaN; a drawn
    // match has no rounds (R17).
    let beyond = csv
        .lines()
        .find(|l| l.starts_with("8,7,112,beyond_limit,"))
        .unwrap_or_else(|| panic!("{csv}"));
    let cells: Vec<&str> = beyond.split(',').collect();
    assert_eq!(cells.len(), 20, "{beyond}");
    let exact_columns = [4, 5, 6, 7, 8, 14, 15, 16, 17, 18, 19];
    assert!(exact_columns.iter().all(|&i| cells[i].is_empty()), "{beyond}");
    assert!(!csv.contains("NaN"), "{csv}");
    // The last two columns: match_value, match_rounds (no cell before them holds a comma).
    let drawn: Vec<&str> = csv.lines().filter(|l| l.rsplit(',').nth(1) == Some("draw")).collect();
    assert!(!drawn.is_empty() && drawn.iter().all(|l| l.ends_with(",draw,")), "{drawn:?}");
}

/// `--all-starts` and `--study` write their files even when the reader of
/// their output has gone away (`| head -1`); the closed pipe is not an error.
#[test]
fn solve_writes_its_files_when_the_reader_goes_away() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &[&str], &[&str]); 2] = [
        (
            "starts",
            &["--all-starts", "--rule", "pits_per_row=2", "--rule", "seeds_per_pit=1"],
            &["solve.json", "start_values.png", "start_values.svg", "starts.csv", "starts.parquet"],
        ),
        (
            "study",
            &["--study", "--study-pits", "2", "--study-seeds", "2", "--matches", "4"],
            &[
                "frontier.csv",
                "perfect_play.png",
                "perfect_play.svg",
                "summary.csv",
                "summary.json",
                "summary.parquet",
            ],
        ),
    ];
    for (name, args, expected) in cases {
        let out = dir.path().join(name);
        // A reader that is gone before the first line: every write fails with a broken pipe.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let run = bin()
            .arg("solve")
            .args(args)
            .args(["--quiet", "--out", s(&out)])
            .stdout(writer)
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&run.stderr));
        assert_eq!(files(&out), expected, "{name}");
    }
}

#[test]
fn perfect_match_chains_round_starts() {
    let v = solve_json(&["--perfect-match", "--rule=pits_per_row=3", "--rule=seeds_per_pit=4"]);
    let matches = v["matches"].as_array().unwrap();
    assert_eq!(matches.len(), 2);
    assert_eq!(
        (matches[0]["tie_break"].as_str(), matches[1]["tie_break"].as_str()),
        (Some("lowest"), Some("highest"))
    );
    for m in matches {
        let rounds = m["rounds"].as_array().unwrap();
        // Round 1 is the golden-style round-1 solve: all pits open, South starts, value -6.
        assert_eq!(rounds[0]["open"], serde_json::json!([3, 3]));
        assert_eq!(rounds[0]["value"], -6);
        assert_eq!(m["outcome"], "second");
        for (i, r) in rounds.iter().enumerate() {
            // Each round realizes its value, and holdings follow R12: kept plus captured.
            let (c, h) = (&r["captured"], &r["holdings"]);
            let starter = if r["starter"] == "south" { 0 } else { 1 };
            assert_eq!(
                c[starter].as_i64().unwrap() - c[1 - starter].as_i64().unwrap(),
                r["value"].as_i64().unwrap()
            );
            assert_eq!(h[0].as_u64().unwrap() + h[1].as_u64().unwrap(), 24);
            if let Some(next) = rounds.get(i + 1) {
                let kept =
                    |side: usize| h[side].as_u64().unwrap() - 4 * r["open"][side].as_u64().unwrap();
                assert_eq!(next["holdings"][0].as_u64().unwrap(), kept(0) + c[0].as_u64().unwrap());
            }
        }
    }
    let text = ok(&["solve", "--perfect-match", "--rule=pits_per_row=3", "--rule=seeds_per_pit=4"]);
    assert!(
        text.contains("ties broken by the lowest local pit")
            && text.contains("outcome: north wins (the second player)"),
        "{text}"
    );
}

/// `solve --match --json` with its tables in `tables`.
fn match_json(tables: &std::path::Path, args: &[&str]) -> Value {
    let mut all = vec!["solve", "--match", "--json", "--tables", s(tables)];
    all.extend_from_slice(args);
    serde_json::from_str(ok(&all).trim()).unwrap()
}

#[test]
fn solve_match_reproduces_the_golden_match_values() {
    let tables = tempfile::tempdir().unwrap();
    let cases: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(golden("solve_match.json")).unwrap())
            .unwrap();
    for case in &cases {
        let mut args = vec![
            format!("--rule=pits_per_row={}", case["pits_per_row"]),
            format!("--rule=seeds_per_pit={}", case["seeds_per_pit"]),
            format!("--holdings={},{}", case["holdings"][0], case["holdings"][1]),
            format!("--starter={}", case["starter"].as_str().unwrap()),
        ];
        for (k, v) in case["rules"].as_object().unwrap() {
            args.push(format!("--rule={k}={}", v.as_str().map_or(v.to_string(), str::to_owned)));
        }
        let got = match_json(tables.path(), &args.iter().map(String::as_str).collect::<Vec<_>>());
        for key in ["value", "rounds", "best_moves", "holdings", "starter"] {
            assert_eq!(got[key], case[key], "{key}: {case}");
        }
    }
    // Each board's table was solved once and kept; asking again reads it.
    let again =
        match_json(tables.path(), &["--rule", "pits_per_row=3", "--rule", "seeds_per_pit=4"]);
    assert_eq!(
        (again["value"].as_str(), again["rounds"].as_u64(), again["cached"].as_bool()),
        (Some("loss"), Some(6), Some(true))
    );
    assert!(
        files(tables.path()).iter().all(|f| f.starts_with("match-") && f.ends_with(".json")),
        "{:?}",
        files(tables.path())
    );
}

#[test]
fn solve_match_prints_a_readable_report_and_rejects_bad_input() {
    let tables = tempfile::tempdir().unwrap();
    let t = s(tables.path());
    let text = ok(&[
        "solve",
        "--match",
        "--tables",
        t,
        "--rule",
        "pits_per_row=3",
        "--rule",
        "seeds_per_pit=3",
        "--holdings",
        "7,11",
    ]);
    for needle in [
        "holdings south 7 north 11",
        "match value: loss for south in 3 rounds",
        "best moves: 1\n",
        "match positions/s",
    ] {
        assert!(text.contains(needle), "lacks {needle:?}:\n{text}");
    }
    let r3 = ["--rule", "pits_per_row=3", "--rule", "seeds_per_pit=3"];
    let with = |extra: &[&'static str]| -> Vec<&str> {
        let mut v = vec!["solve", "--match", "--tables", t];
        v.extend_from_slice(&r3);
        v.extend_from_slice(extra);
        v
    };
    usage_error(&with(&["--holdings", "9,10"]), &["--holdings 9,10", "sum to 19", "18 counters"]);
    usage_error(
        &with(&["--holdings", "2,16"]),
        &["south holds 2", "fewer than seeds_per_pit = 3", "R14"],
    );
    usage_error(&with(&["--holdings", "9"]), &["expected S,N"]);
    usage_error(&with(&["--holdings", "x,9"]), &["'x' is not a number"]);
    usage_error(&["solve", "--holdings", "9,9"], &["--match"]);
    usage_error(&["solve", "--match", "--all-states"], &["--out"]);
    usage_error(
        &[
            "solve",
            "--match",
            "--tables",
            t,
            "--rule",
            "pits_per_row=5",
            "--rule",
            "seeds_per_pit=4",
            "--max-memory",
            "200K",
        ],
        &["more than the allowed memory", "--max-memory", "(--spill)"],
    );
    // A table file that is not one is an error naming the file, not a crash.
    let r =
        rajapasu::engine::Ruleset::from_assignments(["pits_per_row=3", "seeds_per_pit=2"]).unwrap();
    let bad = tables.path().join(format!("match-{}.json", r.hash()));
    std::fs::write(&bad, "{\"rules\": 1}").unwrap();
    let (code, _, err) = run(&[
        "solve",
        "--match",
        "--tables",
        t,
        "--rule",
        "pits_per_row=3",
        "--rule",
        "seeds_per_pit=2",
    ]);
    assert!(
        code != 0 && err.contains("not a match table") && err.contains(&bad.display().to_string()),
        "{code} {err}"
    );
}

#[test]
fn solve_match_all_states_writes_the_table_and_the_equity_chart() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let tables = dir.path().join("tables");
    let args = ["--rule", "pits_per_row=4", "--rule", "seeds_per_pit=4"];
    let mut all = vec![
        "solve",
        "--match",
        "--all-states",
        "--out",
        s(&out),
        "--tables",
        s(&tables),
        "--json",
    ];
    all.extend_from_slice(&args);
    let summary: Value = serde_json::from_str(ok(&all).trim()).unwrap();
    assert_eq!(
        (summary["value"].as_str(), summary["rounds"].as_u64(), summary["states"].as_u64()),
        (Some("win"), Some(3), Some(50))
    );
    let f = files(&out);
    for name in [
        "match_states.csv",
        "match_states.parquet",
        "solve_match.json",
        "match_equity.png",
        "match_equity.svg",
    ] {
        assert!(f.contains(&name.to_string()), "{name} missing from {f:?}");
    }
    let csv = std::fs::read_to_string(out.join("match_states.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "rules_hash,pits_per_row,seeds_per_pit,south_holdings,north_holdings,starter,south_open,north_open,value,rounds,best_moves"
    );
    assert_eq!(lines.len(), 1 + 50, "holdings 4..=28, both starters");
    // The match's start (16,16, South starting): golden win in 3, best moves 2 and 3.
    assert!(lines.iter().any(|l| l.ends_with(",16,16,south,4,4,win,3,\"2,3\"")), "{csv}");
    // The chart as a person sees it: wins in blue and losses in vermillion, not blank.
    let decoder = png::Decoder::new(std::fs::File::open(out.join("match_equity.png")).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let pixels: Vec<[u8; 3]> =
        buf[..info.buffer_size()].chunks(channels).map(|c| [c[0], c[1], c[2]]).collect();
    let count = |rgb: [u8; 3]| pixels.iter().filter(|p| **p == rgb).count();
    let wins = csv.matches(",win,").count();
    let losses = csv.matches(",loss,").count();
    assert!(wins > 0 && losses > 0, "{csv}");
    assert!(
        count([0, 114, 178]) > 100 * wins && count([213, 94, 0]) > 100 * losses,
        "win and loss cells drawn"
    );
    let svg = std::fs::read_to_string(out.join("match_equity.svg")).unwrap();
    assert!(
        svg.contains("South starts") && svg.contains("South&apos;s holdings")
            || svg.contains("South's holdings"),
        "axis labels"
    );
    assert!(f.iter().all(|p| !p.contains(".tmp")), "no temporaries: {f:?}");
}

#[test]
fn an_interrupted_match_solve_continues_from_its_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let (fresh, resumed) = (dir.path().join("fresh"), dir.path().join("resumed"));
    let board = ["--rule", "pits_per_row=3", "--rule", "seeds_per_pit=4"];
    let solve = |tables: &std::path::Path, out: &std::path::Path, extra: &[&str]| {
        let mut a = vec![
            "solve",
            "--match",
            "--all-states",
            "--quiet",
            "--format",
            "csv",
            "--tables",
            s(tables),
            "--out",
            s(out),
        ];
        a.extend_from_slice(&board);
        a.extend_from_slice(extra);
        run(&a)
    };
    let (code, _, _) = solve(&fresh, &dir.path().join("a"), &[]);
    assert_eq!(code, 0);
    // Stopped after 2 iterations: exit 1, the checkpoint kept, no table written.
    let (code, _, err) = solve(&resumed, &dir.path().join("b"), &["--max-iterations", "2"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("stopped after 2 iterations") && err.contains("run again to continue"),
        "{err}"
    );
    let checkpoint: Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::fs::read_dir(&resumed).unwrap().next().unwrap().unwrap().path(),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(
        (checkpoint["iterations"].as_u64(), checkpoint["complete"].as_bool()),
        (Some(2), Some(false))
    );
    assert!(!dir.path().join("b").join("match_states.csv").exists());
    let (code, _, err) = solve(&resumed, &dir.path().join("b"), &[]);
    assert_eq!(code, 0, "{err}");
    let read =
        |d: &str| std::fs::read_to_string(dir.path().join(d).join("match_states.csv")).unwrap();
    assert_eq!(read("a"), read("b"));
}

#[test]
fn perfect_players_play_in_simulate() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d");
    let tables = dir.path().join("tables");
    let (code, _, err) = {
        let o = bin()
            .env("RAJAPASU_TABLES", &tables)
            .args([
                "simulate",
                "--rule",
                "pits_per_row=3",
                "--rule",
                "seeds_per_pit=2",
                "--south",
                "perfect:match",
                "--north",
                "random",
                "--matches",
                "20",
                "--seed",
                "5",
                "--out",
                s(&out),
                "--quiet",
            ])
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    assert_eq!(code, Some(0), "{err}");
    assert!(
        files(&tables).iter().any(|f| f.starts_with("match-")),
        "the table was kept in $RAJAPASU_TABLES"
    );
    usage_error(
        &[
            "simulate",
            "--south",
            "perfect:game",
            "--matches",
            "1",
            "--out",
            s(&dir.path().join("x")),
        ],
        &["perfect takes match", "perfect:round"],
    );
}

#[test]
fn solve_spill_reproduces_the_golden_values_and_continues_after_a_stop() {
    let dir = tempfile::tempdir().unwrap();
    let tables = s(dir.path());
    let cases: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(golden("solve.json")).unwrap()).unwrap();
    for case in cases {
        let mut args = vec![
            format!("--rule=pits_per_row={}", case["pits_per_row"]),
            format!("--rule=seeds_per_pit={}", case["seeds_per_pit"]),
            format!("--open={},{}", case["open"][0], case["open"][1]),
            format!("--starter={}", case["starter"].as_str().unwrap()),
        ];
        for (k, v) in case["rules"].as_object().unwrap() {
            args.push(format!("--rule={k}={}", v.as_str().map_or(v.to_string(), str::to_owned)));
        }
        let memory = solve_json(&args.iter().map(String::as_str).collect::<Vec<_>>());
        args.extend(["--spill".to_string(), format!("--tables={tables}")]);
        let got = solve_json(&args.iter().map(String::as_str).collect::<Vec<_>>());
        for key in [
            "value",
            "outcome",
            "best_moves",
            "positions",
            "level_positions",
            "quiet_moves",
            "exits",
        ] {
            assert_eq!(got[key], memory[key], "{key}: {case}");
        }
        assert_eq!(
            (&got["value"], &got["best_moves"], &got["positions"]),
            (&case["value"], &case["best_moves"], &case["positions"])
        );
    }
    // Both starters at once, stopped after each finished level and continued.
    let board = [
        "--rule=pits_per_row=3",
        "--rule=seeds_per_pit=3",
        "--rule=final_four=stays",
        "--starter=both",
        "--spill",
        "--quiet",
    ];
    let other = tempfile::tempdir().unwrap();
    let tables = format!("--tables={}", s(other.path()));
    let mut stops = 0;
    loop {
        let (code, out, err) =
            run(&[&["solve"][..], &board, &[&tables, "--max-levels=1", "--json"]].concat());
        if code == 0 {
            let v: Value = serde_json::from_str(out.trim()).unwrap();
            let starts = v["starts"].as_array().unwrap();
            for (start, starter) in starts.iter().zip(["south", "north"]) {
                let alone = solve_json(&[
                    "--rule=pits_per_row=3",
                    "--rule=seeds_per_pit=3",
                    "--rule=final_four=stays",
                    &format!("--starter={starter}"),
                ]);
                assert_eq!(
                    (&start["value"], &start["best_moves"]),
                    (&alone["value"], &alone["best_moves"]),
                    "{starter}"
                );
            }
            assert_eq!(v["levels"].as_array().unwrap().len(), 19);
            break;
        }
        assert_eq!(code, 1, "{err}");
        assert!(err.contains("run again to continue"), "{err}");
        stops += 1;
        assert!(stops <= 40, "{err}");
    }
    assert_eq!(stops, 2 * 19 - 1);
    // The counting pass alone: positions by level, no value.
    let count = solve_json(&[
        "--rule=pits_per_row=3",
        "--rule=seeds_per_pit=2",
        "--spill",
        "--count-only",
        &tables,
    ]);
    assert_eq!(
        count["level_positions"],
        serde_json::json!([0, 4, 18, 8, 5, 0, 0, 0, 0, 3, 0, 0, 1])
    );
    assert!(count.get("value").is_none() && count["disk_bytes"].as_u64().unwrap() > 0);
    // A damaged level file is refused by name.
    let level = std::fs::read_dir(other.path().join("rounds"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| s(p).contains("3x3-south+north"))
        .unwrap()
        .join("level-007.val");
    let bytes = std::fs::read(&level).unwrap();
    std::fs::write(&level, &bytes[..bytes.len() - 5]).unwrap();
    usage_error(&[&["solve"][..], &board, &[&tables]].concat(), &["level-007.val", "SHA-256"]);
    usage_error(&["solve", "--starter=both"], &["--starter both needs --spill"]);
    usage_error(&["solve", "--spill", &tables, "--max-disk=lots"], &["--max-disk", "512M"]);
}

/// A full disk: a 64 KiB tmpfs, mounted in a user and mount namespace of its own (`unshare
/// -rm`), fills while the levels are written; the solve stops naming the file and the bytes, and
/// continues to the in-memory solver's value once the file system is grown.
#[test]
fn solve_spill_on_a_full_disk_stops_naming_what_it_needs_and_continues_once_there_is_room() {
    if !std::process::Command::new("unshare")
        .args(["-rm", "true"])
        .status()
        .is_ok_and(|s| s.success())
    {
        eprintln!("skipped: this machine allows no user and mount namespaces (unshare -rm), so no tmpfs can be mounted");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = s(dir.path());
    let disk = dir.path().join("disk");
    std::fs::create_dir(&disk).unwrap();
    let board = "--rule pits_per_row=4 --rule seeds_per_pit=3 --rule final_four=stays";
    let solve = format!(
        "{} solve --spill --tables {} {board} --quiet --json",
        env!("CARGO_BIN_EXE_rajapasu"),
        s(&disk)
    );
    let script = format!(
        "mount -t tmpfs -o size=64k tmpfs {m} && {solve} > {d}/first.out 2> {d}/first.err; echo $? > {d}/first.code; \
         mount -o remount,size=16m {m} && {solve} > {d}/second.out 2> {d}/second.err; echo $? > {d}/second.code",
        m = s(&disk)
    );
    let status =
        std::process::Command::new("unshare").args(["-rm", "sh", "-c", &script]).status().unwrap();
    assert!(status.success());
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
    assert_eq!(read("first.code").trim(), "1", "{}", read("first.err"));
    let err = read("first.err");
    assert!(
        err.contains("the disk is full writing")
            && err.contains("/rounds/")
            && err.contains("run again"),
        "{err}"
    );
    assert_eq!(read("second.code").trim(), "0", "{}", read("second.err"));
    let got: Value = serde_json::from_str(read("second.out").trim()).unwrap();
    let memory = solve_json(&board.split(' ').collect::<Vec<_>>());
    for key in ["value", "best_moves", "positions", "level_positions"] {
        assert_eq!(got[key], memory[key], "{key}");
    }
}

/// Runs the binary to its end: its exit code, its error output and its peak resident bytes
/// (the kernel's figure for this child alone, from wait4).
#[expect(
    clippy::zombie_processes,
    reason = "the child is reaped by wait4, which gives its own rusage"
)]
fn run_measured(args: &[&str]) -> (i32, String, u64) {
    use std::io::Read;
    let mut child = bin()
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    let (mut status, pid) = (0, child.id() as libc::pid_t);
    // SAFETY: rusage is plain data, written by wait4 for the child it reaps.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::wait4(pid, &mut status, 0, &mut usage) }, pid);
    (libc::WEXITSTATUS(status), err, usage.ru_maxrss as u64 * 1024)
}

#[test]
fn a_match_solve_refused_for_memory_never_held_more_than_allowed() {
    let tables = tempfile::tempdir().unwrap();
    let t = |name: &str| tables.path().join(name).to_str().unwrap().to_owned();
    // The process's own floor: a match of five small graphs.
    let tiny = [
        "solve",
        "--match",
        "--quiet",
        "--rule",
        "pits_per_row=3",
        "--rule",
        "seeds_per_pit=2",
        "--tables",
    ];
    let (code, err, floor) = run_measured(&[&tiny[..], &[&t("tiny")]].concat());
    assert_eq!(code, 0, "{err}");
    // 9x1 under round_winner: 25 million positions over its graphs, about 1.3 GB; each graph
    // and each level is checked before it is allocated, and freed tables are handed back (the
    // solver's figures ended at 1.33 GB under a 1G bound, and 520 MB resident under 300M).
    let limit = 300u64 << 20;
    let (code, err, peak) = run_measured(&[
        "solve",
        "--match",
        "--quiet",
        "--rule",
        "pits_per_row=9",
        "--rule",
        "seeds_per_pit=1",
        "--rule",
        "next_starter=round_winner",
        "--rule",
        "max_rounds=1000000",
        "--max-memory",
        "300M",
        "--tables",
        &t("big"),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("more than the allowed memory") && err.contains("--spill"), "{err}");
    // The allocator's own pages (about 20 MB measured).
    let slack = 32 << 20;
    assert!(peak <= limit + floor + slack, "peak {peak} bytes resident, above {limit} allowed + {floor} of the process's own + {slack}");
}
