//! The solver bounded by disk against the in-memory solver: the same values and best moves at
//! every position, under a memory bound the in-memory solver cannot meet; resumed after
//! interruptions to the same files; damaged files refused by name.

use std::path::{Path, PathBuf};

use crate::exact::files::bucket_state::Tuning;
use crate::exact::*;

use crate::exact::test_rules::{golden_rounds, rules, unbounded, READINGS};

fn roots(r: Ruleset, open: (u8, u8), starters: &[Side]) -> Vec<Position> {
    starters.iter().map(|&s| round_start(r, BySide::new(open.0, open.1), s)).collect()
}

fn in_memory(roots: &[Position]) -> Solution {
    Solution::solve(
        roots,
        SolveOptions { max_memory: 1 << 30, keep_layers: false, max_positions: u64::MAX },
        &mut |_| {},
    )
    .unwrap()
}

fn spill(roots: &[Position], dir: &Path, opts: SpillOptions) -> Result<SpilledRound, SpillError> {
    SpilledRound::solve(roots, dir, opts, &mut |_| {})
}

/// Every position of the in-memory solution has the same value and best moves in the spilled
/// one, which has no other positions, level by level.
fn assert_same(memory: &Solution, spilled: &SpilledRound, what: &str) {
    let mut count = 0u64;
    memory.for_each(|pos, v| {
        assert_eq!(spilled.value(pos), Some(v), "{what}: {pos:?}");
        assert_eq!(spilled.best_moves(pos).unwrap(), memory.best_moves(pos), "{what}: {pos:?}");
        count += 1;
    });
    assert_eq!(spilled.positions(), count, "{what}");
    let by_level: Vec<u64> = spilled.figures().iter().map(LevelFigures::count).collect();
    assert_eq!(by_level, memory.stats().level_positions, "{what}");
    let quiet: u64 = spilled.figures().iter().map(|f| f.quiet_moves).sum();
    let exits: u64 = spilled.figures().iter().map(|f| f.exits).sum();
    assert_eq!((quiet, exits), (memory.stats().quiet_moves, memory.stats().exits), "{what}");
    let mut seen = 0u64;
    spilled.for_each(|pos, v| {
        assert_eq!(v, memory.value(pos), "{what}: {pos:?}");
        seen += 1;
    });
    assert_eq!(seen, count, "{what}");
}

#[test]
fn spilled_values_are_the_in_memory_values_on_every_small_board_and_reading() {
    let dir = tempfile::tempdir().unwrap();
    for extra in READINGS {
        for (p, s, opens) in [
            (2u8, 3u8, vec![(2u8, 2u8), (1, 2)]),
            (3, 2, vec![(3, 3), (2, 3), (3, 1)]),
            (3, 3, vec![(3, 3)]),
            (4, 2, vec![(4, 4), (3, 4)]),
        ] {
            let r = rules(p, s, extra);
            for open in opens {
                for starters in [&[Side::South][..], &[Side::North], &Side::ALL] {
                    let what = format!("{p}x{s} {extra:?} open {open:?} {starters:?}");
                    let rs = roots(r, open, starters);
                    let memory = in_memory(&rs);
                    let sub: PathBuf =
                        dir.path().join(what.replace([' ', '"', '[', ']', '(', ')', ','], "_"));
                    let spilled = spill(&rs, &sub, unbounded()).unwrap();
                    assert_same(&memory, &spilled, &what);
                }
            }
        }
    }
}

#[test]
fn the_golden_values_come_out_of_the_spilled_solver() {
    let dir = tempfile::tempdir().unwrap();
    for (i, g) in golden_rounds().into_iter().enumerate() {
        let rs = roots(g.rules, g.open, &[g.starter]);
        let spilled = spill(&rs, &dir.path().join(i.to_string()), unbounded()).unwrap();
        let best: Vec<u64> =
            spilled.best_moves(&rs[0]).unwrap().iter().map(|p| p.index() as u64).collect();
        let case = &g.case;
        assert_eq!(spilled.value(&rs[0]), Some(g.value), "{case}");
        assert_eq!(best, g.best_moves, "{case}");
        assert_eq!(spilled.positions(), g.positions, "{case}");
    }
}

