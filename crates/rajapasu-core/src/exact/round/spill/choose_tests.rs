//! Level files that pass their checks but do not hold the round's values (rewritten with a
//! valid header and checksum): a perfect player's choice, and the best moves, are an error
//! naming the file and the level, never a panic, and so is the chain of rounds over them.

use std::path::Path;

use crate::engine::{BySide, Position, Ruleset, Side};
use crate::exact::files::level_files::{
    positions_path, values_path, write_positions, write_values, LevelId, PositionsFile,
};
use crate::exact::index::{Codec, RankSet};
use crate::exact::round::layers::{ClosureError, LocalLayers};
use crate::exact::round::solver::TieBreak;
use crate::exact::test_rules::{rules, unbounded};
use crate::exact::{round_start, SpillError, SpilledRound, SpilledRounds};

const OPEN: BySide<u8> = BySide::splat(4);

fn board() -> Ruleset {
    rules(4, 3, &["final_four=stays"])
}

/// The round of `board()` solved into `dir` (both starters as roots, as a chain solves it).
fn solve(dir: &Path) -> SpilledRound {
    let roots = Side::ALL.map(|s| round_start(board(), OPEN, s));
    SpilledRound::solve(&roots, dir, unbounded(), &mut |_| {}).unwrap()
}

/// Rewrites level `level`'s files, checksums included, with the positions `keep` holds and
/// each one's value as `value` gives it from the solved one.
fn rewrite_level(
    dir: &Path,
    level: u32,
    keep: &dyn Fn(&Position) -> bool,
    value: &dyn Fn(i32) -> i32,
) {
    let (mut ranks, mut values) = ([Vec::new(), Vec::new()], Vec::new());
    let codec = Codec::new(round_start(board(), OPEN, Side::South));
    solve(dir).for_each(|pos, v| {
        if pos.on_board() == level && keep(pos) {
            let key = codec.key(pos);
            ranks[key.side()].push(key.rank());
            values.push(value(v.unwrap()) as i8);
        }
    });
    let id = LevelId { rules: board(), open: OPEN, level };
    let old = PositionsFile::open(&positions_path(dir, level), &id).unwrap();
    let universe = ranks.iter().flatten().max().map_or(1, |&r| r + 1);
    let sets = ranks.map(|r| RankSet::new(&r, universe));
    let path = positions_path(dir, level);
    let (_, digest) =
        write_positions(&path, &id, [&sets[0], &sets[1]], old.quiet, old.exits).unwrap();
    let counts = sets.each_ref().map(|s| s.len() as u64);
    write_values(&values_path(dir, level), &id, counts, &digest, &values).unwrap();
}

fn bad_file(result: Result<impl std::fmt::Debug, SpillError>) -> String {
    match result {
        Err(SpillError::BadFile(text)) => text,
        other => panic!("a bad file expected, got {other:?}"),
    }
}

#[test]
fn values_no_move_achieves_are_an_error_naming_the_values_file_and_the_level() {
    let dir = tempfile::tempdir().unwrap();
    let top = solve(dir.path()).figures().len() as u32 - 1;
    // Every position of the top level worth all its counters: its in-level moves then lose
    // them all, and its exits reach positions of their true values.
    rewrite_level(dir.path(), top, &|_| true, &|_| top as i32);
    let spilled = solve(dir.path());
    let root = round_start(board(), OPEN, Side::South);
    assert_eq!(spilled.value(&root), Some(top as i32), "the rewritten files are read");
    let text = bad_file(spilled.choose(&root, TieBreak::Lowest, 1 << 30));
    let file = values_path(dir.path(), top).display().to_string();
    assert!(text.contains(&file) && text.contains(&format!("level {top} worth {top}")), "{text}");
    assert_eq!(bad_file(spilled.best_moves(&root)), text);
    // The chain over the same files stops with that error.
    let dir_of = |_| dir.path().to_path_buf();
    let mut progress = |_, _| {};
    let mut rounds = SpilledRounds::new(board(), unbounded(), &dir_of, &mut progress);
    assert_eq!(bad_file(rounds.play(Side::South, TieBreak::Lowest)), text);
}

#[test]
fn a_position_missing_from_the_level_files_is_an_error_naming_its_file_and_levels() {
    let dir = tempfile::tempdir().unwrap();
    let spilled = solve(dir.path());
    // A position of the top level with a capture, and the position the capture leads to.
    let root = round_start(board(), OPEN, Side::South);
    let mut found = None;
    spilled.for_each(|pos, _| {
        let exit = pos.legal_children().find(|(_, c, _)| c.on_board() < pos.on_board());
        if pos.on_board() == root.on_board() && found.is_none() {
            found = exit.map(|(_, child, _)| (*pos, child));
        }
    });
    let (from, missing) = found.expect("a capture from the top level");
    let values = spilled.move_values(&from).unwrap();
    assert_eq!(values.len(), from.legal_children().count());
    let best = spilled.best_moves(&from).unwrap();
    let value = spilled.value(&from).unwrap();
    assert!(!best.is_empty() && values.iter().all(|&(p, v)| best.contains(p) == (v == value)));
    drop(spilled);
    let level = missing.on_board();
    let codec = Codec::new(root);
    rewrite_level(dir.path(), level, &|p| codec.key(p) != codec.key(&missing), &|v| v);
    let spilled = solve(dir.path());
    assert_eq!(spilled.value(&missing), None, "the rewritten files are read");
    let text = bad_file(spilled.choose(&from, TieBreak::Highest, 1 << 30));
    let file = positions_path(dir.path(), level).display().to_string();
    let levels = format!("level {level} that play reaches from level {}", from.on_board());
    assert!(text.contains(&file) && text.contains(&levels), "{text}");
    assert_eq!(bad_file(spilled.best_moves(&from)), text);
    assert_eq!(bad_file(spilled.move_values(&from)), text);
    // A position reached in play that the files do not hold is the same error.
    let text = bad_file(spilled.choose(&missing, TieBreak::Lowest, 1 << 30));
    assert!(text.contains(&file), "{text}");
}

#[test]
fn layers_around_a_position_whose_successor_has_no_value_are_an_error_naming_it() {
    let root = round_start(board(), OPEN, Side::South);
    let codec = Codec::new(root);
    let value = |p: &Position| (*p == root).then_some(1);
    match LocalLayers::around(&codec, &value, &root, 1 << 30) {
        Err(ClosureError::NoValue(p)) => {
            assert!(root.legal_children().any(|(_, c, _)| c == p), "{p:?}")
        }
        Err(e) => panic!("a missing value expected, got {e:?}"),
        Ok(_) => panic!("a missing value expected, got layers"),
    }
}
