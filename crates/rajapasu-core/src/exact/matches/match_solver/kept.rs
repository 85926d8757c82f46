//! The attractors the in-memory rounds loop keeps from one iteration to the next, one per
//! configuration, labelling and forcer: continued ([`RoundGraph::attract_from`]) from where the
//! last iteration left them, they visit only what the new targets change. They are kept while
//! they fit the room the solve's memory bound leaves, and at most what the solve needs without
//! them; the others are computed afresh each time (the same masks, so the same table).

use std::collections::HashMap;

use super::request::{AttractorRequest, Openings, Step};
#[cfg(test)]
use super::MatchStats;
use crate::engine::Side;
use crate::exact::matches::round_graph::{
    dirty_bytes, Attractor, Mask, RoundGraph, ATTRACTOR_BYTES,
};

/// Bytes a solve whose largest graph has `largest` nodes needs beyond its graphs and its kept
/// attractors: two attractors computed afresh at once (one per side) and their dirty sets.
pub(super) fn working_bytes(largest: u64) -> u64 {
    ATTRACTOR_BYTES * largest + 2 * dirty_bytes(largest)
}

/// The least memory an in-memory solve with these figures needs: its graphs and two attractors
/// computed at once, none kept between iterations (its `peak_bytes` adds those it kept).
#[cfg(test)]
pub(crate) fn least_memory(stats: &MatchStats) -> u64 {
    let largest = stats.graph_positions.iter().map(|&(_, _, n)| n).max().unwrap_or(0);
    stats.graph_bytes + working_bytes(largest)
}

/// The attractors kept between iterations, within `room` bytes.
pub(super) struct KeptAttractors {
    room: u64,
    held: u64,
    kept: HashMap<(Step, Side), Attractor>,
}

impl KeptAttractors {
    pub fn new(room: u64) -> KeptAttractors {
        KeptAttractors { room, held: 0, kept: HashMap::new() }
    }

    /// Bytes the kept attractors hold (they are never dropped before the solve ends, so this is
    /// their peak too).
    pub fn held(&self) -> u64 {
        self.held
    }

    /// The attractor to continue for `step` and `forcer`, and whether it is to be kept after:
    /// the kept one, else a fresh one, kept if it fits the room left.
    fn take(&mut self, step: Step, forcer: Side, graph: &RoundGraph) -> (Attractor, bool) {
        if let Some(a) = self.kept.remove(&(step, forcer)) {
            return (a, true);
        }
        let bytes = Attractor::bytes(graph.nodes() as u64, graph.on_board());
        let keep = self.held + bytes <= self.room;
        if keep {
            self.held += bytes;
        }
        (Attractor::fresh(graph.nodes()), keep)
    }

    /// The attractors a step of the rounds loop asks for, both sides at once (one per core), on
    /// a graph in memory, continued from the kept ones.
    pub fn attract(
        &mut self,
        graph: &RoundGraph,
        step: Step,
        request: AttractorRequest,
    ) -> [Option<Openings>; 2] {
        let [south, north] = request;
        let mut a = south.map(|labels| Work::new(labels, self.take(step, Side::South, graph)));
        let mut b = north.map(|labels| Work::new(labels, self.take(step, Side::North, graph)));
        let run = |f: Side, work: &mut Option<Work>| {
            let work = work.as_mut()?;
            graph.attract_from(f, std::mem::take(&mut work.labels), &mut work.attractor);
            Some(openings(graph, &work.attractor.win))
        };
        let found = rayon::join(|| run(Side::South, &mut a), || run(Side::North, &mut b));
        for (f, work) in [(Side::South, a), (Side::North, b)] {
            if let Some(Work { attractor, keep: true, .. }) = work {
                self.kept.insert((step, f), attractor);
            }
        }
        [found.0, found.1]
    }
}

/// One attractor asked for: its end labels, where it continues from, and whether it is kept.
struct Work {
    labels: Vec<[Mask; 2]>,
    attractor: Attractor,
    keep: bool,
}

impl Work {
    fn new(labels: Vec<[Mask; 2]>, (attractor, keep): (Attractor, bool)) -> Work {
        Work { labels, attractor, keep }
    }
}

/// What the rounds loop reads of an attractor's masks `win`: at each starter's root and after
/// each of its opening moves.
pub(super) fn openings(graph: &RoundGraph, win: &[Mask]) -> Openings {
    Side::ALL.map(|st| {
        let root = graph.root(st);
        (
            win[root as usize],
            graph
                .moves_of(root)
                .map(|(pit, child, gain)| (pit, win[child as usize], gain))
                .collect(),
        )
    })
}