/// A board whose whole solution does not fit a bound that its largest level does: the
/// in-memory solver refuses it, the spilled one solves it within the bound (its buffers scale
/// with the bound), to the same values.
#[test]
fn a_memory_bound_too_small_for_the_round_makes_the_solver_spill() {
    let dir = tempfile::tempdir().unwrap();
    for extra in [&[][..], &["final_four=stays"]] {
        let rs = roots(rules(5, 4, extra), (5, 5), &Side::ALL);
        let memory = in_memory(&rs);
        let bound = memory.stats().peak_bytes * 3 / 4;
        let refused = Solution::solve(
            &rs,
            SolveOptions { max_memory: bound, keep_layers: false, max_positions: u64::MAX },
            &mut |_| {},
        );
        assert!(
            matches!(refused, Err(SolveError::MemoryLimit { .. })),
            "{extra:?}: the in-memory solver fits {bound} bytes"
        );
        let sub = dir.path().join(extra.len().to_string());
        let spilled = spill(&rs, &sub, SpillOptions { max_memory: bound, ..unbounded() }).unwrap();
        assert!(
            spilled.peak_bytes() <= bound && spilled.peak_bytes() > 0,
            "{extra:?}: {} > {bound}",
            spilled.peak_bytes()
        );
        // What was kept on disk: every level's positions and values, no scratch file of moves.
        for n in 0..spilled.figures().len() {
            assert!(
                sub.join(format!("level-{n:03}.pos")).is_file()
                    && sub.join(format!("level-{n:03}.val")).is_file()
            );
        }
        for entry in std::fs::read_dir(&sub).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            assert!(!name.contains("succ-"), "{extra:?}: {name} left in the directory");
        }
        assert_same(&memory, &spilled, &format!("{extra:?}"));
    }
}

/// The bytes of every level file of a directory, by name.
fn level_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "pos" || x == "val"))
        .map(|p| {
            (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap())
        })
        .collect();
    v.sort();
    v
}

#[test]
fn a_solve_stopped_at_every_level_and_damaged_between_runs_resumes_to_the_same_files() {
    let dir = tempfile::tempdir().unwrap();
    let rs = roots(rules(4, 2, &["final_four=stays"]), (4, 4), &Side::ALL);
    let whole = dir.path().join("whole");
    let reference = spill(&rs, &whole, unbounded()).unwrap();
    let levels = reference.figures().len() as u32;
    let parts = dir.path().join("parts");
    let mut runs = 0;
    let mut rng = 7u64;
    loop {
        runs += 1;
        assert!(runs <= 2 * levels + 2, "no progress");
        match spill(&rs, &parts, SpillOptions { max_levels: Some(1), ..unbounded() }) {
            Ok(done) => {
                assert_same(&in_memory(&rs), &done, "resumed");
                break;
            }
            Err(SpillError::Interrupted { levels: 1, .. }) => {}
            Err(e) => panic!("{e}"),
        }
        // A writer killed mid-level: bytes appended to a pending file after the state was
        // saved, and a temporary file left behind.
        rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let pending: Vec<PathBuf> = std::fs::read_dir(&parts)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "keys"))
            .collect();
        if let Some(p) = pending.get((rng >> 33) as usize % pending.len().max(1)) {
            let mut bytes = std::fs::read(p).unwrap();
            bytes.extend_from_slice(&[0xAB; 13]);
            std::fs::write(p, bytes).unwrap();
        }
    }
    // One finished level a run: each level enumerated, then solved.
    assert_eq!(runs, 2 * levels);
    assert_eq!(level_files(&parts), level_files(&whole));
}

