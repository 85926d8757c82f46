//! The match solver (docs/rules.md R17) against the golden values and against an independent fixed
//! point over the whole product graph (round positions x reserves x round context), computed
//! here with the engine alone: no round graph, no masks, no rounds loop.

use std::collections::HashMap;
use std::ops::ControlFlow;

use crate::engine::{NextStarter, Pit, PitSet};
use crate::exact::*;

use crate::exact::test_rules::{golden_rules, rules};

pub(in crate::exact) fn table(r: Ruleset) -> MatchTable {
    MatchTable::solve(
        r,
        SolveOptions { max_memory: 1 << 30, ..SolveOptions::default() },
        None,
        None,
        &mut |_| {},
        &mut |_| {},
    )
    .unwrap()
}

const GOLDEN: &str = include_str!("../../../tests/data/golden/solve_match.json");

#[test]
fn golden_match_values_rounds_and_best_moves() {
    let cases: Vec<serde_json::Value> = serde_json::from_str(GOLDEN).unwrap();
    assert!(cases.len() >= 10);
    let mut kinds = std::collections::HashSet::new();
    for case in cases {
        let r = golden_rules(&case);
        let h = case["holdings"].as_array().unwrap();
        let state = MatchState {
            holdings: BySide::new(h[0].as_u64().unwrap() as u32, h[1].as_u64().unwrap() as u32),
            starter: case["starter"].as_str().unwrap().parse().unwrap(),
        };
        let got = table(r).value(state).unwrap();
        assert_eq!(got.value.name(), case["value"].as_str().unwrap(), "{case}");
        assert_eq!(got.rounds.map(u64::from), case["rounds"].as_u64(), "{case}");
        let best: Vec<u64> = got.best_moves.iter().map(|p| p.index() as u64).collect();
        let want: Vec<u64> =
            case["best_moves"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
        assert_eq!(best, want, "{case}");
        kinds.insert(got.value);
    }
    // The golden cases cover wins, draws and losses.
    assert_eq!(kinds.len(), 3);
}

/// A node of the whole match graph: a round position (with both reserves), the round's kept
/// reserves and its starter (R11, R13 need them at the round's end).
type Key = (Vec<u8>, [u16; 2], Side, [u32; 2], [u32; 2], Side);

/// What follows a node: moves to other nodes, or a round's end.
enum Next {
    Moves(Vec<(Pit, usize)>),
    /// The match is over after this round (R14): the winner.
    Over(Side),
    /// The next round's start.
    Round(usize),
}

struct ProductGraph {
    next: Vec<Next>,
    movers: Vec<Side>,
    index: HashMap<Key, usize>,
}

fn key(pos: &Position, kept: BySide<u32>, starter: Side) -> Key {
    let o = pos.open();
    (
        pos.board().to_vec(),
        [o[Side::South].0, o[Side::North].0],
        pos.turn(),
        pos.reserve().0,
        kept.0,
        starter,
    )
}

/// Every node reachable from every match state's start, by the engine's moves, with the round
/// ends worked out here from R10-R14 (not by `Game`).
fn product_graph(r: Ruleset) -> (ProductGraph, HashMap<(u32, Side), usize>) {
    let total = r.total_counters();
    let s = r.seeds_per_pit as u32;
    let mut g = ProductGraph { next: Vec::new(), movers: Vec::new(), index: HashMap::new() };
    let mut queue: Vec<(Position, BySide<u32>, Side)> = Vec::new();
    let intern = |g: &mut ProductGraph,
                  queue: &mut Vec<_>,
                  pos: Position,
                  kept: BySide<u32>,
                  starter: Side|
     -> usize {
        let k = key(&pos, kept, starter);
        if let Some(&i) = g.index.get(&k) {
            return i;
        }
        let i = g.next.len();
        g.index.insert(k, i);
        g.next.push(Next::Moves(Vec::new()));
        g.movers.push(pos.turn());
        queue.push((pos, kept, starter));
        i
    };
    let mut roots = HashMap::new();
    for h in s..=total - s {
        for st in Side::ALL {
            let (pos, kept) = Position::round_start(r, BySide::new(h, total - h), st);
            let i = intern(&mut g, &mut queue, pos, kept, st);
            roots.insert((h, st), i);
        }
    }
    while let Some((pos, kept, starter)) = queue.pop() {
        let me = g.index[&key(&pos, kept, starter)];
        let children: Vec<(Pit, Position)> = pos.legal_children().map(|(p, c, _)| (p, c)).collect();
        let next = if children.is_empty() {
            // R10: the other side collects the remainder; R11 the round's winner; R13, R14.
            let collector = pos.turn().other();
            let mut holdings = pos.reserve();
            holdings[collector] += pos.on_board();
            let captured = BySide::new(
                holdings[Side::South] - kept[Side::South],
                holdings[Side::North] - kept[Side::North],
            );
            let next_starter = match r.next_starter {
                NextStarter::Collector => collector,
                NextStarter::RoundWinner => match captured[Side::South].cmp(&captured[Side::North])
                {
                    std::cmp::Ordering::Greater => Side::South,
                    std::cmp::Ordering::Less => Side::North,
                    std::cmp::Ordering::Equal => starter,
                },
            };
            if holdings[Side::South] < s {
                Next::Over(Side::North)
            } else if holdings[Side::North] < s {
                Next::Over(Side::South)
            } else {
                let (start, kept) = Position::round_start(r, holdings, next_starter);
                Next::Round(intern(&mut g, &mut queue, start, kept, next_starter))
            }
        } else {
            Next::Moves(
                children
                    .into_iter()
                    .map(|(p, c)| (p, intern(&mut g, &mut queue, c, kept, starter)))
                    .collect(),
            )
        };
        g.next[me] = next;
    }
    (g, roots)
}

const INF: u32 = u32::MAX;

/// For each node, the least number of round ends (this round's included) within which
/// `forcer` can force the match won: value iteration from "never" down to the greatest fixed
/// point, so play that never ends is never a win.
fn distances(g: &ProductGraph, forcer: Side) -> Vec<u32> {
    let mut d = vec![INF; g.next.len()];
    loop {
        let mut changed = false;
        for x in 0..g.next.len() {
            let v = match &g.next[x] {
                Next::Over(w) => {
                    if *w == forcer {
                        1
                    } else {
                        INF
                    }
                }
                Next::Round(y) => d[*y].saturating_add(1),
                Next::Moves(m) => {
                    let vals = m.iter().map(|&(_, y)| d[y]);
                    if g.movers[x] == forcer {
                        vals.min().unwrap()
                    } else {
                        vals.max().unwrap()
                    }
                }
            };
            if v < d[x] {
                d[x] = v;
                changed = true;
            }
        }
        if !changed {
            return d;
        }
    }
}

fn check_against_product_graph(r: Ruleset) -> usize {
    let t = table(r);
    // Without the memory to keep every attractor between iterations, those not kept are
    // recomputed each time: the same table.
    let tight = SolveOptions { max_memory: t.stats().peak_bytes - 1, ..SolveOptions::default() };
    match MatchTable::solve(r, tight, None, None, &mut |_| {}, &mut |_| {}) {
        Ok(recomputed) => assert_eq!(recomputed.states(), t.states(), "{r:?}"),
        Err(e) => assert!(matches!(e, MatchError::Solve(SolveError::MemoryLimit { .. })), "{e:?}"),
    }
    let (g, roots) = product_graph(r);
    let d = [distances(&g, Side::South), distances(&g, Side::North)];
    let total = r.total_counters();
    let mut checked = 0;
    for (&(h, st), &root) in &roots {
        let state = MatchState { holdings: BySide::new(h, total - h), starter: st };
        for f in Side::ALL {
            let want = (d[f.index()][root] != INF).then_some(d[f.index()][root]);
            assert_eq!(t.wins_within(f, state), want, "{r:?} {state:?} forcer {f}");
        }
        // Value, rounds and best moves from the product graph's distances.
        let (me, them) = (d[st.index()][root], d[st.other().index()][root]);
        let moves = match &g.next[root] {
            Next::Moves(m) => m.clone(),
            _ => Vec::new(),
        };
        let mut best = PitSet::EMPTY;
        for (pit, y) in moves {
            let keeps = if me != INF {
                d[st.index()][y] == me
            } else if them != INF {
                d[st.other().index()][y] == them
            } else {
                d[0][y] == INF && d[1][y] == INF
            };
            if keeps {
                best.insert(pit);
            }
        }
        let v = t.value(state).unwrap();
        let (value, rounds) = if me != INF {
            (MatchValue::Win, Some(me))
        } else if them != INF {
            (MatchValue::Loss, Some(them))
        } else {
            (MatchValue::Draw, None)
        };
        assert_eq!(v, StateValue { value, rounds, best_moves: best }, "{r:?} {state:?}");
        checked += 1;
    }
    assert_eq!(checked, 2 * (total - 2 * r.seeds_per_pit as u32 + 1) as usize);
    checked
}

#[test]
fn every_match_state_equals_a_fixed_point_over_the_whole_product_graph() {
    let mut values = std::collections::HashSet::new();
    for (p, s, extra) in [
        (2, 1, &[][..]),
        (2, 2, &[]),
        (2, 3, &[]),
        (3, 1, &[]),
        (3, 2, &[]),
        (3, 3, &[]),
        (3, 2, &["next_starter=round_winner"]),
        (3, 3, &["next_starter=round_winner"]),
        (3, 2, &["final_four=stays"]),
        (3, 2, &["final_four=sower"]),
        (3, 3, &["skip_origin=true"]),
        (3, 3, &["pussa_chain=true"]),
        (3, 2, &["endless=stop"]),
        (4, 1, &[]),
        (4, 2, &[]),
    ] {
        let r = rules(p, s, extra);
        check_against_product_graph(r);
        for (_, v) in table(r).states() {
            values.insert(v.value);
        }
    }
    assert_eq!(values.len(), 3, "the boards checked have wins, draws and losses");
}

#[test]
fn an_interrupted_solve_resumed_from_its_checkpoint_gives_the_same_table() {
    for r in [rules(3, 4, &[]), rules(4, 4, &[]), rules(3, 2, &["next_starter=round_winner"])] {
        let opts = SolveOptions { max_memory: 1 << 30, ..SolveOptions::default() };
        let whole = table(r);
        assert!(whole.stats().iterations >= 3, "{r:?}: too few iterations to interrupt");
        for stop in 1..whole.stats().iterations {
            let mut saved = None;
            let e = MatchTable::solve(r, opts, None, Some(stop), &mut |_| {}, &mut |cp| {
                saved = Some(cp.clone())
            })
            .unwrap_err();
            assert_eq!(e, MatchError::Interrupted { iterations: stop });
            let cp = saved.unwrap();
            assert_eq!((cp.iterations, cp.complete), (stop, false));
            // Through its saved form, as a file would hold it.
            let cp: MatchCheckpoint =
                serde_json::from_str(&serde_json::to_string(&cp).unwrap()).unwrap();
            let resumed =
                MatchTable::solve(r, opts, Some(cp), None, &mut |_| {}, &mut |_| {}).unwrap();
            assert_eq!(resumed.states(), whole.states(), "{r:?} stopped after {stop}");
            assert_eq!(resumed.to_checkpoint().wins, whole.to_checkpoint().wins);
        }
        // A complete table read back is the table; one for other rules is refused.
        let back = MatchTable::from_checkpoint(whole.to_checkpoint()).unwrap();
        assert_eq!(back.states(), whole.states());
        let mut other = whole.to_checkpoint();
        other.rules.pits_per_row += 1;
        assert!(matches!(
            MatchTable::solve(r, opts, Some(other), None, &mut |_| {}, &mut |_| {}),
            Err(MatchError::Checkpoint(_))
        ));
        let mut bad = whole.to_checkpoint();
        bad.wins[0][3][0] = bad.iterations + 5;
        assert!(matches!(MatchTable::from_checkpoint(bad), Err(MatchError::Checkpoint(_))));
    }
}

#[test]
fn a_board_too_large_for_the_memory_allowance_is_an_error() {
    let r = rules(5, 4, &[]);
    let e = MatchTable::solve(
        r,
        SolveOptions { max_memory: 200_000, ..SolveOptions::default() },
        None,
        None,
        &mut |_| {},
        &mut |_| {},
    )
    .unwrap_err();
    assert!(matches!(e, MatchError::Solve(SolveError::MemoryLimit { .. })), "{e:?}");
}

/// The attractors kept between iterations (continued) where the memory bound leaves room, else
/// computed afresh: none, some or all kept, the same table, within the bound.
#[test]
fn a_table_is_the_same_whether_its_attractors_are_kept_or_computed_afresh() {
    for extra in [
        &[][..],
        &["next_starter=round_winner"],
        &["final_four=stays"],
        &["final_four=sower"],
        &["skip_origin=true"],
        &["pussa_chain=true"],
        &["endless=stop"],
    ] {
        let r = rules(3, 3, extra);
        let opts = SolveOptions { max_memory: 1 << 30, ..SolveOptions::default() };
        let solve = |opts: SolveOptions, keep: u64| {
            let asked = crate::exact::matches::match_solver::MatchRequest {
                rules: r,
                opts,
                resume: None,
                max_iterations: None,
                progress: &mut |_| ControlFlow::Continue(()),
                checkpoint: &mut |_| {},
            };
            MatchTable::solve_keeping(asked, keep).unwrap()
        };
        let (all, figures) = solve(opts, u64::MAX);
        let kept_all = figures.peak;
        assert!(kept_all > 0, "{extra:?}: nothing kept within 1 GiB");
        if extra == ["next_starter=round_winner"] {
            // A state's own attractor is let go once its forcer has won it.
            assert!(figures.released > 0, "{extra:?}: none let go");
        }
        let least = crate::exact::matches::match_solver::least_memory(all.stats());
        assert_eq!(all.stats().peak_bytes, least + kept_all, "{extra:?}");
        // Keeping attractors at most doubles what the solve needs, whatever the bound.
        assert!(kept_all <= least, "{extra:?}: {kept_all} bytes kept beside {least}");
        // One byte too few for all: the bound, not `keep`, leaves some to be computed afresh.
        let tight = SolveOptions { max_memory: all.stats().peak_bytes - 1, ..opts };
        for (opts, keep, kept) in [
            (opts, 0, 0..=0),
            (opts, kept_all / 2, 1..=kept_all / 2),
            (tight, u64::MAX, 1..=kept_all - 1),
        ] {
            let (t, held) = solve(opts, keep);
            let held = held.peak;
            let at = format!("{extra:?} keeping {keep} within {}", opts.max_memory);
            assert_eq!(t.to_checkpoint().wins, all.to_checkpoint().wins, "{at}");
            assert_eq!(t.to_checkpoint().child, all.to_checkpoint().child, "{at}");
            assert_eq!(t.states(), all.states(), "{at}");
            assert!(kept.contains(&held), "{at}: {held} bytes kept");
            assert!(t.stats().peak_bytes <= opts.max_memory, "{at}");
        }
    }
}

/// A solve of `r` within `max_memory`, keeping at most `keep` bytes of attractors between
/// iterations, on a pool of `threads` rayon threads.
fn solve_on(
    r: Ruleset,
    max_memory: u64,
    keep: u64,
    threads: usize,
) -> Result<MatchTable, MatchError> {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| {
        let asked = crate::exact::matches::match_solver::MatchRequest {
            rules: r,
            opts: SolveOptions { max_memory, ..SolveOptions::default() },
            resume: None,
            max_iterations: None,
            progress: &mut |_| ControlFlow::Continue(()),
            checkpoint: &mut |_| {},
        };
        MatchTable::solve_keeping(asked, keep).map(|(t, _)| t)
    })
}

