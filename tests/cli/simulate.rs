//! `rajapasu simulate`: reproducible rows, shards, resume, formats, bad input.

use std::path::Path;
use std::time::{Duration, Instant};

use rajapasu::sim::table::{ColumnData, Table};

use crate::common::*;

fn simulate(out: &Path, extra: &[&str]) {
    let mut args = vec![
        "simulate",
        "--matches",
        "120",
        "--seed",
        "9",
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

fn col<'a>(t: &'a Table, name: &str) -> &'a ColumnData {
    t.column(name).unwrap_or_else(|| panic!("{} has no column {name}", t.name))
}

fn u64s(t: &Table, name: &str) -> Vec<u64> {
    col(t, name).as_u64().unwrap()
}

#[test]
fn rows_are_identical_for_any_thread_count_batch_size_and_sharding() {
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one");
    let two = dir.path().join("two");
    let sharded = dir.path().join("sharded");
    simulate(&one, &["--threads", "1", "--detail", "move", "--batch-size", "7"]);
    simulate(&two, &["--threads", "2", "--detail", "move", "--batch-size", "7"]);
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
    let reference = tables(&one);
    assert_eq!(reference, tables(&two));
    assert_eq!(reference, tables(&sharded));
    assert_eq!(reference[0].rows(), 120);
    assert_eq!(u64s(&reference[0], "match_id"), (0..120).collect::<Vec<u64>>());
    assert!(dir.path().join("sharded/manifest-shard-2-of-3.json").exists());
    // Another batch size changes the part files, not the rows.
    let other = dir.path().join("other");
    simulate(&other, &["--threads", "2", "--detail", "move", "--batch-size", "50"]);
    let mut other_tables = tables(&other);
    let mut ref_tables = reference.clone();
    // Histograms are per part file: compare their sums instead.
    let hist = |t: &Table| {
        let mut m = std::collections::BTreeMap::new();
        let (metric, value, count) = (col(t, "metric"), u64s(t, "value"), u64s(t, "count"));
        let ColumnData::Sym(metric) = metric else { panic!() };
        for i in 0..t.rows() {
            *m.entry((metric[i], value[i])).or_insert(0u64) += count[i];
        }
        m
    };
    assert_eq!(hist(&ref_tables[1]), hist(&other_tables[1]));
    other_tables.remove(1);
    ref_tables.remove(1);
    // So are the sums by round number (the last table).
    let by_round = |t: &Table| {
        let mut m = std::collections::BTreeMap::new();
        let sums = [
            "rounds",
            "starter_wins",
            "ties",
            "first_player_wins",
            "open_pits",
            "open_pits_squares",
        ]
        .map(|c| u64s(t, c));
        for (i, round) in u64s(t, "round").into_iter().enumerate() {
            let e = m.entry(round).or_insert([0u64; 6]);
            for (k, column) in sums.iter().enumerate() {
                e[k] += column[i];
            }
        }
        m
    };
    let (mine, theirs) = (ref_tables.pop().unwrap(), other_tables.pop().unwrap());
    assert_eq!(mine.name, "by_round");
    assert_eq!(by_round(&mine), by_round(&theirs));
    assert_eq!(ref_tables, other_tables);
    // A different seed gives different rows.
    let seeded = dir.path().join("seeded");
    ok(&[
        "simulate",
        "--matches",
        "120",
        "--seed",
        "10",
        "--south",
        "random",
        "--north",
        "greedy",
        "--out",
        s(&seeded),
        "--quiet",
        "--detail",
        "move",
    ]);
    assert_ne!(tables(&seeded)[0], reference[0]);
}

