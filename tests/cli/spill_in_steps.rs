//! scripts/spill_in_steps.sh (a long spilled solve one level a run) and scripts/spill_figures.py
//! (its figures by level), run as a person runs them, on a small board.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::common::*;

const BOARD: [&str; 4] = [
    "--rule=pits_per_row=3",
    "--rule=seeds_per_pit=3",
    "--rule=final_four=stays",
    "--starter=both",
];

fn script(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts").join(name)
}

/// Runs the stepping script on `dir` with `args`; returns its exit code.
fn in_steps(dir: &Path, args: &[&str]) -> i32 {
    let status = Command::new("bash")
        .arg(script("spill_in_steps.sh"))
        .arg(dir)
        .args(args)
        .env("RAJAPASU", env!("CARGO_BIN_EXE_rajapasu"))
        .env("NICE", "0")
        .status()
        .expect("bash runs");
    status.code().unwrap_or(-1)
}

/// Every level and values file of a tables directory, by name, with its bytes.
fn level_files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for round in std::fs::read_dir(dir.join("rounds")).unwrap() {
        for f in std::fs::read_dir(round.unwrap().path()).unwrap() {
            let path = f.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.ends_with(".pos") || name.ends_with(".val") {
                files.insert(name, std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

#[test]
fn a_solve_in_steps_counts_then_solves_to_the_files_of_one_run() {
    let stepped = tempfile::tempdir().unwrap();
    let count: Vec<&str> = BOARD.iter().copied().chain(["--count-only"]).collect();
    assert_eq!(in_steps(stepped.path(), &count), 0);
    let log = std::fs::read_to_string(stepped.path().join("levels.log")).unwrap();
    let runs = log.matches("\n== ").count() + usize::from(log.starts_with("== "));
    // Levels 18 down to 0, a run each: the last one finishes the count rather than stopping.
    assert_eq!(runs, 19, "{log}");
    assert_eq!(log.matches("levels as asked").count(), 18, "{log}");
    assert!(log.contains("Maximum resident set size"), "time -v figures are logged:\n{log}");
    assert_eq!(in_steps(stepped.path(), &BOARD), 0);

    let once = tempfile::tempdir().unwrap();
    let tables = format!("--tables={}", s(once.path()));
    let whole: Value = serde_json::from_str(
        ok(&[&["solve", "--spill", "--json", &tables][..], &BOARD].concat()).trim(),
    )
    .unwrap();
    assert_eq!(level_files(stepped.path()), level_files(once.path()));
    let last = std::fs::read_to_string(stepped.path().join("levels.log.last")).unwrap();
    for (start, starter) in whole["starts"].as_array().unwrap().iter().zip(["south", "north"]) {
        let line = format!("{starter} starts: value {}", start["value"]);
        assert!(last.contains(&line), "lacks {line:?}:\n{last}");
    }

    // The figures by level: one row a level, its positions those of the solve, with the run
    // that enumerated it (the counting runs, from the top down) and the run that solved it
    // (from level 0 up): a run taken for its neighbour's level would leave an end row short.
    let out = Command::new("python3")
        .arg(script("spill_figures.py"))
        .arg(stepped.path())
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let levels = whole["level_positions"].as_array().unwrap();
    for (level, positions) in levels.iter().enumerate() {
        let head = format!("| {level} | {} |", positions.as_u64().unwrap());
        let row = text.lines().find(|l| l.starts_with(&head));
        let row = row.unwrap_or_else(|| panic!("lacks {head:?}:\n{text}"));
        let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
        for run in &cells[cells.len() - 2..] {
            let figures: Vec<&str> = run.split(", ").collect();
            assert_eq!(figures.len(), 3, "level {level}'s runs: {row}");
            assert!(figures[0].contains(':') && figures[2].parse::<f64>().unwrap() > 0.0, "{row}");
        }
    }
}

#[test]
fn a_solve_in_steps_stops_when_asked_and_reports_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("STOP"), "").unwrap();
    assert_eq!(in_steps(dir.path(), &BOARD), 0);
    assert!(!dir.path().join("rounds").exists(), "no level is solved once STOP is there");

    let bad = tempfile::tempdir().unwrap();
    let code = in_steps(bad.path(), &["--rule=pits_per_row=9"]);
    assert_eq!(code, 2, "a usage error ends the steps with its exit code");
    let last = std::fs::read_to_string(bad.path().join("levels.log.last")).unwrap();
    assert!(last.contains("pits_per_row"), "{last}");

    let figures = Command::new("python3")
        .arg(script("spill_figures.py"))
        .arg(bad.path())
        .output()
        .expect("python3 runs");
    assert_eq!(figures.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&figures.stderr).contains("not a tables directory"));
}

/// GROUP_NICE nices the session's autogroup (in a session of its own, by setsid, so that the
/// tests' own session is left as it is) and says so in the log; a bad value is refused.
#[test]
fn group_nice_sets_the_autogroup_of_the_scripts_session() {
    let run = |dir: &Path, nice: &str| {
        Command::new("setsid")
            .args(["--wait", "bash"])
            .arg(script("spill_in_steps.sh"))
            .arg(dir)
            .args(BOARD)
            .arg("--count-only")
            .env("RAJAPASU", env!("CARGO_BIN_EXE_rajapasu"))
            .env("NICE", "0")
            .env("GROUP_NICE", nice)
            .output()
            .expect("setsid runs")
    };
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), "17");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let log = std::fs::read_to_string(dir.path().join("levels.log")).unwrap();
    let first = log.lines().next().unwrap_or_default();
    if Path::new("/proc/self/autogroup").exists() {
        assert!(first.starts_with("== ") && first.ends_with(" nice 17"), "{first}");
        assert!(first.contains(" autogroup /autogroup-"), "{first}");
    } else {
        assert!(first.contains("GROUP_NICE ignored"), "{first}");
    }
    // The line is no run's: the figures still come one a level.
    assert_eq!(log.matches("levels as asked").count(), 18, "{log}");
    for bad in ["20", "-21", "low", "1.5"] {
        let dir = tempfile::tempdir().unwrap();
        let out = run(dir.path(), bad);
        assert_eq!(out.status.code(), Some(2), "GROUP_NICE {bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("GROUP_NICE is '{bad}'")) && err.contains("-20 to 19"),
            "{err}"
        );
        assert!(!dir.path().join("rounds").exists(), "nothing solved with GROUP_NICE {bad}");
    }
}