/// The reported peak covers every step, the round graphs' building included, and is the same
/// whichever threads run the solve: a solve given exactly that much memory succeeds, and one
/// byte less is refused when no attractor is kept (nothing then gives way).
#[test]
fn a_solve_within_its_reported_peak_succeeds_and_a_byte_less_is_refused() {
    let mut refused_building = 0;
    for r in [rules(3, 3, &[]), rules(4, 3, &[]), rules(3, 4, &["skip_origin=true"])] {
        let whole = solve_on(r, 1 << 30, u64::MAX, 2).unwrap();
        for keep in [u64::MAX, 0] {
            let peak = solve_on(r, 1 << 30, keep, 2).unwrap().stats().peak_bytes;
            let alone = solve_on(r, 1 << 30, keep, 1).unwrap().stats().peak_bytes;
            assert_eq!(alone, peak, "{r:?} keeping {keep}: one thread's peak and two's");
            // The least a solve needs beyond its kept attractors: the building is part of it.
            assert!(peak >= crate::exact::matches::match_solver::least_memory(whole.stats()));
            let again = solve_on(r, peak, keep, 2)
                .unwrap_or_else(|e| panic!("{r:?} keeping {keep} within its peak {peak}: {e}"));
            assert_eq!(again.states(), whole.states(), "{r:?} keeping {keep}");
            assert_eq!(again.stats().peak_bytes, peak, "{r:?} keeping {keep}");
            if keep == 0 {
                match solve_on(r, peak - 1, keep, 2).map(|_| ()).unwrap_err() {
                    MatchError::Solve(SolveError::MemoryLimit { needed, phase, .. }) => {
                        assert_eq!(needed, peak, "{r:?}: the refused step is the peak's");
                        refused_building += (phase == "enumerated") as u32;
                    }
                    e => panic!("{r:?} within {}: {e:?}", peak - 1),
                }
            }
        }
    }
    // The round graphs' building is the peak of some solve: the reported peak includes it.
    assert!(refused_building > 0, "no solve's peak was its building");
}
