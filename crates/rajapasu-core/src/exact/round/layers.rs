//! The layers of [`crate::exact::Solution::layer`] around one position, computed from the
//! values alone: for a solver that keeps no layers (the spilled round), the forward closure of
//! the position under the moves that count for a layer (in-level, to the same value), then the
//! layers on that local graph by a breadth-first pass from its layer-0 positions, as the
//! in-memory attractor settles them. And the choice both solvers' perfect players make with
//! the layers ([`progress_moves`]).

use std::collections::HashMap;

use crate::engine::{Pit, PitSet, Position, Side};
use crate::exact::index::{Codec, Key};

/// Bytes a position of the closure takes: its key, its entry in the index, its flags, and
/// while the layers are computed its layer, the starts of its successors and predecessors (and
/// their fill cursor), its count of successors not yet settled.
pub(crate) const CLOSURE_POSITION_BYTES: u64 = 8 + 24 + 2 + 4 * 5;
/// Bytes a move of the closure takes: as a successor, as a predecessor, in the queue.
pub(crate) const CLOSURE_MOVE_BYTES: u64 = 12;

/// The closure would need more than its allowance of bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ClosureTooLarge {
    pub positions: u64,
    pub needed: u64,
}

/// Why the layers around a position could not be computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ClosureError {
    TooLarge(ClosureTooLarge),
    /// A position of the closure has no value: the values read are not the round's.
    NoValue(Position),
}

impl From<ClosureTooLarge> for ClosureError {
    fn from(e: ClosureTooLarge) -> ClosureError {
        ClosureError::TooLarge(e)
    }
}

/// The best moves (R15) at `pos`, whose value for its side to move is `value`: those whose
/// net captures less the child's value (`value_of`, for its side to move) achieve it.
pub(crate) fn best_moves<E>(
    pos: &Position,
    value: i32,
    value_of: impl FnMut(&Position) -> Result<i32, E>,
) -> Result<PitSet, E> {
    let mut set = PitSet::EMPTY;
    for_each_best_child(pos, value, value_of, |pit, _| set.insert(pit))?;
    Ok(set)
}

/// Calls `visit` with each best move (R15) of `pos` and the position after it: [`best_moves`]
/// with the children kept, so that a caller need not sow them again.
fn for_each_best_child<E>(
    pos: &Position,
    value: i32,
    mut value_of: impl FnMut(&Position) -> Result<i32, E>,
    mut visit: impl FnMut(Pit, &Position),
) -> Result<(), E> {
    for (pit, child, summary) in pos.legal_children() {
        if summary.net_gain(pos.turn()) - value_of(&child)? == value {
            visit(pit, &child);
        }
    }
    Ok(())
}

/// The moves a perfect player may make at `pos`, whose value for its side to move is
/// `value`, before the tie-break: the best moves (R15), and with a positive value only those
/// that make progress: its exits achieving the value, or if there is none its in-level best
/// moves to the least layer (those one layer below the position's, by the layer's
/// definition). `value_of` gives a child's value for its side to move; `layers` gives the
/// layer of each in-level best child (None: no layer, not progress), asked for only when the
/// layers decide, since a solver without stored layers computes them then.
pub(crate) fn progress_moves<E, L: Fn(&Position) -> Option<u32>>(
    pos: &Position,
    value: i32,
    value_of: impl FnMut(&Position) -> Result<i32, E>,
    layers: impl FnOnce() -> Result<L, E>,
) -> Result<PitSet, E> {
    let level = pos.on_board();
    let (mut exits, mut quiet) = (PitSet::EMPTY, Vec::new());
    for_each_best_child(pos, value, value_of, |pit, child| {
        if child.on_board() == level {
            quiet.push((pit, *child));
        } else {
            exits.insert(pit);
        }
    })?;
    if value <= 0 {
        quiet.iter().for_each(|&(pit, _)| exits.insert(pit));
        return Ok(exits);
    }
    if !exits.is_empty() || quiet.is_empty() {
        return Ok(exits);
    }
    let layer_of = layers()?;
    let layered: Vec<_> = quiet.iter().filter_map(|(pit, c)| Some((*pit, layer_of(c)?))).collect();
    let least = layered.iter().map(|&(_, layer)| layer).min();
    let mut set = PitSet::EMPTY;
    layered.iter().filter(|&&(_, l)| Some(l) == least).for_each(|&(pit, _)| set.insert(pit));
    Ok(set)
}