#[test]
fn tables_agree_and_csv_holds_the_same_rows_as_parquet() {
    let dir = tempfile::tempdir().unwrap();
    let both = dir.path().join("both");
    let csv = dir.path().join("csv");
    simulate(
        &both,
        &[
            "--detail",
            "lap",
            "--format",
            "both",
            "--rule",
            "final_four=stays",
            "--rule",
            "endless=stop",
        ],
    );
    simulate(
        &csv,
        &[
            "--detail",
            "lap",
            "--format",
            "csv",
            "--rule",
            "final_four=stays",
            "--rule",
            "endless=stop",
        ],
    );
    let t = tables(&both);
    assert_eq!(t, tables(&csv));
    // Both formats are on disk for every part.
    let f = files(&both);
    assert_eq!(
        f.iter().filter(|p| p.ends_with(".parquet")).count(),
        f.iter().filter(|p| p.ends_with(".csv")).count()
    );
    let by_name = |n: &str| t.iter().find(|x| x.name == n).unwrap();
    let (matches, rounds, moves, laps) =
        (by_name("matches"), by_name("rounds"), by_name("moves"), by_name("laps"));
    let sum_by_match = |t: &Table, c: &str| {
        let mut v = vec![0u64; 120];
        for (id, x) in u64s(t, "match_id").into_iter().zip(u64s(t, c)) {
            v[id as usize] += x;
        }
        v
    };
    // A match's totals are the sums over its rounds, moves and laps.
    assert_eq!(sum_by_match(rounds, "moves"), u64s(matches, "moves"));
    assert_eq!(sum_by_match(rounds, "laps"), u64s(matches, "laps"));
    assert_eq!(sum_by_match(moves, "laps"), u64s(matches, "laps"));
    assert_eq!(sum_by_match(laps, "sown"), u64s(matches, "sown"));
    for c in ["pussa", "own_fours", "gifted_fours", "remainder"] {
        for side in ["south", "north"] {
            let name = format!("{side}_{c}");
            assert_eq!(sum_by_match(rounds, &name), u64s(matches, &name), "{name}");
        }
    }
    // Counters are conserved: each round's captures plus what was kept off the board is 98.
    let total: Vec<u64> = ["south_total", "north_total", "south_kept", "north_kept"]
        .iter()
        .map(|c| u64s(rounds, c))
        .fold(vec![0; rounds.rows()], |acc, v| acc.iter().zip(v).map(|(a, b)| a + b).collect());
    assert!(total.iter().all(|&t| t == 98));
    let holdings: Vec<u64> = u64s(matches, "south_holdings")
        .iter()
        .zip(u64s(matches, "north_holdings"))
        .map(|(a, b)| a + b)
        .collect();
    assert!(holdings.iter().all(|&h| h == 98));
}