#[test]
fn a_truncated_or_altered_level_file_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let rs = roots(rules(3, 3, &["final_four=stays"]), (3, 3), &Side::ALL);
    spill(&rs, dir.path(), unbounded()).unwrap();
    let pos = dir.path().join("level-005.pos");
    let val = dir.path().join("level-004.val");
    let original = (std::fs::read(&pos).unwrap(), std::fs::read(&val).unwrap());
    // Truncated by a byte, then by half.
    for keep in [original.0.len() - 1, original.0.len() / 2] {
        std::fs::write(&pos, &original.0[..keep]).unwrap();
        let e = spill(&rs, dir.path(), unbounded()).err().expect("refused").to_string();
        assert!(e.contains("level-005.pos") && e.contains("SHA-256"), "{e}");
    }
    // Two files damaged: their checksums are read on both cores, and the lower level named.
    let also_damaged = |higher: &str, named: &str| {
        let higher = dir.path().join(higher);
        let kept = std::fs::read(&higher).unwrap();
        std::fs::write(&higher, &kept[..kept.len() - 1]).unwrap();
        let e = spill(&rs, dir.path(), unbounded()).err().expect("refused").to_string();
        let name = higher.file_name().unwrap().to_string_lossy().into_owned();
        assert!(e.contains(named) && !e.contains(&name), "{e}");
        std::fs::write(&higher, kept).unwrap();
    };
    also_damaged("level-007.pos", "level-005.pos");
    std::fs::write(&pos, &original.0).unwrap();
    // One value altered.
    let mut altered = original.1.clone();
    let at = altered.len() - 40;
    altered[at] ^= 1;
    std::fs::write(&val, &altered).unwrap();
    let e = spill(&rs, dir.path(), unbounded()).err().expect("refused").to_string();
    assert!(e.contains("level-004.val") && e.contains("altered"), "{e}");
    also_damaged("level-006.val", "level-004.val");
    // A level's values next to another level's positions: the header names the level.
    std::fs::write(&val, std::fs::read(dir.path().join("level-003.val")).unwrap()).unwrap();
    let e = spill(&rs, dir.path(), unbounded()).err().expect("refused").to_string();
    assert!(e.contains("level-004.val") && e.contains("level 3, not 4"), "{e}");
    std::fs::write(&val, &original.1).unwrap();
    let memory = in_memory(&rs);
    assert_same(&memory, &spill(&rs, dir.path(), unbounded()).unwrap(), "repaired");
    // Another board in the same directory is refused, not mixed in.
    let other = roots(rules(3, 3, &[]), (3, 3), &Side::ALL);
    assert!(matches!(spill(&other, dir.path(), unbounded()), Err(SpillError::OtherSolve { .. })));
}

#[test]
fn a_disk_bound_stops_with_what_is_needed_and_more_disk_continues() {
    let dir = tempfile::tempdir().unwrap();
    let rs = roots(rules(4, 2, &[]), (4, 4), &Side::ALL);
    let limited = SpillOptions { max_disk: 6000, ..unbounded() };
    match spill(&rs, dir.path(), limited) {
        Err(SpillError::DiskLimit { limit: 6000, needed, what }) => {
            assert!(needed > 6000 && what.contains("level"), "{needed} {what}")
        }
        other => panic!("expected the disk limit, got {:?}", other.map(|r| r.positions())),
    }
    let done = spill(&rs, dir.path(), unbounded()).unwrap();
    assert!(done.disk_bytes() > 6000);
    assert_same(&in_memory(&rs), &done, "continued");
}

/// Buckets of at most 256 keys, at least 4 a level: every level split; pending batches merged
/// whenever they hold as many bytes as the level's merged run.
fn split() -> Tuning {
    Tuning {
        bucket_keys: 256,
        min_buckets: 4,
        stop_after_buckets: None,
        pending_merge_bytes: 0,
        stop_after_merges: None,
    }
}

