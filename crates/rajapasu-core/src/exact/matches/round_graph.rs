//! The move graph of one round for the match solver (R17): every position reachable from an
//! open-pit configuration's start (both starters), found by the round solver's enumeration
//! ([`Solution::enumerated`]), numbered by level (counters on the board) ascending and, within
//! a level, South to move first, with each move's successor and South's captures.
//!
//! A match position is a round position plus South's counters off the board (its reserve, R12,
//! plus its captures so far this round): North's follow, since the total is fixed. Sets of
//! such reserves are bit masks (`u128`, bit h = South holds h off the board; boards of at most
//! 127 counters), so one pass over the graph decides every reserve at once: the reserves
//! change only the labels of the round's ends, never the graph.

use rayon::prelude::*;

use crate::engine::{BySide, Pit, Position, Ruleset, Side};
use crate::exact::matches::graph_moves::{graph_moves, Layout};
use crate::exact::round::enumerate::BITMAP_BITS;
use crate::exact::round::solver::{Solution, SolveError, SolveOptions, Watch};

#[cfg(test)]
mod sown_tests;
mod warm;
#[cfg(test)]
mod warm_tests;
pub(crate) use warm::{dirty_bytes, Attractor};

/// Reserve masks: bit h is "South holds h counters off the board".
pub(crate) type Mask = u128;

/// Bytes a node takes beyond its graph while the match is solved: the attractors' masks, one
/// per side at once.
pub(crate) const ATTRACTOR_BYTES: u64 = 2 * std::mem::size_of::<Mask>() as u64;

/// What the rest of a solve holds while a round graph is built: its bytes, and the nodes whose
/// attractor masks it has reserved already (its largest graph's); the graph's own masks count
/// where they are more.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct GraphBudget {
    pub held: u64,
    pub reserved_nodes: u64,
    /// Bytes a node's attractor masks take (0: the caller keeps none).
    pub mask_bytes: u64,
}

impl GraphBudget {
    /// The bytes the solve holds with a graph of `nodes` nodes holding `bytes`.
    pub(crate) fn needed(&self, bytes: u64, nodes: u64) -> u64 {
        self.held + bytes + self.mask_bytes * nodes.max(self.reserved_nodes)
    }
}

pub(crate) struct RoundGraph {
    pub open: BySide<u8>,
    /// The positions and their slots (values not computed).
    positions: Solution,
    /// Nodes of level n are `level_start[n]..level_start[n + 1]`; within it, nodes below
    /// `south_end[n]` have South to move.
    layout: Layout,
    /// Moves of node x are `succ_start[x]..succ_start[x + 1]`, in the engine's move order.
    succ_start: Vec<u32>,
    succ: Vec<u32>,
    /// South's captures in each move (R6, R8).
    gain: Vec<u8>,
    /// The local pit of each move.
    pit: Vec<u8>,
    /// Predecessors, CSR (in the same level or higher; `attract` follows the in-level ones).
    pred_start: Vec<u32>,
    preds: Vec<u32>,
    /// The nodes without a move (round ends, R10).
    ends: Vec<u32>,
    /// The round's start with each side to move.
    roots: BySide<u32>,
    /// Counters on the board at the round's start, and in the whole game.
    on_board: u32,
    total: u32,
    /// The most bytes the solve held, by its budget, while the graph was built.
    build_peak: u64,
}

impl RoundGraph {
    /// Enumerates the round of `open` pits and builds its graph.
    #[cfg(test)]
    pub fn build(
        rules: Ruleset,
        open: BySide<u8>,
        opts: SolveOptions,
    ) -> Result<RoundGraph, SolveError> {
        RoundGraph::build_watched(rules, open, opts, GraphBudget::default(), &mut |_| {
            std::ops::ControlFlow::Continue(())
        })
    }

    /// [`RoundGraph::build`], `watch` hearing the enumeration of its positions and able to stop
    /// it ([`SolveError::Cancelled`]). Every allocation is checked first: what the solve holds
    /// (`budget`) and what the graph would hold with it stay within `opts.max_memory`.
    pub fn build_watched(
        rules: Ruleset,
        open: BySide<u8>,
        opts: SolveOptions,
        budget: GraphBudget,
        watch: &mut Watch,
    ) -> Result<RoundGraph, SolveError> {
        RoundGraph::build_numbered(rules, open, opts, budget, watch, BITMAP_BITS)
    }