#[test]
fn a_killed_run_resumes_to_exactly_the_uninterrupted_dataset() {
    let dir = tempfile::tempdir().unwrap();
    let full = dir.path().join("full");
    let killed = dir.path().join("killed");
    let args = |out: &Path| -> Vec<String> {
        [
            "simulate",
            "--matches",
            "3000",
            "--seed",
            "5",
            "--detail",
            "round",
            "--batch-size",
            "20",
            "--threads",
            "2",
            "--quiet",
            "--out",
            s(out),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    ok(&args(&full).iter().map(String::as_str).collect::<Vec<_>>());
    let mut child = bin().args(args(&killed)).spawn().unwrap();
    let progress = killed.join(".progress");
    let start = Instant::now();
    loop {
        let done = std::fs::read_dir(&progress).map(|d| d.count()).unwrap_or(0);
        if done >= 5 || start.elapsed() > Duration::from_secs(60) {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let done_before = std::fs::read_dir(&progress).unwrap().count();
    assert!(
        done_before < 150,
        "the run was killed before it finished ({done_before} of 150 batches)"
    );
    // The interrupted directory is not a dataset yet, and is not overwritten without --resume.
    usage_error(&["summarize", s(&killed)], &["incomplete", "--resume"]);
    usage_error(
        &args(&killed).iter().map(String::as_str).collect::<Vec<_>>(),
        &["interrupted", "--resume"],
    );
    let mut resume = args(&killed);
    resume.push("--resume".into());
    let (code, _, _) = run(&resume.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 0);
    assert_eq!(tables(&killed), tables(&full));
    let strip =
        |f: Vec<String>| f.into_iter().filter(|p| !p.starts_with("manifest")).collect::<Vec<_>>();
    assert_eq!(strip(files(&killed)), strip(files(&full)), "same part files, no temporaries left");
    // Resuming a complete run does nothing and keeps it complete.
    let (code, _, _) = run(&resume.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 0);
    assert_eq!(tables(&killed), tables(&full));
}

#[test]
fn a_starting_shard_removes_only_its_own_temporaries() {
    // 120 matches in batches of 30: shard 1/2 has batches 0 and 1, shard 2/2 batches 2 and 3,
    // and shard 2 may be writing while shard 1 starts.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let ours = [
        out.join("matches/.part-r-00000001.parquet.tmp-7-1"),
        out.join(".progress/.batch-00000000.json.tmp-7-2"),
    ];
    let theirs = [
        out.join("matches/.part-r-00000003.parquet.tmp-8-1"),
        out.join(".progress/.batch-00000002.json.tmp-8-2"),
    ];
    for path in ours.iter().chain(&theirs) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "half written").unwrap();
    }
    simulate(&out, &["--batch-size", "30", "--shard", "1/2"]);
    assert!(ours.iter().all(|p| !p.exists()), "the shard's own stale temporaries are removed");
    assert!(theirs.iter().all(|p| p.exists()), "another shard's temporaries are left alone");
}

#[test]
fn bad_input_is_refused_and_leaves_nothing_half_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = s(&out);
    usage_error(
        &["simulate", "--matches", "10", "--out", o, "--south", "randm"],
        &["randm", "allowed: random, greedy, minimax"],
    );
    usage_error(
        &["simulate", "--matches", "10", "--out", o, "--north", "minimax:0"],
        &["minimax:0"],
    );
    usage_error(&["simulate", "--matches", "10", "--out", o, "--shard", "0/3"], &["0/3", "K/N"]);
    usage_error(&["simulate", "--matches", "10", "--out", o, "--shard", "4/3"], &["4/3"]);
    usage_error(
        &["simulate", "--matches", "10", "--out", o, "--detail", "everything"],
        &["everything", "match, round, move, lap"],
    );
    usage_error(
        &["simulate", "--matches", "10", "--out", o, "--format", "xlsx"],
        &["xlsx", "parquet, csv, both"],
    );
    usage_error(&["simulate", "--matches", "0", "--out", o], &["--matches 0"]);
    usage_error(
        &["simulate", "--matches", "10", "--out", o, "--rule", "endless=never"],
        &["endless", "forbid, stop"],
    );
    assert!(!out.exists(), "no output for refused arguments");
    // A directory holding something else is foreign.
    let foreign = dir.path().join("foreign");
    std::fs::create_dir(&foreign).unwrap();
    std::fs::write(foreign.join("thesis.tex"), "keep me").unwrap();
    usage_error(
        &["simulate", "--matches", "10", "--out", s(&foreign), "--quiet"],
        &["thesis.tex", "holds no rajapasu dataset"],
    );
    assert_eq!(files(&foreign), vec!["thesis.tex"]);
    // A directory holding another run is refused, even with --resume.
    let other = dir.path().join("other");
    ok(&["simulate", "--matches", "10", "--out", s(&other), "--quiet"]);
    let before = files(&other);
    usage_error(
        &["simulate", "--matches", "10", "--seed", "2", "--out", s(&other), "--quiet", "--resume"],
        &["different dataset", "run"],
    );
    usage_error(
        &["simulate", "--matches", "10", "--out", s(&other), "--quiet"],
        &["complete", "--resume"],
    );
    assert_eq!(files(&other), before);
    // An unwritable location: a path under a regular file.
    let file = dir.path().join("file");
    std::fs::write(&file, "x").unwrap();
    let (code, _, err) =
        run(&["simulate", "--matches", "10", "--out", s(&file.join("sub")), "--quiet"]);
    assert_ne!(code, 0);
    assert!(err.contains(s(&file.join("sub"))), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
}

#[test]
fn the_manifest_records_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m");
    simulate(&out, &["--detail", "round", "--rule", "pussa_chain=true", "--first", "north"]);
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["status"], "complete");
    assert_eq!(m["rules"]["pussa_chain"], true);
    assert_eq!(
        m["rules_hash"],
        rajapasu::engine::Ruleset::from_assignments(["pussa_chain=true"]).unwrap().hash()
    );
    assert_eq!(
        (m["south"].as_str(), m["north"].as_str(), m["first"].as_str()),
        (Some("random"), Some("greedy"), Some("north"))
    );
    assert_eq!(m["seed"], 9);
    assert_eq!(m["match_range"], serde_json::json!([0, 120]));
    assert_eq!(m["rows"]["matches"], 120);
    assert!(m["rows"]["rounds"].as_u64().unwrap() > 120);
    assert_eq!(m["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(m["versions"]["polars"], "0.55.2");
    assert_eq!(m["versions"]["rows"], rajapasu::io::dataset::ROWS_VERSION);
    let lock = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.lock"),
    )
    .unwrap();
    assert!(
        lock.contains("name = \"polars\"\nversion = \"0.55.2\""),
        "the manifest names the locked polars"
    );
    // The compression the manifest names is the one the docs name (both from the writer).
    let compression = m["versions"]["parquet_compression"].as_str().unwrap();
    let level = compression.strip_prefix("zstd level ").unwrap_or_else(|| panic!("{compression}"));
    let docs = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/data.md"),
    )
    .unwrap();
    assert!(
        docs.contains(&format!("zstd-compressed (level {level})")),
        "manifest says {compression}; docs/data.md disagrees"
    );
    let schema = m["schema"].as_array().unwrap();
    let names: Vec<&str> = schema.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["matches", "rounds", "histograms", "quality", "by_round"]);
    assert!(schema[0]["columns"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["meaning"].as_str().is_some_and(|s| !s.is_empty()) && c["type"].is_string()));
    assert!(m["started"].as_str().unwrap().ends_with('Z') && m["finished"].is_string());
}

