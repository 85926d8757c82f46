//! The enumeration's levels numbered by bitmaps (rank_bitmap.rs) against the same levels
//! numbered by hash maps: the same positions in the same order, the same moves (pit, gain,
//! level) to the same children.

use std::collections::HashMap;

use crate::engine::{BySide, Position, Side};
use crate::exact::index::Codec;
use crate::exact::round::enumerate::{
    by_bitmap, enumerate_with, Bounds, FoundLevel, MAX_BITMAP_BITS,
};
use crate::exact::round::solve_error::{Progress, SolveError};
use crate::exact::test_rules::rules;

fn levels(roots: &[Position], bitmap_bits: std::ops::RangeInclusive<u64>) -> Vec<FoundLevel> {
    let codec = Codec::new(roots[0]);
    let mut memory = |_: u64, _: u32, _: u64| Ok(());
    let mut watch = |_: Progress| std::ops::ControlFlow::Continue(());
    let mut bounds = Bounds { max_positions: u64::MAX, memory: &mut memory, watch: &mut watch };
    enumerate_with(&codec, roots, true, &mut bounds, bitmap_bits).expect("enumerated")
}

/// The node of each number of each level numbered by a hash map (none for a level numbered
/// by a bitmap, whose ids are ranked instead).
fn nodes_by_number(levels: &[FoundLevel]) -> Vec<HashMap<usize, usize>> {
    let by_number = |found: &FoundLevel| -> HashMap<usize, usize> {
        if found.ids.is_some() {
            return HashMap::new();
        }
        let nodes: HashMap<usize, usize> =
            found.number_of.iter().enumerate().map(|(x, &k)| (k as usize, x)).collect();
        assert_eq!(nodes.len(), found.len(), "each node has its own number");
        nodes
    };
    levels.iter().map(by_number).collect()
}

/// The node a move's child has in its level (`levels`, the child's level finished; `nodes`,
/// their [`nodes_by_number`]).
fn child_node(
    levels: &[FoundLevel],
    nodes: &[HashMap<usize, usize>],
    from: usize,
    number: usize,
    level: usize,
) -> usize {
    let found = &levels[level];
    if level == from {
        return number;
    }
    match &found.ids {
        Some(ids) => {
            assert_eq!(ids.len(), found.len());
            ids.rank(number as u64)
        }
        None => *nodes[level].get(&number).expect("a number"),
    }
}

#[test]
fn bitmaps_number_levels_as_hash_maps_do() {
    let boards =
        [(3u8, 3u8, &[][..]), (4, 3, &["final_four=sower"]), (4, 4, &["skip_origin=true"])];
    for (p, s, extra) in boards {
        for starter in [Side::South, Side::North] {
            let r = rules(p, s, extra);
            let total = p as u32 * s as u32;
            let root = Position::round_start(r, BySide::new(total, total), starter).0;
            // No level has u64::MAX bits: every level by hash maps.
            let maps = levels(&[root], u64::MAX..=u64::MAX);
            assert!(maps.iter().all(|l| l.ids.is_none()));
            // Every level by a bitmap, then the lower levels by bitmaps and the upper by maps.
            for max_bits in [MAX_BITMAP_BITS, 1 << 12] {
                let bits = levels(&[root], 0..=max_bits);
                let by_bits = bits.iter().filter(|l| l.ids.is_some()).count();
                assert!(by_bits > 0, "{p}x{s}: some levels numbered by a bitmap");
                let all = max_bits == MAX_BITMAP_BITS;
                assert_eq!(by_bits == bits.len(), all, "{p}x{s}: {by_bits} of {}", bits.len());
                same_levels(&maps, &bits, &format!("{p}x{s} {starter:?} {max_bits}"));
            }
        }
    }
}