    /// [`RoundGraph::build_watched`], the levels of `bitmap_bits` ids numbered by a bitmap
    /// (tests choose which).
    pub(crate) fn build_numbered(
        rules: Ruleset,
        open: BySide<u8>,
        opts: SolveOptions,
        budget: GraphBudget,
        watch: &mut Watch,
        bitmap_bits: std::ops::RangeInclusive<u64>,
    ) -> Result<RoundGraph, SolveError> {
        let roots = [
            crate::exact::round_start(rules, open, Side::South),
            crate::exact::round_start(rules, open, Side::North),
        ];
        // Every check below, the enumeration's included, runs on this thread in an order fixed
        // by the inputs: their largest is the same whatever runs the build.
        let peak = std::cell::Cell::new(0u64);
        let needed = |bytes: u64, nodes: u64| {
            let needed = budget.needed(bytes, nodes);
            peak.set(peak.get().max(needed));
            needed
        };
        let (positions, found) =
            Solution::enumerated_with_moves(&roots, opts, bitmap_bits, &needed, watch)?;
        let layout = Layout::of(&positions)?;
        let nodes = layout.nodes() as u64;
        let held = positions.stats().table_bytes + layout.bytes();
        let check = |arrays: u64, level: usize| {
            let needed = needed(held + arrays, nodes);
            SolveError::within_memory(opts.max_memory, needed, nodes, level as u32, "enumerated")
        };
        let (succ_start, succ, gain, pit) = graph_moves(found, &layout, &check)?;
        let ends: Vec<u32> = (0..layout.nodes() as u32)
            .filter(|&x| succ_start[x as usize] == succ_start[x as usize + 1])
            .collect();
        let moves_bytes = 4 * succ_start.capacity() + 6 * succ.capacity() + 4 * ends.capacity();
        // Offsets, their running copy and the predecessors themselves.
        check((moves_bytes + 8 * succ_start.len() + 4 * succ.len()) as u64, positions.top_level())?;
        let (pred_start, preds) = predecessors(&succ_start, &succ);
        let slot =
            |r: &Position| layout.id(positions.slot_of(r).expect("the roots are enumerated"));
        let roots = BySide::new(slot(&roots[0]), slot(&roots[1]));
        let on_board = positions.top_level() as u32;
        let graph = RoundGraph {
            open,
            positions,
            layout,
            succ_start,
            succ,
            gain,
            pit,
            pred_start,
            preds,
            ends,
            roots,
            on_board,
            total: rules.total_counters(),
            build_peak: peak.get(),
        };
        // The last check counted the predecessors' running copy too: the finished graph holds less.
        debug_assert!(budget.needed(graph.bytes(), nodes) <= graph.build_peak);
        Ok(graph)
    }

    /// The most bytes the solve held while the graph was built, as its [`GraphBudget`] counts
    /// them (more than the finished graph holds): the largest amount its checks passed, so a
    /// build within exactly this much succeeds, and within a byte less fails.
    pub fn build_peak(&self) -> u64 {
        self.build_peak
    }

    pub fn nodes(&self) -> usize {
        self.succ_start.len() - 1
    }

    pub fn moves(&self) -> usize {
        self.succ.len()
    }

    pub fn root(&self, starter: Side) -> u32 {
        self.roots[starter]
    }

    /// Counters on the board at the round's start.
    pub fn on_board(&self) -> u32 {
        self.on_board
    }

    /// Bytes the graph holds (the position sets included).
    pub fn bytes(&self) -> u64 {
        (self.positions.stats().table_bytes as usize
            + self.layout.bytes() as usize
            + 4 * (self.succ_start.len() + self.succ.len())
            + self.gain.len()
            + self.pit.len()
            + 4 * (self.pred_start.len() + self.preds.len() + self.ends.len())) as u64
    }

    /// The node of a position of this round, None if it is not reachable from the start.
    pub fn node(&self, pos: &Position) -> Option<u32> {
        self.positions.slot_of(pos).map(|slot| self.layout.id(slot))
    }

