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
    /// The layout of an enumeration's levels; Err when their nodes are more than 32 bits name.
    pub(crate) fn of(positions: &Solution) -> Result<Layout, SolveError> {
        let lens = (0..positions.top_level() + 1)
            .map(|n| (positions.level_len(n, 0) as u64, positions.level_len(n, 1) as u64));
        Layout::of_levels(lens)
    }

    /// The layout of levels of (South to move, North to move) positions, by level ascending.
    pub(crate) fn of_levels(
        lens: impl ExactSizeIterator<Item = (u64, u64)>,
    ) -> Result<Layout, SolveError> {
        let mut level_start = Vec::with_capacity(lens.len() + 1);
        let mut south_end = Vec::with_capacity(lens.len());
        let mut nodes = 0u64;
        level_start.push(0);
        for (south, north) in lens {
            south_end.push(graph_index(nodes + south, "nodes")?);
            nodes += south + north;
            level_start.push(graph_index(nodes, "nodes")?);
        }
        Ok(Layout { level_start, south_end })
    }

    pub(crate) fn nodes(&self) -> usize {
        *self.level_start.last().expect("a level") as usize
    }

    /// The node of a position's slot (level, side to move, index).
    pub(crate) fn id(&self, (level, side, i): (u32, usize, usize)) -> u32 {
        let l = level as usize;
        (if side == 0 { self.level_start[l] } else { self.south_end[l] }) + i as u32
    }

    pub(crate) fn bytes(&self) -> u64 {
        4 * (self.level_start.capacity() + self.south_end.capacity()) as u64
    }
}

/// A count of a graph's nodes or moves (`what`) as the 32-bit index that names them; Err
/// naming the limit when it is more than that can hold.
pub(crate) fn graph_index(count: u64, what: &'static str) -> Result<u32, SolveError> {
    u32::try_from(count).map_err(|_| SolveError::IndexLimit {
        what: what.to_string(),
        count,
        limit: u32::MAX as u64,
    })
}

/// Every node's moves in the engine's order, CSR: offsets, successors, South's captures, local
/// pits, from the levels `found` as the enumeration recorded them (each level's moves let go
/// once converted). `check(bytes, level)` hears the bytes held for the conversion (the arrays,
/// the recorded levels left, each level's node by number) before anything is allocated for
/// each level, and can refuse. Err too when the moves are more than 32 bits name.
pub(crate) fn graph_moves(
    mut found: Vec<FoundLevel>,
    layout: &Layout,
    check: &dyn Fn(u64, usize) -> Result<(), SolveError>,
) -> Result<GraphMoves, SolveError> {
    let nodes = layout.nodes();
    let total: usize = found.iter().map(|level| level.moves.len()).sum();
    // Moves are named by u32 offsets, nodes by u32 ids (the layout checked their count): the
    // `as u32` below fit.
    graph_index(total as u64, "moves")?;
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
        // With its bitmap, which moves from the level to its `NodeOf`.
        let level_bytes = level.bytes();
        check(arrays + recorded + node_of_bytes + NodeOf::table_bytes(&level), n)?;
        let nodes = NodeOf::of(&mut level);
        node_of_bytes += nodes.bytes();
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
    /// The bytes [`NodeOf::of`] allocates for `level`: a table by number, unless a bitmap
    /// numbers the level (taken from it, counted with the level already).
    fn table_bytes(level: &FoundLevel) -> u64 {
        if level.ids.is_some() {
            0
        } else {
            4 * level.span as u64
        }
    }

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

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;
    use crate::exact::round::rank_bitmap::LevelBits;

    /// One level of one position without moves, numbered up to `span` (or by a bitmap).
    fn lone_level(span: usize, ids: Option<RankBitmap>) -> FoundLevel {
        FoundLevel {
            number_of: vec![0],
            span,
            move_start: vec![0, 0],
            ids,
            ..FoundLevel::default()
        }
    }

    /// `graph_moves` of `found` with a check that refuses above `limit`; what each check heard.
    fn converted(found: Vec<FoundLevel>, limit: u64) -> (Result<GraphMoves, SolveError>, Vec<u64>) {
        let layout = Layout::of_levels(found.iter().map(|l| (l.len() as u64, 0))).unwrap();
        let heard = RefCell::new(Vec::new());
        let check = |bytes: u64, level: usize| {
            heard.borrow_mut().push(bytes);
            SolveError::within_memory(limit, bytes, 1, level as u32, "enumerated")
        };
        let moves = graph_moves(found, &layout, &check);
        (moves, heard.into_inner())
    }

    #[test]
    fn a_count_past_32_bits_is_an_error_naming_the_limit() {
        let max = u32::MAX as u64;
        assert_eq!(graph_index(max, "moves"), Ok(u32::MAX));
        let e = graph_index(max + 1, "moves").unwrap_err();
        let what = "moves".to_string();
        assert_eq!(e, SolveError::IndexLimit { what, count: max + 1, limit: max });
        assert!(e.to_string().contains(&format!("more than the {max}")), "{e}");
        // The nodes of a layout: its levels' sum, each side's end included.
        let layout = Layout::of_levels([(max - 1, 0), (0, 1)].into_iter()).unwrap();
        assert_eq!(layout.nodes() as u64, max);
        for lens in [[(max, 1), (0, 0)], [(max, 0), (1, 0)], [(1, 0), (max, 0)]] {
            let e = Layout::of_levels(lens.into_iter()).map(|_| ()).unwrap_err();
            assert!(
                matches!(&e, SolveError::IndexLimit { what, count, .. } if what == "nodes" && *count == max + 1),
                "{lens:?}: {e:?}"
            );
        }
    }

    /// A level's table by number is checked before it is allocated: one past what the address
    /// space holds would panic (capacity overflow) if it were allocated first.
    #[test]
    fn a_bound_too_small_for_a_levels_table_refuses_it_before_allocating_it() {
        let span = isize::MAX as usize / 4 + 1;
        let level = lone_level(span, None);
        let level_bytes = level.bytes();
        let (moves, heard) = converted(vec![level], 1 << 20);
        let arrays = 8;
        assert_eq!(heard, [arrays + level_bytes, arrays + level_bytes + 4 * span as u64]);
        match moves.map(|_| ()).unwrap_err() {
            SolveError::MemoryLimit { needed, .. } => assert_eq!(needed, heard[1]),
            e => panic!("{e:?}"),
        }
    }

    /// A level's table by number counts once, when it is made; a bitmap, moved from the level
    /// to number it, counts once too (with the level).
    #[test]
    fn a_levels_numbering_is_counted_once() {
        let arrays = 8;
        let level = lone_level(3, None);
        let level_bytes = level.bytes();
        let (moves, heard) = converted(vec![level], u64::MAX);
        assert_eq!(moves.unwrap().0, [0, 0]);
        assert_eq!(heard, [arrays + level_bytes, arrays + level_bytes + 12]);

        let mut bits = LevelBits::new(1 << 12);
        bits.open();
        bits.shared().insert(5);
        let level = lone_level(0, Some(bits.finish()));
        let level_bytes = level.bytes();
        assert!(level_bytes >= 1024, "the bitmap is in the level's bytes: {level_bytes}");
        let (moves, heard) = converted(vec![level], u64::MAX);
        assert_eq!(moves.unwrap().0, [0, 0]);
        assert_eq!(heard, [arrays + level_bytes, arrays + level_bytes]);
    }
}
