//! The match solver with its rounds on disk against the in-memory one (itself checked against
//! an independent fixed point in `match_tests`): the same table at every match state, under a
//! memory bound the in-memory solver refuses; resumed after interruptions to the same table;
//! damaged files refused by name; a disk bound that stops it and more disk that continues it.

use std::path::Path;

use crate::exact::files::level_files::{masks_path, write_masks, LevelId, MasksFile};
use crate::exact::matches::match_tests::table;
use crate::exact::*;

use crate::exact::test_rules::{rules, unbounded, READINGS};

fn spilled(r: Ruleset, dir: &Path, opts: SpillOptions) -> Result<MatchTable, MatchError> {
    MatchTable::solve_spilled(r, opts, dir, None, None, &mut |_| {}, &mut |_| {})
}

/// The same value, rounds and best moves at every match state, and the same saved table.
pub(crate) fn assert_same(memory: &MatchTable, disk: &MatchTable, what: &str) {
    assert_eq!(disk.states(), memory.states(), "{what}");
    let (a, b) = (memory.to_checkpoint(), disk.to_checkpoint());
    assert_eq!((a.iterations, &a.wins, &a.child), (b.iterations, &b.wins, &b.child), "{what}");
    assert_eq!(disk.digest(), memory.digest(), "{what}");
    let (sa, sb) = (memory.stats(), disk.stats());
    assert_eq!(
        (sa.graphs, sa.positions, sa.moves, sa.match_positions),
        (sb.graphs, sb.positions, sb.moves, sb.match_positions),
        "{what}"
    );
    assert_eq!(&sa.graph_positions, &sb.graph_positions, "{what}");
}

#[test]
fn the_spilled_match_table_is_the_in_memory_one_on_small_boards_under_every_reading() {
    let dir = tempfile::tempdir().unwrap();
    let mut values = std::collections::HashSet::new();
    for (i, extra) in READINGS.iter().enumerate() {
        for (p, s) in [(2, 2), (3, 2), (3, 3), (4, 2)] {
            let r = rules(p, s, extra);
            let sub = dir.path().join(format!("{i}-{p}-{s}"));
            let disk = spilled(r, &sub, unbounded()).unwrap();
            let memory = table(r);
            assert_same(&memory, &disk, &format!("{p}x{s} {extra:?}"));
            assert_eq!(disk.stats().attractors, memory.stats().attractors, "{p}x{s} {extra:?}");
            values.extend(disk.states().into_iter().map(|(_, v)| v.value));
        }
    }
    assert_eq!(values.len(), 3, "the boards checked have wins, draws and losses");
}

/// A bound below what the in-memory solver needs for all its graphs, above the largest level:
/// the in-memory solver refuses it, the spilled one solves within it, keeping its levels on disk.
#[test]
fn a_memory_bound_the_in_memory_solver_refuses_makes_the_match_solver_spill() {
    let dir = tempfile::tempdir().unwrap();
    for extra in [&[][..], &["final_four=stays"], &["next_starter=round_winner"]] {
        let r = rules(4, 3, extra);
        let memory = table(r);
        let bound = memory.stats().peak_bytes / 3;
        let refused = MatchTable::solve(
            r,
            SolveOptions { max_memory: bound, ..SolveOptions::default() },
            None,
            None,
            &mut |_| {},
            &mut |_| {},
        );
        assert!(
            matches!(refused, Err(MatchError::Solve(SolveError::MemoryLimit { .. }))),
            "{extra:?}: the in-memory solver fits {bound}"
        );
        let sub = dir.path().join(extra.len().to_string() + extra.first().unwrap_or(&""));
        let disk = spilled(r, &sub, SpillOptions { max_memory: bound, ..unbounded() }).unwrap();
        assert!(
            disk.stats().peak_bytes <= bound && disk.stats().peak_bytes > 0,
            "{extra:?}: {} > {bound}",
            disk.stats().peak_bytes
        );
        assert_same(&memory, &disk, &format!("{extra:?}"));
        // What was kept on disk: every configuration's levels, their moves, and masks.
        for &(s, n, _) in &memory.stats().graph_positions {
            let c = sub.join(format!("open-{s}-{n}"));
            let top = (s as usize + n as usize) * 3;
            for level in 0..=top {
                assert!(
                    c.join(format!("level-{level:03}.pos")).is_file()
                        && c.join(format!("moves-{level:03}.mov")).is_file(),
                    "{c:?}"
                );
            }
            assert!(
                c.join("masks-S-000.msk").is_file() || c.join("masks-N-000.msk").is_file(),
                "{c:?}"
            );
        }
    }
}

