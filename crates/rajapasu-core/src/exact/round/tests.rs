//! The solver against the golden values (docs/rules.md R15), plain negamax, value iteration and
//! mirror symmetry.

use std::collections::HashMap;

use crate::engine::{PitSet, Setup};
use crate::exact::*;

use crate::exact::test_rules::{golden_rounds, rules};

fn solve(roots: &[Position]) -> Solution {
    Solution::solve(
        roots,
        SolveOptions { max_memory: 1 << 30, keep_layers: true, max_positions: u64::MAX },
        &mut |_| {},
    )
    .unwrap()
}

fn solve_round(r: Ruleset, open: (u8, u8), starter: Side) -> (Solution, Position) {
    let root = round_start(r, BySide::new(open.0, open.1), starter);
    (solve(&[root]), root)
}

/// The golden file's cases (copied from the independent model's output).
#[test]
fn golden_values_best_moves_and_position_counts() {
    let cases = golden_rounds();
    assert!(cases.len() >= 8);
    for g in cases {
        let (sol, root) = solve_round(g.rules, g.open, g.starter);
        let best: Vec<u64> = sol.best_moves(&root).iter().map(|p| p.index() as u64).collect();
        let case = &g.case;
        assert_eq!(sol.value(&root), Some(g.value), "{case}");
        assert_eq!(best, g.best_moves, "{case}");
        assert_eq!(sol.stats().positions, g.positions, "{case}");
    }
}

/// Plain negamax without memory (R15 by definition); Err when the line repeats a position,
/// i.e. the move graph has a cycle.
fn negamax(pos: &Position, path: &mut Vec<(Vec<u8>, Side)>) -> Result<i32, ()> {
    let key = (pos.board().to_vec(), pos.turn());
    if path.contains(&key) {
        return Err(());
    }
    path.push(key);
    let mut best: Option<i32> = None;
    for (_, child, summary) in pos.legal_children() {
        let v = summary.net_gain(pos.turn()) - negamax(&child, path)?;
        best = Some(best.map_or(v, |b| b.max(v)));
    }
    path.pop();
    Ok(best.unwrap_or(-(pos.on_board() as i32)))
}

#[test]
fn acyclic_boards_equal_plain_negamax_at_every_position() {
    let mut acyclic = 0;
    for (p, s, extra) in [
        (2, 1, &[][..]),
        (2, 2, &[]),
        (3, 1, &[]),
        (3, 2, &[]),
        (3, 3, &[]),
        (4, 1, &[]),
        (4, 2, &[]),
        (3, 2, &["pussa_chain=true", "skip_origin=true"]),
        (3, 2, &["final_four=sower"]),
        (2, 3, &["endless=stop"]),
    ] {
        let r = rules(p, s, extra);
        let (sol, root) = solve_round(r, (p, p), Side::South);
        if negamax(&root, &mut Vec::new()).is_err() {
            continue;
        }
        acyclic += 1;
        let mut checked = 0;
        sol.for_each(|pos, v| {
            assert_eq!(negamax(pos, &mut Vec::new()), Ok(v), "{p}x{s} {extra:?}\n{pos}");
            checked += 1;
        });
        assert_eq!(checked, sol.stats().positions);
    }
    assert!(acyclic >= 5, "only {acyclic} acyclic boards");
}

/// Value iteration from 0 (the game cut after k moves, unfinished play worth 0) over every
/// reachable position, to its fixpoint.
fn value_iteration(sol: &Solution) -> HashMap<(Vec<u8>, Side), i32> {
    let mut index = HashMap::new();
    let mut nodes = Vec::new();
    sol.for_each(|pos, _| {
        index.insert((pos.board().to_vec(), pos.turn()), nodes.len());
        nodes.push(*pos);
    });
    // (gain, child) per move; a position without moves is worth minus its counters.
    let moves: Vec<Vec<(i32, usize)>> = nodes
        .iter()
        .map(|pos| {
            pos.legal_children()
                .map(|(_, c, m)| (m.net_gain(pos.turn()), index[&(c.board().to_vec(), c.turn())]))
                .collect()
        })
        .collect();
    let mut v = vec![0i32; nodes.len()];
    for _ in 0..=nodes.len() + 1 {
        let next: Vec<i32> = (0..nodes.len())
            .map(|x| {
                moves[x]
                    .iter()
                    .map(|&(g, c)| g - v[c])
                    .max()
                    .unwrap_or(-(nodes[x].on_board() as i32))
            })
            .collect();
        if next == v {
            return index.into_iter().map(|(k, i)| (k, v[i])).collect();
        }
        v = next;
    }
    panic!("value iteration did not reach a fixpoint");
}

