//! The layers ([`Solution::layer`]) against their definition, computed by plain fixed-point
//! iteration over every position of small rounds, and the spilled round's layers computed
//! around each position ([`crate::exact::round::layers::LocalLayers`]) against the stored ones.

use std::collections::HashMap;

use crate::exact::round::layers::{south_value, LayersCache};
use crate::exact::test_rules::{rules, ALL_READINGS};
use crate::exact::*;

fn solve(r: Ruleset, open: (u8, u8)) -> Solution {
    let roots = Side::ALL.map(|s| round_start(r, BySide::new(open.0, open.1), s));
    let opts = SolveOptions { max_memory: 1 << 30, keep_layers: true, max_positions: u64::MAX };
    Solution::solve(&roots, opts, &mut |_| {}).unwrap()
}

/// One position's part in the definition: whether the side its value favours moves, whether
/// that side has an exit worth the value, and its in-level successors of the same value.
struct Node {
    value: i32,
    forcer: bool,
    exit_wins: bool,
    same: Vec<usize>,
}

/// The layers by their definition: from none, each round recomputes every position's layer
/// from the last round's, until nothing changes (the least fixed point).
fn layers_by_definition(sol: &Solution) -> (Vec<Position>, Vec<Option<u32>>) {
    let mut positions = Vec::new();
    sol.for_each(|pos, _| positions.push(*pos));
    let id: HashMap<(Vec<u8>, Side), usize> =
        positions.iter().enumerate().map(|(i, p)| ((p.board().to_vec(), p.turn()), i)).collect();
    let nodes: Vec<Node> = positions
        .iter()
        .map(|pos| {
            let mover_value = sol.value(pos).unwrap();
            let value = south_value(pos, mover_value);
            let forcer = mover_value > 0;
            let mut node = Node { value, forcer, exit_wins: false, same: Vec::new() };
            for (_, child, summary) in pos.legal_children() {
                let cv = sol.value(&child).unwrap();
                if child.on_board() != pos.on_board() {
                    node.exit_wins |= forcer && summary.net_gain(pos.turn()) - cv == mover_value;
                } else if south_value(&child, cv) == value {
                    node.same.push(id[&(child.board().to_vec(), child.turn())]);
                }
            }
            node
        })
        .collect();
    let mut layers: Vec<Option<u32>> = vec![None; positions.len()];
    loop {
        let next: Vec<Option<u32>> = nodes
            .iter()
            .map(|n| {
                let of = |c: &usize| layers[*c];
                match (n.value, n.forcer) {
                    (0, _) => None,
                    (_, true) if n.exit_wins => Some(0),
                    (_, true) => n.same.iter().filter_map(of).min().map(|l| l + 1),
                    (_, false) => n
                        .same
                        .iter()
                        .map(of)
                        .collect::<Option<Vec<u32>>>()
                        .map(|ls| ls.into_iter().max().map_or(0, |l| l + 1)),
                }
            })
            .collect();
        if next == layers {
            return (positions, layers);
        }
        layers = next;
    }
}

#[test]
fn the_solvers_layers_are_the_least_fixed_point_of_their_definition() {
    let mut deep = 0;
    for extra in ALL_READINGS {
        for (p, s, open) in [(3u8, 2u8, (3u8, 3u8)), (3, 3, (3, 3)), (4, 2, (4, 4)), (4, 2, (3, 4))]
        {
            let what = format!("{p}x{s} open {open:?} {extra:?}");
            let sol = solve(rules(p, s, extra), open);
            let (positions, want) = layers_by_definition(&sol);
            for (pos, want) in positions.iter().zip(&want) {
                assert_eq!(sol.layer(pos), *want, "{what}: {pos:?}");
                // Every position a side can force is in the attractor: it has a layer.
                assert_eq!(want.is_some(), sol.value(pos) != Some(0), "{what}: {pos:?}");
            }
            deep = deep.max(want.iter().flatten().copied().max().unwrap_or(0));
        }
    }
    // The boards reach layers beyond the first steps (the test tells layers apart).
    assert!(deep >= 3, "deepest layer {deep}");
}

#[test]
fn the_spilled_rounds_layers_around_each_position_are_the_in_memory_layers() {
    let dir = tempfile::tempdir().unwrap();
    let opts = SpillOptions { max_memory: 1 << 30, max_disk: u64::MAX, max_levels: None };
    let (mut computed, mut reused) = (0, 0);
    for extra in ALL_READINGS {
        for (p, s, open) in [(3u8, 3u8, (3u8, 3u8)), (4, 2, (4, 4))] {
            let what = format!("{p}x{s} open {open:?} {extra:?}");
            let r = rules(p, s, extra);
            let memory = solve(r, open);
            let roots = Side::ALL.map(|side| round_start(r, BySide::new(open.0, open.1), side));
            let at = dir.path().join(what.replace(|c: char| !c.is_alphanumeric(), "_"));
            let spilled = SpilledRound::solve(&roots, &at, opts, &mut |_| {}).unwrap();
            let mut checked = 0;
            let mut cache = LayersCache::default();
            memory.for_each(|pos, v| {
                if v != 0 {
                    assert_eq!(
                        spilled.layer(pos, 1 << 30).ok(),
                        memory.layer(pos),
                        "{what}: {pos:?}"
                    );
                    checked += 1;
                }
                assert_eq!(
                    spilled.progress_moves(pos, 1 << 30).unwrap(),
                    memory.progress_moves(pos),
                    "{what}: {pos:?}"
                );
                // Through one cache, each level's positions in set order: many lie in the
                // closure of a position before them, whose layers they reuse.
                assert_eq!(
                    spilled.progress_moves_cached(pos, 1 << 30, &mut cache).unwrap(),
                    memory.progress_moves(pos),
                    "{what}: {pos:?} (layers kept)"
                );
            });
            assert!(checked > 0, "{what}");
            let (c, r) = cache.counts();
            (computed, reused) = (computed + c, reused + r);
        }
    }
    // Some positions lay in the closure of one before them: the kept layers were used.
    assert!(computed > 0 && reused > 0, "{computed} closures computed, {reused} reused");
}

#[test]
fn a_closure_beyond_its_bytes_is_an_error_naming_the_memory_bound() {
    let r = rules(4, 2, &["final_four=stays"]);
    let dir = tempfile::tempdir().unwrap();
    let opts = SpillOptions { max_memory: 1 << 30, max_disk: u64::MAX, max_levels: None };
    let roots = Side::ALL.map(|side| round_start(r, BySide::splat(4), side));
    let spilled = SpilledRound::solve(&roots, dir.path(), opts, &mut |_| {}).unwrap();
    let memory = solve(r, (4, 4));
    // A position whose layer needs more than itself in its closure.
    let mut deep = None;
    memory.for_each(|pos, _| {
        if memory.layer(pos).is_some_and(|l| l >= 2) && deep.is_none() {
            deep = Some(*pos);
        }
    });
    let deep = deep.expect("a position of layer 2 or more");
    match spilled.layer(&deep, 100) {
        Err(e @ SpillError::ClosureLimit { limit: 100, .. }) => {
            let text = e.describe(&|s| format!("--{}", s.field().replace('_', "-")));
            assert!(text.contains("(--max-memory 100 bytes)"), "{text}");
        }
        other => panic!("a closure of 100 bytes: {other:?}"),
    }
}
