//! The moves of a round's graph for the match solver (round_graph.rs), taken from the moves its
//! enumeration recorded (level_moves.rs) rather than sown again: each recorded move names its
//! child by level and number (by node within the mover's level), the mover's net captures and
//! the pit played; the graph names nodes across the whole round and South's captures.

use rayon::prelude::*;

use crate::engine::Side;
use crate::exact::round::level_moves::{FoundLevel, Move};
use crate::exact::round::rank_bitmap::RankBitmap;
use crate::exact::round::solve_error::SolveError;
use crate::exact::round::solver::Solution;

/// The moves of a graph: offsets by node, successors, South's captures, local pits.
pub(crate) type GraphMoves = (Vec<u32>, Vec<u32>, Vec<u8>, Vec<u8>);

/// Where each level's nodes are: by level ascending, South to move first within a level, each
/// side by rank (the order of the enumeration's levels and of [`Solution`]'s slots).
pub(crate) struct Layout {
    pub level_start: Vec<u32>,
    pub south_end: Vec<u32>,
}

impl Layout {
    pub(crate) fn of(positions: &Solution) -> Layout {
        let top = positions.top_level();
        let mut level_start = vec![0u32; top + 2];
        let mut south_end = vec![0u32; top + 1];
        for n in 0..=top {
            let (s, nn) = (positions.level_len(n, 0), positions.level_len(n, 1));
            south_end[n] = level_start[n] + s as u32;
            level_start[n + 1] = level_start[n] + (s + nn) as u32;
        }
        Layout { level_start, south_end }
    }

    pub(crate) fn nodes(&self) -> usize {
        *self.level_start.last().expect("a level") as usize
    }

    /// The node of a position's slot (level, side to move, index).
    pub(crate) fn id(&self, (level, side, i): (u32, usize, usize)) -> u32 {
        let l = level as usize;
        (if side == 0 { self.level_start[l] } else { self.south_end[l] }) + i as u32
    }
}

/// Every node's moves in the engine's order, CSR: offsets, successors, South's captures, local
/// pits, from the levels `found` as the enumeration recorded them (each level's moves let go
/// once converted). `check(bytes, level)` hears the bytes held for the conversion (the arrays,
/// the recorded levels left, each level's node by number) before each level's, and can refuse.
pub(crate) fn graph_moves(
    mut found: Vec<FoundLevel>,
    layout: &Layout,
    check: &dyn Fn(u64, usize) -> Result<(), SolveError>,
) -> Result<GraphMoves, SolveError> {
    let nodes = layout.nodes();
    let total: usize = found.iter().map(|level| level.moves.len()).sum();
    let arrays = 4 * (nodes as u64 + 1) + 6 * total as u64;
    let mut recorded: u64 = found.iter().map(FoundLevel::bytes).sum();
    check(arrays + recorded, 0)?;
    // Reserved once: a page is written only when its moves are converted, as the recorded
    // levels' are let go.
    let mut succ_start = Vec::with_capacity(nodes + 1);
    succ_start.push(0u32);
    let (mut succ, mut gain, mut pit) =
        (Vec::with_capacity(total), Vec::with_capacity(total), Vec::with_capacity(total));
    // Of each level converted so far, the node of each number (moves name their children of
    // lower levels by number).
    let mut node_of: Vec<NodeOf> = Vec::with_capacity(found.len());
    let mut node_of_bytes = 0u64;
    for (n, slot) in found.iter_mut().enumerate() {
        let mut level = std::mem::take(slot);
        let level_bytes = level.bytes();
        let nodes = NodeOf::of(&mut level);
        node_of_bytes += nodes.bytes();
        check(arrays + recorded + node_of_bytes, n)?;
        node_of.push(nodes);
        let first = layout.level_start[n];
        debug_assert_eq!(first as usize + level.len(), layout.level_start[n + 1] as usize);
        let base = succ.len() as u32;
        succ_start.extend(level.move_start[1..].iter().map(|&s| base + s as u32));
        // Nodes below `south_end` have South to move, and their moves come first.
        let south_moves = level.move_start[(layout.south_end[n] - first) as usize] as usize;
        let node = |mv: Move| {
            let cl = mv.level();
            if cl == n {
                first + mv.number() as u32
            } else {
                layout.level_start[cl] + node_of[cl].node(mv.number())
            }
        };
        succ.par_extend(level.moves.par_iter().map(|&mv| node(mv)));
        gain.par_extend(level.moves.par_iter().enumerate().map(|(e, &mv)| {
            south_captures(n, mv, if e < south_moves { Side::South } else { Side::North })
        }));
        pit.par_extend(level.moves.par_iter().map(|mv| mv.pit()));
        recorded -= level_bytes;
    }
    debug_assert_eq!(succ.len(), total);
    Ok((succ_start, succ, gain, pit))
}

/// How the moves of the levels above name a level's positions: by number, each number's node
/// in a table, or, in a level numbered by a bitmap, by id, whose node is its rank there.
enum NodeOf {
    Numbers(Vec<u32>),
    Ids(RankBitmap),
}

impl NodeOf {
    /// Of a level about to be converted (its bitmap taken from it).
    fn of(level: &mut FoundLevel) -> NodeOf {
        if let Some(ids) = level.ids.take() {
            return NodeOf::Ids(ids);
        }
        // Numbers no position has are left 0, and never read.
        let mut node_of = vec![0u32; level.span];
        for (x, &number) in level.number_of.iter().enumerate() {
            node_of[number as usize] = x as u32;
        }
        NodeOf::Numbers(node_of)
    }

    #[inline]
    fn node(&self, number: usize) -> u32 {
        match self {
            NodeOf::Numbers(nodes) => nodes[number],
            NodeOf::Ids(ids) => ids.rank(number as u64) as u32,
        }
    }

    fn bytes(&self) -> u64 {
        match self {
            NodeOf::Numbers(nodes) => 4 * nodes.len() as u64,
            NodeOf::Ids(ids) => ids.bytes(),
        }
    }
}

/// South's captures in a move of level n by `mover`: counters leave the board only as
/// captures, so the move captured `n - child's level` in all, and the mover's net captures
/// split them (R6, R8).
fn south_captures(n: usize, mv: Move, mover: Side) -> u8 {
    let (all, net) = ((n - mv.level()) as i32, mv.gain());
    let movers = (all + net) / 2;
    (if mover == Side::South { movers } else { all - movers }) as u8
}
