//! `rajapasu solve-cluster`: the match table (R17) solved as steps of tasks over a directory,
//! each task a process, gives `solve --match`'s table file byte for byte outside its `stats`
//! (timings, the graphs' sizes), under every reading with every level split; tasks run twice,
//! a driver killed, or a damaged bucket file change nothing but a refusal naming the file.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use crate::common::*;
use serde_json::Value;

fn board(p: u8, s: u8, extra: &[&str]) -> Vec<String> {
    let mut a = vec![format!("--rule=pits_per_row={p}"), format!("--rule=seeds_per_pit={s}")];
    a.extend(extra.iter().map(|e| format!("--rule={e}")));
    a
}

fn with<'a>(head: &[&'a str], rules: &'a [String]) -> Vec<&'a str> {
    let mut a = head.to_vec();
    a.extend(rules.iter().map(String::as_str));
    a
}

/// A table file without its `stats` object: what two solves of the same rules share.
fn values(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let at = text.find(",\"stats\":{").unwrap_or_else(|| panic!("{}: no stats", path.display()));
    let end = at + text[at..].find('}').unwrap() + 1;
    assert!(!text[at + 10..end].contains('{'), "the stats hold no object");
    format!("{}{}", &text[..at], &text[end..])
}

/// `solve --match`'s table file of `rules`.
fn one_machine(dir: &Path, rules: &[String]) -> PathBuf {
    let tables = dir.join("one-machine");
    ok(&with(&["solve", "--match", "--quiet", "--json", "--tables", s(&tables)], rules));
    let found = files(&tables);
    assert_eq!(found.len(), 1, "{found:?}");
    tables.join(&found[0])
}

/// Runs the local driver to the end; its JSON answer.
fn drive(dir: &Path, extra: &[&str]) -> Value {
    let mut a = vec!["solve-cluster", "run", s(dir), "--json"];
    a.extend_from_slice(extra);
    serde_json::from_str(ok(&a).trim()).unwrap()
}

fn assert_same_table(cluster: &Value, one: &Path, what: &str) {
    let table = PathBuf::from(cluster["table"].as_str().unwrap());
    assert_eq!(table.file_name(), one.file_name(), "{what}");
    assert_eq!(values(&table), values(one), "{what}: the table differs from solve --match's");
}

#[test]
fn solve_cluster_gives_solve_match_s_table_under_every_reading_with_every_level_split() {
    let readings: [&[&str]; 6] = [
        &[],
        &["final_four=stays"],
        &["skip_origin=true"],
        &["pussa_chain=true"],
        &["next_starter=round_winner"],
        &["endless=stop", "final_four=stays"],
    ];
    // Two to four buckets: each level of more than one position split in two or more.
    for (i, extra) in readings.iter().enumerate() {
        let (p, s_, buckets) = (3, 2, 2 + i as u32 % 3);
        let what = format!("{p}x{s_} {extra:?}");
        let dir = tempfile::tempdir().unwrap();
        let rules = board(p, s_, extra);
        let one = one_machine(dir.path(), &rules);
        let work = dir.path().join("cluster");
        let b = buckets.to_string();
        let got = drive(&work, &with(&["--buckets", &b], &rules));
        assert_same_table(&got, &one, &what);
        let f = &got["figures"];
        let (level, bucket) =
            (f["largest_level"].as_u64().unwrap(), f["largest_bucket"].as_u64().unwrap());
        assert!(level >= 4 && bucket <= level.div_ceil(buckets as u64), "{what}: {f}");
        assert!(
            f["rounds"].as_u64() > f["levels"].as_u64(),
            "{what}: levels took several rounds: {f}"
        );
        assert!(f["most_rounds"].as_u64() >= Some(2), "{what}: {f}");
        // Done: the graphs and masks are gone, the plan, state and table stay.
        let left = files(&work);
        assert!(left.iter().all(|f| !f.contains('/')), "{what}: {left:?}");
        // Run again: nothing to do, the same table.
        assert_same_table(&drive(&work, &[]), &one, &what);
    }
}

/// The tasks of every step of `dir` up to (not including) the first level step of `level`.
fn steps_to_level(dir: &Path, level: u64) {
    loop {
        let state: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("state.json")).unwrap())
                .unwrap();
        if state["step"] == "level" && state["level"].as_u64() == Some(level) {
            return;
        }
        let n: u32 = ok(&["solve-cluster", "next", s(dir)]).trim().parse().unwrap();
        assert!(n > 0, "the solve ended before level {level}");
        for i in 0..n {
            ok(&["solve-cluster", "task", s(dir), &i.to_string()]);
        }
        ok(&["solve-cluster", "advance", s(dir)]);
    }
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut all: Vec<_> = files(dir)
        .into_iter()
        .map(|f| {
            let bytes = std::fs::read(dir.join(&f)).unwrap();
            (f, bytes)
        })
        .collect();
    all.sort();
    all
}

