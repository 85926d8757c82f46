//! The minimax player: negamax with alpha-beta, a transposition table, move ordering and
//! iterative deepening to a depth and an optional node budget.
//!
//! A node is a move played in search (every simulation of a candidate, R4-R9). The budget is
//! counted in nodes, never in time, so a choice never depends on the machine. The table is
//! probed for a value only at the same remaining depth it was stored with: a depth-D search
//! then gives exactly the values of plain depth-D minimax (tested), and deeper entries still
//! order the moves.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::heuristic::Eval;
use super::spec::MinimaxParams;
use crate::engine::{
    Endless, MoveSummary, Pit, PitSet, Position, Rng, Side, MAX_PITS, MAX_PITS_PER_ROW,
};

/// Entries of the transposition table (a power of two): 2^16 x 16 bytes = 1 MiB per player.
const TABLE_BITS: u32 = 16;
const INF: i32 = 1 << 24;
/// Nodes between two looks at the stop flag: a few milliseconds of search, so a stopped search
/// ends at once while the flag costs nothing measurable.
const STOP_EVERY: u64 = 1 << 14;

/// Zobrist keys (built at compile time from SplitMix64, so they never change).
struct Keys {
    pit: [[u64; 256]; MAX_PITS],
    open: [[u64; MAX_PITS_PER_ROW]; 2],
    reserve: [u64; 256],
    north_to_move: u64,
}

static KEYS: Keys = {
    let mut state: u64 = 0x5241_4a41_5041_5355; // "RAJAPASU"
    const fn next(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    let mut keys = Keys {
        pit: [[0; 256]; MAX_PITS],
        open: [[0; MAX_PITS_PER_ROW]; 2],
        reserve: [0; 256],
        north_to_move: 0,
    };
    let mut g = 0;
    while g < MAX_PITS {
        let mut n = 1; // an empty pit adds nothing
        while n < 256 {
            keys.pit[g][n] = next(&mut state);
            n += 1;
        }
        g += 1;
    }
    let mut i = 0;
    while i < MAX_PITS_PER_ROW {
        keys.open[0][i] = next(&mut state);
        keys.open[1][i] = next(&mut state);
        i += 1;
    }
    let mut r = 0;
    while r < 256 {
        keys.reserve[r] = next(&mut state);
        r += 1;
    }
    keys.north_to_move = next(&mut state);
    keys
};

/// The Zobrist key of a position: board, closed pits (R12), side to move, and South's reserve
/// (North's follows from it and the board), since the evaluations score reserves.
pub(crate) fn zobrist(pos: &Position) -> u64 {
    let mut key = 0u64;
    for (g, &n) in pos.board().iter().enumerate() {
        key ^= KEYS.pit[g][n as usize];
    }
    for side in Side::ALL {
        for pit in pos.open()[side].iter() {
            key ^= KEYS.open[side.index()][pit.index()];
        }
    }
    key ^= KEYS.reserve[pos.reserve()[Side::South] as usize & 255];
    if pos.turn() == Side::North {
        key ^= KEYS.north_to_move;
    }
    key
}

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    value: i32,
    depth: u8,
    bound: Bound,
    /// Best move found, as local pit + 1 (0: none).
    best: u8,
    /// No leaf below was cut off by the depth: the value is the round's exact value.
    solved: bool,
}

#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Bound {
    #[default]
    Exact,
    /// The value is at least this (a cut-off).
    Lower,
    /// The value is at most this (no move reached alpha).
    Upper,
}

/// A child in search order.
#[derive(Clone, Copy)]
struct Child {
    pit: Pit,
    pos: Position,
    order: i32,
}

/// One player's search state, kept for the whole match (the table is reused across moves).
pub(crate) struct Searcher {
    params: MinimaxParams,
    table: Vec<Entry>,
    /// Nodes of the current decision.
    used: u64,
    /// Nodes of every decision so far.
    pub(crate) nodes: u64,
    aborted: bool,
    /// A leaf of the current iteration was scored by the evaluation, not by the round's end.
    cut: bool,
    /// Depth of the last completed iteration of the last decision.
    pub(crate) completed_depth: u32,
    /// The children of each ply of the current line (allocated once: no allocation per node).
    stack: Vec<[Child; MAX_PITS_PER_ROW]>,
    /// Set by whoever waits for the choice when it is no longer wanted: the search then ends
    /// as if its budget ran out (the choice made then is not meant to be used).
    stop: Option<Arc<AtomicBool>>,
    /// `used` at which the stop flag is looked at next.
    next_look: u64,
}

impl Searcher {
    pub(crate) fn new(params: MinimaxParams) -> Searcher {
        Searcher {
            params,
            table: Vec::new(),
            used: 0,
            nodes: 0,
            aborted: false,
            cut: false,
            completed_depth: 0,
            stack: Vec::new(),
            stop: None,
            next_look: 0,
        }
    }