/// A position's value in South's terms, from the value for its side to move.
pub(crate) fn south_value(pos: &Position, value: i32) -> i32 {
    if pos.turn() == Side::South {
        value
    } else {
        -value
    }
}

/// The layers of the positions of one level reached from a root (value nonzero) by the moves
/// that count: in-level moves to a position of the same value (South's terms).
pub(crate) struct LocalLayers {
    index: HashMap<u64, u32>,
    layers: Vec<u32>,
}

impl LocalLayers {
    /// The layer of a position of the closure (same level as the root), by its codec key;
    /// None outside the closure or where no layer settles (values that are not the round's).
    pub(crate) fn layer(&self, codec: &Codec, pos: &Position) -> Option<u32> {
        let i = *self.index.get(&codec.key(pos).word())?;
        Some(self.layers[i as usize]).filter(|&l| l != u32::MAX)
    }

    /// Whether `pos` (same level as the root) is in the closure: its own closure is then part
    /// of this one, and so are its layers.
    pub(crate) fn holds(&self, codec: &Codec, pos: &Position) -> bool {
        self.index.contains_key(&codec.key(pos).word())
    }

    /// The closure of `root` under the moves that count and the layers of its positions;
    /// `value` gives each position's value for its side to move. Err when the closure's
    /// bytes would exceed `max_bytes` or a position has no value. None when the root's value
    /// is 0 (no layer).
    pub(crate) fn around(
        codec: &Codec,
        value: &dyn Fn(&Position) -> Option<i32>,
        root: &Position,
        max_bytes: u64,
    ) -> Result<Option<LocalLayers>, ClosureError> {
        let v = south_value(root, value(root).ok_or(ClosureError::NoValue(*root))?);
        if v == 0 {
            return Ok(None);
        }
        let graph = Closure::explore(codec, value, root, v, max_bytes)?;
        let layers = graph.layers();
        Ok(Some(LocalLayers { index: graph.index, layers }))
    }
}

/// The layers last computed around a position, kept for the next choice: a position of the
/// same level within that closure has its own closure inside it, so its layers are there.
#[derive(Default)]
pub(crate) struct LayersCache {
    last: Option<(u32, LocalLayers)>,
    computed: u64,
    reused: u64,
}

impl LayersCache {
    /// How many closures were computed, and how many times the last one was reused.
    #[cfg(test)]
    pub(crate) fn counts(&self) -> (u64, u64) {
        (self.computed, self.reused)
    }

    /// The layers around `pos`: the last ones if they hold it, else `compute`d (the last ones
    /// dropped first, so that one closure at a time takes memory).
    pub(crate) fn around<E>(
        &mut self,
        codec: &Codec,
        pos: &Position,
        compute: impl FnOnce() -> Result<LocalLayers, E>,
    ) -> Result<&LocalLayers, E> {
        let level = pos.on_board();
        match &self.last {
            Some((l, layers)) if *l == level && layers.holds(codec, pos) => self.reused += 1,
            _ => {
                self.last = None;
                self.last = Some((level, compute()?));
                self.computed += 1;
            }
        }
        Ok(self.last.as_ref().map(|(_, layers)| layers).expect("kept or computed just above"))
    }
}

/// The local graph: positions by discovery, each one's successors that count (one entry a
/// move), and whether it is a forcer's position of layer 0 (an exit worth the value).
struct Closure {
    index: HashMap<u64, u32>,
    keys: Vec<u64>,
    forcer: Vec<bool>,
    exit_wins: Vec<bool>,
    succ_start: Vec<u32>,
    succ: Vec<u32>,
}