    /// The moves of node x: (local pit, successor, South's captures).
    pub fn moves_of(&self, x: u32) -> impl Iterator<Item = (Pit, u32, u32)> + '_ {
        let r = self.succ_start[x as usize] as usize..self.succ_start[x as usize + 1] as usize;
        r.map(move |e| {
            (Pit::new_unchecked(self.pit[e] as usize), self.succ[e], self.gain[e] as u32)
        })
    }

    /// Levels (counters on the board) 0..=on_board.
    fn level_nodes(&self, n: usize) -> std::ops::Range<u32> {
        self.layout.level_start[n]..self.layout.level_start[n + 1]
    }

    /// The side to move at node x.
    #[cfg(test)]
    pub fn mover_of(&self, x: u32) -> Side {
        self.mover(self.level_of(x), x)
    }

    fn mover(&self, n: usize, x: u32) -> Side {
        if x < self.layout.south_end[n] {
            Side::South
        } else {
            Side::North
        }
    }

    fn valid(&self, n: usize) -> Mask {
        reserves(self.total, n)
    }

    /// The attractor of a reachability game over (node, South's reserve): the pairs from which
    /// `forcer` can force reaching a round's end that is a target: `end(counters left, mover)`
    /// is the mask of South's reserves at which an end with that many counters left on the
    /// board and that side unable to move is a target. The least fixed point, so play that cycles inside the
    /// round forever never reaches a target (R17: a round that never ends is a draw).
    /// One mask per node. (The match solver continues its attractors instead,
    /// [`RoundGraph::attract_from`]; this is the tests' reference.)
    #[cfg(test)]
    pub fn attract(&self, forcer: Side, end: &(dyn Fn(u32, Side) -> Mask + Sync)) -> Vec<Mask> {
        self.attract_observed(forcer, end, |_, _| {})
    }

    /// [`RoundGraph::attract`], telling `added(node, bits)` each time bits join a node's mask,
    /// in the order they join: a forcer's bit always joins after the successor's bit that
    /// brought it, so the order is a progress measure (a perfect player converts a win by
    /// moving to a successor whose bit joined earlier).
    #[cfg(test)]
    pub fn attract_observed(
        &self,
        forcer: Side,
        end: &(dyn Fn(u32, Side) -> Mask + Sync),
        mut added: impl FnMut(u32, Mask),
    ) -> Vec<Mask> {
        let mut win = vec![0 as Mask; self.nodes()];
        let mut stack = Vec::new();
        for n in 0..=self.on_board as usize {
            let valid = self.valid(n);
            let eval = |win: &[Mask], x: u32| self.eval(forcer, end, win, n, valid, x);
            for x in self.level_nodes(n) {
                let v = eval(&win, x);
                if v != 0 {
                    win[x as usize] = v;
                    added(x, v);
                    stack.push(x);
                }
            }
            let level_end = self.layout.level_start[n + 1];
            while let Some(y) = stack.pop() {
                for &p in &self.preds
                    [self.pred_start[y as usize] as usize..self.pred_start[y as usize + 1] as usize]
                {
                    if p >= level_end {
                        // A higher level: its sweep comes later.
                        continue;
                    }
                    let v = eval(&win, p);
                    if v != win[p as usize] {
                        added(p, v & !win[p as usize]);
                        win[p as usize] = v;
                        stack.push(p);
                    }
                }
            }
        }
        win
    }

    /// The reserves of South at which `forcer` forces a target from node `x` (of level `n`,
    /// `valid` its possible reserves), given the masks `win` of its successors: an end's mask
    /// from `end`, else the union over the forcer's moves or the intersection over the
    /// opponent's, each successor's mask shifted by the counters South gains on the way.
    #[inline(always)]
    fn eval(
        &self,
        forcer: Side,
        end: &(dyn Fn(u32, Side) -> Mask + Sync),
        win: &[Mask],
        n: usize,
        valid: Mask,
        x: u32,
    ) -> Mask {
        let moves = self.succ_start[x as usize] as usize..self.succ_start[x as usize + 1] as usize;
        let mover = self.mover(n, x);
        if moves.is_empty() {
            return end(n as u32, mover) & valid;
        }
        let forcer_moves = mover == forcer;
        let mut m = unit(forcer_moves);
        for e in moves {
            m = join(forcer_moves, m, win[self.succ[e] as usize] >> self.gain[e]);
        }
        m & valid
    }

    /// The level (counters on the board) of node x.
    pub fn level_of(&self, x: u32) -> usize {
        self.layout.level_start.partition_point(|&s| s <= x) - 1
    }

    /// The first node of each level 0..=on_board, and the end of the last.
    pub fn level_starts(&self) -> &[u32] {
        &self.layout.level_start
    }

    /// Drops the predecessor lists, which only the attractors use: a graph kept for play needs
    /// its moves alone (the real board's full round: 0.5 GB less).
    pub fn forget_predecessors(&mut self) {
        self.pred_start = Vec::new();
        self.preds = Vec::new();
    }

    /// The attractor for larger targets, continued from `win` (the attractor of smaller ones, or
    /// all empty), in synchronous layers: layer 0 is the ends whose targets grew, and layer j+1
    /// the bits that join once layer j's have, every node of a layer
    /// evaluated against the masks of the layers before it (so a bit never joins in the same
    /// layer as a bit that brought it). `added(node, level, bits, layer)` hears each addition.
    /// The layer is then a progress measure that fits a byte almost everywhere: a forcer's bit
    /// of layer j has a move to a bit of a layer below j (or to a lower target), and an
    /// opponent's bit of layer j has every move to bits below j. Returns the number of layers.
    pub fn attract_layered(
        &self,
        forcer: Side,
        end: &(dyn Fn(u32, Side) -> Mask + Sync),
        win: &mut [Mask],
        mut added: impl FnMut(u32, usize, Mask, u32),
    ) -> u32 {
        assert!(
            !self.preds.is_empty() || self.nodes() <= 1,
            "the attractor needs the predecessors"
        );
        let eval =
            |win: &[Mask], x: u32, n: usize| self.eval(forcer, end, win, n, self.valid(n), x);
        let mut frontier = Vec::new();
        for &x in &self.ends {
            let n = self.level_of(x);
            let v = eval(win, x, n) | win[x as usize];
            if v != win[x as usize] {
                added(x, n, v & !win[x as usize], 0);
                win[x as usize] = v;
                frontier.push(x);
            }
        }
        let mut queued = vec![0u32; self.nodes()];
        let mut layer = 0u32;
        let mut candidates = Vec::new();
        while !frontier.is_empty() {
            layer += 1;
            candidates.clear();
            for &y in &frontier {
                for &p in &self.preds
                    [self.pred_start[y as usize] as usize..self.pred_start[y as usize + 1] as usize]
                {
                    if queued[p as usize] != layer {
                        queued[p as usize] = layer;
                        candidates.push(p);
                    }
                }
            }
            let seen: &[Mask] = win;
            let updates: Vec<(u32, usize, Mask)> = candidates
                .par_iter()
                .with_min_len(1024)
                .filter_map(|&p| {
                    let n = self.level_of(p);
                    let v = eval(seen, p, n);
                    (v != seen[p as usize]).then_some((p, n, v))
                })
                .collect();
            frontier.clear();
            for (p, n, v) in updates {
                debug_assert_eq!(v & win[p as usize], win[p as usize], "masks only grow");
                added(p, n, v & !win[p as usize], layer);
                win[p as usize] = v;
                frontier.push(p);
            }
        }
        layer
    }
}