/// Whether the move graph of the solved positions has a cycle (a depth-first search).
fn has_cycle(sol: &Solution) -> bool {
    let mut nodes = Vec::new();
    sol.for_each(|pos, _| nodes.push(*pos));
    let index: HashMap<(Vec<u8>, Side), usize> =
        nodes.iter().enumerate().map(|(i, p)| ((p.board().to_vec(), p.turn()), i)).collect();
    let children = |x: usize| -> Vec<usize> {
        nodes[x].legal_children().map(|(_, c, _)| index[&(c.board().to_vec(), c.turn())]).collect()
    };
    // 0: unseen, 1: on the current path, 2: done.
    let mut state = vec![0u8; nodes.len()];
    for start in 0..nodes.len() {
        if state[start] != 0 {
            continue;
        }
        let mut stack = vec![(start, children(start), 0usize)];
        state[start] = 1;
        while let Some((x, kids, i)) = stack.last_mut() {
            if *i == kids.len() {
                state[*x] = 2;
                stack.pop();
                continue;
            }
            let c = kids[*i];
            *i += 1;
            match state[c] {
                1 => return true,
                0 => {
                    state[c] = 1;
                    let k = children(c);
                    stack.push((c, k, 0));
                }
                _ => {}
            }
        }
    }
    false
}

#[test]
fn cyclic_boards_equal_value_iteration_at_every_position() {
    let mut cyclic = 0;
    for (p, s, extra, open) in [
        (4, 1, &[][..], (4, 4)),
        (4, 2, &[], (4, 4)),
        (4, 5, &[], (4, 4)),
        (4, 3, &[], (2, 3)),
        (5, 2, &[], (5, 5)),
        (4, 3, &["final_four=stays"], (4, 4)),
        (4, 2, &["final_four=stays", "endless=stop"], (4, 4)),
        (4, 5, &["skip_origin=true"], (4, 4)),
        (4, 4, &["pussa_chain=true"], (4, 4)),
    ] {
        let r = rules(p, s, extra);
        let (sol, root) = solve_round(r, open, Side::South);
        let iterated = value_iteration(&sol);
        assert_eq!(iterated.len() as u64, sol.stats().positions);
        sol.for_each(|pos, v| {
            assert_eq!(iterated[&(pos.board().to_vec(), pos.turn())], v, "{p}x{s} {extra:?}\n{pos}")
        });
        cyclic += has_cycle(&sol) as usize;
        let _ = root;
    }
    assert!(cyclic >= 7, "only {cyclic} boards with cycles");
}

/// The position with the rows swapped: South's pits become North's and the other side moves.
fn mirror(pos: &Position) -> Position {
    let r = *pos.rules();
    let p = r.pits_per_row as usize;
    let board: Vec<u8> = (0..2 * p).map(|g| pos.board()[(g + p) % (2 * p)]).collect();
    let open = BySide::new(pos.open()[Side::North], pos.open()[Side::South]);
    let reserve = BySide::new(r.total_counters() - pos.on_board(), 0);
    Position::from_setup(Setup { rules: r, board, open, reserve, turn: pos.turn().other() })
        .unwrap()
}

#[test]
fn a_position_and_its_mirror_have_the_same_value() {
    for (p, s, extra, open) in [
        (3, 2, &[][..], (3, 2)),
        (4, 3, &[], (3, 4)),
        (3, 2, &["final_four=stays"], (3, 3)),
        (5, 2, &[], (5, 5)),
    ] {
        let r = rules(p, s, extra);
        let (sol, _) = solve_round(r, open, Side::South);
        let (mirrored, _) = solve_round(r, (open.1, open.0), Side::North);
        assert_eq!(sol.stats().positions, mirrored.stats().positions);
        sol.for_each(|pos, v| {
            assert_eq!(mirrored.value(&mirror(pos)), Some(v), "{pos}");
            let best = sol.best_moves(pos);
            assert_eq!(mirrored.best_moves(&mirror(pos)), best);
        });
    }
}

#[test]
fn round_start_and_open_checks() {
    let r = rules(4, 3, &[]);
    let pos = round_start(r, BySide::new(2, 3), Side::North);
    assert_eq!(pos.open()[Side::South], PitSet(0b1100));
    assert_eq!(pos.open()[Side::North], PitSet(0b1110));
    assert_eq!(pos.on_board(), 15);
    assert!(check_open(&r, BySide::new(4, 1)).is_ok());
    let e = check_open(&r, BySide::new(0, 3)).unwrap_err();
    assert!(e.contains("south opens 0") && e.contains("1..=4"), "{e}");
    assert!(check_open(&r, BySide::new(3, 5)).unwrap_err().contains("north opens 5"));
}