#[test]
fn counts_are_signed_in_the_files_and_a_dataset_of_another_row_format_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d");
    simulate(&out, &["--detail", "round", "--format", "both"]);
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    let rounds = m["schema"].as_array().unwrap().iter().find(|t| t["name"] == "rounds").unwrap();
    let ty = |name: &str| {
        rounds["columns"].as_array().unwrap().iter().find(|c| c["name"] == name).unwrap()["type"]
            .clone()
    };
    assert_eq!(
        (ty("south_open"), ty("south_holdings"), ty("match_id")),
        ("i64".into(), "i64".into(), "u64".into())
    );
    // A difference of open pits is negative where North has more, as in polars.
    let t = tables(&out).into_iter().find(|t| t.name == "rounds").unwrap();
    let (Some(ColumnData::I64(south)), Some(ColumnData::I64(north))) =
        (t.column("south_open"), t.column("north_open"))
    else {
        panic!("open pits are i64 columns")
    };
    assert!(south.iter().zip(north).any(|(s, n)| s - n < 0), "some round starts with North ahead");
    // A manifest of row format 2 (unsigned counts, no holdings) is named, not misread.
    let path = out.join("manifest.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let old = text.replace(
        &format!("\"rows\": \"{}\"", rajapasu::io::dataset::ROWS_VERSION),
        "\"rows\": \"2\"",
    );
    assert_ne!(old, text);
    std::fs::write(&path, old).unwrap();
    for command in [&["summarize", s(&out)][..], &["verify", s(&out)]] {
        let (code, out, err) = run(command);
        let said = out + &err;
        assert_eq!(code, 2, "{command:?}: {said}");
        assert!(
            said.contains("versions.rows is 2")
                && said.contains(&format!("row format {}", rajapasu::io::dataset::ROWS_VERSION)),
            "{command:?}: {said}"
        );
    }
}