/// The value and best moves of a round start by the in-memory solver.
fn in_memory_start(open: &str, starter: &str) -> (i64, Value) {
    let out =
        ok(&[&["solve", "--json", "--open", open, "--starter", starter][..], &BOARD[..3]].concat());
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    (v["value"].as_i64().unwrap(), v["best_moves"].clone())
}

#[test]
fn every_configuration_of_a_match_is_solved_in_steps_and_answers_as_the_in_memory_solver() {
    let dir = tempfile::tempdir().unwrap();
    let rounds = |args: &[&str]| {
        Command::new("bash")
            .arg(script("spill_rounds.sh"))
            .arg(dir.path())
            .args(args)
            .env("RAJAPASU", env!("CARGO_BIN_EXE_rajapasu"))
            .env("NICE", "0")
            .output()
            .expect("bash runs")
    };
    for pits in ["three", "0", "10", "33"] {
        let bad = rounds(&[pits]);
        assert_eq!(bad.status.code(), Some(2), "PITS {pits}");
        let err = String::from_utf8_lossy(&bad.stderr);
        assert!(err.contains("PITS must be the pits a row") && err.contains(pits), "{err}");
    }
    for rule in [&["--rule", "pits_per_row=3"][..], &["--rule=pits_per_row=3"]] {
        let bad = rounds(&[&["4"][..], rule].concat());
        assert_eq!(bad.status.code(), Some(2), "{rule:?}");
        let err = String::from_utf8_lossy(&bad.stderr);
        assert!(err.contains("PITS 4 disagrees") && err.contains("pits_per_row=3"), "{err}");
    }

    // Stopped before the first configuration: nothing is solved, and the run says so by exit 0.
    std::fs::write(dir.path().join("STOP"), "").unwrap();
    assert!(rounds(&[&["3"][..], &BOARD[..3]].concat()).status.success());
    assert_eq!(std::fs::read_dir(dir.path().join("answers")).unwrap().count(), 0);
    std::fs::remove_file(dir.path().join("STOP")).unwrap();

    // SKIP leaves out what another run answers; a name that is no configuration is refused.
    let skipping = |skip: &str| {
        Command::new("bash")
            .arg(script("spill_rounds.sh"))
            .arg(dir.path())
            .args([&["3"][..], &BOARD[..3]].concat())
            .env("RAJAPASU", env!("CARGO_BIN_EXE_rajapasu"))
            .env("NICE", "0")
            .env("SKIP", skip)
            .output()
            .expect("bash runs")
    };
    let bad = skipping("3,3 4,3");
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("SKIP names '4,3'") && err.contains("3,3 2,3 3,2 1,3 3,1"), "{err}");
    let skipped = skipping("3,3 1,3 3,1 3,2");
    assert!(skipped.status.success(), "{}", String::from_utf8_lossy(&skipped.stderr));
    let answered = |name: &str| dir.path().join("answers").join(name).exists();
    assert!(answered("open-2-3.json") && !answered("open-3-3.json") && !answered("open-1-3.json"));

    let out = rounds(&[&["3"][..], &BOARD[..3]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut names: Vec<String> = std::fs::read_dir(dir.path().join("answers"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name != "ARGS")
        .collect();
    names.sort();
    let expected = ["1-3", "2-3", "3-1", "3-2", "3-3"].map(|o| format!("open-{o}.json"));
    assert_eq!(names, expected, "a side opens every pit in each configuration (R12)");
    for name in &names {
        let answer: Value =
            serde_json::from_slice(&std::fs::read(dir.path().join("answers").join(name)).unwrap())
                .unwrap();
        let open = name.trim_start_matches("open-").trim_end_matches(".json").replace('-', ",");
        let starts = answer["starts"].as_array().unwrap();
        assert_eq!(starts.len(), 2, "{name}: both starters");
        for start in starts {
            let starter = start["starter"].as_str().unwrap();
            let (value, best) = in_memory_start(&open, starter);
            assert_eq!(start["value"].as_i64().unwrap(), value, "{name} {starter}");
            assert_eq!(start["best_moves"], best, "{name} {starter}");
        }
    }
    answers_table(dir.path());
    // Run again: every answer is there, so nothing is solved again, whatever the bounds.
    let before = std::fs::read_to_string(dir.path().join("levels.log")).unwrap();
    let bounded = [&["3"][..], &BOARD[..3], &["--max-memory", "1G", "--max-disk=2G"]].concat();
    let again = rounds(&bounded);
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    assert_eq!(std::fs::read_to_string(dir.path().join("levels.log")).unwrap(), before);
    // Other rules: the answers there are not theirs.
    let other = rounds(&[&["3"][..], &BOARD[..2], &["--rule=final_four=owner"]].concat());
    assert_eq!(other.status.code(), Some(2));
    let err = String::from_utf8_lossy(&other.stderr);
    assert!(err.contains("final_four=stays") && err.contains("final_four=owner"), "{err}");
    assert_eq!(std::fs::read_to_string(dir.path().join("levels.log")).unwrap(), before);
}

/// A configuration that fails stops the run naming it and its output, and leaves no answer.
#[test]
fn a_failed_configuration_stops_the_rounds_naming_it() {
    let board = ["--rule=pits_per_row=2", "--rule=seeds_per_pit=2"];
    let rounds = |dir: &Path, rajapasu: &Path| {
        Command::new("bash")
            .arg(script("spill_rounds.sh"))
            .arg(dir)
            .arg("2")
            .args(board)
            .env("RAJAPASU", rajapasu)
            .env("NICE", "0")
            .output()
            .expect("bash runs")
    };
    // Its levels: a bound no level fits in.
    let dir = tempfile::tempdir().unwrap();
    let real = Path::new(env!("CARGO_BIN_EXE_rajapasu"));
    let levels = Command::new("bash")
        .arg(script("spill_rounds.sh"))
        .arg(dir.path())
        .args(["2", "--max-memory", "1"])
        .args(board)
        .env("RAJAPASU", real)
        .env("NICE", "0")
        .output()
        .expect("bash runs");
    assert_ne!(levels.status.code(), Some(0));
    let err = String::from_utf8_lossy(&levels.stderr);
    assert!(err.contains("configuration 2,2 failed") && err.contains("levels.log.last"), "{err}");
    let last = std::fs::read_to_string(dir.path().join("levels.log.last")).unwrap();
    assert!(last.contains("max-memory"), "{last}");

    // Its answer: a binary that fails once asked for it, having written part of it.
    let fake = dir.path().join("failing-rajapasu");
    let wrapper = format!(
        "#!/bin/sh\ncase \" $* \" in *\" --json \"*) echo '{{\"part'; echo broken >&2; \
         exit 3;; esac\nexec '{}' \"$@\"\n",
        real.display()
    );
    std::fs::write(&fake, wrapper).unwrap();
    let answering = tempfile::tempdir().unwrap();
    Command::new("chmod").arg("+x").arg(&fake).status().unwrap();
    let out = rounds(answering.path(), &fake);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("configuration 2,2 failed") && err.contains("answering"), "{err}");
    let last = std::fs::read_to_string(answering.path().join("levels.log.last")).unwrap();
    assert!(last.contains("broken"), "{last}");
    let left: Vec<_> = std::fs::read_dir(answering.path().join("answers"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["ARGS"], "no answer, nor a part of one");
    // Run again with the binary that works: it answers every configuration.
    let done = rounds(answering.path(), real);
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    assert!(answering.path().join("answers/open-1-2.json").exists());
}

/// spill_answers.py into an OUT that has rows: those of configurations DIR does not answer are
/// kept as they were, those DIR answers are its own; kept rows of other rules are refused.
fn kept_rows(dir: &Path, out: &Path, csv: &str) {
    let run = |dir: &Path| {
        Command::new("python3")
            .arg(script("spill_answers.py"))
            .arg(dir)
            .arg("--out")
            .arg(out)
            .output()
            .expect("python3 runs")
    };
    let partial = tempfile::tempdir().unwrap();
    std::fs::create_dir(partial.path().join("answers")).unwrap();
    let answer = std::fs::read(dir.join("answers/open-3-3.json")).unwrap();
    std::fs::write(partial.path().join("answers/open-3-3.json"), &answer).unwrap();
    let done = run(partial.path());
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    assert_eq!(std::fs::read_to_string(out.join("rounds.csv")).unwrap(), csv);

    let hash = csv.lines().nth(1).unwrap().rsplit(',').next().unwrap();
    let other_rules = csv.replace(hash, "0123abcd0123");
    std::fs::write(out.join("rounds.csv"), &other_rules).unwrap();
    let refused = run(partial.path());
    assert_eq!(refused.status.code(), Some(2));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("rounds.csv") && err.contains("'rules_hash'"), "{err}");
    let mut lines: Vec<&str> = csv.lines().collect();
    let damaged = lines[3].replacen(',', ",x", 1);
    lines[3] = &damaged;
    std::fs::write(out.join("rounds.csv"), lines.join("\n") + "\n").unwrap();
    let refused = run(partial.path());
    assert_eq!(refused.status.code(), Some(2));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("rounds.csv: line 4, field 'open_north'"), "{err}");
    std::fs::write(out.join("rounds.csv"), csv).unwrap();
}