#[test]
fn solve_cluster_tasks_run_twice_and_a_driver_killed_give_the_same_files_and_table() {
    let dir = tempfile::tempdir().unwrap();
    let rules = board(3, 2, &["final_four=stays"]);
    let one = one_machine(dir.path(), &rules);
    let work = dir.path().join("cluster");
    ok(&with(&["solve-cluster", "plan", s(&work), "--buckets", "3"], &rules));
    steps_to_level(&work, 2);
    for i in 0..3 {
        ok(&["solve-cluster", "task", s(&work), &i.to_string()]);
    }
    let before = snapshot(&work);
    let names: Vec<&String> = before.iter().map(|(f, _)| f).collect();
    assert!(names.iter().any(|f| f.ends_with("L002-b0002-r000.msk")), "{names:?}");
    // Run twice: done already, the same files; its marker gone, it works again to the same bytes.
    ok(&["solve-cluster", "task", s(&work), "1"]);
    assert!(snapshot(&work) == before, "a task run twice changed the files");
    let marker = names.iter().find(|f| f.ends_with("L002-r000-t0001.done")).expect("a marker");
    std::fs::remove_file(work.join(marker)).unwrap();
    ok(&["solve-cluster", "task", s(&work), "1"]);
    assert!(snapshot(&work) == before, "a task run again changed the files");
    // The driver killed at several points, then run again: the same table. Its last task or
    // barrier, orphaned, finishes on its own before the driver is run again, as on a machine
    // where a driver is started again only once its work is over.
    for wait in [300, 900, 1500] {
        let mut child = bin()
            .args(["solve-cluster", "run", s(&work)])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(wait));
        let _ = child.kill();
        child.wait().unwrap();
        wait_for_group(child.id());
    }
    assert_same_table(&drive(&work, &[]), &one, "killed and run again");
}

/// Waits until no process is left running in the process group `group` (at most two
/// minutes). Exited ones may stay zombies where nothing reaps orphans, so each member's state
/// is read from /proc.
fn wait_for_group(group: u32) {
    for _ in 0..1200 {
        if !group_runs(group) {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("the processes of group {group} still run after two minutes");
}

/// Whether a process of group `group` runs (is in /proc and not a zombie).
fn group_runs(group: u32) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else { return false };
    entries.flatten().any(|entry| {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { return false };
        // pid (comm) state ppid pgrp ...: the fields after the command's closing parenthesis.
        let Some((_, rest)) = stat.rsplit_once(')') else { return false };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        fields.len() > 2 && fields[2] == group.to_string() && fields[0] != "Z" && fields[0] != "X"
    })
}

#[test]
fn solve_cluster_refuses_a_damaged_bucket_file_naming_it_and_its_task_writes_it_again() {
    let dir = tempfile::tempdir().unwrap();
    let rules = board(3, 2, &[]);
    let one = one_machine(dir.path(), &rules);
    let work = dir.path().join("cluster");
    ok(&with(&["solve-cluster", "plan", s(&work), "--buckets", "3"], &rules));
    steps_to_level(&work, 3);
    for i in 0..3 {
        ok(&["solve-cluster", "task", s(&work), &i.to_string()]);
    }
    let name = files(&work).into_iter().find(|f| f.ends_with("L003-b0001-r000.msk")).unwrap();
    let path = work.join(&name);
    let good = std::fs::read(&path).unwrap();
    let mut bad = good.clone();
    let at = bad.len() / 2;
    bad[at] ^= 0x10;
    std::fs::write(&path, &bad).unwrap();
    let err = usage_error(&["solve-cluster", "advance", s(&work)], &[s(&path), "SHA-256"]);
    assert!(!err.contains("panicked"), "{err}");
    // The barrier stayed; the task sees its file unsound and writes it again.
    ok(&["solve-cluster", "task", s(&work), "1"]);
    assert_eq!(std::fs::read(&path).unwrap(), good);
    assert_same_table(&drive(&work, &[]), &one, "after the damage");
}

#[test]
fn solve_cluster_bad_input_exits_2_naming_what() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("cluster");
    usage_error(&["solve-cluster", "next", s(&work)], &["no cluster solve is planned", s(&work)]);
    let rules = board(2, 2, &[]);
    ok(&with(&["solve-cluster", "plan", s(&work), "--buckets", "2"], &rules));
    usage_error(
        &with(&["solve-cluster", "plan", s(&work), "--buckets", "3"], &rules),
        &["plan.json", "another bucket count"],
    );
    usage_error(&["solve-cluster", "task", s(&work), "7"], &["task 7", "graphs"]);
    let (code, _, err) = bin()
        .args(["solve-cluster", "task", s(&work)])
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("SLURM_PROCID")
        .output()
        .map(|o| (o.status.code(), o.stdout, String::from_utf8_lossy(&o.stderr).into_owned()))
        .unwrap();
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("SLURM_ARRAY_TASK_ID"), "{err}");
    usage_error(
        &["solve-cluster", "advance", s(&work)],
        &["task 0 of step graphs has not finished"],
    );
    usage_error(
        &["solve-cluster", "plan", s(&dir.path().join("x")), "--buckets", "0"],
        &["--buckets"],
    );
}