/// The predecessors of every node, CSR: offsets and predecessors.
fn predecessors(succ_start: &[u32], succ: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let nodes = succ_start.len() - 1;
    let mut pred_start = vec![0u32; nodes + 1];
    for &y in succ {
        pred_start[y as usize + 1] += 1;
    }
    for i in 0..nodes {
        pred_start[i + 1] += pred_start[i];
    }
    let mut fill = pred_start.clone();
    let mut preds = vec![0u32; pred_start[nodes] as usize];
    for x in 0..nodes {
        for &y in &succ[succ_start[x] as usize..succ_start[x + 1] as usize] {
            preds[fill[y as usize] as usize] = x as u32;
            fill[y as usize] += 1;
        }
    }
    (pred_start, preds)
}

/// The reserves South can hold off the board with n counters on the board (of `total`):
/// 0..=total-n.
pub(crate) fn reserves(total: u32, n: usize) -> Mask {
    let top = total as usize - n;
    if top >= 127 {
        Mask::MAX
    } else {
        (1 << (top + 1)) - 1
    }
}

/// The mask [`join`] starts from: nothing when the forcer moves (a union), everything when
/// the opponent does (an intersection).
#[inline(always)]
pub(crate) fn unit(forcer_moves: bool) -> Mask {
    if forcer_moves {
        0
    } else {
        Mask::MAX
    }
}

/// Joins a successor's mask (already shifted by the counters South gains on the way) into a
/// position's: the reserves from which the forcer forces a target are the union over the
/// forcer's moves and the intersection over the opponent's.
#[inline(always)]
pub(crate) fn join(forcer_moves: bool, acc: Mask, successor: Mask) -> Mask {
    if forcer_moves {
        acc | successor
    } else {
        acc & successor
    }
}
