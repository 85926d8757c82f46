//! `rajapasu solve --match --spill`: the match table (R17) solved with its round graphs on disk
//! gives the in-memory solver's table, within a memory bound the in-memory solver refuses, and
//! continues after any stop: asked, killed, or a full disk.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use crate::common::*;
use serde_json::Value;

/// `solve --match --all-states --format csv` of `board` into `out`, tables in `tables`.
fn all_states(tables: &Path, out: &Path, board: &[&str], extra: &[&str]) -> (i32, String, String) {
    let mut a = vec![
        "solve",
        "--match",
        "--all-states",
        "--quiet",
        "--json",
        "--format",
        "csv",
        "--tables",
        s(tables),
        "--out",
        s(out),
    ];
    a.extend_from_slice(board);
    a.extend_from_slice(extra);
    run(&a)
}

fn states_csv(out: &Path) -> String {
    std::fs::read_to_string(out.join("match_states.csv")).unwrap()
}

/// The board's every match state solved in memory: its `match_states.csv`.
fn in_memory(dir: &Path, board: &[&str]) -> String {
    let (code, _, err) = all_states(&dir.join("memory-tables"), &dir.join("memory"), board, &[]);
    assert_eq!(code, 0, "{err}");
    states_csv(&dir.join("memory"))
}

/// Under every reading of the open rules (R17's match on small boards), the spilled solve's
/// every match state (value, rounds, best moves) is the in-memory solver's, within a memory
/// bound the in-memory solver refuses; its round graphs are removed once the table is saved,
/// and the saved table serves the next question without solving.
#[test]
fn solve_match_spill_gives_the_in_memory_table_under_every_reading() {
    let boards: [&[&str]; 6] = [
        &["--rule=pits_per_row=3", "--rule=seeds_per_pit=3"],
        &["--rule=pits_per_row=3", "--rule=seeds_per_pit=3", "--rule=final_four=stays"],
        &["--rule=pits_per_row=4", "--rule=seeds_per_pit=2", "--rule=skip_origin=true"],
        &["--rule=pits_per_row=3", "--rule=seeds_per_pit=4", "--rule=pussa_chain=true"],
        &["--rule=pits_per_row=3", "--rule=seeds_per_pit=3", "--rule=next_starter=round_winner"],
        &[
            "--rule=pits_per_row=4",
            "--rule=seeds_per_pit=2",
            "--rule=endless=stop",
            "--rule=final_four=stays",
        ],
    ];
    for board in boards {
        let dir = tempfile::tempdir().unwrap();
        let memory = in_memory(dir.path(), board);
        let tables = dir.path().join("tables");
        // A third of what the in-memory solver needed, which it refuses.
        let bound = (in_memory_peak(dir.path(), board) / 3).to_string();
        let (code, _, err) = all_states(
            &dir.path().join("refused"),
            &dir.path().join("x"),
            board,
            &["--max-memory", &bound],
        );
        assert_eq!(code, 2, "{board:?}: the in-memory solver met {bound} bytes: {err}");
        assert!(err.contains("--max-memory"), "{err}");
        let (code, out, err) = all_states(
            &tables,
            &dir.path().join("spilled"),
            board,
            &["--spill", "--max-memory", &bound],
        );
        assert_eq!(code, 0, "{board:?}: {err}");
        assert_eq!(states_csv(&dir.path().join("spilled")), memory, "{board:?}");
        let v: Value = serde_json::from_str(out.trim()).unwrap();
        assert!(v["table"].as_str().is_some_and(|t| t.starts_with(s(&tables))), "{v}");
        assert!(files(&tables.join("matches")).is_empty(), "{board:?}: {:?}", files(&tables));
        let table = files(&tables);
        assert!(table.len() == 1 && table[0].starts_with("match-"), "{table:?}");
        let mut again = vec!["solve", "--match", "--json", "--spill", "--tables", s(&tables)];
        again.extend_from_slice(board);
        let v: Value = serde_json::from_str(ok(&again).trim()).unwrap();
        assert_eq!(v["cached"].as_bool(), Some(true), "{v}");
    }
}