/// Waits until `path` exists (a writer got that far), at most 60 s.
fn wait_for(path: &Path) {
    let start = Instant::now();
    while !path.exists() {
        assert!(start.elapsed() < Duration::from_secs(60), "{} never appeared", path.display());
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_second_writer_is_refused_naming_the_first_and_a_killed_writer_blocks_nobody() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("busy");
    let writer = |seed: &str| -> Vec<String> {
        [
            "simulate",
            "--matches",
            "150000",
            "--seed",
            seed,
            "--detail",
            "match",
            "--threads",
            "1",
            "--quiet",
            "--out",
            s(&out),
        ]
        .iter()
        .map(|a| a.to_string())
        .collect()
    };
    let mut first = bin().args(writer("1")).spawn().unwrap();
    wait_for(&out.join("manifest.json"));
    // Another run (seed 2), the same run again, and the same run resumed: all refused while
    // the first writes, each naming its process.
    let holder = format!("process {}", first.id());
    for (seed, extra) in [("2", None), ("1", None), ("1", Some("--resume"))] {
        let mut args = writer(seed);
        args.extend(extra.map(String::from));
        usage_error(
            &args.iter().map(String::as_str).collect::<Vec<_>>(),
            &["being written", &holder, "one writer at a time"],
        );
    }
    // A reader is told the dataset is being written, and by whom.
    usage_error(&["summarize", s(&out)], &["incomplete", "being written", &holder]);
    // SIGKILL: the operating system releases the lock; the run continues with --resume.
    first.kill().unwrap();
    first.wait().unwrap();
    let mut resume = writer("1");
    resume[2] = "600".into();
    let cut = [resume.clone(), vec!["--resume".into()]].concat();
    // (A shorter run of the same seed is another run: refused as a different dataset.)
    usage_error(
        &cut.iter().map(String::as_str).collect::<Vec<_>>(),
        &["different dataset", "matches is 150000 there, 600 here"],
    );
    let mut resume = writer("1");
    resume.push("--resume".into());
    resume[8] = "2".into(); // two threads to finish sooner
    ok(&resume.iter().map(String::as_str).collect::<Vec<_>>());
    ok(&["verify", s(&out)]);
}

/// The shard count is part of a dataset's identity. A shard of another split
/// is refused at the start, naming the run there, finished or still writing, with and without
/// --resume.
#[test]
fn a_shard_of_another_split_is_refused_naming_the_run_there() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("whole");
    let args = |matches: &str, shard: &str, resume: bool| -> Vec<String> {
        let mut v: Vec<String> = [
            "simulate",
            "--matches",
            matches,
            "--seed",
            "1",
            "--detail",
            "match",
            "--threads",
            "1",
            "--quiet",
        ]
        .iter()
        .map(|a| a.to_string())
        .collect();
        v.extend(["--shard".into(), shard.into(), "--out".into(), s(&out).into()]);
        if resume {
            v.push("--resume".into());
        }
        v
    };
    fn strs(v: &[String]) -> Vec<&str> {
        v.iter().map(String::as_str).collect()
    }
    ok(&strs(&args("200", "1/1", false)));
    let before = files(&out);
    for resume in [false, true] {
        usage_error(
            &strs(&args("200", "2/3", resume)),
            &["split into 1 shard", "manifest.json: shard 1/1, complete", "this is shard 2 of 3"],
        );
    }
    let unlocked =
        |d: &Path| files(d).into_iter().filter(|f| !f.starts_with(".lock")).collect::<Vec<_>>();
    assert_eq!(
        unlocked(&out),
        before.into_iter().filter(|f| !f.starts_with(".lock")).collect::<Vec<_>>(),
        "nothing written"
    );
    ok(&["verify", s(&out)]);
    // Still being written: the refusal names the writer.
    std::fs::remove_dir_all(&out).unwrap();
    let mut first = bin().args(args("150000", "1/1", false)).spawn().unwrap();
    wait_for(&out.join("manifest.json"));
    for resume in [false, true] {
        usage_error(
            &strs(&args("150000", "2/3", resume)),
            &[
                "split into 1 shard",
                "manifest.json: shard 1/1, being written by process",
                &first.id().to_string(),
            ],
        );
    }
    first.kill().unwrap();
    first.wait().unwrap();
    assert!(!out.join("manifest-shard-2-of-3.json").exists());
    // And the other way round: a whole run into a directory of shards.
    std::fs::remove_dir_all(&out).unwrap();
    ok(&strs(&args("200", "1/2", false)));
    usage_error(
        &strs(&args("200", "1/1", true)),
        &["split into 2 shards", "manifest-shard-1-of-2.json: shard 1/2, complete"],
    );
}

#[test]
fn two_writers_started_together_never_both_write() {
    let dir = tempfile::tempdir().unwrap();
    for attempt in 0..3 {
        let out = dir.path().join(format!("race-{attempt}"));
        let spawn = |seed: &str| {
            bin()
                .args([
                    "simulate",
                    "--matches",
                    "3000",
                    "--seed",
                    seed,
                    "--detail",
                    "match",
                    "--threads",
                    "1",
                    "--quiet",
                    "--out",
                    s(&out),
                ])
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (a, b) = (spawn("1"), spawn("2"));
        let results: Vec<(i32, String)> = [a, b]
            .into_iter()
            .map(|c| {
                let o = c.wait_with_output().unwrap();
                (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stderr).into_owned())
            })
            .collect();
        let winners = results.iter().filter(|(code, _)| *code == 0).count();
        assert_eq!(winners, 1, "exactly one writer wins: {results:?}");
        let (code, err) = results.iter().find(|(code, _)| *code != 0).unwrap();
        assert_eq!(*code, 2, "{err}");
        assert!(
            err.contains("being written by another rajapasu process")
                || err.contains("different dataset"),
            "{err}"
        );
        // The winner's dataset is whole, with no file of the loser.
        ok(&["verify", s(&out)]);
    }
}

