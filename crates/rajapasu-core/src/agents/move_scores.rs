//! The search players' evaluation of every legal move of a position, for its side to move:
//! what a person is offered where a board is beyond the exact solver's budget. Minimax scores
//! each move by a full-window search at the deepest iteration completed within its nodes;
//! MCTS by the visits and the mean reward of each root move after its playouts.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use super::mcts::Tree;
use super::minimax::Searcher;
use super::spec::{AgentSpec, MinimaxParams};
use crate::engine::{Pit, PitSet, Position, Rng};

/// One legal move's evaluation, for the mover.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoveScore {
    pub pit: Pit,
    /// Minimax: the move's value in the evaluation's units (captures, or the match evaluation);
    /// MCTS: the mover's mean reward in [0, 1].
    pub value: f64,
    /// MCTS: the playouts through the move.
    pub visits: Option<u32>,
}

/// A search player's evaluation of a position.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// Legal moves by local pit.
    pub moves: Vec<MoveScore>,
    /// The moves the player prefers (the highest value; MCTS: the most visited).
    pub best: PitSet,
    /// Minimax: the deepest iteration completed for every move.
    pub depth: Option<u32>,
}

/// Why a player cannot evaluate.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0} does not evaluate moves; minimax and mcts do")]
pub struct NotASearchPlayer(pub String);

/// Evaluates every legal move of `pos` with `spec` (minimax or MCTS); `max_nodes` bounds a
/// minimax search that has no node budget of its own (and caps one that has a larger one).
pub fn evaluate(
    spec: AgentSpec,
    pos: &Position,
    rng: &mut Rng,
    max_nodes: u64,
) -> Result<Evaluation, NotASearchPlayer> {
    evaluate_until(spec, pos, rng, max_nodes, None)
}

/// [`evaluate`], the search ending soon after `stop` is set (the evaluation is then cut short
/// and not meant to be used).
pub fn evaluate_until(
    spec: AgentSpec,
    pos: &Position,
    rng: &mut Rng,
    max_nodes: u64,
    stop: Option<Arc<AtomicBool>>,
) -> Result<Evaluation, NotASearchPlayer> {
    let mut evaluation = match spec {
        AgentSpec::Minimax(p) => minimax(p, pos, max_nodes, stop),
        AgentSpec::Mcts(p) => {
            let mut tree = Tree::new(p);
            if let Some(stop) = stop {
                tree.stop_on(stop);
            }
            tree.choose(pos, rng);
            let moves: Vec<MoveScore> = tree
                .children(0)
                .map(|(_, n)| MoveScore {
                    pit: n.pit,
                    value: n.reward / n.visits.max(1) as f64,
                    visits: Some(n.visits),
                })
                .collect();
            let most = moves.iter().filter_map(|m| m.visits).max();
            let best = moves.iter().filter(|m| m.visits == most).fold(PitSet::EMPTY, |mut s, m| {
                s.insert(m.pit);
                s
            });
            Evaluation { moves, best, depth: None }
        }
        other => return Err(NotASearchPlayer(other.to_string())),
    };
    evaluation.moves.sort_by_key(|m| m.pit.index());
    Ok(evaluation)
}