    /// Ends every search once `stop` is set (looked at every few thousand nodes).
    pub(crate) fn stop_on(&mut self, stop: Arc<AtomicBool>) {
        self.stop = Some(stop);
    }

    #[inline]
    fn eval(&self) -> Eval {
        self.params.eval
    }

    fn over_budget(&mut self) -> bool {
        if self.params.nodes.is_some_and(|n| self.used > n) {
            return true;
        }
        if self.used >= self.next_look {
            self.next_look = self.used + STOP_EVERY;
            return self.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed));
        }
        false
    }

    /// Whether the side to move has a legal move (R10): the engine's cheap first-lap test, then
    /// candidates simulated (counted as nodes) until one is legal.
    fn has_legal_move(&mut self, pos: &Position) -> bool {
        let candidates = pos.candidates();
        if pos.rules().endless != Endless::Forbid {
            return !candidates.is_empty();
        }
        if candidates.iter().any(|pit| pos.first_lap_ends(pit)) {
            return true;
        }
        candidates.iter().any(|pit| {
            self.used += 1;
            !pos.after(pit).1.endless
        })
    }

    /// The legal children of `pos`, each simulated once (counted as nodes), in search order:
    /// the table's best move first, then by immediate net gain, then by pit.
    fn children(&mut self, pos: &Position, first: u8, ply: usize) -> usize {
        if self.stack.len() <= ply {
            self.stack.resize(
                ply + 1,
                [Child { pit: Pit::new_unchecked(0), pos: *pos, order: 0 }; MAX_PITS_PER_ROW],
            );
        }
        let mover = pos.turn();
        let mut n = 0;
        for pit in pos.candidates().iter() {
            let mut child = *pos;
            self.used += 1;
            if let Some(summary) = child.play_if_legal_observed(pit, &mut ()) {
                let order =
                    if pit.index() as u8 + 1 == first { INF } else { gain(&summary, mover) };
                self.stack[ply][n] = Child { pit, pos: child, order };
                n += 1;
            }
        }
        let out = &mut self.stack[ply];
        // Insertion sort, stable: at most nine children.
        for i in 1..n {
            let mut j = i;
            while j > 0 && out[j - 1].order < out[j].order {
                out.swap(j - 1, j);
                j -= 1;
            }
        }
        n
    }

    /// Negamax value of `pos` for its side to move, searched `depth` plies (fail-soft
    /// alpha-beta over the window (alpha, beta)). Returns 0 with `aborted` set when the budget ran out.
    fn negamax(
        &mut self,
        pos: &Position,
        ply: usize,
        depth: u32,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        let me = pos.turn();
        if depth == 0 {
            // R10: the cheap legality test first; a move is simulated only if it cannot tell.
            return if self.has_legal_move(pos) {
                self.cut = true;
                self.eval().leaf(pos, me)
            } else {
                self.eval().stuck(pos, me)
            };
        }
        let key = zobrist(pos);
        let slot = (key as usize) & (self.table.len() - 1);
        let entry = self.table[slot];
        let mut first = 0;
        if entry.key == key {
            first = entry.best;
            if entry.depth as u32 == depth {
                let usable = match entry.bound {
                    Bound::Exact => true,
                    Bound::Lower => entry.value >= beta,
                    Bound::Upper => entry.value <= alpha,
                };
                if usable {
                    self.cut |= !entry.solved;
                    return entry.value;
                }
            }
        }
        let n = self.children(pos, first, ply);
        if n == 0 {
            return self.eval().stuck(pos, me);
        }
        if self.over_budget() {
            self.aborted = true;
            return 0;
        }
        let (alpha0, cut_before) = (alpha, self.cut);
        self.cut = false;
        let mut best = -INF;
        let mut best_pit = self.stack[ply][0].pit;
        for i in 0..n {
            let kid = self.stack[ply][i];
            let v = -self.negamax(&kid.pos, ply + 1, depth - 1, -beta, -alpha);
            if self.aborted {
                return 0;
            }
            if v > best {
                best = v;
                best_pit = kid.pit;
            }
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        let bound = if best <= alpha0 {
            Bound::Upper
        } else if best >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.table[slot] = Entry {
            key,
            value: best,
            depth: depth as u8,
            bound,
            best: best_pit.index() as u8 + 1,
            solved: !self.cut,
        };
        self.cut |= cut_before;
        best
    }

    /// The move to play, or None when there is no legal move. Each iteration searches every
    /// root move with alpha one below the best so far, so every move tying the best gets an
    /// exact value; the choice among them is random (the seat's stream).
    pub(crate) fn choose(&mut self, pos: &Position, rng: &mut Rng) -> Option<Pit> {
        let ties = self.best_moves(pos);
        (!ties.is_empty()).then(|| super::random::pick(ties, rng))
    }

    /// The moves of the best value found by the last completed iteration (empty: no legal move).
    pub(crate) fn best_moves(&mut self, pos: &Position) -> PitSet {
        if self.table.is_empty() {
            self.table = vec![Entry::default(); 1 << TABLE_BITS];
        }
        self.used = 0;
        self.next_look = 0;
        self.aborted = false;
        self.completed_depth = 0;
        let n = self.children(pos, 0, 0);
        let mut kids = self.stack[0];
        let ties = if n <= 1 {
            // Nothing to search for: no move, or only one.
            let mut set = PitSet::EMPTY;
            if n == 1 {
                set.insert(kids[0].pit);
            }
            set
        } else {
            let mut ties = PitSet::EMPTY;
            for depth in 1..=self.params.depth {
                self.cut = false;
                let Some(found) = self.search_root(&mut kids[..n], depth) else { break };
                ties = found;
                self.completed_depth = depth;
                if !self.cut {
                    // Every line reached the round's end: deeper iterations change nothing.
                    break;
                }
            }
            ties
        };
        self.nodes += self.used;
        ties
    }

    /// Every legal root move with its value searched at exactly `depth` with a full window, by
    /// local pit; None when the node budget (counted over every call on this searcher) ran out.
    pub(crate) fn root_values(&mut self, pos: &Position, depth: u32) -> Option<Vec<(Pit, i32)>> {
        if self.table.is_empty() {
            self.table = vec![Entry::default(); 1 << TABLE_BITS];
        }
        self.aborted = false;
        let mut values = Vec::new();
        for (pit, child, _) in pos.legal_children() {
            let v = -self.negamax(&child, 1, depth - 1, -INF, INF);
            if self.aborted {
                return None;
            }
            values.push((pit, v));
        }
        Some(values)
    }

    /// This searcher with the table of `other` (tests: a table filled by other searches).
    #[cfg(test)]
    pub(crate) fn with_table_of(mut self, other: Searcher) -> Searcher {
        self.table = other.table;
        self
    }

    /// One iteration at `depth`: the set of best moves, or None if the budget ran out. Leaves
    /// the root moves ordered by their values for the next iteration.
    fn search_root(&mut self, kids: &mut [Child], depth: u32) -> Option<PitSet> {
        let mut best = -INF;
        let mut ties = PitSet::EMPTY;
        for kid in kids.iter_mut() {
            let alpha = if best == -INF { -INF } else { best - 1 };
            let v = -self.negamax(&kid.pos, 1, depth - 1, -INF, -alpha);
            // Depth 1 always completes: its children are scored without search.
            if self.aborted {
                return None;
            }
            kid.order = v;
            if v > best {
                best = v;
                ties = PitSet::EMPTY;
            }
            if v == best {
                ties.insert(kid.pit);
            }
        }
        // Stable: equal values keep their order.
        kids.sort_by_key(|k| std::cmp::Reverse(k.order));
        Some(ties)
    }
}

