//! The cluster solve against the in-memory solver (checked itself against an independent fixed
//! point in `match_tests`): the same table under every reading with every level split, and the
//! same files after tasks run twice, killed, or given a damaged bucket file.

use super::*;
use crate::exact::matches::match_spill_tests::assert_same;
use crate::exact::matches::match_tests::table;
use crate::exact::test_rules::rules;
use crate::exact::test_rules::READINGS;

/// Runs every step's tasks in turn, each task `repeat` times, to the end.
fn drive(solve: &ClusterSolve, repeat: usize) -> MatchTable {
    loop {
        let step = solve.step().unwrap();
        if step == Step::Done {
            return solve.table().unwrap();
        }
        for t in 0..solve.tasks(step) {
            for _ in 0..repeat {
                solve.task(t).unwrap();
            }
        }
        assert_ne!(solve.advance().unwrap(), step, "{step} moved on");
    }
}

#[test]
fn the_cluster_table_is_the_in_memory_one_under_every_reading_with_every_level_split() {
    let dir = tempfile::tempdir().unwrap();
    for (i, extra) in READINGS.iter().enumerate() {
        for (p, s) in [(2, 2), (3, 2), (2, 3)] {
            let r = rules(p, s, extra);
            let what = format!("{p}x{s} {extra:?}");
            let sub = dir.path().join(format!("{i}-{p}-{s}"));
            let solve = ClusterSolve::plan(&sub, r, 3).unwrap();
            let got = drive(&solve, 1);
            let memory = table(r);
            assert_same(&memory, &got, &what);
            assert_eq!(got.stats().attractors, memory.stats().attractors, "{what}");
            let f = solve.figures().unwrap();
            assert!(f.largest_bucket * 2 <= f.largest_level + 2, "{what}: {f:?}");
            assert!(f.rounds > f.levels && f.most_rounds >= 2, "{what}: {f:?}");
            let left: Vec<_> =
                std::fs::read_dir(&sub).unwrap().map(|e| e.unwrap().file_name()).collect();
            assert!(!left.iter().any(|n| n == "graphs"), "{what}: {left:?}");
        }
    }
}

#[test]
fn tasks_run_twice_or_a_bucket_count_of_one_give_the_same_table() {
    let dir = tempfile::tempdir().unwrap();
    let r = rules(3, 2, &["final_four=stays"]);
    let twice = drive(&ClusterSolve::plan(&dir.path().join("twice"), r, 4).unwrap(), 2);
    let one = drive(&ClusterSolve::plan(&dir.path().join("one"), r, 1).unwrap(), 1);
    assert_same(&table(r), &twice, "twice");
    assert_same(&table(r), &one, "one bucket");
}

#[test]
fn a_plan_of_other_rules_or_buckets_is_refused_and_the_same_plan_continues() {
    let dir = tempfile::tempdir().unwrap();
    let r = rules(2, 2, &[]);
    ClusterSolve::plan(dir.path(), r, 2).unwrap();
    let e = ClusterSolve::plan(dir.path(), r, 3).err().unwrap().to_string();
    assert!(e.contains("plan.json") && e.contains("bucket"), "{e}");
    let e = ClusterSolve::plan(dir.path(), rules(2, 3, &[]), 2).err().unwrap().to_string();
    assert!(e.contains("other rules"), "{e}");
    assert!(ClusterSolve::plan(dir.path(), r, 0).is_err());
    let solve = ClusterSolve::plan(dir.path(), r, 2).unwrap();
    assert_eq!(solve.step().unwrap(), Step::Graphs);
    let e = solve.task(99).err().unwrap().to_string();
    assert!(e.contains("task 99") && e.contains("graphs"), "{e}");
    let e = solve.advance().err().unwrap().to_string();
    assert!(e.contains("task 0 of step graphs has not finished"), "{e}");
}

