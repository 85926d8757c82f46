//! One bucket of one level of one attractor: its masks for one propagation round, from the
//! lower levels' final masks (exits) and the other buckets' masks of the last round (moves
//! within the level), as the spilled solver's level step ([`crate::exact::matches::match_spill`]) but
//! with only the bucket's positions in hand.

use std::ops::Range;

use rayon::prelude::*;

use crate::engine::Side;
use crate::exact::files::level_files::Move;
use crate::exact::matches::match_spill::DiskGraph;
use crate::exact::matches::round_graph::{join, reserves, unit, Mask};

/// Positions per parallel task.
const CHUNK: usize = 2048;

/// The positions of bucket `b` of `buckets` over a level of `m` positions: an index range, the
/// buckets in order and their sizes differing by at most one.
pub(crate) fn bucket_range(m: usize, buckets: u32, b: u32) -> Range<usize> {
    let at = |b: u32| (m as u128 * b as u128 / buckets as u128) as usize;
    at(b)..at(b + 1)
}

/// The bucket holding position `i` of a level of `m` positions ([`bucket_range`]).
pub(crate) fn bucket_of(m: usize, buckets: u32, i: usize) -> u32 {
    let mut b = ((i as u128 * buckets as u128) / m.max(1) as u128) as u32;
    while b + 1 < buckets && bucket_range(m, buckets, b + 1).start <= i {
        b += 1;
    }
    while b > 0 && bucket_range(m, buckets, b).start > i {
        b -= 1;
    }
    b
}

/// Where a bucket's masks read what is outside it.
pub(super) struct Around<'a> {
    /// The final mask of position i of a lower level l: `lower(l, i)`.
    pub lower: &'a (dyn Fn(usize, usize) -> Mask + Sync),
    /// The mask of position i of the level, outside the bucket, as of the last round (none
    /// before the first).
    pub other: &'a (dyn Fn(usize) -> Mask + Sync),
    /// The bucket's own masks as of the last round (zeros before the first).
    pub prev: &'a [Mask],
}

/// The masks of the positions `range` of level n of `g` for `forcer`, towards the ends `ends`
/// (by counters left, by mover): the least fixed point within the bucket, the rest of the level
/// held at `around`'s last round; and whether any changed from that round.
///
/// The masks only grow from round to round (each round starts from the last, and the other
/// buckets' masks it reads grew too), so once a round changes no bucket, every bucket is a
/// fixed point given the others: the level's least fixed point, the one-machine solver's.
pub(super) fn bucket_masks(
    g: &DiskGraph,
    n: usize,
    forcer: Side,
    ends: &[[Mask; 2]],
    range: Range<usize>,
    around: &Around,
) -> (Vec<Mask>, bool) {
    let (file, moves_file) = &g.levels[n];
    let south = file.counts()[0] as usize;
    let (degrees, moves) = (moves_file.degrees(), moves_file.moves());
    let lo = range.start;
    let len = range.len();
    let mut starts = Vec::with_capacity(len + 1);
    starts.push(degrees[..lo].iter().map(|&d| d as usize).sum::<usize>());
    for &d in &degrees[range.clone()] {
        starts.push(starts.last().expect("a start") + d as usize);
    }
    let out = |i: usize| &moves[starts[i]..starts[i + 1]];
    let valid = reserves(g.rules.total_counters(), n);
    let mover = |x: usize| if x < south { Side::South } else { Side::North };
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
    let eval = |win: &[Mask], i: usize| -> Mask {
        if out(i).is_empty() {
            return base[i];
        }
        let forcer_moves = mover(lo + i) == forcer;
        let quiet = out(i).iter().map(|&w| Move::decode(w)).filter(|mv| mv.level as usize == n);
        quiet.fold(base[i], |acc, mv| {
            let j = mv.index as usize;
            let m = if range.contains(&j) { win[j - lo] } else { (around.other)(j) };
            join(forcer_moves, acc, m >> mv.gain)
        }) & valid
    };
    let mut win: Vec<Mask> =
        (0..len).into_par_iter().with_min_len(CHUNK).map(|i| eval(around.prev, i)).collect();
    let (pred_start, preds) = bucket_predecessors(n, &range, &starts, moves);
    let mut stack: Vec<u32> =
        (0..len as u32).filter(|&i| win[i as usize] != around.prev[i as usize]).collect();
    while let Some(y) = stack.pop() {
        for &p in &preds[pred_start[y as usize] as usize..pred_start[y as usize + 1] as usize] {
            let v = eval(&win, p as usize);
            if v != win[p as usize] {
                win[p as usize] = v;
                stack.push(p);
            }
        }
    }
    let changed = win != around.prev;
    (win, changed)
}

/// The predecessors within the bucket `range` of level n of each of its positions, CSR, by
/// index in the bucket; `starts[i]` is where position lo + i's moves start in `moves`.
fn bucket_predecessors(
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The buckets cover the level in order, each position in the bucket that says so.
    #[test]
    fn buckets_cover_a_level_in_order() {
        for m in [0usize, 1, 2, 5, 17, 100] {
            for buckets in [1u32, 2, 3, 4, 7, 64] {
                let mut next = 0;
                for b in 0..buckets {
                    let r = bucket_range(m, buckets, b);
                    assert_eq!(r.start, next, "m {m} buckets {buckets} bucket {b}");
                    assert!(r.len() <= m.div_ceil(buckets as usize));
                    for i in r.clone() {
                        assert_eq!(bucket_of(m, buckets, i), b, "m {m} buckets {buckets} i {i}");
                    }
                    next = r.end;
                }
                assert_eq!(next, m);
            }
        }
    }
}
