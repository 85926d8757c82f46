//! Perfect players: `perfect:match` plays R17 (keeps the match value; with a win, moves so that
//! `rounds` never grows and the round makes progress towards its end; with a loss, holds out
//! longest; with a draw, keeps it), `perfect:round` plays R15 in every round. Ties among the
//! moves that qualify are broken by the seat's random stream.
//!
//! Layering: this module belongs to `exact` and depends on the engine only; `agents::spec`
//! names these players and `agents` seats them (the arrow points from agents to exact, never back).
//!
//! Tables come from the [`ExactStore`] the player is seated with, shared by every player of the
//! run: the match table of a ruleset, and per round the values of every position times South's
//! reserve ([`super::matches::round_values::RoundValues`]) or the round's R15 solution.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::matches::match_solver::{Ending, MatchError};
use super::round::solver::SolveOptions;
use super::store::ExactStore;
use crate::engine::{Game, NextStarter, Pit, PitSet, Position, Rng, Side};

/// Which perfect player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PerfectKind {
    /// Perfect match play (R17).
    Match,
    /// Perfect round play (R15) in each round.
    Round,
}

impl PerfectKind {
    pub fn name(self) -> &'static str {
        match self {
            PerfectKind::Match => "match",
            PerfectKind::Round => "round",
        }
    }
}

/// A perfect player (see the module's documentation).
#[derive(Clone)]
pub struct PerfectPlayer {
    pub kind: PerfectKind,
    store: Arc<ExactStore>,
    /// Once set, a table this player is solving stops (the player then fails, and the caller
    /// that set it does not use the failure).
    stop: Option<Arc<AtomicBool>>,
}

/// Whether a solve watched for `stop` goes on.
fn going_on(stop: &Option<Arc<AtomicBool>>) -> ControlFlow<()> {
    match stop {
        Some(stop) if stop.load(Ordering::Relaxed) => ControlFlow::Break(()),
        _ => ControlFlow::Continue(()),
    }
}