/// A damaged bucket file is refused by the barrier naming it; once removed, its task run again
/// writes it as it was, and the solve ends at the same table.
#[test]
fn a_damaged_bucket_file_is_refused_naming_it_and_its_task_rewrites_it() {
    let dir = tempfile::tempdir().unwrap();
    let r = rules(3, 2, &[]);
    let solve = ClusterSolve::plan(dir.path(), r, 3).unwrap();
    for t in 0..solve.tasks(Step::Graphs) {
        solve.task(t).unwrap();
    }
    let step = solve.advance().unwrap();
    // Level 0 of the first iteration, up to its last round, then the next level's first.
    let mut step = step;
    while !matches!(step, Step::Level { level: 2, .. }) {
        for t in 0..solve.tasks(step) {
            solve.task(t).unwrap();
        }
        step = solve.advance().unwrap();
    }
    for t in 0..solve.tasks(step) {
        solve.task(t).unwrap();
    }
    let Step::Level { iteration, level, round } = step else { unreachable!() };
    let path = solve.masks_file(iteration, 0, level as usize, 1, Some(round));
    let good = std::fs::read(&path).unwrap();
    let mut bad = good.clone();
    let at = bad.len() - 40;
    bad[at] ^= 1;
    std::fs::write(&path, &bad).unwrap();
    let e = solve.advance().err().unwrap().to_string();
    assert!(e.contains(&path.display().to_string()) && e.contains("SHA-256"), "{e}");
    assert_eq!(solve.step().unwrap(), step, "the barrier stayed");
    // The task sees its file unsound and writes it again, the same bytes.
    solve.task(1).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), good);
    std::fs::remove_file(&path).unwrap();
    let e = solve.advance().err().unwrap().to_string();
    assert!(e.contains(&path.display().to_string()) && e.contains("missing"), "{e}");
    solve.task(1).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), good);
    assert_same(&table(r), &drive(&solve, 1), "after the damage");
}

/// A barrier killed while renaming a level's last round to its final masks (one bucket file
/// renamed, the others not), run again, finishes the renaming; the solve ends at the same table.
#[test]
fn a_barrier_killed_while_renaming_a_level_continues_to_the_same_table() {
    let dir = tempfile::tempdir().unwrap();
    let r = rules(3, 2, &["next_starter=round_winner"]);
    let solve = ClusterSolve::plan(dir.path(), r, 3).unwrap();
    let mut renamed = 0;
    loop {
        let step = solve.step().unwrap();
        if step == Step::Done {
            break;
        }
        for t in 0..solve.tasks(step) {
            solve.task(t).unwrap();
        }
        if let Step::Level { iteration: k, level: n, round } = step {
            let same = (0..3).all(|b| {
                std::fs::read_to_string(solve.marker(k, n, round, b)).unwrap().trim() == "false"
            });
            let path = solve.masks_file(k, 0, n as usize, 1, Some(round));
            if same && path.exists() {
                std::fs::rename(&path, solve.masks_file(k, 0, n as usize, 1, None)).unwrap();
                renamed += 1;
            }
        }
        solve.advance().unwrap();
    }
    assert!(renamed > 10, "{renamed} levels interrupted");
    assert_same(&table(r), &solve.table().unwrap(), "renaming interrupted");
}

/// A barrier killed after recording an iteration into the checkpoint and before saving the
/// next step (its state as before), run again with its tasks, records nothing twice.
#[test]
fn a_barrier_killed_after_recording_an_iteration_records_it_once() {
    let dir = tempfile::tempdir().unwrap();
    let r = rules(3, 2, &["final_four=stays"]);
    let solve = ClusterSolve::plan(dir.path(), r, 2).unwrap();
    let state = dir.path().join(STATE);
    let mut replayed = 0;
    loop {
        let step = solve.step().unwrap();
        if step == Step::Done {
            break;
        }
        for t in 0..solve.tasks(step) {
            solve.task(t).unwrap();
        }
        let before = std::fs::read(&state).unwrap();
        let next = solve.advance().unwrap();
        let iteration = |s: Step| match s {
            Step::Level { iteration, .. } => Some(iteration),
            _ => None,
        };
        if iteration(step).is_some()
            && iteration(next).is_some()
            && iteration(next) != iteration(step)
        {
            std::fs::write(&state, &before).unwrap();
            for t in 0..solve.tasks(step) {
                solve.task(t).unwrap();
            }
            assert_eq!(solve.advance().unwrap(), next, "the same next step");
            replayed += 1;
        }
    }
    assert!(replayed >= 2, "{replayed} iterations replayed");
    assert_same(&table(r), &solve.table().unwrap(), "an iteration's barrier replayed");
}