/// Asserts that `bits` holds the positions and moves of `maps`.
fn same_levels(maps: &[FoundLevel], bits: &[FoundLevel], board: &str) {
    assert_eq!(maps.len(), bits.len());
    let (maps_nodes, bits_nodes) = (nodes_by_number(maps), nodes_by_number(bits));
    for (n, (a, b)) in maps.iter().zip(bits).enumerate() {
        assert_eq!(a.len(), b.len(), "{board} level {n}");
        for side in 0..2 {
            assert!(a.sets[side].iter().eq(b.sets[side].iter()), "level {n} side {side}");
        }
        assert_eq!(a.move_start, b.move_start, "level {n}");
        for x in 0..a.len() {
            for (ma, mb) in a.moves_of_node(x).iter().zip(b.moves_of_node(x)) {
                let (pit, gain, l) = (ma.pit(), ma.gain(), ma.level());
                assert_eq!(
                    (pit, gain, l),
                    (mb.pit(), mb.gain(), mb.level()),
                    "{board} level {n} node {x}"
                );
                assert_eq!(
                    child_node(maps, &maps_nodes, n, ma.number(), l),
                    child_node(bits, &bits_nodes, n, mb.number(), l),
                    "{board} level {n} node {x}: a move to level {l}"
                );
            }
        }
    }
}

#[test]
fn a_bitmap_is_counted_in_the_memory_bound_before_it_is_allocated() {
    let r = rules(4, 4, &[]);
    let root = Position::round_start(r, BySide::new(16, 16), Side::South).0;
    let codec = Codec::new(root);
    let top = root.on_board() as usize;
    let boards = codec.comps.count(top).expect("a 4x4 board's ranks fit");
    let bitmap_bytes = (2 * boards).div_ceil(64) * 8;
    let mut checks: Vec<(u64, u32, u64)> = Vec::new();
    let mut memory = |needed: u64, level: u32, positions: u64| {
        checks.push((needed, level, positions));
        if needed >= bitmap_bytes {
            Err(SolveError::MemoryLimit {
                limit: bitmap_bytes - 1,
                needed,
                positions,
                counters: level,
                phase: "enumerating",
            })
        } else {
            Ok(())
        }
    };
    let mut watch = |_: Progress| std::ops::ControlFlow::Continue(());
    let mut bounds = Bounds { max_positions: u64::MAX, memory: &mut memory, watch: &mut watch };
    let refused = enumerate_with(&codec, &[root], true, &mut bounds, 0..=MAX_BITMAP_BITS);
    assert!(
        matches!(refused, Err(SolveError::MemoryLimit { positions: 0, .. })),
        "{:?}",
        refused.err()
    );
    // One check, before the root was numbered: its level's bitmap was never allocated.
    assert_eq!(checks.len(), 1);
    assert_eq!((checks[0].1, checks[0].2), (top as u32, 0));
}

#[test]
fn a_level_is_numbered_by_a_bitmap_only_if_its_ids_fit_a_move() {
    let r = rules(7, 7, &[]);
    let root = Position::round_start(r, BySide::new(49, 49), Side::South).0;
    let codec = Codec::new(root);
    let mut large = 0;
    for n in 0..=98 {
        let Some(boards) = codec.comps.count(n) else { continue };
        let fits = 2 * boards as u128 <= u32::MAX as u128 + 1;
        large += usize::from(!fits);
        assert_eq!(by_bitmap(&codec, n, &(0..=u64::MAX)).is_some(), fits, "level {n}");
    }
    assert!(large > 0, "some levels of the real board have more ids than a u32 holds");
}

#[test]
fn the_roots_checks_count_the_roots_numbered_before_them() {
    let r = rules(3, 3, &[]);
    let [south, north] =
        [Side::South, Side::North].map(|s| Position::round_start(r, BySide::new(9, 9), s).0);
    let mut positions: Vec<u64> = Vec::new();
    let mut memory = |_: u64, _: u32, found: u64| {
        positions.push(found);
        Ok(())
    };
    let mut watch = |_: Progress| std::ops::ControlFlow::Continue(());
    let mut bounds = Bounds { max_positions: u64::MAX, memory: &mut memory, watch: &mut watch };
    let codec = Codec::new(south);
    let roots = [south, north, south, north];
    enumerate_with(&codec, &roots, false, &mut bounds, 0..=MAX_BITMAP_BITS).expect("enumerated");
    // A root met again is not numbered again.
    assert_eq!(positions[..4], [0, 1, 2, 2]);
}
