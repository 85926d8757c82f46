//! The analysis of one position for its side to move: every legal move with its exact round
//! value (R15) and, where the board's match table is given, its match value (R17); the best
//! moves by each, and a line of perfect round play from the position.
//!
//! The values come from sources the caller builds and may keep: the round's R15 solution
//! ([`round_solution`], or the store's) and the round's perfect-match values
//! ([`super::ExactStore::round_match`], from the match table). A move's round value is what it
//! captures net of the opponent's captures, minus the value of the position after it for the
//! opponent; a move's match value is the value, for the mover, of the match position after it (that
//! position and South's reserve then).

use std::sync::Arc;

use super::matches::match_solver::MatchValue;
use super::matches::round_values::RoundValues;
use super::round::solver::{Solution, SolveError, SolveOptions, TieBreak};
use crate::engine::{Pit, PitSet, Position, Side};

/// Moves of the line of perfect round play shown from a position.
pub const LINE_MOVES: usize = 8;

/// A match value for one side (R17): win, draw or loss, and within how many rounds (the
/// current round counted as 1; none for a draw).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MatchOutlook {
    pub value: MatchValue,
    pub rounds: Option<u32>,
}

/// One legal move of the analysed position, for the mover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveAnalysis {
    pub pit: Pit,
    /// The mover's captures in the move minus the opponent's (R6, R8).
    pub net_gain: i32,
    /// R15: the move's captures net, minus the value of the position after it for the opponent.
    pub round_value: i32,
    /// R17, when the round's match values are known.
    pub match_outlook: Option<MatchOutlook>,
}

/// The analysis of a position for its side to move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    pub to_move: Side,
    /// The position's value (R15): with no legal move, minus the counters on the board.
    pub value: i32,
    /// Legal moves by local pit.
    pub moves: Vec<MoveAnalysis>,
    /// The moves that achieve `value`.
    pub best_round: PitSet,
    /// The position's match value for the mover, when known.
    pub match_outlook: Option<MatchOutlook>,
    /// The moves after which the match value and its rounds are unchanged (empty when unknown).
    pub best_match: PitSet,
    /// Up to [`LINE_MOVES`] moves of perfect round play from here (lowest pit among equals,
    /// moving towards the outcome when it is a win), ending early at the round's end.
    pub line: Vec<Pit>,
}

/// The R15 values of the round of `pos` (its rules and open pits): every position reachable
/// from the round's start with either side to move, or, when `pos` is not one of those (a
/// set-up position), every position reachable from `pos`. Solved with the order kept, for the
/// line of play.
pub fn round_solution(
    pos: &Position,
    opts: SolveOptions,
    progress: &mut dyn FnMut(super::Progress),
) -> Result<Solution, SolveError> {
    let opts = SolveOptions { keep_layers: true, ..opts };
    let open = pos.open().map(|set| set.len() as u8);
    let rules = *pos.rules();
    let roots = [
        super::round_start(rules, open, Side::South),
        super::round_start(rules, open, Side::North),
    ];
    let solution = Solution::solve(&roots, opts, progress)?;
    if solution.value(pos).is_some() {
        return Ok(solution);
    }
    Solution::solve(&[*pos], opts, progress)
}

/// What a round's match values need of its start under `next_starter = round_winner` (R11,
/// R13): South's reserve kept off the board at the round's start and who started it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RoundContext {
    pub kept_south: u32,
    pub starter: Side,
}

/// The perfect-match values (R17) of every position of one round and every reserve of South
/// there, from the board's match table ([`super::ExactStore::round_match`]).
pub struct RoundMatch {
    values: Arc<RoundValues>,
}

impl std::fmt::Debug for RoundMatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RoundMatch")
            .field("open", &self.values.graph.open)
            .field("bytes", &self.bytes())
            .finish()
    }
}

impl RoundMatch {
    pub(crate) fn new(values: Arc<RoundValues>) -> RoundMatch {
        RoundMatch { values }
    }

    /// Bytes held (the round's graph and its values).
    pub fn bytes(&self) -> u64 {
        self.values.bytes() + self.values.graph.bytes()
    }

    /// The match value for `side` at the position of `node` with South holding `off` off the board.
    fn outlook(&self, side: Side, node: u32, off: u32) -> MatchOutlook {
        let (mine, _) = self.values.at(side, node, off);
        let (theirs, _) = self.values.at(side.other(), node, off);
        match (mine, theirs) {
            (Some(k), _) => MatchOutlook { value: MatchValue::Win, rounds: Some(k) },
            (None, Some(k)) => MatchOutlook { value: MatchValue::Loss, rounds: Some(k) },
            (None, None) => MatchOutlook { value: MatchValue::Draw, rounds: None },
        }
    }

    /// The position's match value for its mover and each legal move's (by local pit), or why
    /// they are not known.
    fn of(&self, pos: &Position) -> Result<(MatchOutlook, Vec<(Pit, MatchOutlook)>), String> {
        let node = self
            .values
            .graph
            .node(pos)
            .ok_or("the position is not reachable from its round's start")?;
        let off = pos.reserve()[Side::South];
        if !self.values.covers(off) {
            return Err(format!("South's reserve {off} is not one South can hold in this round"));
        }
        let mover = pos.turn();
        let moves = self
            .values
            .graph
            .moves_of(node)
            .map(|(pit, child, gain)| (pit, self.outlook(mover, child, off + gain)))
            .collect();
        Ok((self.outlook(mover, node, off), moves))
    }
}