#[test]
fn a_run_killed_before_its_manifest_was_written_can_be_started_again_or_resumed() {
    let dir = tempfile::tempdir().unwrap();
    let reference = dir.path().join("reference");
    simulate(&reference, &["--batch-size", "30"]);
    // What a kill in the first milliseconds leaves: the table directories and the manifest
    // under its temporary name, and a lock file naming a process that is gone.
    for resume in [false, true] {
        let out = dir.path().join(format!("killed-{resume}"));
        for d in ["matches", "rounds", "histograms", ".progress"] {
            std::fs::create_dir_all(out.join(d)).unwrap();
        }
        std::fs::write(out.join(".manifest.json.tmp-4242-0.json"), "{\"tool\": \"raja").unwrap();
        std::fs::write(
            out.join(".lock-shard-1-of-1"),
            "process 4242 on gone, since 2026-01-01T00:00:00Z: rajapasu simulate\n",
        )
        .unwrap();
        simulate(
            &out,
            &["--batch-size", "30"]
                .into_iter()
                .chain(resume.then_some("--resume"))
                .collect::<Vec<_>>(),
        );
        assert_eq!(tables(&out), tables(&reference));
        assert!(
            !out.join(".manifest.json.tmp-4242-0.json").exists(),
            "the dead run's temporary manifest is removed"
        );
    }
    // Real kills (SIGKILL) at several moments right after the start: --resume always gives the
    // uninterrupted run's dataset.
    for delay_ms in [0, 2, 10, 40] {
        let out = dir.path().join(format!("kill-{delay_ms}"));
        let args = [
            "simulate",
            "--matches",
            "120",
            "--seed",
            "9",
            "--south",
            "random",
            "--north",
            "greedy",
            "--out",
            s(&out),
            "--quiet",
        ];
        let mut child = bin().args(args).args(["--batch-size", "30"]).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill();
        child.wait().unwrap();
        ok(&[&args[..], &["--batch-size", "30", "--resume"]].concat());
        assert_eq!(tables(&out), tables(&reference), "killed after {delay_ms} ms");
    }
}

#[test]
fn thread_counts_repeated_rules_and_shards_are_checked_with_the_limits_stated() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = s(&out);
    usage_error(
        &["simulate", "--matches", "10", "--out", o, "--threads", "100000"],
        &["--threads", "100000", "maximum of 1024", "one per core"],
    );
    usage_error(
        &["simulate", "--matches", "10", "--out", o, "--threads=-1"],
        &["--threads", "-1", "1024"],
    );
    usage_error(
        &["run", "experiments/quickstart.toml", "--threads", "5000", "--out-root", o],
        &["--threads", "maximum of 1024"],
    );
    usage_error(
        &["tournament", "experiments/ladder.toml", "--threads", "5000", "--out-root", o],
        &["--threads", "maximum of 1024"],
    );
    let twice = ["--rule", "final_four=stays", "--rule", "final_four=sower"];
    usage_error(
        &[&["simulate", "--matches", "10", "--out", o][..], &twice].concat(),
        &["final_four", "given twice", "at most once"],
    );
    usage_error(
        &[&["replay", "--moves", "6"][..], &twice].concat(),
        &["final_four", "given twice"],
    );
    usage_error(&[&["perft", "--depth", "2"][..], &twice].concat(), &["final_four", "given twice"]);
    usage_error(
        &[&["bench", "--matches", "10"][..], &twice].concat(),
        &["final_four", "given twice"],
    );
    usage_error(
        &["simulate", "--matches", "10", "--out", o, "--shard", "1/4294967296"],
        &["1/4294967296", "N <= 4294967295"],
    );
    assert!(!out.exists());
    // In an experiment file a switch is a TOML key: given twice, the file is refused.
    let exp = dir.path().join("twice.toml");
    std::fs::write(
        &exp,
        "name = \"twice\"\n[[arms]]\nname = \"a\"\nmatches = 10\n[arms.rules]\nfinal_four = \"stays\"\nfinal_four = \"sower\"\n",
    )
    .unwrap();
    usage_error(&["run", s(&exp), "--out-root", o], &["twice.toml", "final_four", "line 7"]);
    // Fewer batches than threads: the run uses no more threads than it has batches.
    ok(&["simulate", "--matches", "10", "--out", o, "--threads", "1024", "--quiet"]);
}

