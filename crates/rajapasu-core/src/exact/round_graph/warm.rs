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
    /// The attractor of `forcer` towards the ends labelled `labels` (the least fixed point, as `RoundGraph::attract` computes it from nothing),
    /// continued from `from`: an attractor of this graph and forcer for labels that are each a
    /// subset of the new ones (or a fresh one). The same masks as `RoundGraph::attract` of the
    /// new labels; `from` becomes it.
    pub(crate) fn attract_from(&self, forcer: Side, labels: Vec<[Mask; 2]>, from: &mut Attractor) {
        debug_assert_eq!(from.win.len(), self.nodes());
        debug_assert!(from
            .labels
            .iter()
            .zip(&labels)
            .all(|(o, n)| (0..2).all(|m| o[m] & !n[m] == 0)));
        let mut dirty = vec![0u64; self.nodes().div_ceil(64)];
        let old = |left: usize, m: usize| from.labels.get(left).map_or(0, |l| l[m]);
        let mut level = 0;
        for &x in &self.ends {
            while x >= self.level_start[level + 1] {
                level += 1;
            }
            let m = self.mover(level, x).index();
            if labels[level][m] != old(level, m) {
                dirty[x as usize / 64] |= 1 << (x % 64);
            }
        }
        let end = |left: u32, mover: Side| labels[left as usize][mover.index()];
        let win = &mut from.win;
        let mut stack = Vec::new();
        for n in 0..=self.on_board as usize {
            let valid = self.valid(n);
            let eval = |win: &[Mask], x: u32| self.eval(forcer, &end, win, n, valid, x);
            let nodes = self.level_nodes(n);
            let mut scan = DirtyScan::new(&dirty, nodes.clone());
            // The successors of the node a few ahead are fetched while this one is evaluated.
            let mut ahead = scan.clone();
            for _ in 0..AHEAD {
                if let Some(y) = ahead.next() {
                    self.prefetch_successors(win, y);
                }
            }
            for x in scan.by_ref() {
                if let Some(y) = ahead.next() {
                    self.prefetch_successors(win, y);
                }
                let v = eval(win, x);
                if v != win[x as usize] {
                    debug_assert_eq!(v & win[x as usize], win[x as usize], "masks only grow");
                    win[x as usize] = v;
                    stack.push(x);
                }
            }
            while let Some(y) = stack.pop() {
                for &p in &self.preds
                    [self.pred_start[y as usize] as usize..self.pred_start[y as usize + 1] as usize]
                {
                    if p >= nodes.end {
                        // A higher level: evaluated when its turn comes.
                        dirty[p as usize / 64] |= 1 << (p % 64);
                        continue;
                    }
                    let v = eval(win, p);
                    if v != win[p as usize] {
                        debug_assert_eq!(v & win[p as usize], win[p as usize], "masks only grow");
                        win[p as usize] = v;
                        stack.push(p);
                    }
                }
            }
        }
        from.labels = labels;
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

/// The nodes of a range whose bit is set in a bit set, ascending.
#[derive(Clone)]
struct DirtyScan<'a> {
    bits: &'a [u64],
    /// The word being scanned, the bits already taken or outside the range cleared.
    word: u64,
    at: usize,
    range: std::ops::Range<u32>,
}

impl<'a> DirtyScan<'a> {
    fn new(bits: &'a [u64], range: std::ops::Range<u32>) -> DirtyScan<'a> {
        let at = range.start as usize / 64;
        let word = if range.is_empty() { 0 } else { bits[at] & (!0u64 << (range.start % 64)) };
        DirtyScan { bits, word, at, range }
    }
}

impl Iterator for DirtyScan<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        loop {
            if self.word != 0 {
                let x = (self.at * 64) as u32 + self.word.trailing_zeros();
                if x >= self.range.end {
                    self.word = 0;
                    return None;
                }
                self.word &= self.word - 1;
                return Some(x);
            }
            self.at += 1;
            if self.at * 64 >= self.range.end as usize {
                return None;
            }
            self.word = self.bits[self.at];
        }
    }
}
