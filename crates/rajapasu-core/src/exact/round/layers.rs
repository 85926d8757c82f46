//! The layers of [`crate::exact::Solution::layer`] around one position, computed from the
//! values alone: for a solver that keeps no layers (the spilled round), the forward closure of
//! the position under the moves that count for a layer (in-level, to the same value), then the
//! layers on that local graph by a breadth-first pass from its layer-0 positions, as the
//! in-memory attractor settles them.

use std::collections::HashMap;

use crate::engine::{Position, Side};
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
    /// The layer of a position of the closure (same level as the root), by its codec key.
    pub(crate) fn layer(&self, codec: &Codec, pos: &Position) -> Option<u32> {
        self.index.get(&codec.key(pos).word()).map(|&i| self.layers[i as usize])
    }

    /// The closure of `root` under the moves that count and the layers of its positions;
    /// `value` gives each position's value for its side to move. Err when the closure's
    /// bytes would exceed `max_bytes`. None when the root's value is 0 (no layer).
    pub(crate) fn around(
        codec: &Codec,
        value: &dyn Fn(&Position) -> i32,
        root: &Position,
        max_bytes: u64,
    ) -> Result<Option<LocalLayers>, ClosureTooLarge> {
        let v = south_value(root, value(root));
        if v == 0 {
            return Ok(None);
        }
        let graph = Closure::explore(codec, value, root, v, max_bytes)?;
        let layers = graph.layers();
        Ok(Some(LocalLayers { index: graph.index, layers }))
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
        value: &dyn Fn(&Position) -> i32,
        root: &Position,
        v: i32,
        max_bytes: u64,
    ) -> Result<Closure, ClosureTooLarge> {
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
                if child.on_board() == level {
                    if south_value(&child, value(&child)) == v {
                        same.push(codec.key(&child).word());
                    }
                } else if is_forcer && summary.net_gain(pos.turn()) - value(&child) == v.abs() {
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