/// A run smaller than one batch plays its batch in pieces, one per thread:
/// its files are byte for byte those of one thread; each thread really has a match to play;
/// and an error in one worker stops the others before their next match.
#[test]
fn every_thread_has_work_the_files_stay_the_same_and_an_error_stops_the_run_at_once() {
    let dir = tempfile::tempdir().unwrap();
    // One batch (lap detail: 200 matches a batch) on 1, 3 and 4 threads, and in 2 batches.
    let mut datasets = Vec::new();
    for (threads, batch) in [("1", None), ("3", None), ("4", None), ("2", Some("30"))] {
        let out = dir.path().join(format!("t{threads}-{}", batch.unwrap_or("default")));
        let mut args = vec!["--detail", "lap", "--threads", threads];
        if let Some(b) = batch {
            args.extend(["--batch-size", b]);
        }
        let mut all = vec![
            "simulate",
            "--matches",
            "60",
            "--seed",
            "9",
            "--north",
            "greedy",
            "--out",
            s(&out),
            "--quiet",
        ];
        all.extend(args);
        ok(&all);
        datasets.push(out);
    }
    let bytes = |d: &Path| -> Vec<(String, Vec<u8>)> {
        files(d)
            .into_iter()
            // The manifest and the package descriptor record times and the command line.
            .filter(|f| {
                !f.starts_with("manifest") && !f.starts_with(".lock") && f != "datapackage.json"
            })
            .map(|f| (f.clone(), std::fs::read(d.join(&f)).unwrap()))
            .collect()
    };
    let one = bytes(&datasets[0]);
    assert!(
        one.iter().any(|(f, _)| f.starts_with("laps/")),
        "{:?}",
        one.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    assert!(
        bytes(&datasets[1]) == one && bytes(&datasets[2]) == one,
        "every file byte for byte, on any thread count"
    );
    // In 2 batches the part files differ, the rows do not (histograms and sums by round number
    // are per part file).
    let (a, b) = (tables(&datasets[0]), tables(&datasets[3]));
    for (x, y) in a.iter().zip(&b).filter(|(x, _)| x.name != "histograms" && x.name != "by_round") {
        assert_eq!(x, y, "{}", x.name);
    }
    // Two matches, one batch, two threads: each match's player waits until the other match's
    // has started too, which only happens when both threads play (alone, it gives up).
    let meeting = dir.path().join("meeting");
    std::fs::create_dir(&meeting).unwrap();
    let player = example_player_script();
    let body = format!(
        "touch {m}/arrived-$$\nn=0\nwhile [ $(ls {m} | grep -c arrived-) -lt 2 ]; do\n  n=$((n+1))\n  \
         if [ $n -gt 1500 ]; then echo 'alone: no other match is being played' >&2; exit 3; fi\n  sleep 0.02\ndone\n\
         exec python3 {}\n",
        player.display(),
        m = meeting.display()
    );
    let rendezvous =
        script(dir.path(), "rendezvous.sh", &body).replace("timeout=0.5", "timeout=120");
    let out = dir.path().join("two");
    // South starts both matches: its program is asked at ply 1 of each.
    let mut args = vec![
        "simulate",
        "--matches",
        "2",
        "--threads",
        "2",
        "--first",
        "south",
        "--south",
        &rendezvous,
        "--out",
        s(&out),
        "--quiet",
    ];
    args.extend(SMALL);
    ok(&args);
    assert_eq!(std::fs::read_dir(&meeting).unwrap().count(), 2);
    // A player that fails at once in one worker; the other worker's batch of 20 slow matches
    // is not played to its end: it stops before its next match.
    let started = dir.path().join("started");
    std::fs::create_dir(&started).unwrap();
    let body = format!(
        "if mkdir {s}/first 2>/dev/null; then read line; echo 'first player fails' >&2; exit 5; fi\n\
         touch {s}/match-$$\nexec python3 {}\n",
        player.display(),
        s = started.display()
    );
    let failing = script(dir.path(), "fails_first.sh", &body).replace("timeout=0.5", "timeout=120");
    let out = dir.path().join("failed");
    let mut args = vec![
        "simulate",
        "--matches",
        "40",
        "--batch-size",
        "20",
        "--threads",
        "2",
        "--first",
        "south",
        "--south",
        &failing,
    ];
    args.extend(["--out", s(&out), "--quiet"]);
    args.extend(SMALL);
    let (code, _, err) = run(&args);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("first player fails"), "{err}");
    let played = std::fs::read_dir(&started).unwrap().count() - 1;
    assert!(played < 10, "{played} matches of the other batch were started after the failure");
}

// Search players and external players (docs/players.md, docs/external-players.md).

fn example_player(args: &str) -> String {
    format!("external:{} {args}", crate::common::example_player()).trim_end().to_string()
}

const SMALL: [&str; 6] =
    ["--rule", "pits_per_row=4", "--rule", "seeds_per_pit=3", "--rule", "max_rounds=100"];

