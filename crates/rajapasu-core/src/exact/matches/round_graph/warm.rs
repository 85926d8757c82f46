//! The attractor continued from an earlier one (the match solver's rounds loop, R17): within one
//! labelling and forcer the targets only grow from one iteration to the next, so the least fixed
//! point of iteration k lies above that of k - 1. Iterating from the old fixed point, which is
//! below the new one and below its own image, reaches exactly the new least fixed point, and only
//! the round ends whose labels changed, and what their change reaches, need to be evaluated.

use super::{Mask, RoundGraph};
use crate::engine::Side;
use crate::exact::prefetch::prefetch;

/// An attractor's masks (one per node) and the end labels (by counters left, by mover) they are
/// the least fixed point for; empty labels and masks all 0 are the start of a fresh one.
pub(crate) struct Attractor {
    pub win: Vec<Mask>,
    labels: Vec<[Mask; 2]>,
}

impl Attractor {
    /// The start of an attractor of a graph of `nodes` nodes: nothing won, no end labelled.
    pub fn fresh(nodes: usize) -> Attractor {
        Attractor { win: vec![0; nodes], labels: Vec::new() }
    }

    /// Bytes it holds for a graph of `nodes` nodes whose round starts with `on_board` counters.
    pub fn bytes(nodes: u64, on_board: u32) -> u64 {
        let mask = std::mem::size_of::<Mask>() as u64;
        mask * nodes + 2 * mask * (on_board as u64 + 1)
    }
}

/// Bytes the set of nodes to evaluate takes while an attractor of `nodes` nodes is continued.
pub(crate) fn dirty_bytes(nodes: u64) -> u64 {
    nodes.div_ceil(64) * 8
}

impl RoundGraph {
    /// The attractor of `forcer` towards the ends labelled `labels` (the least fixed point, as
    /// `RoundGraph::attract` computes it from nothing), continued from `from`: an attractor of
    /// this graph and forcer for labels that are each a subset of the new ones (or a fresh one).
    /// The same masks as `RoundGraph::attract` of the new labels; `from` becomes it.
    pub(crate) fn attract_from(&self, forcer: Side, labels: Vec<[Mask; 2]>, from: &mut Attractor) {
        debug_assert_eq!(from.win.len(), self.nodes());
        debug_assert!(from
            .labels
            .iter()
            .zip(&labels)
            .all(|(o, n)| (0..2).all(|m| o[m] & !n[m] == 0)));
        let mut dirty = self.relabelled_ends(&from.labels, &labels);
        let end = |left: u32, mover: Side| labels[left as usize][mover.index()];
        let win = &mut from.win;
        let mut batch = Vec::with_capacity(BATCH);
        for n in 0..=self.on_board as usize {
            let valid = self.valid(n);
            let eval = |win: &[Mask], x: u32| self.eval(forcer, &end, win, n, valid, x);
            // Evaluates a batch of marked nodes, ascending, the successors of the node a few
            // ahead fetched while one is evaluated; a node that changes marks its predecessors.
            let settle = |batch: &[u32], win: &mut [Mask], dirty: &mut [u64]| {
                for (i, &x) in batch.iter().enumerate() {
                    if let Some(&y) = batch.get(i + AHEAD) {
                        self.prefetch_successors(win, y);
                    }
                    let v = eval(win, x);
                    if v != win[x as usize] {
                        debug_assert_eq!(v & win[x as usize], win[x as usize], "masks only grow");
                        win[x as usize] = v;
                        let preds = self.pred_start[x as usize] as usize
                            ..self.pred_start[x as usize + 1] as usize;
                        for &p in &self.preds[preds] {
                            dirty[p as usize / 64] |= 1 << (p % 64);
                        }
                    }
                }
            };
            // Passes over the level's marked nodes until none is left: a pass takes the marks
            // ahead of it as it goes, those behind it (in-level moves) wait for the next pass.
            let nodes = self.level_nodes(n);
            let words = nodes.start as usize / 64..(nodes.end as usize).div_ceil(64);
            loop {
                let mut taken = false;
                for w in words.clone() {
                    let word = dirty[w] & within(w, &nodes);
                    if word == 0 {
                        continue;
                    }
                    dirty[w] &= !word;
                    taken = true;
                    let mut bits = word;
                    while bits != 0 {
                        batch.push((w * 64) as u32 + bits.trailing_zeros());
                        bits &= bits - 1;
                    }
                    if batch.len() >= BATCH {
                        settle(&batch, win, &mut dirty);
                        batch.clear();
                    }
                }
                settle(&batch, win, &mut dirty);
                batch.clear();
                if !taken {
                    break;
                }
            }
        }
        from.labels = labels;
    }

    /// The set (a bit a node) of the round's ends whose label differs between `old` and `new`
    /// (missing labels are empty).
    fn relabelled_ends(&self, old: &[[Mask; 2]], new: &[[Mask; 2]]) -> Vec<u64> {
        let mut marked = vec![0u64; self.nodes().div_ceil(64)];
        let mut level = 0;
        for &x in &self.ends {
            while x >= self.layout.level_start[level + 1] {
                level += 1;
            }
            let m = self.mover(level, x).index();
            if new[level][m] != old.get(level).map_or(0, |l| l[m]) {
                marked[x as usize / 64] |= 1 << (x % 64);
            }
        }
        marked
    }

    fn prefetch_successors(&self, win: &[Mask], x: u32) {
        let moves = self.succ_start[x as usize] as usize..self.succ_start[x as usize + 1] as usize;
        for &y in &self.succ[moves] {
            prefetch(&win[y as usize]);
        }
    }
}

/// Nodes looked ahead by the prefetch.
const AHEAD: usize = 8;

/// Nodes evaluated together, the prefetch running ahead within them.
const BATCH: usize = 256;

/// The bits of word `w` of a bit set over nodes that lie in `nodes`.
fn within(w: usize, nodes: &std::ops::Range<u32>) -> u64 {
    let (lo, hi) = (w as u64 * 64, w as u64 * 64 + 64);
    let (start, end) = (nodes.start as u64, nodes.end as u64);
    let from = start.saturating_sub(lo).min(64);
    let to = end.saturating_sub(lo).min(64);
    if from >= to || end <= lo || start >= hi {
        return 0;
    }
    let upper = if to == 64 { !0u64 } else { (1u64 << to) - 1 };
    upper & (!0u64 << from)
}