/// scripts/spill_answers.py over the answers: a row a configuration and starter, mirrored
/// configurations of the same value for the mirrored starter (the rules do not favour a side);
/// a damaged answer refused naming its field.
fn answers_table(dir: &Path) {
    let out = tempfile::tempdir().unwrap();
    let run = |dir: &Path| {
        Command::new("python3")
            .arg(script("spill_answers.py"))
            .arg(dir)
            .arg("--out")
            .arg(out.path())
            .output()
            .expect("python3 runs")
    };
    let done = run(dir);
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    let csv = std::fs::read_to_string(out.path().join("rounds.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 10, "5 configurations, 2 starters:\n{csv}");
    let value = |s: &str, n: &str, starter: &str| {
        let row = rows
            .iter()
            .find(|r| {
                r[col("open_south")] == s
                    && r[col("open_north")] == n
                    && r[col("starter")] == starter
            })
            .unwrap_or_else(|| panic!("no row {s},{n} {starter}:\n{csv}"));
        row[col("value")].parse::<i64>().unwrap()
    };
    for (s, n) in [("3", "3"), ("2", "3"), ("1", "3")] {
        assert_eq!(value(s, n, "south"), value(n, s, "north"), "{s},{n} mirrored");
        assert_eq!(value(s, n, "north"), value(n, s, "south"), "{s},{n} mirrored");
    }
    let md = std::fs::read_to_string(out.path().join("rounds.md")).unwrap();
    assert_eq!(md.lines().count(), 12, "{md}");
    let copied = std::fs::read(out.path().join("answers/open-2-3.json")).unwrap();
    assert_eq!(copied, std::fs::read(dir.join("answers/open-2-3.json")).unwrap());
    kept_rows(dir, out.path(), &csv);

    let damaged = tempfile::tempdir().unwrap();
    std::fs::create_dir(damaged.path().join("answers")).unwrap();
    let text = std::fs::read_to_string(dir.join("answers/open-3-3.json")).unwrap();
    let mut answer: Value = serde_json::from_str(&text).unwrap();
    answer["starts"][0]["value"] = Value::from("ten");
    std::fs::write(damaged.path().join("answers/open-3-3.json"), answer.to_string()).unwrap();
    let refused = run(damaged.path());
    assert_eq!(refused.status.code(), Some(2));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("open-3-3.json") && err.contains("'value'"), "{err}");

    // Each damage refused naming the file and the field.
    let sound: Value = serde_json::from_str(&text).unwrap();
    type Damage = fn(&mut Value);
    let damages: [(&str, Damage); 4] = [
        ("'levels' holds", |a| a["levels"][0] = Value::from(7)),
        ("'levels[1].solve_seconds' is true", |a| {
            a["levels"][1]["solve_seconds"] = Value::from(true)
        }),
        ("'levels[0].enumerate_seconds' is \"1.5\"", |a| {
            a["levels"][0]["enumerate_seconds"] = Value::from("1.5")
        }),
        ("'rules_hash'", |a| a["rules_hash"] = Value::from("0123abcd")),
    ];
    for (said, damage) in damages {
        let damaged = tempfile::tempdir().unwrap();
        std::fs::create_dir(damaged.path().join("answers")).unwrap();
        let mut answer = sound.clone();
        damage(&mut answer);
        std::fs::write(damaged.path().join("answers/open-3-3.json"), answer.to_string()).unwrap();
        let other = std::fs::read(dir.join("answers/open-2-3.json")).unwrap();
        std::fs::write(damaged.path().join("answers/open-2-3.json"), other).unwrap();
        let refused = run(damaged.path());
        assert_eq!(refused.status.code(), Some(2), "{said}");
        let err = String::from_utf8_lossy(&refused.stderr);
        assert!(err.contains("open-3-3.json") && err.contains(said), "{said}: {err}");
    }

    let empty = tempfile::tempdir().unwrap();
    std::fs::create_dir(empty.path().join("answers")).unwrap();
    let none = run(empty.path());
    assert_eq!(none.status.code(), Some(2));
    let err = String::from_utf8_lossy(&none.stderr);
    assert!(err.contains("no answers in") && err.contains("answers"), "{err}");

    // OUT a file, not a directory: refused, saying so.
    let blocked = out.path().join("rounds.csv");
    let unwritable = Command::new("python3")
        .arg(script("spill_answers.py"))
        .arg(dir)
        .arg("--out")
        .arg(&blocked)
        .output()
        .expect("python3 runs");
    assert_eq!(unwritable.status.code(), Some(2));
    let err = String::from_utf8_lossy(&unwritable.stderr);
    assert!(err.contains("cannot write") && err.contains("rounds.csv"), "{err}");
}