fn state_of(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("state.json")).unwrap()).unwrap()
}

/// The pending merges the state records, over every level enumerated.
fn merges_recorded(dir: &Path) -> u64 {
    let state = state_of(dir);
    let figures = state["pending_figures"].as_object().unwrap();
    figures.values().map(|f| f["merges"].as_u64().unwrap()).sum()
}

fn spill_tuned(roots: &[Position], dir: &Path, tuning: Tuning) -> Result<SpilledRound, SpillError> {
    SpilledRound::solve_tuned(roots, dir, unbounded(), tuning, &mut |_| {})
}

/// Every level split into buckets: the values of the in-memory solver, and the files of the
/// solve whose levels fit one bucket, byte for byte.
#[test]
fn every_level_split_into_buckets_gives_the_same_values_and_files_under_every_reading() {
    let dir = tempfile::tempdir().unwrap();
    let mut most_rounds = 0;
    for extra in READINGS {
        for (p, s, open) in [(2u8, 3u8, (2u8, 2u8)), (3, 2, (2, 3)), (3, 3, (3, 3)), (4, 2, (4, 4))]
        {
            let what = format!("{p}x{s} {extra:?} open {open:?}");
            let rs = roots(rules(p, s, extra), open, &Side::ALL);
            let name = what.replace([' ', '"', '[', ']', '(', ')', ','], "_");
            let (whole, parts) = (
                dir.path().join(format!("{name}-whole")),
                dir.path().join(format!("{name}-split")),
            );
            let one = spill(&rs, &whole, unbounded()).unwrap();
            let split = spill_tuned(&rs, &parts, split()).unwrap();
            assert_same(&in_memory(&rs), &split, &what);
            assert_eq!(split.splits().len(), split.figures().len(), "{what}");
            for (level, &(buckets, rounds)) in split.splits() {
                assert!(
                    buckets >= 4 && rounds >= 1,
                    "{what}: level {level} in {buckets} buckets, {rounds} rounds"
                );
                assert_eq!(one.splits()[level], (1, rounds), "{what}: level {level}");
            }
            most_rounds =
                split.splits().values().map(|&(_, rounds)| rounds).max().unwrap().max(most_rounds);
            assert_eq!(level_files(&parts), level_files(&whole), "{what}");
        }
    }
    assert!(most_rounds > 2, "no level took more than {most_rounds} rounds of expansion");
}

/// Killed after a few buckets at a time, with what a killed writer leaves behind (bytes past
/// the checkpoint in pending and children files, a temporary file), and started again: the
/// files of a run never stopped.
#[test]
fn a_solve_killed_after_every_few_buckets_resumes_to_the_same_files() {
    let dir = tempfile::tempdir().unwrap();
    for (i, extra) in
        [&[][..], &["final_four=stays"], &["pussa_chain=true"]].into_iter().enumerate()
    {
        let rs = roots(rules(4, 2, extra), (4, 4), &Side::ALL);
        let whole = dir.path().join(format!("whole-{i}"));
        spill_tuned(&rs, &whole, split()).unwrap();
        let parts = dir.path().join(format!("parts-{i}"));
        let (mut runs, mut rng) = (0, 11u64);
        loop {
            runs += 1;
            assert!(runs < 5000, "no progress");
            rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let stop = Tuning { stop_after_buckets: Some(1 + (rng >> 33) % 12), ..split() };
            match spill_tuned(&rs, &parts, stop) {
                Ok(done) => {
                    assert_same(&in_memory(&rs), &done, "resumed");
                    break;
                }
                Err(SpillError::Interrupted { .. }) => {}
                Err(e) => panic!("{e}"),
            }
            let work: Vec<PathBuf> = std::fs::read_dir(&parts)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("work-"))
                .collect();
            let mut victims: Vec<PathBuf> = std::fs::read_dir(&parts)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "keys"))
                .collect();
            for w in &work {
                victims.extend(
                    std::fs::read_dir(w)
                        .unwrap()
                        .map(|e| e.unwrap().path())
                        .filter(|p| p.extension().is_some_and(|x| x == "raw")),
                );
                std::fs::write(w.join(".run-0000-00000.keys.tmp-killed"), b"half a run").unwrap();
            }
            if let Some(p) = victims.get((rng >> 40) as usize % victims.len().max(1)) {
                let mut bytes = std::fs::read(p).unwrap();
                bytes.extend_from_slice(&[0xAB; 16]);
                std::fs::write(p, bytes).unwrap();
            }
        }
        assert!(runs > 10, "{extra:?}: stopped only {runs} times");
        assert_eq!(level_files(&parts), level_files(&whole), "{extra:?}");
    }
}