#[test]
fn a_spilled_match_solve_stopped_at_every_level_and_iteration_resumes_to_the_same_table() {
    let tmp = tempfile::tempdir().unwrap();
    for (i, r) in [
        rules(3, 3, &[]),
        rules(3, 2, &["next_starter=round_winner"]),
        rules(3, 3, &["final_four=stays"]),
    ]
    .into_iter()
    .enumerate()
    {
        let memory = table(r);
        assert!(memory.stats().iterations >= 3, "{r:?}: too few iterations to interrupt");
        let dir = tmp.path().join(i.to_string());
        let mut saved: Option<MatchCheckpoint> = None;
        let (mut levels, mut iterations, mut runs) = (0, 0, 0);
        let done = loop {
            runs += 1;
            assert!(runs < 1000, "no progress");
            // One level, or one iteration, a run; the checkpoint through its saved form.
            let resume = saved
                .as_ref()
                .map(|cp| serde_json::from_str(&serde_json::to_string(cp).unwrap()).unwrap());
            let opts = SpillOptions { max_levels: Some(1), ..unbounded() };
            let stop = saved.as_ref().map_or(1, |cp| cp.iterations + 1);
            match MatchTable::solve_spilled(
                r,
                opts,
                &dir,
                resume,
                Some(stop),
                &mut |_| {},
                &mut |cp| saved = Some(cp.clone()),
            ) {
                Ok(t) => break t,
                Err(MatchError::Spill(SpillError::Interrupted { levels: 1, .. })) => levels += 1,
                Err(MatchError::Interrupted { iterations: k }) => {
                    assert_eq!(k, stop);
                    iterations += 1;
                }
                Err(e) => panic!("{e}"),
            }
        };
        let configs = memory.stats().graph_positions.len();
        assert!(levels > configs, "{r:?}: every level is a run ({levels})");
        assert_eq!(iterations + 1, memory.stats().iterations, "{r:?}: every iteration is a run");
        assert_same(&memory, &done, &format!("{r:?} resumed"));
        // A complete checkpoint is the table, with no work.
        let again = MatchTable::solve_spilled(
            r,
            unbounded(),
            &dir,
            saved,
            None,
            &mut |_| panic!("no work"),
            &mut |_| {},
        )
        .unwrap();
        assert_same(&memory, &again, "complete");
    }
}

