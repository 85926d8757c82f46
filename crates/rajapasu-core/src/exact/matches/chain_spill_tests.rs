//! The chain of rounds played over spilled rounds against the chain over in-memory rounds:
//! identical rounds (value, captured, moves) and outcome on small boards, under every
//! reading, with both tie-breaks and both first players (the layers' closures kept between
//! choices).

use std::collections::HashMap;

use crate::exact::test_rules::{rules, ALL_READINGS};
use crate::exact::*;

#[test]
fn the_spilled_chain_is_the_in_memory_chain_on_small_boards_under_every_reading() {
    let dir = tempfile::tempdir().unwrap();
    let opts = SpillOptions { max_memory: 1 << 30, max_disk: u64::MAX, max_levels: None };
    let (mut moves, mut computed, mut reused) = (0, 0, 0);
    for (i, extra) in ALL_READINGS.iter().enumerate() {
        for (p, s) in [(3u8, 2u8), (3, 3), (4, 3), (5, 3)] {
            let r = rules(p, s, extra);
            let what = format!("{p}x{s} {extra:?}");
            let base = dir.path().join(format!("{i}-{p}x{s}"));
            let dir_of = |open: BySide<u8>| {
                base.join(format!("{}-{}", open[Side::South], open[Side::North]))
            };
            let mut progress = |_, _| {};
            let mut spilled = SpilledRounds::new(r, opts, &dir_of, &mut progress);
            let mut cache = HashMap::new();
            for first in Side::ALL {
                for tie in [TieBreak::Lowest, TieBreak::Highest] {
                    let memory =
                        perfect_match(r, first, tie, SolveOptions::default(), &mut cache).unwrap();
                    let on_disk = spilled.play(first, tie).unwrap();
                    assert_eq!(on_disk, memory, "{what} {first} {tie:?}");
                    moves += memory.rounds.iter().map(|r| r.moves).sum::<u32>();
                }
            }
            let (c, r) = spilled.closures();
            (computed, reused) = (computed + c, reused + r);
        }
    }
    assert!(moves > 0);
    // The choices' layers were computed, and reused within their level as play went on.
    assert!(computed > 0 && reused > 0, "{computed} closures computed, {reused} reused");
}