/// A bucket's children or run file damaged between runs is refused, naming it.
#[test]
fn a_damaged_bucket_file_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let rs = roots(rules(4, 2, &["final_four=stays"]), (4, 4), &Side::ALL);
    // Stopped within a round's merge: a bucket's run written, another's children still to merge.
    let (run, children) = (1..100)
        .find_map(|after| {
            let _ = std::fs::remove_dir_all(dir.path());
            let stop = Tuning { stop_after_buckets: Some(after), ..split() };
            assert!(matches!(
                spill_tuned(&rs, dir.path(), stop),
                Err(SpillError::Interrupted { .. })
            ));
            let state: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(dir.path().join("state.json")).unwrap(),
            )
            .unwrap();
            let work = dir.path().join(format!("work-{:03}", state["work"]["level"].as_u64()?));
            let round = state["work"]["round"].as_u64()?;
            let lengths = state["work"]["children"].as_array()?;
            let bucket = (0..lengths.len()).find(|&b| {
                lengths[b].as_u64() > Some(8)
                    && !work.join(format!("run-{round:04}-{b:05}.keys")).exists()
            })?;
            let run = (0..lengths.len())
                .map(|b| work.join(format!("run-{round:04}-{b:05}.keys")))
                .find(|p| std::fs::metadata(p).is_ok_and(|m| m.len() > 48))?;
            Some((run, work.join(format!("children-{bucket:05}.raw"))))
        })
        .expect("a stop between a bucket's run and another's");
    let name = |p: &Path| p.file_name().unwrap().to_string_lossy().into_owned();
    let kept = std::fs::read(&children).unwrap();
    std::fs::write(&children, &kept[..kept.len() - 8]).unwrap();
    let e = spill_tuned(&rs, dir.path(), split()).err().expect("refused").to_string();
    assert!(e.contains(&name(&children)) && e.contains("the state records"), "{e}");
    std::fs::write(&children, &kept).unwrap();
    let original = std::fs::read(&run).unwrap();
    let mut altered = original.clone();
    altered[20] ^= 4;
    std::fs::write(&run, &altered).unwrap();
    let e = spill_tuned(&rs, dir.path(), split()).err().expect("refused").to_string();
    assert!(e.contains(&name(&run)) && e.contains("SHA-256"), "{e}");
    std::fs::write(&run, &original).unwrap();
    assert_same(&in_memory(&rs), &spill_tuned(&rs, dir.path(), split()).unwrap(), "repaired");
}

