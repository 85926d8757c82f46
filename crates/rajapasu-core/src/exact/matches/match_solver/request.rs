//! What one step of the rounds loop asks of an attractor and what it gets back: the vocabulary
//! the rounds loop shares with the attractors it calls (kept in memory, on disk, by buckets).

use crate::engine::Pit;
use crate::exact::matches::round_graph::Mask;

/// For each starter (South's first): the attractor's mask at the round's start and, for each
/// opening move, its pit, the mask after it and South's captures in it.
pub(crate) type Openings = [(Mask, Vec<(Pit, Mask, u32)>); 2];

/// Which attractors a step of the rounds loop asks for: a configuration's (its index) under one
/// of its labellings (its index), the same from one iteration to the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Step {
    pub config: usize,
    pub labelling: usize,
}

/// The attractors one step of the rounds loop asks for (its [`Step`] names the configuration):
/// for each forcer (South's first), the labels of the round's ends (by counters left, by mover)
/// when that side needs one.
pub(crate) type AttractorRequest = [Option<Vec<[Mask; 2]>>; 2];
