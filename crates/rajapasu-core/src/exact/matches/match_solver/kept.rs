//! The attractors the in-memory rounds loop keeps from one iteration to the next, one per
//! configuration, labelling and forcer: continued ([`RoundGraph::attract_from`]) from where the
//! last iteration left them, they visit only what the new targets change. They are kept while
//! they fit the room the solve's memory bound leaves, and at most what the solve needs without
//! them; the others are computed afresh each time (the same masks, so the same table). One is let
//! go once no later iteration can ask for it (its forcer has won every state of its labelling),
//! and its room serves others.

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
    figures: KeptFigures,
    /// Each attractor with its bytes.
    kept: HashMap<(Step, Side), (Attractor, u64)>,
}

/// What the kept attractors took over a solve.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct KeptFigures {
    /// The most bytes they held at once.
    pub peak: u64,
    /// How many were let go before the solve ended.
    pub released: u64,
}

impl KeptAttractors {
    pub fn new(room: u64) -> KeptAttractors {
        KeptAttractors { room, held: 0, figures: KeptFigures::default(), kept: HashMap::new() }
    }

    pub fn figures(&self) -> KeptFigures {
        self.figures
    }

    /// Lets go of the kept attractors that no later iteration asks for: those of which
    /// `finished(step, forcer)` says so.
    pub fn release(&mut self, finished: impl Fn(Step, Side) -> bool) {
        let (held, figures) = (&mut self.held, &mut self.figures);
        self.kept.retain(|&(step, forcer), (_, bytes)| {
            let done = finished(step, forcer);
            if done {
                *held -= *bytes;
                figures.released += 1;
            }
            !done
        });
    }

    /// The attractor to continue for `step` and `forcer`, and whether it is to be kept after
    /// (its bytes, or None): the kept one, else a fresh one, kept if it fits the room left.
    fn take(&mut self, step: Step, forcer: Side, graph: &RoundGraph) -> (Attractor, Option<u64>) {
        if let Some((a, bytes)) = self.kept.remove(&(step, forcer)) {
            return (a, Some(bytes));
        }
        let bytes = Attractor::bytes(graph.nodes() as u64, graph.on_board());
        let keep = self.held + bytes <= self.room;
        if keep {
            self.held += bytes;
            self.figures.peak = self.figures.peak.max(self.held);
        }
        (Attractor::fresh(graph.nodes()), keep.then_some(bytes))
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
            if let Some(Work { attractor, keep: Some(bytes), .. }) = work {
                self.kept.insert((step, f), (attractor, bytes));
            }
        }
        [found.0, found.1]
    }
}

/// One attractor asked for: its end labels, where it continues from, and whether it is kept
/// (its bytes).
struct Work {
    labels: Vec<[Mask; 2]>,
    attractor: Attractor,
    keep: Option<u64>,
}

impl Work {
    fn new(labels: Vec<[Mask; 2]>, (attractor, keep): (Attractor, Option<u64>)) -> Work {
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