/// Killed in a pending merge (its run written, the state not yet saved), with a temporary run
/// left behind, and started again: the files of a run never stopped, and of one that never
/// merged.
#[test]
fn a_solve_killed_in_pending_merges_resumes_to_the_same_files() {
    let dir = tempfile::tempdir().unwrap();
    let boards =
        [(4u8, 2u8, &[][..]), (4, 2, &["final_four=stays"]), (4, 3, &["final_four=stays"])];
    let mut all_merges = 0;
    for (i, (p, s, extra)) in boards.into_iter().enumerate() {
        let rs = roots(rules(p, s, extra), (p, p), &Side::ALL);
        let unmerged = dir.path().join(format!("unmerged-{i}"));
        spill(&rs, &unmerged, unbounded()).unwrap();
        assert_eq!(merges_recorded(&unmerged), 0, "{extra:?}: merged at the default threshold");
        let whole = dir.path().join(format!("whole-{i}"));
        spill_tuned(&rs, &whole, split()).unwrap();
        let merges = merges_recorded(&whole);
        assert!(merges >= 3, "{extra:?}: only {merges} merges");
        all_merges += merges;
        let parts = dir.path().join(format!("parts-{i}"));
        let (mut runs, mut rng) = (0, 19u64);
        loop {
            runs += 1;
            assert!(runs < 5000, "no progress");
            rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let stop = Tuning { stop_after_merges: Some(1 + (rng >> 33) % 3), ..split() };
            match spill_tuned(&rs, &parts, stop) {
                Ok(done) => {
                    assert_same(&in_memory(&rs), &done, "resumed");
                    break;
                }
                Err(SpillError::Interrupted { .. }) => {}
                Err(e) => panic!("{e}"),
            }
            let runs_left: Vec<String> = std::fs::read_dir(&parts)
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .filter(|n| n.ends_with(".run"))
                .collect();
            let named = state_of(&parts)["merged"].as_object().unwrap().len();
            // The killed merge's run, and that of the level merged beside it (two at a time)
            // if it was to be recorded after.
            assert!(
                (named + 1..=named + 2).contains(&runs_left.len()),
                "{extra:?}: {named} runs named; the killed merge's {runs_left:?}"
            );
            std::fs::write(parts.join(".pending-001.00009.run.tmp-killed"), b"half").unwrap();
        }
        assert!(runs > 2, "{extra:?}: stopped only {runs} times");
        assert_eq!(level_files(&parts), level_files(&whole), "{extra:?}");
        assert_eq!(level_files(&parts), level_files(&unmerged), "{extra:?}");
        let left: Vec<String> = std::fs::read_dir(&parts)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.contains("pending"))
            .collect();
        assert!(left.is_empty(), "{extra:?}: {left:?} left");
    }
    assert!(all_merges > 10, "only {all_merges} merges");
}

/// A merged pending run that the state names, damaged or removed between runs, is refused
/// naming it.
#[test]
fn a_damaged_pending_run_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let rs = roots(rules(4, 2, &["final_four=stays"]), (4, 4), &Side::ALL);
    let run = (1..200)
        .find_map(|after| {
            let _ = std::fs::remove_dir_all(dir.path());
            let stop = Tuning { stop_after_buckets: Some(after), ..split() };
            assert!(matches!(
                spill_tuned(&rs, dir.path(), stop),
                Err(SpillError::Interrupted { .. })
            ));
            let state = state_of(dir.path());
            let (level, run) =
                state["merged"].as_object()?.iter().find(|(_, r)| r["keys"].as_u64() > Some(4))?;
            let generation = run["generation"].as_u64()?;
            Some(
                dir.path().join(format!(
                    "pending-{:03}.{generation:05}.run",
                    level.parse::<u32>().unwrap()
                )),
            )
        })
        .expect("a stop with a merged run of a few keys");
    let name = run.file_name().unwrap().to_string_lossy().into_owned();
    let original = std::fs::read(&run).unwrap();
    // The last key raised by one: still in order, but not what was written.
    let mut altered = original.clone();
    let last = altered.len() - 48;
    let key = u64::from_le_bytes(altered[last..last + 8].try_into().unwrap()) + 1;
    altered[last..last + 8].copy_from_slice(&key.to_le_bytes());
    std::fs::write(&run, &altered).unwrap();
    let e = spill_tuned(&rs, dir.path(), split()).err().expect("refused").to_string();
    assert!(e.contains(&name) && e.contains("SHA-256"), "{e}");
    std::fs::remove_file(&run).unwrap();
    let e = spill_tuned(&rs, dir.path(), split()).err().expect("refused").to_string();
    assert!(e.contains(&name) && e.contains("missing"), "{e}");
}

