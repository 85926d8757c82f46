//! The graph built from the enumeration's recorded moves against the oracle that sows every
//! move of every position again, on small boards under every reading.

use super::*;
use crate::exact::matches::graph_moves::GraphMoves;
use crate::exact::round::enumerate::BITMAP_BITS;
use crate::exact::test_rules::rules;
use crate::game_record::readings;

/// Every node's moves found by sowing each position's legal moves, level by level ascending,
/// South to move first, in the engine's move order.
fn sown(positions: &Solution, layout: &Layout) -> GraphMoves {
    let mut moves: GraphMoves = (vec![0], Vec::new(), Vec::new(), Vec::new());
    for n in 0..=positions.top_level() {
        for side in 0..2 {
            let len = positions.level_len(n, side);
            for pos in positions.level_positions(n, side, 0, len) {
                let mover = pos.turn();
                for (p, child, summary) in pos.legal_children() {
                    let slot = positions.slot_of(&child).expect("children are enumerated");
                    moves.1.push(layout.id(slot));
                    moves.2.push(summary.captured_by(Side::South, mover) as u8);
                    moves.3.push(p.index() as u8);
                }
                moves.0.push(moves.1.len() as u32);
            }
        }
    }
    moves
}

#[test]
fn the_graph_from_recorded_moves_is_the_sown_one_on_small_boards_under_every_reading() {
    let (mut graphs, mut captures) = (0, [0u64; 2]);
    // Levels numbered by hash maps (the small boards' own), by bitmaps, and by bitmaps in the
    // levels of 64 ids or more only.
    let numberings = [BITMAP_BITS, 0..=u64::MAX, 64..=u64::MAX];
    for (p, s) in [(2u8, 2u8), (3, 1), (3, 2), (3, 3), (4, 2)] {
        for r in readings(rules(p, s, &[])) {
            for (k, open) in [BySide::new(p, p), BySide::new(p, 1), BySide::new(1, p - 1)]
                .into_iter()
                .enumerate()
            {
                let bits = numberings[k].clone();
                let graph = RoundGraph::build_numbered(
                    r,
                    open,
                    SolveOptions::default(),
                    GraphBudget::default(),
                    &mut |_| std::ops::ControlFlow::Continue(()),
                    bits.clone(),
                )
                .unwrap();
                let layout = Layout::of(&graph.positions).unwrap();
                let (succ_start, succ, gain, pit) = sown(&graph.positions, &layout);
                let what = format!("{p}x{s} {r:?} open {open:?}, bitmaps {bits:?}");
                assert_eq!(graph.layout.level_start, layout.level_start, "{what}");
                assert_eq!(graph.layout.south_end, layout.south_end, "{what}");
                assert_eq!(graph.succ_start, succ_start, "{what}: the offsets");
                assert_eq!(graph.succ, succ, "{what}: the successors");
                assert_eq!(graph.gain, gain, "{what}: South's captures");
                assert_eq!(graph.pit, pit, "{what}: the pits");
                // The building's peak, which the match solve reports, covers the finished graph.
                assert!(graph.bytes() <= graph.build_peak(), "{what}: {}", graph.build_peak());
                for x in 0..graph.nodes() as u32 {
                    let mover = graph.mover_of(x).index();
                    captures[mover] += graph.moves_of(x).filter(|&(_, _, g)| g > 0).count() as u64;
                }
                graphs += 1;
            }
        }
    }
    assert_eq!(graphs, 5 * 48 * 3);
    // Both movers' moves capture for South somewhere (fours in the opponent's row, pussa).
    assert!(captures.iter().all(|&c| c > 100), "South's captures by mover: {captures:?}");
}