#[test]
fn memory_limit_is_an_error_naming_the_limit() {
    let root = round_start(rules(5, 4, &[]), BySide::new(5, 5), Side::South);
    let e = Solution::solve(
        &[root],
        SolveOptions { max_memory: 200_000, keep_layers: false, max_positions: u64::MAX },
        &mut |_| {},
    )
    .unwrap_err();
    assert!(matches!(e, SolveError::MemoryLimit { limit: 200_000, .. }), "{e}");
    assert!(
        e.to_string().contains("200000 bytes, max_memory)") && !e.to_string().contains("--"),
        "{e}"
    );
    assert_eq!(e.setting(), Some(Setting::MaxMemory));
    assert!(
        e.describe(&|s| format!("<{}>", s.field())).contains("200000 bytes, <max_memory>)"),
        "{e}"
    );
    let big = round_start(rules(9, 8, &[]), BySide::new(9, 9), Side::South);
    assert_eq!(
        Solution::solve(&[big], SolveOptions::default(), &mut |_| {}).err(),
        Some(SolveError::TooManyCounters { counters: 144 })
    );
}

#[test]
fn perfect_play_realizes_each_rounds_value() {
    // Along every match under perfect play, each round that ends gives its starter exactly
    // the round's value (R15): the chosen moves make progress and are optimal for both.
    let mut rounds = 0;
    for (p, s) in [(2, 1), (2, 2), (3, 1), (3, 2), (3, 3), (4, 2), (4, 3), (2, 4), (3, 4)] {
        let r = rules(p, s, &[]);
        let mut cache = HashMap::new();
        for first in Side::ALL {
            for tie in [TieBreak::Lowest, TieBreak::Highest] {
                let m = perfect_match(r, first, tie, SolveOptions::default(), &mut cache).unwrap();
                assert_eq!(m.rounds[0].starter, first);
                for (i, round) in m.rounds.iter().enumerate() {
                    let endless = matches!(m.outcome, ChainOutcome::EndlessRound { .. })
                        && i + 1 == m.rounds.len();
                    if !endless {
                        let diff = round.captured[round.starter] as i32
                            - round.captured[round.starter.other()] as i32;
                        assert_eq!(
                            diff, round.value,
                            "{p}x{s} {first} {tie:?} round {}",
                            round.round
                        );
                        rounds += 1;
                    }
                }
            }
        }
    }
    assert!(rounds > 40, "{rounds}");
}

#[test]
fn endless_moves_forbidden_or_stopped_match_value_iteration() {
    // 4x6 with final_four=stays has endless moves (R9): forbidding them or stopping them at the
    // repeat reaches different positions; both solves equal value iteration everywhere.
    let mut positions = Vec::new();
    for endless in ["endless=forbid", "endless=stop"] {
        let r = rules(4, 6, &["final_four=stays", endless]);
        let (sol, _) = solve_round(r, (4, 4), Side::South);
        let iterated = value_iteration(&sol);
        sol.for_each(|pos, v| {
            assert_eq!(iterated[&(pos.board().to_vec(), pos.turn())], v, "{endless}\n{pos}")
        });
        positions.push(sol.stats().positions);
    }
    assert_ne!(positions[0], positions[1], "no endless move was met");
}

/// Value iteration on larger boards, every one with cycles (1.8 million positions, about 7 s).
#[test]
fn value_iteration_on_larger_boards() {
    for (p, s) in [(5, 4), (6, 2), (7, 1), (4, 4), (5, 2), (7, 2), (6, 6), (6, 7)] {
        let (sol, _) = solve_round(rules(p, s, &[]), (p, p), Side::South);
        let iterated = value_iteration(&sol);
        let mut checked = 0;
        sol.for_each(|pos, v| {
            assert_eq!(iterated[&(pos.board().to_vec(), pos.turn())], v, "{p}x{s}\n{pos}");
            checked += 1;
        });
        println!("{p}x{s}: {checked} positions equal value iteration, cycles: {}", has_cycle(&sol));
    }
}

#[test]
fn boards_whose_arrangements_do_not_fit_63_bits_are_refused_before_solving() {
    // The real board (14 pits, 98 counters) fits; 8x7, 9x5, 9x6 and 9x7 with every pit open do not.
    assert_eq!(check_board_size(14, 98), Ok(()));
    for (pits, seeds) in [(8u8, 7u8), (9, 5), (9, 6), (9, 7)] {
        let board = rules(pits, seeds, &[]);
        let counters = board.total_counters();
        assert_eq!(
            check_board_size(2 * pits as usize, counters),
            Err(SolveError::TooManyArrangements { pits: 2 * pits as usize, counters })
        );
        let root = round_start(board, BySide::splat(pits), Side::South);
        let err = Solution::solve(&[root], SolveOptions::default(), &mut |_| {}).unwrap_err();
        assert_eq!(err, SolveError::TooManyArrangements { pits: 2 * pits as usize, counters });
    }
}