/// The mover's captures minus the opponent's in one move: the move-ordering key.
#[inline]
fn gain(summary: &MoveSummary, mover: Side) -> i32 {
    summary.net_gain(mover)
}

/// Plain minimax without pruning or table, for tests: the value of `pos` for its mover.
#[cfg(test)]
pub(crate) fn plain_value(pos: &Position, depth: u32, eval: Eval) -> i32 {
    let me = pos.turn();
    if depth == 0 {
        return if pos.legal_moves().is_empty() { eval.stuck(pos, me) } else { eval.leaf(pos, me) };
    }
    pos.legal_children()
        .map(|(_, child, _)| -plain_value(&child, depth - 1, eval))
        .max()
        .unwrap_or_else(|| eval.stuck(pos, me))
}

/// Each legal root move with its plain minimax value, for tests.
#[cfg(test)]
pub(crate) fn plain_root_values(pos: &Position, depth: u32, eval: Eval) -> Vec<(Pit, i32)> {
    pos.legal_children()
        .map(|(pit, child, _)| (pit, -plain_value(&child, depth - 1, eval)))
        .collect()
}

/// The root values a searcher finds at exactly `depth` (every root move searched with a full
/// window), for tests.
#[cfg(test)]
pub(crate) fn searched_root_values(
    searcher: &mut Searcher,
    pos: &Position,
    depth: u32,
) -> Vec<(Pit, i32)> {
    if searcher.table.is_empty() {
        searcher.table = vec![Entry::default(); 1 << TABLE_BITS];
    }
    pos.legal_children()
        .map(|(pit, child, _)| (pit, -searcher.negamax(&child, 1, depth - 1, -INF, INF)))
        .collect()
}