/// Why a perfect player could not decide.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PerfectError {
    #[error("perfect:{kind}: {error}")]
    Table { kind: &'static str, error: String },
    #[error("perfect:match needs the match's context (the round's start) under next_starter = round_winner")]
    NoContext,
    /// The tables directory failed the player: a table file that cannot be read or written, or
    /// is not a solution (named in the message). Not the fault of whoever asked for the move.
    #[error("perfect:{kind}: {error}")]
    Stored { kind: &'static str, error: String },
}

impl PerfectError {
    /// Whether the store's own files are at fault (rather than the board or the request).
    pub fn is_server_side(&self) -> bool {
        matches!(self, PerfectError::Stored { .. })
    }
}

/// A match table that could not be had, as the player's error: the files' faults apart.
fn table_error(kind: PerfectKind, e: MatchError) -> PerfectError {
    match e {
        MatchError::Io(_) | MatchError::Invalid(_) | MatchError::Checkpoint(_) => {
            PerfectError::Stored { kind: kind.name(), error: e.to_string() }
        }
        e => PerfectError::Table { kind: kind.name(), error: e.to_string() },
    }
}

fn uniform(set: PitSet, rng: &mut Rng) -> Option<Pit> {
    (!set.is_empty()).then(|| set.nth(rng.below(set.len() as u32) as usize))
}

impl PerfectPlayer {
    pub fn new(kind: PerfectKind, store: Arc<ExactStore>) -> PerfectPlayer {
        PerfectPlayer { kind, store, stop: None }
    }

    /// Stops the solves of this player's tables once `stop` is set (a solved table is kept,
    /// a stopped one is not).
    pub fn stop_on(&mut self, stop: Arc<AtomicBool>) {
        self.stop = Some(stop);
    }

    /// The move for the side to move of a match in progress (None: no legal move).
    pub fn choose_in_game(&self, game: &Game, rng: &mut Rng) -> Result<Option<Pit>, PerfectError> {
        let rs = game.round_start();
        let context = Some((rs.kept[Side::South], rs.starter));
        self.decide(game.position(), context, rng)
    }

    /// The move at a position without its match (under `next_starter = round_winner`,
    /// `perfect:match` needs [`PerfectPlayer::choose_in_game`]).
    pub fn choose(&self, pos: &Position, rng: &mut Rng) -> Result<Option<Pit>, PerfectError> {
        self.decide(pos, None, rng)
    }

    /// The moves this player chooses among (before the random tie-break).
    pub fn candidates(
        &self,
        pos: &Position,
        context: Option<(u32, Side)>,
    ) -> Result<PitSet, PerfectError> {
        if !pos.has_legal_move() {
            return Ok(PitSet::EMPTY);
        }
        let rules = *pos.rules();
        let open = pos.open().map(|set| set.len() as u8);
        let err =
            |kind: PerfectKind, e: String| PerfectError::Table { kind: kind.name(), error: e };
        match self.kind {
            PerfectKind::Round => {
                let opts = SolveOptions { keep_layers: true, ..self.store.settings().solve };
                let stop = self.stop.clone();
                let solution = self
                    .store
                    .round_solution_watched(rules, open, opts, &mut |_| going_on(&stop))
                    .map_err(|e| err(self.kind, e.to_string()))?;
                Ok(solution.progress_moves(pos))
            }
            PerfectKind::Match => {
                let table = match &self.stop {
                    // Solved in memory, so that it can stop; only a complete table is written.
                    Some(_) => {
                        self.store.match_table_cancellable(rules, &mut |_| going_on(&self.stop))
                    }
                    None => self.store.match_table(rules),
                }
                .map_err(|e| table_error(self.kind, e))?;
                let ending = match (rules.next_starter, context) {
                    (NextStarter::Collector, _) => Ending::Collector,
                    (NextStarter::RoundWinner, Some((kept, starter))) => {
                        Ending::RoundWinner { kept, starter }
                    }
                    (NextStarter::RoundWinner, None) => return Err(PerfectError::NoContext),
                };
                let stop = self.stop.clone();
                let values = self
                    .store
                    .round_values_watched(rules, open, ending, &table, &mut move |_| {
                        going_on(&stop)
                    })
                    .map_err(|e| err(self.kind, e.to_string()))?;
                let node = values.graph.node(pos).ok_or_else(|| {
                    err(self.kind, "the position is not reachable from its round's start".into())
                })?;
                let off = pos.reserve()[Side::South];
                if !values.covers(off) {
                    return Err(err(
                        self.kind,
                        format!("South's reserve {off} is not one of this round's"),
                    ));
                }
                Ok(values.best(node, off, pos.turn()))
            }
        }
    }

    fn decide(
        &self,
        pos: &Position,
        context: Option<(u32, Side)>,
        rng: &mut Rng,
    ) -> Result<Option<Pit>, PerfectError> {
        let set = self.candidates(pos, context)?;
        if set.is_empty() && pos.has_legal_move() {
            // Only tables that are not a solution can say so; never end a round for a player.
            return Err(PerfectError::Stored {
                kind: self.kind.name(),
                error: format!(
                    "no move chosen though {} are legal: the tables are not a solution; delete them to compute them again",
                    pos.legal_moves()
                ),
            });
        }
        Ok(uniform(set, rng))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::agents::{seat_rng, Agent, AgentSpec, Resources};
    use crate::engine::BySide;
    use crate::exact::{MatchState, MatchTable, MatchValue, Solution};
    use std::collections::HashMap;

    use crate::exact::test_rules::rules;

    /// The store of these tests: its tables live in one temporary directory, never in the
    /// user's cache, and are shared by the tests (each solved once).
    pub(crate) fn isolated() -> Arc<ExactStore> {
        static STORE: std::sync::OnceLock<(tempfile::TempDir, Arc<ExactStore>)> =
            std::sync::OnceLock::new();
        let (_, store) = STORE.get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let settings = crate::exact::StoreSettings {
                tables: dir.path().to_path_buf(),
                ..Default::default()
            };
            (dir, Arc::new(ExactStore::new(settings)))
        });
        store.clone()
    }

    /// What the table says about the perfect player at a round's start.
    fn promise(table: &MatchTable, game: &Game, me: Side) -> (MatchValue, Option<u32>) {
        let state = MatchState { holdings: game.holdings(), starter: game.round_start().starter };
        match (table.wins_within(me, state), table.wins_within(me.other(), state)) {
            (Some(k), _) => (MatchValue::Win, Some(k)),
            (None, Some(k)) => (MatchValue::Loss, Some(k)),
            (None, None) => (MatchValue::Draw, None),
        }
    }

    #[test]
    fn perfect_match_never_does_worse_than_the_table_says() {
        let store = isolated();
        let players = Resources::new(store.clone());
        let opponents =
            ["random", "greedy", "minimax:2", "mcts:16", "perfect:round", "perfect:match"];
        let mut seen = std::collections::HashSet::new();
        for r in [
            rules(3, 2, &[]),
            rules(4, 2, &[]),
            rules(3, 3, &[]),
            rules(3, 4, &[]),
            rules(4, 4, &[]),
            rules(3, 2, &["next_starter=round_winner"]),
        ] {
            let table = store.match_table(r).unwrap();
            for opponent in opponents {
                let other: AgentSpec = opponent.parse().unwrap();
                for me in Side::ALL {
                    for index in 0..6u64 {
                        let first = if index % 2 == 0 { Side::South } else { Side::North };
                        let mut game = Game::new(r, first);
                        let specs = if me == Side::South {
                            [AgentSpec::Perfect(PerfectKind::Match), other.clone()]
                        } else {
                            [other.clone(), AgentSpec::Perfect(PerfectKind::Match)]
                        };
                        let mut agents = [
                            Agent::seated(
                                specs[0].clone(),
                                seat_rng(9, index, Side::South),
                                &players,
                            ),
                            Agent::seated(
                                specs[1].clone(),
                                seat_rng(9, index, Side::North),
                                &players,
                            ),
                        ];
                        let (mut value, mut rounds) = promise(&table, &game, me);
                        seen.insert(value);
                        let mut plies = 0;
                        // A drawn match may never end (R17); a won one ends within its rounds.
                        while plies < 3000 {
                            let mover = game.position().turn();
                            if agents[mover.index()].play(&mut game, &mut ()).unwrap().is_some() {
                                plies += 1;
                                continue;
                            }
                            let end = game.end_round();
                            if let Some(outcome) = end.outcome {
                                let winner = outcome.winner();
                                match value {
                                    MatchValue::Win => assert_eq!(
                                        winner,
                                        Some(me),
                                        "{r:?} vs {opponent}: a won match lost or drawn"
                                    ),
                                    MatchValue::Draw => assert_ne!(
                                        winner,
                                        Some(me.other()),
                                        "{r:?} vs {opponent}: a draw lost"
                                    ),
                                    MatchValue::Loss => {}
                                }
                                break;
                            }
                            let (v, k) = promise(&table, &game, me);
                            match value {
                                // Never lose a won state, never let its rounds grow.
                                MatchValue::Win => {
                                    assert_eq!(
                                        v,
                                        MatchValue::Win,
                                        "{r:?} vs {opponent}, round {}: a won state lost",
                                        end.round
                                    );
                                    assert!(
                                        k.unwrap() < rounds.unwrap(),
                                        "{r:?} vs {opponent}, round {}: the rounds grew",
                                        end.round
                                    );
                                }
                                MatchValue::Draw => assert_ne!(
                                    v,
                                    MatchValue::Loss,
                                    "{r:?} vs {opponent}: a draw became a loss"
                                ),
                                // A loss is held out: the opponent never wins sooner than the table
                                // says.
                                MatchValue::Loss if v == MatchValue::Loss => {
                                    assert!(
                                        k.unwrap() + 1 >= rounds.unwrap(),
                                        "{r:?} vs {opponent}"
                                    )
                                }
                                MatchValue::Loss => {}
                            }
                            (value, rounds) = (v, k);
                        }
                        assert!(
                            value != MatchValue::Win || game.is_over(),
                            "{r:?} vs {opponent}: a won match did not end"
                        );
                    }
                }
            }
        }
        assert_eq!(
            seen.len(),
            3,
            "the boards put the perfect player in won, drawn and lost states"
        );
    }

    #[test]
    fn perfect_round_plays_best_round_moves() {
        let r = rules(4, 2, &[]);
        let player = PerfectPlayer::new(PerfectKind::Round, isolated());
        let mut game = Game::new(r, Side::South);
        let mut rng = seat_rng(1, 0, Side::South);
        let mut solutions: HashMap<BySide<u8>, Solution> = HashMap::new();
        for _ in 0..400 {
            if game.is_over() {
                break;
            }
            let open = game.round_start().open;
            let sol = solutions.entry(open).or_insert_with(|| {
                let roots = [
                    super::super::round_start(r, open, Side::South),
                    super::super::round_start(r, open, Side::North),
                ];
                Solution::solve(
                    &roots,
                    SolveOptions { keep_layers: true, ..SolveOptions::default() },
                    &mut |_| {},
                )
                .unwrap()
            });
            let pos = *game.position();
            match player.choose_in_game(&game, &mut rng).unwrap() {
                Some(pit) => {
                    assert!(sol.best_moves(&pos).contains(pit), "{pos:?} {pit:?}");
                    game.play_unchecked_observed(pit, &mut ());
                }
                None => {
                    game.end_round();
                }
            }
        }
    }
}