/// Why a position could not be analysed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AnalysisError {
    #[error("the round's solution does not hold this position (other rules, open pits, or not reachable from its roots)")]
    NotSolved,
}

/// Analyses `pos` from its round's solution and, when given, its round's match values; a
/// failed match source leaves the match values unknown (the caller keeps its reason).
pub fn analyse(
    pos: &Position,
    round: &Solution,
    matches: Option<&RoundMatch>,
) -> Result<(Analysis, Option<String>), AnalysisError> {
    let value = round.value(pos).ok_or(AnalysisError::NotSolved)?;
    let mover = pos.turn();
    let mut moves: Vec<MoveAnalysis> = pos
        .legal_children()
        .map(|(pit, child, summary)| {
            let net_gain = summary.net_gain(mover);
            let after = round.value(&child).expect("the children of a solved position are solved");
            MoveAnalysis { pit, net_gain, round_value: net_gain - after, match_outlook: None }
        })
        .collect();
    moves.sort_by_key(|m| m.pit.index());
    let mut best_round = PitSet::EMPTY;
    for m in moves.iter().filter(|m| m.round_value == value) {
        best_round.insert(m.pit);
    }
    let (mut match_outlook, mut best_match, mut note) = (None, PitSet::EMPTY, None);
    match matches.map(|m| m.of(pos)) {
        Some(Ok((outlook, by_pit))) => {
            match_outlook = Some(outlook);
            for m in moves.iter_mut() {
                m.match_outlook = by_pit.iter().find(|(p, _)| *p == m.pit).map(|&(_, o)| o);
                if m.match_outlook == Some(outlook) {
                    best_match.insert(m.pit);
                }
            }
        }
        Some(Err(why)) => note = Some(why),
        None => {}
    }
    let line = perfect_line(pos, round);
    Ok((
        Analysis { to_move: mover, value, moves, best_round, match_outlook, best_match, line },
        note,
    ))
}

/// Up to [`LINE_MOVES`] moves of perfect round play from `pos` (see [`Analysis::line`]).
fn perfect_line(pos: &Position, round: &Solution) -> Vec<Pit> {
    let mut line = Vec::new();
    let mut at = *pos;
    while line.len() < LINE_MOVES {
        let Some(pit) = round.choose(&at, TieBreak::Lowest) else { break };
        line.push(pit);
        at = at.after(pit).0;
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Game;
    use crate::exact::{ExactStore, MatchState, StoreSettings};

    use crate::exact::test_rules::rules;

    /// Along random matches: the position's value is its best moves', the line starts with one
    /// of them, and at every round's start the match value and best moves are the table's.
    #[test]
    fn move_values_follow_the_positions_after_them() {
        let dir = tempfile::tempdir().unwrap();
        let store = ExactStore::new(StoreSettings {
            tables: dir.path().to_path_buf(),
            ..StoreSettings::default()
        });
        for r in [
            rules(3, 2, &[]),
            rules(3, 3, &["final_four=sower"]),
            rules(3, 2, &["next_starter=round_winner"]),
        ] {
            let table = store.match_table(r).unwrap();
            let mut rng = crate::engine::Rng::from_seed(7);
            for _ in 0..6 {
                let mut game = Game::new(r, Side::South);
                for _ in 0..60 {
                    if game.is_over() {
                        break;
                    }
                    let pos = *game.position();
                    let rs = game.round_start();
                    let context =
                        RoundContext { kept_south: rs.kept[Side::South], starter: rs.starter };
                    let solution =
                        round_solution(&pos, SolveOptions::default(), &mut |_| {}).unwrap();
                    let open = pos.open().map(|s| s.len() as u8);
                    let matches = store.round_match(&table, open, Some(context)).unwrap();
                    let (a, note) = analyse(&pos, &solution, Some(&matches)).unwrap();
                    assert_eq!(note, None);
                    // The value is the best move's, and the best moves are those reaching it.
                    assert_eq!(a.moves.iter().map(|m| m.round_value).max(), Some(a.value));
                    assert!(a
                        .moves
                        .iter()
                        .all(|m| a.best_round.contains(m.pit) == (m.round_value == a.value)));
                    assert_eq!(a.line.first().map(|p| a.best_round.contains(*p)), Some(true));
                    if pos == rs.position {
                        let state = MatchState { holdings: game.holdings(), starter: rs.starter };
                        let want = table.value(state).unwrap();
                        assert_eq!(
                            a.match_outlook,
                            Some(MatchOutlook { value: want.value, rounds: want.rounds })
                        );
                        assert_eq!(a.best_match, want.best_moves);
                    }
                    let legal = game.legal_moves();
                    let pit = legal.nth(rng.below(legal.len() as u32) as usize);
                    game.play(pit.index()).unwrap();
                }
            }
        }
    }
}