#[test]
fn a_truncated_or_altered_level_moves_or_masks_file_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let r = rules(3, 3, &["final_four=stays"]);
    let memory = table(r);
    spilled(r, dir.path(), unbounded()).unwrap();
    let c = dir.path().join("open-3-3");
    for name in ["level-005.pos", "moves-004.mov", "moves-012.mov"] {
        let path = c.join(name);
        let original = std::fs::read(&path).unwrap();
        for keep in [original.len() - 1, original.len() / 2] {
            std::fs::write(&path, &original[..keep]).unwrap();
            let e = spilled(r, dir.path(), unbounded()).expect_err("refused").to_string();
            assert!(e.contains(name) && e.contains("SHA-256"), "{e}");
        }
        let mut altered = original.clone();
        let at = altered.len() - 40;
        altered[at] ^= 4;
        std::fs::write(&path, &altered).unwrap();
        let e = spilled(r, dir.path(), unbounded()).expect_err("refused").to_string();
        assert!(e.contains(name) && e.contains("altered"), "{e}");
        std::fs::write(&path, &original).unwrap();
    }
    // Another level's moves under this level's name: the header names the level.
    std::fs::copy(c.join("moves-003.mov"), c.join("moves-004.mov")).unwrap();
    let e = spilled(r, dir.path(), unbounded()).expect_err("refused").to_string();
    assert!(e.contains("moves-004.mov") && e.contains("level 3, not 4"), "{e}");
    std::fs::remove_file(c.join("moves-004.mov")).unwrap();
    // A removed moves file is written again.
    assert_same(&memory, &spilled(r, dir.path(), unbounded()).unwrap(), "repaired");
    // A masks file altered, truncated, or of the other forcer, read back: refused by name.
    let id = LevelId { rules: r, open: BySide::new(3, 3), level: 2 };
    let path = masks_path(&c, Side::South, 2);
    let masks: Vec<u128> = (0..50u128).map(|i| i * 0x1234_5678_9abc).collect();
    write_masks(&path, &id, Side::South, &masks).unwrap();
    let file = MasksFile::open(&path, &id, Side::South, 50).unwrap();
    assert_eq!((0..50).map(|i| file.get(i)).collect::<Vec<_>>(), masks);
    let e = MasksFile::open(&path, &id, Side::North, 50).err().unwrap();
    assert!(e.contains("masks-S-002.msk") && e.contains("not north"), "{e}");
    let e = MasksFile::open(&path, &id, Side::South, 51).err().unwrap();
    assert!(e.contains("masks-S-002.msk") && e.contains("51"), "{e}");
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 7]).unwrap();
    let e = MasksFile::open(&path, &id, Side::South, 50).err().unwrap();
    assert!(e.contains("masks-S-002.msk") && e.contains("SHA-256"), "{e}");
}

#[test]
fn a_disk_bound_stops_the_match_solve_with_what_is_needed_and_more_disk_continues() {
    let dir = tempfile::tempdir().unwrap();
    let r = rules(3, 3, &[]);
    let memory = table(r);
    for limit in [20_000, 50_000] {
        match spilled(r, dir.path(), SpillOptions { max_disk: limit, ..unbounded() }) {
            Err(MatchError::Spill(SpillError::DiskLimit { limit: l, needed, what })) => {
                assert!(
                    l == limit
                        && needed > limit
                        && (what.contains("level") || what.contains("masks")),
                    "{needed} {what}"
                )
            }
            other => panic!(
                "expected the disk limit at {limit}, got {:?}",
                other.map(|t| t.stats().clone())
            ),
        }
    }
    let done = spilled(r, dir.path(), unbounded()).unwrap();
    assert!(done.stats().graph_bytes > 20_000, "{}", done.stats().graph_bytes);
    assert_same(&memory, &done, "continued");
}

/// The progress heard while the round graphs are built names each configuration and the level
/// in hand.
#[test]
fn progress_names_each_configuration_and_its_levels() {
    let dir = tempfile::tempdir().unwrap();
    let r = rules(3, 2, &[]);
    let mut heard: Vec<((u8, u8), u32)> = Vec::new();
    MatchTable::solve_spilled(
        r,
        unbounded(),
        dir.path(),
        None,
        None,
        &mut |p| {
            if p.phase == "enumerating" {
                heard.push((p.open, p.level.expect("a spilled graph is built level by level")));
            }
        },
        &mut |_| {},
    )
    .unwrap();
    let configs =
        table(r).stats().graph_positions.iter().map(|&(s, n, _)| (s, n)).collect::<Vec<_>>();
    let mut named: Vec<(u8, u8)> = heard.iter().map(|&(open, _)| open).collect();
    named.dedup();
    assert_eq!(named, configs);
    let full: Vec<u32> =
        heard.iter().filter(|&&(open, _)| open == (3, 3)).map(|&(_, level)| level).collect();
    // Enumerated from the top level down to level 0, then each level's moves from 0 up.
    let bottom = full.iter().position(|&l| l == 0).expect("level 0 reached");
    assert_eq!((full.first(), full.last()), (Some(&12), Some(&12)), "{full:?}");
    assert!(full[..=bottom].windows(2).all(|w| w[0] >= w[1]), "{full:?}");
    assert!(full[bottom..].windows(2).all(|w| w[0] < w[1]), "{full:?}");
}
