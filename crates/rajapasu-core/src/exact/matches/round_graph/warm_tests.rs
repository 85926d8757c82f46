//! The attractor continued from an earlier one ([`RoundGraph::attract_from`]) against the one
//! computed from nothing ([`RoundGraph::attract`]), over random growing end labels on the round
//! graphs of small boards under every reading.

use super::*;
use crate::exact::round::solver::SolveOptions;
use crate::exact::test_rules::rules;

/// A small deterministic generator (splitmix64): the labels are random but the test repeatable.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A sparse random mask: a few bits of the reserves 0..=total.
    fn bits(&mut self, total: u32) -> Mask {
        let mut m = 0;
        for _ in 0..self.next() % 3 {
            m |= 1 << (self.next() % (total as u64 + 1));
        }
        m
    }
}

#[test]
fn a_continued_attractor_equals_the_one_computed_from_nothing() {
    let mut random = Random(36);
    let (mut steps, mut grown) = (0, 0);
    for (p, s, extra) in [
        (2, 1, &[][..]),
        (2, 2, &[]),
        (3, 1, &[]),
        (3, 2, &[]),
        (3, 3, &[]),
        (4, 2, &[]),
        (3, 2, &["next_starter=round_winner"]),
        (3, 3, &["final_four=stays"]),
        (3, 2, &["final_four=sower"]),
        (3, 3, &["skip_origin=true"]),
        (3, 3, &["pussa_chain=true"]),
        (3, 2, &["endless=stop"]),
    ] {
        let r = rules(p, s, extra);
        for open in [BySide::new(p, p), BySide::new(p, 1), BySide::new(1, p - 1).map(|o| o.max(1))]
        {
            let graph = RoundGraph::build(r, open, SolveOptions::default()).unwrap();
            let levels = graph.on_board() as usize + 1;
            for forcer in Side::ALL {
                let mut labels = vec![[0 as Mask; 2]; levels];
                let mut kept = Attractor::fresh(graph.nodes());
                let mut before = 0;
                for step in 0..8 {
                    // Each step's labels a superset of the last's, as the rounds loop's are.
                    for l in labels.iter_mut() {
                        for m in l.iter_mut() {
                            if random.next().is_multiple_of(4) {
                                *m |= random.bits(r.total_counters());
                            }
                        }
                    }
                    graph.attract_from(forcer, labels.clone(), &mut kept);
                    let cold =
                        graph.attract(forcer, &|left, mover| labels[left as usize][mover.index()]);
                    assert_eq!(kept.win, cold, "{r:?} {open:?} forcer {forcer} step {step}");
                    let mut fresh = Attractor::fresh(graph.nodes());
                    graph.attract_from(forcer, labels.clone(), &mut fresh);
                    assert_eq!(fresh.win, cold, "{r:?} {open:?} fresh, step {step}");
                    let won = cold.iter().map(|m| m.count_ones()).sum::<u32>();
                    grown += usize::from(won > before);
                    before = won;
                    steps += 1;
                }
            }
        }
    }
    assert!(grown * 3 > steps, "the random labels grew the attractors in {grown} of {steps} steps");
}