impl Closure {
    fn explore(
        codec: &Codec,
        value: &dyn Fn(&Position) -> Option<i32>,
        root: &Position,
        v: i32,
        max_bytes: u64,
    ) -> Result<Closure, ClosureError> {
        let level = root.on_board();
        let forcer_side = if v > 0 { Side::South } else { Side::North };
        let mut g = Closure {
            index: HashMap::new(),
            keys: Vec::new(),
            forcer: Vec::new(),
            exit_wins: Vec::new(),
            succ_start: vec![0],
            succ: Vec::new(),
        };
        g.add(codec.key(root).word(), max_bytes)?;
        let mut same = Vec::new();
        let mut at = 0;
        while at < g.keys.len() {
            let pos = codec.position(level, Key::from_word(g.keys[at]));
            let is_forcer = pos.turn() == forcer_side;
            let mut exit_wins = false;
            same.clear();
            for (_, child, summary) in pos.legal_children() {
                let child_value = || value(&child).ok_or(ClosureError::NoValue(child));
                if child.on_board() == level {
                    if south_value(&child, child_value()?) == v {
                        same.push(codec.key(&child).word());
                    }
                } else if is_forcer && summary.net_gain(pos.turn()) - child_value()? == v.abs() {
                    // Only the forcer's exits matter: the other side's give no layer 0.
                    exit_wins = true;
                }
            }
            g.forcer.push(is_forcer);
            g.exit_wins.push(exit_wins);
            // A forcer's position of layer 0 needs none of its successors.
            if !(is_forcer && exit_wins) {
                for &key in &same {
                    let c = match g.index.get(&key) {
                        Some(&c) => c,
                        None => g.add(key, max_bytes)?,
                    };
                    g.succ.push(c);
                    g.check(max_bytes)?;
                }
            }
            g.succ_start.push(g.succ.len() as u32);
            at += 1;
        }
        Ok(g)
    }

    fn add(&mut self, key: u64, max_bytes: u64) -> Result<u32, ClosureTooLarge> {
        let i = self.keys.len() as u32;
        self.index.insert(key, i);
        self.keys.push(key);
        self.check(max_bytes)?;
        Ok(i)
    }

    fn check(&self, max_bytes: u64) -> Result<(), ClosureTooLarge> {
        let positions = self.keys.len() as u64;
        let needed =
            positions * CLOSURE_POSITION_BYTES + self.succ.len() as u64 * CLOSURE_MOVE_BYTES;
        if needed > max_bytes {
            return Err(ClosureTooLarge { positions, needed });
        }
        Ok(())
    }

    /// The layers, breadth-first from layer 0: a forcer's position takes its first settled
    /// successor's layer plus one, the other side's its last's.
    fn layers(&self) -> Vec<u32> {
        let m = self.keys.len();
        let mut pred_start = vec![0u32; m + 1];
        for &c in &self.succ {
            pred_start[c as usize + 1] += 1;
        }
        for i in 0..m {
            pred_start[i + 1] += pred_start[i];
        }
        let mut fill = pred_start.clone();
        let mut preds = vec![0u32; self.succ.len()];
        for x in 0..m {
            for &c in &self.succ[self.succ_start[x] as usize..self.succ_start[x + 1] as usize] {
                preds[fill[c as usize] as usize] = x as u32;
                fill[c as usize] += 1;
            }
        }
        let mut left: Vec<u32> = (0..m)
            .map(|x| if self.forcer[x] { 0 } else { self.succ_start[x + 1] - self.succ_start[x] })
            .collect();
        let mut now: Vec<u32> = (0..m as u32)
            .filter(|&x| {
                let x = x as usize;
                if self.forcer[x] {
                    self.exit_wins[x]
                } else {
                    left[x] == 0
                }
            })
            .collect();
        let mut layers = vec![u32::MAX; m];
        let mut next = Vec::new();
        let mut layer = 0u32;
        while !now.is_empty() {
            for &x in &now {
                let x = x as usize;
                if layers[x] != u32::MAX {
                    continue;
                }
                layers[x] = layer;
                for &p in &preds[pred_start[x] as usize..pred_start[x + 1] as usize] {
                    let p = p as usize;
                    if layers[p] != u32::MAX {
                        continue;
                    }
                    if self.forcer[p] {
                        next.push(p as u32);
                    } else {
                        left[p] -= 1;
                        if left[p] == 0 {
                            next.push(p as u32);
                        }
                    }
                }
            }
            now.clear();
            std::mem::swap(&mut now, &mut next);
            layer += 1;
        }
        layers
    }
}