/// Every root move searched with a full window, iteration by iteration up to the depth; the
/// last iteration completed for every move within the nodes gives the values.
fn minimax(
    params: MinimaxParams,
    pos: &Position,
    max_nodes: u64,
    stop: Option<Arc<AtomicBool>>,
) -> Evaluation {
    let nodes = Some(params.nodes.map_or(max_nodes, |n| n.min(max_nodes)));
    let mut searcher = Searcher::new(MinimaxParams { nodes, ..params });
    if let Some(stop) = stop {
        searcher.stop_on(stop);
    }
    let mut values: Vec<(Pit, i32)> = Vec::new();
    let mut depth = None;
    for d in 1..=params.depth {
        match searcher.root_values(pos, d) {
            Some(v) => {
                values = v;
                depth = Some(d);
            }
            None => break,
        }
    }
    let top = values.iter().map(|&(_, v)| v).max();
    let mut best = PitSet::EMPTY;
    for &(pit, v) in &values {
        if Some(v) == top {
            best.insert(pit);
        }
    }
    let moves = values
        .into_iter()
        .map(|(pit, v)| MoveScore { pit, value: v as f64, visits: None })
        .collect();
    Evaluation { moves, best, depth }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::minimax::plain_root_values;
    use crate::agents::MctsParams;
    use crate::engine::{Game, Ruleset, Side};

    fn positions() -> Vec<Position> {
        let rules = Ruleset { pits_per_row: 4, seeds_per_pit: 3, ..Ruleset::default() };
        let mut rng = Rng::from_seed(3);
        let mut game = Game::new(rules, Side::South);
        let mut out = Vec::new();
        while !game.is_over() && out.len() < 30 {
            out.push(*game.position());
            let legal = game.legal_moves();
            game.play(legal.nth(rng.below(legal.len() as u32) as usize).index()).unwrap();
        }
        out
    }

    /// Minimax's values are plain minimax's (no pruning, no table), move by move.
    #[test]
    fn minimax_scores_each_move_as_plain_minimax_does() {
        for pos in positions().iter().filter(|p| p.has_legal_move()) {
            let spec = AgentSpec::Minimax(MinimaxParams::with_depth(3));
            let e = evaluate(spec.clone(), pos, &mut Rng::from_seed(1), u64::MAX).unwrap();
            let want: Vec<(Pit, f64)> = plain_root_values(pos, 3, spec_eval(spec))
                .into_iter()
                .map(|(p, v)| (p, v as f64))
                .collect();
            let mut want = want;
            want.sort_by_key(|(p, _)| p.index());
            assert_eq!(
                e.moves.iter().map(|m| (m.pit, m.value)).collect::<Vec<_>>(),
                want,
                "{pos:?}"
            );
            assert_eq!(e.depth, Some(3));
            let top = want.iter().map(|w| w.1).fold(f64::MIN, f64::max);
            assert!(e.moves.iter().all(|m| e.best.contains(m.pit) == (m.value == top)));
        }
    }

    fn spec_eval(spec: AgentSpec) -> crate::agents::Eval {
        match spec {
            AgentSpec::Minimax(p) => p.eval,
            _ => unreachable!("a minimax spec"),
        }
    }

    /// A node budget stops the deepening: the values are those of the last complete depth.
    #[test]
    fn a_node_budget_keeps_the_last_complete_depth() {
        let pos = *Game::new(Ruleset::default(), Side::South).position();
        let e = evaluate(
            AgentSpec::Minimax(MinimaxParams::with_depth(30)),
            &pos,
            &mut Rng::from_seed(1),
            2_000,
        )
        .unwrap();
        let d = e.depth.unwrap();
        assert!((1..30).contains(&d), "{d}");
        let want = evaluate(
            AgentSpec::Minimax(MinimaxParams::with_depth(d)),
            &pos,
            &mut Rng::from_seed(1),
            u64::MAX,
        )
        .unwrap();
        assert_eq!(e.moves, want.moves);
    }

    /// MCTS: every legal move visited, the visits summing to the playouts that expanded a move,
    /// the best the most visited; other players refused.
    #[test]
    fn mcts_reports_each_moves_visits_and_reward() {
        for pos in positions().iter().filter(|p| p.has_legal_move()) {
            let e = evaluate(
                AgentSpec::Mcts(MctsParams::with_playouts(200)),
                pos,
                &mut Rng::from_seed(5),
                0,
            )
            .unwrap();
            let legal: Vec<Pit> = pos.legal_moves().iter().collect();
            assert_eq!(e.moves.iter().map(|m| m.pit).collect::<Vec<_>>(), legal);
            // A playout is lost only where the root's expansion strikes out an endless candidate.
            let visits: u32 = e.moves.iter().map(|m| m.visits.unwrap()).sum();
            assert!(
                visits <= 200 && visits + pos.candidates().len() as u32 >= 200,
                "{visits} {pos:?}"
            );
            assert!(e.moves.iter().all(|m| (0.0..=1.0).contains(&m.value)));
            let most = e.moves.iter().map(|m| m.visits.unwrap()).max().unwrap();
            assert!(e.moves.iter().all(|m| e.best.contains(m.pit) == (m.visits == Some(most))));
        }
        assert!(evaluate(AgentSpec::Greedy, &positions()[0], &mut Rng::from_seed(5), 0).is_err());
    }
}