/// The keys of a delta-coded batches file, decoded by the textbook loop (an independent reader
/// of the format): each batch's count and bytes, then LEB128 differences.
fn decode_batches(bytes: &[u8]) -> Vec<u64> {
    let (mut keys, mut at) = (Vec::new(), 0);
    while at < bytes.len() {
        let word = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().unwrap());
        let (count, len) = (word(at), word(at + 8) as usize);
        at += 16;
        let (end, mut last, mut n) = (at + len, 0u64, 0);
        while at < end {
            let (mut value, mut shift) = (0u64, 0);
            loop {
                value |= ((bytes[at] & 0x7f) as u64) << shift;
                shift += 7;
                at += 1;
                if bytes[at - 1] & 0x80 == 0 {
                    break;
                }
            }
            last = if n == 0 { value } else { last + value };
            keys.push(last);
            n += 1;
        }
        assert_eq!(n, count);
    }
    keys
}

/// A solve stopped with pending batches, those rewritten as the raw batches an earlier version
/// appended (`pending-NNN.keys`, 8 bytes a key, the state's `pending` lengths): resumed, the same
/// files as a solve never stopped.
#[test]
fn a_solve_left_with_raw_pending_batches_by_an_earlier_version_resumes_to_the_same_files() {
    let dir = tempfile::tempdir().unwrap();
    let rs = roots(rules(4, 3, &["final_four=stays"]), (4, 4), &Side::ALL);
    let whole = dir.path().join("whole");
    spill_tuned(&rs, &whole, split()).unwrap();
    let parts = dir.path().join("parts");
    // A stop that leaves batches for several levels below (none merged away).
    let (mut state, batches) = (20..2000)
        .step_by(5)
        .find_map(|after| {
            let _ = std::fs::remove_dir_all(&parts);
            let stop =
                Tuning { stop_after_buckets: Some(after), pending_merge_bytes: 1 << 30, ..split() };
            assert!(matches!(spill_tuned(&rs, &parts, stop), Err(SpillError::Interrupted { .. })));
            let state = state_of(&parts);
            let batches = state["batches"].as_object()?.clone();
            let keys: u64 = batches.values().map(|b| b["keys"].as_u64().unwrap()).sum();
            (batches.len() >= 3 && keys >= 500).then_some((state, batches))
        })
        .expect("a stop with pending batches for three levels");
    let (mut keys, mut bytes) = (0, 0);
    for (level, recorded) in &batches {
        let level: u32 = level.parse().unwrap();
        let path = parts.join(format!("pending-{level:03}.batches"));
        let coded = std::fs::read(&path).unwrap();
        assert_eq!(coded.len() as u64, recorded["bytes"].as_u64().unwrap());
        let found = decode_batches(&coded);
        assert_eq!(found.len() as u64, recorded["keys"].as_u64().unwrap());
        (keys, bytes) = (keys + found.len(), bytes + coded.len());
        let raw: Vec<u8> = found.iter().flat_map(|k| k.to_le_bytes()).collect();
        std::fs::write(parts.join(format!("pending-{level:03}.keys")), &raw).unwrap();
        std::fs::remove_file(&path).unwrap();
        state["pending"][level.to_string()] = raw.len().into();
    }
    assert!(bytes < 4 * keys, "{bytes} bytes for {keys} keys");
    state.as_object_mut().unwrap().remove("batches");
    std::fs::write(parts.join("state.json"), state.to_string()).unwrap();
    let done = spill_tuned(&rs, &parts, split()).unwrap();
    assert_same(&in_memory(&rs), &done, "resumed from raw batches");
    assert_eq!(level_files(&parts), level_files(&whole));
}