/// The in-memory solver's accounted peak for the match table of `board`, in bytes.
fn in_memory_peak(dir: &Path, board: &[&str]) -> u64 {
    let tables = dir.join("peak-tables");
    let mut a = vec!["solve", "--match", "--json", "--tables", s(&tables)];
    a.extend_from_slice(board);
    let v: Value = serde_json::from_str(ok(&a).trim()).unwrap();
    v["stats"]["peak_bytes"].as_u64().unwrap()
}

/// The golden match values (an independent model's) through the spilled solver.
#[test]
fn solve_match_spill_reproduces_the_golden_match_values() {
    let tables = tempfile::tempdir().unwrap();
    let cases: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(golden("solve_match.json")).unwrap())
            .unwrap();
    for case in &cases {
        let mut args = vec![
            "solve".to_string(),
            "--match".into(),
            "--spill".into(),
            "--json".into(),
            format!("--tables={}", s(tables.path())),
            format!("--rule=pits_per_row={}", case["pits_per_row"]),
            format!("--rule=seeds_per_pit={}", case["seeds_per_pit"]),
            format!("--holdings={},{}", case["holdings"][0], case["holdings"][1]),
            format!("--starter={}", case["starter"].as_str().unwrap()),
        ];
        for (k, v) in case["rules"].as_object().unwrap() {
            args.push(format!("--rule={k}={}", v.as_str().map_or(v.to_string(), str::to_owned)));
        }
        let got: Value =
            serde_json::from_str(ok(&args.iter().map(String::as_str).collect::<Vec<_>>()).trim())
                .unwrap();
        for key in ["value", "rounds", "best_moves", "holdings", "starter"] {
            assert_eq!(got[key], case[key], "{key}: {case}");
        }
    }
}

/// Stopped after every level (`--max-levels 1`) and every iteration (`--max-iterations`),
/// each stop exit 1 saying to run again, the solve continues to the in-memory table.
#[test]
fn solve_match_spill_stopped_after_every_level_and_iteration_continues_to_the_same_table() {
    let dir = tempfile::tempdir().unwrap();
    let board = ["--rule=pits_per_row=3", "--rule=seeds_per_pit=3", "--rule=final_four=stays"];
    let memory = in_memory(dir.path(), &board);
    let tables = dir.path().join("tables");
    let (mut levels, mut iterations) = (0, 0);
    loop {
        let stop = (iterations + 1).to_string();
        let extra = ["--spill", "--max-levels", "1", "--max-iterations", &stop];
        let (code, _, err) = all_states(&tables, &dir.path().join("spilled"), &board, &extra);
        if code == 0 {
            break;
        }
        assert_eq!(code, 1, "{err}");
        assert!(err.contains("run again"), "{err}");
        if err.contains("iterations of the rounds loop") {
            iterations += 1;
        } else {
            assert!(err.contains("stopped after 1 levels"), "{err}");
            levels += 1;
        }
        assert!(levels + iterations < 2000, "no progress: {err}");
    }
    assert!(levels > 20 && iterations >= 2, "{levels} level stops, {iterations} iteration stops");
    assert_eq!(states_csv(&dir.path().join("spilled")), memory);
}

/// Killed (SIGKILL) at points spread over its run, again and again, then run to the end: the
/// table is the in-memory solver's, and no temporary file is left behind.
#[test]
fn solve_match_spill_killed_at_many_points_continues_to_the_same_table() {
    let dir = tempfile::tempdir().unwrap();
    let board = ["--rule=pits_per_row=5", "--rule=seeds_per_pit=4", "--rule=final_four=stays"];
    let memory = in_memory(dir.path(), &board);
    let tables = dir.path().join("tables");
    let out = dir.path().join("spilled");
    let mut args = vec![
        "solve",
        "--match",
        "--all-states",
        "--quiet",
        "--format",
        "csv",
        "--spill",
        "--tables",
        s(&tables),
        "--out",
        s(&out),
    ];
    args.extend_from_slice(&board);
    // Delays from a fixed sequence (no clock decides what is asserted: the table must be the
    // same wherever the kills land).
    let mut kills = 0;
    for ms in [150u64, 400, 700, 250, 1000, 550, 1300, 300, 900, 1600, 450, 2000] {
        let mut child =
            bin().args(&args).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(ms));
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
            kills += 1;
        }
        child.wait().unwrap();
    }
    assert!(kills >= 3, "only {kills} runs were still going when killed");
    ok(&args);
    assert_eq!(states_csv(&out), memory);
    let left = files(&tables);
    assert!(
        left.len() == 1 && left[0].starts_with("match-") && left[0].ends_with(".json"),
        "{left:?}"
    );
}

