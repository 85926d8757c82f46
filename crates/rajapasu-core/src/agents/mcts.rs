//! The MCTS player: UCT with random playouts to the round's end, the tree kept between moves.
//!
//! The reward of a playout is the evaluation of the round's end (see [`Eval::reward`]), in
//! [0, 1] for the root's mover. Rewards are absolute (they do not depend on the root), so a
//! subtree kept from the previous decision stays valid: when the position to decide is a
//! grandchild of the last root (our move, then the opponent's), that subtree becomes the new
//! root and `playouts` new playouts are added to its statistics. Each node keeps the reward
//! from the view of the player who made the move into it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::spec::MctsParams;
use crate::engine::{Pit, PitSet, Position, Rng, Side};

const NONE: u32 = u32::MAX;

/// The statistics and links that selection and backpropagation read come first, in one cache
/// line; the position follows.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub(crate) struct Node {
    /// Sum of rewards from the view of the parent's side to move (`mover`).
    pub(crate) reward: f64,
    pub(crate) visits: u32,
    pub(crate) parent: u32,
    pub(crate) first_child: u32,
    pub(crate) next_sibling: u32,
    /// Candidates not yet expanded (endless ones are struck out when met).
    pub(crate) untried: PitSet,
    /// The move that led here from the parent.
    pub(crate) pit: Pit,
    /// The side that made that move (the parent's side to move).
    pub(crate) mover: Side,
    pub(crate) pos: Position,
}

/// The search tree of one player in one match: its root is `nodes[0]`.
pub(crate) struct Tree {
    params: MctsParams,
    pub(crate) nodes: Vec<Node>,
    /// The memory the next re-rooted tree is copied into (swapped with `nodes`).
    spare: Vec<Node>,
    /// The child of the root that was played at the last decision.
    played: u32,
    /// Moves played in search, every decision.
    pub(crate) moves: u64,
    /// Scratch of [`Tree::reroot`]: the old index of each copied node.
    old: Vec<u32>,
    /// Set when the choice is no longer wanted: the playouts stop (the choice made then is not
    /// meant to be used).
    stop: Option<Arc<AtomicBool>>,
}

/// Playouts between two looks at the stop flag.
const STOP_EVERY: u32 = 64;

impl Tree {
    pub(crate) fn new(params: MctsParams) -> Tree {
        Tree {
            params,
            nodes: Vec::new(),
            spare: Vec::new(),
            played: NONE,
            moves: 0,
            old: Vec::new(),
            stop: None,
        }
    }

    /// Stops the playouts of every decision once `stop` is set.
    pub(crate) fn stop_on(&mut self, stop: Arc<AtomicBool>) {
        self.stop = Some(stop);
    }

