//! The attractor masks of a range of one level's positions of a round graph on disk: the whole
//! level for the spilled match solver (match_spill.rs), a bucket of it for the cluster's
//! (match_cluster/), from the lower levels' final masks (exits) and the rest of the level as
//! last seen (moves within the level).

use std::ops::Range;

use rayon::prelude::*;

use crate::engine::Side;
use crate::exact::files::level_files::Move;
use crate::exact::matches::round_graph::{join, unit, Mask};

/// Positions per parallel task.
const CHUNK: usize = 2048;

/// One level of a round graph on disk, as its masks read it.
pub(crate) struct LevelMoves<'a> {
    /// Counters on the board.
    pub n: usize,
    /// Positions below this have South to move.
    pub south: usize,
    /// South's possible reserves at this level.
    pub valid: Mask,
    /// Each position's moves: `degrees[i]` of them, in order, in `moves`.
    pub degrees: &'a [u8],
    pub moves: &'a [u64],
}

/// Where a range's masks read what is outside it.
pub(crate) struct Around<'a> {
    /// The final mask of position i of a lower level l: `lower(l, i)`.
    pub lower: &'a (dyn Fn(usize, usize) -> Mask + Sync),
    /// The mask of position i of the level, outside the range, as of the last round (never
    /// asked when the range is the whole level).
    pub other: &'a (dyn Fn(usize) -> Mask + Sync),
    /// The range's own masks as of the last round, one a position of the range; `None`: all
    /// zeros (before the first).
    pub prev: Option<&'a [Mask]>,
}

/// The bytes [`range_masks`] holds a position of its range beyond the moves: its base and
/// current masks, its moves' start, its predecessors' start and a stack slot (the predecessors
/// themselves take 4 bytes a move within the range).
pub(crate) const RANGE_BYTES_PER_POSITION: u64 = 2 * 16 + 8 + 4 + 4;

/// The masks of the positions `range` of `level` for `forcer`, towards the ends `ends` (by
/// counters left, by mover): the least fixed point within the range, the rest of the level
/// held at `around`'s last round; and whether any changed from that round. First each
/// position's base: its end label or its exits (the lower levels' masks shifted by South's
/// captures); then its moves within the level, each change carried to its predecessors in the
/// range.
///
/// The masks only grow from round to round (each round starts from the last, and the masks
/// outside the range it reads grew too), so once a round changes no range, every range is a
/// fixed point given the others: the level's least fixed point.
pub(crate) fn range_masks(
    level: &LevelMoves,
    forcer: Side,
    ends: &[[Mask; 2]],
    range: Range<usize>,
    around: &Around,
) -> (Vec<Mask>, bool) {
    let (n, moves, valid) = (level.n, level.moves, level.valid);
    let (lo, len) = (range.start, range.len());
    let mut starts = Vec::with_capacity(len + 1);
    starts.push(level.degrees[..lo].iter().map(|&d| d as usize).sum::<usize>());
    for &d in &level.degrees[range.clone()] {
        starts.push(starts.last().expect("a start") + d as usize);
    }
    let out = |i: usize| &moves[starts[i]..starts[i + 1]];
    let mover = |x: usize| if x < level.south { Side::South } else { Side::North };
    let base: Vec<Mask> = (0..len)
        .into_par_iter()
        .with_min_len(CHUNK)
        .map(|i| {
            let x = lo + i;
            if out(i).is_empty() {
                return ends[n][mover(x).index()] & valid;
            }
            let forcer_moves = mover(x) == forcer;
            let exits = out(i).iter().map(|&w| Move::decode(w)).filter(|mv| mv.level as usize != n);
            exits.fold(unit(forcer_moves), |acc, mv| {
                join(
                    forcer_moves,
                    acc,
                    (around.lower)(mv.level as usize, mv.index as usize) >> mv.gain,
                )
            })
        })
        .collect();
    if let Some(prev) = around.prev {
        assert_eq!(prev.len(), len, "the last round's masks of positions {range:?}");
    }
    // A position's mask given the range's masks `mine` (`None`: all zeros).
    let eval = |mine: Option<&[Mask]>, i: usize| -> Mask {
        if out(i).is_empty() {
            return base[i];
        }
        let forcer_moves = mover(lo + i) == forcer;
        let quiet = out(i).iter().map(|&w| Move::decode(w)).filter(|mv| mv.level as usize == n);
        quiet.fold(base[i], |acc, mv| {
            let j = mv.index as usize;
            let m = if range.contains(&j) {
                mine.map_or(0, |mine| mine[j - lo])
            } else {
                (around.other)(j)
            };
            join(forcer_moves, acc, m >> mv.gain)
        }) & valid
    };
    let prev = |i: usize| around.prev.map_or(0, |prev| prev[i]);
    let mut win: Vec<Mask> =
        (0..len).into_par_iter().with_min_len(CHUNK).map(|i| eval(around.prev, i)).collect();
    let (pred_start, preds) = range_predecessors(n, &range, &starts, moves);
    let mut stack: Vec<u32> =
        (0..len as u32).filter(|&i| win[i as usize] != prev(i as usize)).collect();
    while let Some(y) = stack.pop() {
        for &p in &preds[pred_start[y as usize] as usize..pred_start[y as usize + 1] as usize] {
            let v = eval(Some(&win), p as usize);
            if v != win[p as usize] {
                win[p as usize] = v;
                stack.push(p);
            }
        }
    }
    let changed = (0..len).any(|i| win[i] != prev(i));
    (win, changed)
}

/// The predecessors within the range of level n of each of its positions, CSR, by index in the
/// range; `starts[i]` is where position lo + i's moves start in `moves`.
fn range_predecessors(
    n: usize,
    range: &Range<usize>,
    starts: &[usize],
    moves: &[u64],
) -> (Vec<u32>, Vec<u32>) {
    let (lo, len) = (range.start, range.len());
    let inside = |w: &u64| {
        let mv = Move::decode(*w);
        (mv.level as usize == n && range.contains(&(mv.index as usize)))
            .then_some(mv.index as usize - lo)
    };
    let mut pred_start = vec![0u32; len + 1];
    for j in moves[starts[0]..starts[len]].iter().filter_map(inside) {
        pred_start[j + 1] += 1;
    }
    for i in 0..len {
        pred_start[i + 1] += pred_start[i];
    }
    let mut fill = pred_start.clone();
    let mut preds = vec![0u32; pred_start[len] as usize];
    for i in 0..len {
        for j in moves[starts[i]..starts[i + 1]].iter().filter_map(inside) {
            preds[fill[j] as usize] = i as u32;
            fill[j] += 1;
        }
    }
    (pred_start, preds)
}