/// Bad input, exit 2, naming what was wrong: a counting pass of a match, a zero disk bound, a
/// disk bound too small, a memory bound too small, a damaged level file.
#[test]
fn solve_match_spill_rejects_bad_input_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let t = s(dir.path());
    let board = ["--rule=pits_per_row=3", "--rule=seeds_per_pit=3"];
    let with = |extra: &[&'static str]| -> Vec<&str> {
        [&["solve", "--match", "--spill", "--tables", t][..], &board, extra].concat()
    };
    usage_error(&with(&["--count-only"]), &["--count-only", "--match"]);
    usage_error(&with(&["--max-disk", "0"]), &["--max-disk", "'0' is 0 bytes"]);
    usage_error(&with(&["--max-positions", "1000"]), &["--max-positions", "--spill"]);
    usage_error(&with(&["--max-disk", "lots"]), &["--max-disk"]);
    usage_error(
        &with(&["--max-disk", "4K"]),
        &["more disk than allowed", "--max-disk 4096 bytes", "run again"],
    );
    usage_error(&with(&["--max-memory", "100"]), &["more than the allowed memory", "--max-memory"]);
    let (_, _, err) = run(&with(&["--max-memory", "100"]));
    assert!(!err.contains("--spill)"), "a spilled solve offers no --spill: {err}");
    usage_error(&["solve", "--match", "--max-disk", "1G"], &["--spill"]);
    // Stop after a few levels, damage a finished level's moves file: refused by name.
    let (code, _, err) = run(&with(&["--max-levels", "40", "--quiet"]));
    assert_eq!(code, 1, "{err}");
    let moves = files(dir.path())
        .into_iter()
        .find(|f| f.ends_with(".mov"))
        .expect("a moves file after 40 levels");
    let path = dir.path().join(&moves);
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
    let name = Path::new(&moves).file_name().unwrap().to_str().unwrap();
    usage_error(&with(&["--quiet"]), &[name]);
}

/// A full disk: a 256 KiB tmpfs, mounted in a user and mount namespace of its own (`unshare
/// -rm`), fills while the round graphs are written; the solve stops naming the file and the
/// bytes, and continues to the in-memory solver's table once the file system is grown.
#[test]
fn solve_match_spill_on_a_full_disk_stops_naming_what_it_needs_and_continues_once_there_is_room() {
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
    let board = "--rule pits_per_row=4 --rule seeds_per_pit=3 --rule final_four=stays";
    let memory = in_memory(dir.path(), &board.split(' ').collect::<Vec<_>>());
    let disk = dir.path().join("disk");
    std::fs::create_dir(&disk).unwrap();
    let solve = format!(
        "{} solve --match --all-states --spill --format csv --tables {} --out {d}/spilled {board} --quiet",
        env!("CARGO_BIN_EXE_rajapasu"),
        s(&disk)
    );
    let script = format!(
        "mount -t tmpfs -o size=256k tmpfs {m} && {solve} > {d}/first.out 2> {d}/first.err; echo $? > {d}/first.code; \
         mount -o remount,size=64m {m} && {solve} > {d}/second.out 2> {d}/second.err; echo $? > {d}/second.code",
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
            && err.contains("/matches/")
            && err.contains("run again"),
        "{err}"
    );
    assert_eq!(read("second.code").trim(), "0", "{}", read("second.err"));
    assert_eq!(states_csv(&dir.path().join("spilled")), memory);
}