    fn stopped(&self, playout: u32) -> bool {
        playout.is_multiple_of(STOP_EVERY)
            && self.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed))
    }

    pub(crate) fn choose(&mut self, root: &Position, rng: &mut Rng) -> Option<Pit> {
        if !root.has_legal_move() {
            return None;
        }
        let me = root.turn();
        let eval = self.params.eval;
        if !(self.params.reuse && self.reroot(root)) {
            self.nodes.clear();
            self.nodes.push(leaf(*root, Pit::new_unchecked(0), NONE));
        }
        let c = self.params.c();
        for playout in 0..self.params.playouts {
            if self.stopped(playout) {
                break;
            }
            // Selection: descend through fully expanded nodes by UCT.
            let mut node = 0u32;
            while self.nodes[node as usize].untried.is_empty()
                && self.nodes[node as usize].first_child != NONE
            {
                node = self.best_uct_child(node, c);
            }
            // Expansion: one untried legal move.
            if let Some(child) = self.expand(node, rng) {
                node = child;
            }
            // Playout to the round's end (R10), then the reward for `me`.
            let end = self.playout(self.nodes[node as usize].pos, rng);
            let reward = eval.reward(&end, me);
            // Backpropagation.
            let mut n = node;
            while n != NONE {
                let node = &mut self.nodes[n as usize];
                node.visits += 1;
                node.reward += if node.mover == me { reward } else { 1.0 - reward };
                n = node.parent;
            }
        }
        // The most visited move; ties at random.
        let mut best = 0;
        let mut ties = PitSet::EMPTY;
        for (_, node) in self.children(0) {
            if node.visits > best {
                best = node.visits;
                ties = PitSet::EMPTY;
            }
            if node.visits == best {
                ties.insert(node.pit);
            }
        }
        if ties.is_empty() {
            // Fewer playouts than it takes to expand a legal move: any legal move.
            self.played = NONE;
            return super::random::play(&mut { *root }, rng, &mut ()).map(|(pit, _)| pit);
        }
        let pit = super::random::pick(ties, rng);
        let played = self.children(0).find(|(_, n)| n.pit == pit).map_or(NONE, |(id, _)| id);
        self.played = played;
        Some(pit)
    }

    /// The children of `node`, as (index, node), in the order they were expanded last first.
    pub(crate) fn children(&self, node: u32) -> impl Iterator<Item = (u32, &Node)> + '_ {
        let mut c = self.nodes.get(node as usize).map_or(NONE, |n| n.first_child);
        std::iter::from_fn(move || {
            (c != NONE).then(|| {
                let id = c;
                c = self.nodes[c as usize].next_sibling;
                (id, &self.nodes[id as usize])
            })
        })
    }

    /// Makes the node of `root` among the grandchildren of the old root, through the move
    /// played, the new root: its subtree is copied (breadth first, sibling order kept) into
    /// the spare memory. False if `root` is not in the tree.
    pub(crate) fn reroot(&mut self, root: &Position) -> bool {
        if self.played == NONE || self.played as usize >= self.nodes.len() {
            return false;
        }
        let Some((found, _)) = self.children(self.played).find(|(_, n)| n.pos == *root) else {
            return false;
        };
        let mut out = std::mem::take(&mut self.spare);
        out.clear();
        out.push(Node {
            parent: NONE,
            next_sibling: NONE,
            first_child: NONE,
            ..self.nodes[found as usize]
        });
        // `old[i]` is the index in the old tree of new node i.
        let mut old = std::mem::take(&mut self.old);
        old.clear();
        old.push(found);
        let mut i = 0;
        while i < out.len() {
            let mut last = NONE;
            let mut c = self.nodes[old[i] as usize].first_child;
            while c != NONE {
                let id = out.len() as u32;
                out.push(Node {
                    parent: i as u32,
                    first_child: NONE,
                    next_sibling: NONE,
                    ..self.nodes[c as usize]
                });
                old.push(c);
                if last == NONE {
                    out[i].first_child = id;
                } else {
                    out[last as usize].next_sibling = id;
                }
                last = id;
                c = self.nodes[c as usize].next_sibling;
            }
            i += 1;
        }
        self.spare = std::mem::replace(&mut self.nodes, out);
        self.old = old;
        self.played = NONE;
        true
    }

    fn best_uct_child(&self, node: u32, c: f64) -> u32 {
        let ln_n = (self.nodes[node as usize].visits.max(1) as f64).ln();
        let mut best = NONE;
        let mut best_score = f64::NEG_INFINITY;
        for (id, child) in self.children(node) {
            let v = child.visits.max(1) as f64;
            let score = child.reward / v + c * (ln_n / v).sqrt();
            if score > best_score {
                best_score = score;
                best = id;
            }
        }
        best
    }

    /// Adds a child for a random untried legal move; None if `node` has none (end of round).
    fn expand(&mut self, node: u32, rng: &mut Rng) -> Option<u32> {
        loop {
            let parent = &mut self.nodes[node as usize];
            if parent.untried.is_empty() {
                return None;
            }
            let pit = super::random::pick(parent.untried, rng);
            parent.untried.remove(pit);
            let mut pos = parent.pos;
            self.moves += 1;
            if pos.play_if_legal_observed(pit, &mut ()).is_none() {
                continue;
            }
            let id = self.nodes.len() as u32;
            let mut child = leaf(pos, pit, node);
            child.next_sibling = self.nodes[node as usize].first_child;
            self.nodes[node as usize].first_child = id;
            self.nodes.push(child);
            return Some(id);
        }
    }

    /// Random moves until the side to move has none; then the remainder goes to the other (R10).
    fn playout(&mut self, mut pos: Position, rng: &mut Rng) -> Position {
        while super::random::play(&mut pos, rng, &mut ()).is_some() {
            self.moves += 1;
        }
        pos.collect_remainder();
        pos
    }
}

fn leaf(pos: Position, pit: Pit, parent: u32) -> Node {
    // Inside a round the sides alternate: the side to move here is not the one that moved here.
    Node {
        pos,
        pit,
        mover: pos.turn().other(),
        parent,
        first_child: NONE,
        next_sibling: NONE,
        untried: pos.candidates(),
        visits: 0,
        reward: 0.0,
    }
}