#[test]
fn search_and_external_players_give_the_same_rows_on_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let external = example_player("");
    for (name, south, north) in [
        ("search", "minimax:nodes=3000", "mcts:playouts=30,c=1.2"),
        ("external", external.as_str(), "minimax:depth=2,eval=round"),
    ] {
        let mut datasets = Vec::new();
        for threads in ["1", "2"] {
            let out = dir.path().join(format!("{name}-{threads}"));
            let mut args = vec![
                "simulate",
                "--matches",
                "8",
                "--seed",
                "3",
                "--south",
                south,
                "--north",
                north,
                "--out",
                s(&out),
            ];
            args.extend(["--quiet", "--detail", "move", "--batch-size", "2", "--threads", threads]);
            args.extend(SMALL);
            ok(&args);
            datasets.push(tables(&out));
        }
        assert_eq!(datasets[0], datasets[1], "{name}");
        assert_eq!(datasets[0][0].rows(), 8);
    }
    // The manifest records each player's full parameters.
    let m: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("search-1/manifest.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(m["south"], "minimax:depth=40,nodes=3000,eval=match");
    assert_eq!(m["north"], "mcts:playouts=30,c=1.2,eval=match,reuse=true");
    let m: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("external-1/manifest.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(m["south"].as_str().unwrap(), external.replacen("external:", "external:cmd=", 1));
}

#[test]
fn the_example_player_follows_its_strategy_through_the_binary() {
    // --strategy first always plays the leftmost legal pit: replaying the recorded moves, each
    // is the smallest legal local pit at its ply.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("first");
    let south = example_player("--strategy first");
    let mut args = vec![
        "simulate",
        "--matches",
        "2",
        "--south",
        &south,
        "--north",
        "random",
        "--out",
        s(&out),
        "--quiet",
    ];
    args.extend(["--detail", "move", "--format", "csv", "--first", "south"]);
    args.extend(SMALL);
    ok(&args);
    let moves = std::fs::read_dir(out.join("moves")).unwrap().next().unwrap().unwrap().path();
    let text = std::fs::read_to_string(moves).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let at = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let rules = rajapasu::engine::Ruleset::from_assignments([
        "pits_per_row=4",
        "seeds_per_pit=3",
        "max_rounds=100",
    ])
    .unwrap();
    let mut game = rajapasu::engine::Game::new(rules, rajapasu::engine::Side::South);
    let mut checked = 0;
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        if f[at("match_id")] != "0" {
            break;
        }
        let pit: usize = f[at("pit")].parse().unwrap();
        if f[at("side")] == "south" {
            assert_eq!(
                Some(pit),
                game.legal_moves().iter().next().map(|p| p.index()),
                "ply {}",
                f[at("ply")]
            );
            checked += 1;
        }
        game.play(pit).unwrap();
    }
    assert!(checked > 5, "{checked}");
}

/// A shell script as an external player.
fn script(dir: &Path, name: &str, body: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    format!("external:timeout=0.5,cmd=sh {}", path.display())
}

#[test]
fn a_failing_external_player_names_the_match_and_ply_and_writes_no_part_file() {
    let dir = tempfile::tempdir().unwrap();
    for (name, body, needles) in [
        (
            "crash",
            "read line; echo 'out of ideas' >&2; exit 4",
            &["exited (exit status: 4)", "out of ideas"][..],
        ),
        ("garbage", "read line; echo 'hello'", &["answered \"hello\", which is not a JSON object"]),
        (
            "illegal",
            "read line; echo '{\"pit\": 7}'",
            &["played pit 7, which is not legal; legal pits: 0,1,2,3"],
        ),
        ("timeout", "read line; sleep 20", &["gave no answer within 0.5 s"]),
    ] {
        let player = script(dir.path(), &format!("{name}.sh"), body);
        let out = dir.path().join(name);
        let mut args = vec![
            "simulate",
            "--matches",
            "6",
            "--batch-size",
            "2",
            "--south",
            &player,
            "--out",
            s(&out),
            "--quiet",
        ];
        args.extend(["--first", "south", "--format", "both"]);
        args.extend(SMALL);
        let (code, _, err) = run(&args);
        assert_eq!(code, 1, "{name}: {err}");
        // South starts every match: its first decision is ply 1 of some match.
        assert!(
            err.contains("ply 1 (south to move)")
                && err.contains("nothing of its batch was written"),
            "{name}: {err}"
        );
        for n in needles {
            assert!(err.contains(n), "{name}: '{n}' missing: {err}");
        }
        let written: Vec<String> = files(&out)
            .into_iter()
            .filter(|f| !f.ends_with("manifest.json") && !f.starts_with(".lock"))
            .collect();
        assert!(written.is_empty(), "{name}: no part file, no temporary: {written:?}");
    }
}
