//! The MCTS player: UCT with random playouts to the round's end.
//!
//! Reward of a playout, for the root's mover: 1/2 + (capture difference over the rest of the
//! round, remainder included) / (2 x counters in play), so in [0, 1]. Each node keeps the
//! reward from the view of the player who made the move into it.

use crate::engine::{Pit, PitSet, Position, Rng};

const NONE: u32 = u32::MAX;
/// UCT exploration constant (sqrt 2, the classic choice for rewards in [0, 1]).
const EXPLORATION: f64 = std::f64::consts::SQRT_2;

struct Node {
    pos: Position,
    /// The move that led here from the parent.
    pit: Pit,
    parent: u32,
    first_child: u32,
    next_sibling: u32,
    /// Candidates not yet expanded (endless ones are struck out when met).
    untried: PitSet,
    visits: u32,
    /// Sum of rewards from the view of the parent's side to move.
    reward: f64,
}

/// The search tree; kept between moves so its storage is reused.
#[derive(Default)]
pub(crate) struct Tree {
    nodes: Vec<Node>,
}

impl Tree {
    pub(crate) fn choose(&mut self, root: &Position, playouts: u32, rng: &mut Rng) -> Option<Pit> {
        if !root.has_legal_move() {
            return None;
        }
        let me = root.turn();
        let base = root.reserve();
        let total = root.rules().total_counters() as f64;
        self.nodes.clear();
        self.nodes.push(Node {
            pos: *root,
            pit: Pit::new_unchecked(0),
            parent: NONE,
            first_child: NONE,
            next_sibling: NONE,
            untried: root.candidates(),
            visits: 0,
            reward: 0.0,
        });
        for _ in 0..playouts {
            // Selection: descend through fully expanded nodes by UCT.
            let mut node = 0u32;
            while self.nodes[node as usize].untried.is_empty() && self.nodes[node as usize].first_child != NONE {
                node = self.best_uct_child(node);
            }
            // Expansion: one untried legal move.
            if let Some(child) = self.expand(node, rng) {
                node = child;
            }
            // Playout to the round's end (R10), then the reward for `me`.
            let end = playout(self.nodes[node as usize].pos, rng);
            let diff = (end.reserve()[me] as f64 - base[me] as f64) - (end.reserve()[me.other()] as f64 - base[me.other()] as f64);
            let reward = 0.5 + diff / (2.0 * total);
            // Backpropagation.
            let mut n = node;
            while n != NONE {
                let parent = self.nodes[n as usize].parent;
                let mover = if parent == NONE { me.other() } else { self.nodes[parent as usize].pos.turn() };
                let node = &mut self.nodes[n as usize];
                node.visits += 1;
                node.reward += if mover == me { reward } else { 1.0 - reward };
                n = parent;
            }
        }
        // The most visited move; ties at random.
        let mut best = 0;
        let mut ties = PitSet::EMPTY;
        let mut c = self.nodes[0].first_child;
        while c != NONE {
            let node = &self.nodes[c as usize];
            if node.visits > best {
                best = node.visits;
                ties = PitSet::EMPTY;
            }
            if node.visits == best {
                ties.insert(node.pit);
            }
            c = node.next_sibling;
        }
        if ties.is_empty() {
            // Fewer playouts than it takes to expand a legal move: any legal move.
            return super::random::play(&mut { *root }, rng, &mut ()).map(|(pit, _)| pit);
        }
        Some(super::pick(ties, rng))
    }

    fn best_uct_child(&self, node: u32) -> u32 {
        let ln_n = (self.nodes[node as usize].visits.max(1) as f64).ln();
        let mut best = NONE;
        let mut best_score = f64::NEG_INFINITY;
        let mut c = self.nodes[node as usize].first_child;
        while c != NONE {
            let child = &self.nodes[c as usize];
            let v = child.visits.max(1) as f64;
            let score = child.reward / v + EXPLORATION * (ln_n / v).sqrt();
            if score > best_score {
                best_score = score;
                best = c;
            }
            c = child.next_sibling;
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
            let pit = super::pick(parent.untried, rng);
            parent.untried.remove(pit);
            let mut pos = parent.pos;
            if pos.play_if_legal_observed(pit, &mut ()).is_none() {
                continue;
            }
            let next_sibling = parent.first_child;
            let id = self.nodes.len() as u32;
            self.nodes[node as usize].first_child = id;
            self.nodes.push(Node {
                pos,
                pit,
                parent: node,
                first_child: NONE,
                next_sibling,
                untried: pos.candidates(),
                visits: 0,
                reward: 0.0,
            });
            return Some(id);
        }
    }
}

/// Random moves until the side to move has none; then the remainder goes to the other (R10).
fn playout(mut pos: Position, rng: &mut Rng) -> Position {
    while super::random::play(&mut pos, rng, &mut ()).is_some() {}
    pos.collect_remainder();
    pos
}
