//! Perfect players: `perfect:match` plays R17 (keeps the match value; with a win, moves so that
//! `rounds` never grows and the round makes progress towards its end; with a loss, holds out
//! longest; with a draw, keeps it), `perfect:round` plays R15 in every round. Ties among the
//! moves that qualify are broken by the seat's random stream.
//!
//! Layering: this module belongs to `exact` and depends on the engine only; `agents::spec`
//! names these players and `agents` seats them (the arrow points from agents to exact, never back).
//!
//! Tables are shared by every player of the process: the match table of a ruleset (from the
//! tables directory, see [`super::tables`], or solved there on first use), and per round the
//! values of every position times South's reserve ([`RoundValues`]) or the round's R15
//! solution, kept in memory within [`set_cache_bytes`] (least recently used dropped first).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::match_solver::{reserve_span, Ending, MatchError, MatchTable};
use super::round_graph::RoundGraph;
use super::round_values::{values_path, RoundValues, SAVED_CELLS};
use super::solver::{Solution, SolveError, SolveOptions};
use crate::engine::{BySide, Game, NextStarter, Pit, PitSet, Position, Rng, Ruleset, Side};

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

/// Default memory for the round tables kept by the perfect players.
pub const DEFAULT_CACHE_BYTES: u64 = 8 << 30;

struct Settings {
    tables: Option<PathBuf>,
    cache_bytes: u64,
    solve: SolveOptions,
}

static SETTINGS: Mutex<Settings> = Mutex::new(Settings {
    tables: None,
    cache_bytes: DEFAULT_CACHE_BYTES,
    solve: SolveOptions { max_memory: 6 << 30, keep_order: true, max_positions: u64::MAX },
});

/// The tables directory of the perfect players (default: [`super::default_tables_dir`]).
pub fn set_tables_dir(dir: Option<PathBuf>) {
    SETTINGS.lock().unwrap_or_else(|e| e.into_inner()).tables = dir;
}

/// Memory for the round tables kept in memory (the match tables are small and always kept).
pub fn set_cache_bytes(bytes: u64) {
    SETTINGS.lock().unwrap_or_else(|e| e.into_inner()).cache_bytes = bytes;
}

/// A cache of shared values by key, within a byte budget, least recently used dropped first.
struct ByteCache<K, V> {
    entries: HashMap<K, (Arc<V>, u64, u64)>,
    clock: u64,
    bytes: u64,
}

impl<K: std::hash::Hash + Eq + Clone, V> ByteCache<K, V> {
    fn new() -> ByteCache<K, V> {
        ByteCache { entries: HashMap::new(), clock: 0, bytes: 0 }
    }

    fn get(&mut self, key: &K) -> Option<Arc<V>> {
        self.clock += 1;
        let clock = self.clock;
        self.entries.get_mut(key).map(|e| {
            e.2 = clock;
            e.0.clone()
        })
    }

    fn insert(&mut self, key: K, value: Arc<V>, bytes: u64, budget: u64) {
        while self.bytes + bytes > budget && !self.entries.is_empty() {
            let oldest = self.entries.iter().min_by_key(|(_, e)| e.2).map(|(k, _)| k.clone()).expect("not empty");
            let (_, b, _) = self.entries.remove(&oldest).expect("present");
            self.bytes -= b;
        }
        self.clock += 1;
        self.bytes += bytes;
        self.entries.insert(key, (value, bytes, self.clock));
    }
}

type RoundKey = (Ruleset, BySide<u8>);

struct Caches {
    tables: HashMap<Ruleset, Arc<MatchTable>>,
    graphs: ByteCache<RoundKey, RoundGraph>,
    values: ByteCache<(Ruleset, BySide<u8>, Ending), RoundValues>,
    rounds: ByteCache<RoundKey, Solution>,
}

static CACHES: Mutex<Option<Caches>> = Mutex::new(None);

fn with_caches<T>(f: impl FnOnce(&mut Caches, &Settings) -> T) -> T {
    let settings = SETTINGS.lock().unwrap_or_else(|e| e.into_inner());
    let mut caches = CACHES.lock().unwrap_or_else(|e| e.into_inner());
    let c = caches.get_or_insert_with(|| Caches {
        tables: HashMap::new(),
        graphs: ByteCache::new(),
        values: ByteCache::new(),
        rounds: ByteCache::new(),
    });
    f(c, &settings)
}

/// The match table of `rules`: in memory, else from the tables directory, else solved there.
pub fn match_table(rules: Ruleset) -> Result<Arc<MatchTable>, MatchError> {
    with_caches(|c, s| {
        if let Some(t) = c.tables.get(&rules) {
            return Ok(t.clone());
        }
        let dir = s.tables.clone().unwrap_or_else(super::default_tables_dir);
        let (table, _) = super::load_or_solve(rules, &dir, SolveOptions { keep_order: false, ..s.solve }, None, &mut |_| {})?;
        let t = Arc::new(table);
        c.tables.insert(rules, t.clone());
        Ok(t)
    })
}

/// A perfect player (see the module's documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PerfectPlayer {
    pub kind: PerfectKind,
}

/// Why a perfect player could not decide.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PerfectError {
    #[error("perfect:{kind}: {error}")]
    Table { kind: &'static str, error: String },
    #[error("perfect:match needs the match's context (the round's start) under next_starter = round_winner")]
    NoContext,
}

fn uniform(set: PitSet, rng: &mut Rng) -> Option<Pit> {
    (!set.is_empty()).then(|| set.nth(rng.below(set.len() as u32) as usize))
}

impl PerfectPlayer {
    pub fn new(kind: PerfectKind) -> PerfectPlayer {
        PerfectPlayer { kind }
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
    pub fn candidates(&self, pos: &Position, context: Option<(u32, Side)>) -> Result<PitSet, PerfectError> {
        if !pos.has_legal_move() {
            return Ok(PitSet::EMPTY);
        }
        let rules = *pos.rules();
        let open = pos.open().map(|set| set.len() as u8);
        let err = |kind: PerfectKind, e: String| PerfectError::Table { kind: kind.name(), error: e };
        match self.kind {
            PerfectKind::Round => {
                let solution = with_caches(|c, s| -> Result<Arc<Solution>, SolveError> {
                    if let Some(sol) = c.rounds.get(&(rules, open)) {
                        return Ok(sol);
                    }
                    let roots = [super::round_start(rules, open, Side::South), super::round_start(rules, open, Side::North)];
                    let sol = Arc::new(Solution::solve(&roots, s.solve, &mut |_| {})?);
                    c.rounds.insert((rules, open), sol.clone(), sol.stats().table_bytes, s.cache_bytes);
                    Ok(sol)
                })
                .map_err(|e| err(self.kind, e.to_string()))?;
                Ok(solution.progress_moves(pos))
            }
            PerfectKind::Match => {
                let table = match_table(rules).map_err(|e| err(self.kind, e.to_string()))?;
                let ending = match (rules.next_starter, context) {
                    (NextStarter::Collector, _) => Ending::Collector,
                    (NextStarter::RoundWinner, Some((kept, starter))) => Ending::RoundWinner { kept, starter },
                    (NextStarter::RoundWinner, None) => return Err(PerfectError::NoContext),
                };
                let values = with_caches(|c, s| -> Result<Arc<RoundValues>, String> {
                    if let Some(v) = c.values.get(&(rules, open, ending)) {
                        return Ok(v);
                    }
                    let solve = SolveOptions { keep_order: false, ..s.solve };
                    // Under the collector rule a round's values serve every state with its open
                    // pits, so the graph is built for them alone and kept without its
                    // predecessors; under round_winner one graph serves several endings.
                    let graph = match ending {
                        Ending::Collector => Arc::new(RoundGraph::build(rules, open, solve).map_err(|e| e.to_string())?),
                        Ending::RoundWinner { .. } => match c.graphs.get(&(rules, open)) {
                            Some(g) => g,
                            None => {
                                let g = Arc::new(RoundGraph::build(rules, open, solve).map_err(|e| e.to_string())?);
                                c.graphs.insert((rules, open), g.clone(), g.bytes(), s.cache_bytes / 2);
                                g
                            }
                        },
                    };
                    let total = rules.total_counters();
                    let seeds = rules.seeds_per_pit as u32;
                    // South's reserves in this round: its kept reserve (R12) plus captures.
                    let span = match ending {
                        Ending::Collector => reserve_span(
                            super::state_holdings(&rules)
                                .filter(|&h| super::open_pits(&rules, h) == open)
                                .map(|h| h - open[Side::South] as u32 * seeds),
                            graph.on_board(),
                            total,
                        ),
                        Ending::RoundWinner { kept, .. } => reserve_span(std::iter::once(kept), graph.on_board(), total),
                    };
                    let (lo, hi) = span.expect("a position's round has match states").into_inner();
                    let cells = *RoundValues::level_cells(&graph, lo, hi).last().expect("levels");
                    RoundValues::fits(cells, graph.nodes() as u64, open, s.solve.max_memory)?;
                    // Large values are computed once per tables directory and read after.
                    let dir = s.tables.clone().unwrap_or_else(super::default_tables_dir);
                    let path = values_path(&dir, &rules, open, ending);
                    let saved = cells >= SAVED_CELLS;
                    let loaded =
                        if saved { RoundValues::load(&path, graph.clone(), &rules, ending, lo, hi, table.max_rounds() + 1)? } else { None };
                    let mut v = match loaded {
                        Some(v) => v,
                        None => {
                            let v = RoundValues::compute(graph, &table, ending, lo, hi)?;
                            if saved {
                                v.save(&path, &rules, ending)
                                    .map_err(|e| format!("{}: cannot write the round's values: {e}", path.display()))?;
                            }
                            v
                        }
                    };
                    let mut bytes = v.bytes();
                    if let Some(g) = Arc::get_mut(&mut v.graph) {
                        g.forget_predecessors();
                        bytes += g.bytes();
                    }
                    let v = Arc::new(v);
                    c.values.insert((rules, open, ending), v.clone(), bytes, s.cache_bytes);
                    Ok(v)
                })
                .map_err(|e| err(self.kind, e))?;
                let node =
                    values.graph.node(pos).ok_or_else(|| err(self.kind, "the position is not reachable from its round's start".into()))?;
                let off = pos.reserve()[Side::South];
                if !values.covers(off) {
                    return Err(err(self.kind, format!("South's reserve {off} is not one of this round's")));
                }
                Ok(values.best(node, off, pos.turn()))
            }
        }
    }

    fn decide(&self, pos: &Position, context: Option<(u32, Side)>, rng: &mut Rng) -> Result<Option<Pit>, PerfectError> {
        let set = self.candidates(pos, context)?;
        debug_assert!(set.is_empty() != pos.has_legal_move(), "a position with a legal move has a perfect move");
        Ok(uniform(set, rng))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::agents::{seat_rng, Agent, AgentSpec};
    use crate::exact::{MatchState, MatchValue};

    fn rules(p: u8, s: u8, extra: &[&str]) -> Ruleset {
        let mut r = Ruleset::from_assignments(extra.iter().copied()).unwrap();
        r.pits_per_row = p;
        r.seeds_per_pit = s;
        r
    }

    /// The tables of these tests live in one temporary directory, never in the user's cache.
    pub(crate) fn isolated() {
        static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
        set_tables_dir(Some(DIR.get_or_init(|| tempfile::tempdir().unwrap()).path().to_path_buf()));
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
        isolated();
        let opponents = ["random", "greedy", "minimax:2", "mcts:16", "perfect:round", "perfect:match"];
        let mut seen = std::collections::HashSet::new();
        for r in [
            rules(3, 2, &[]),
            rules(4, 2, &[]),
            rules(3, 3, &[]),
            rules(3, 4, &[]),
            rules(4, 4, &[]),
            rules(3, 2, &["next_starter=round_winner"]),
        ] {
            let table = match_table(r).unwrap();
            for opponent in opponents {
                let other: AgentSpec = opponent.parse().unwrap();
                for me in Side::ALL {
                    for index in 0..6u64 {
                        let first = if index % 2 == 0 { Side::South } else { Side::North };
                        let mut game = Game::new(r, first);
                        let specs = if me == Side::South {
                            [AgentSpec::Perfect(PerfectKind::Match), other]
                        } else {
                            [other, AgentSpec::Perfect(PerfectKind::Match)]
                        };
                        let mut agents =
                            [Agent::new(specs[0], seat_rng(9, index, Side::South)), Agent::new(specs[1], seat_rng(9, index, Side::North))];
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
                                    MatchValue::Win => assert_eq!(winner, Some(me), "{r:?} vs {opponent}: a won match lost or drawn"),
                                    MatchValue::Draw => assert_ne!(winner, Some(me.other()), "{r:?} vs {opponent}: a draw lost"),
                                    MatchValue::Loss => {}
                                }
                                break;
                            }
                            let (v, k) = promise(&table, &game, me);
                            match value {
                                // Never lose a won state, never let its rounds grow.
                                MatchValue::Win => {
                                    assert_eq!(v, MatchValue::Win, "{r:?} vs {opponent}, round {}: a won state lost", end.round);
                                    assert!(k.unwrap() < rounds.unwrap(), "{r:?} vs {opponent}, round {}: the rounds grew", end.round);
                                }
                                MatchValue::Draw => assert_ne!(v, MatchValue::Loss, "{r:?} vs {opponent}: a draw became a loss"),
                                // A loss is held out: the opponent never wins sooner than the table says.
                                MatchValue::Loss if v == MatchValue::Loss => {
                                    assert!(k.unwrap() + 1 >= rounds.unwrap(), "{r:?} vs {opponent}")
                                }
                                MatchValue::Loss => {}
                            }
                            (value, rounds) = (v, k);
                        }
                        assert!(value != MatchValue::Win || game.is_over(), "{r:?} vs {opponent}: a won match did not end");
                    }
                }
            }
        }
        assert_eq!(seen.len(), 3, "the boards put the perfect player in won, drawn and lost states");
    }

    #[test]
    fn perfect_round_plays_best_round_moves() {
        isolated();
        let r = rules(4, 2, &[]);
        let player = PerfectPlayer::new(PerfectKind::Round);
        let mut game = Game::new(r, Side::South);
        let mut rng = seat_rng(1, 0, Side::South);
        let mut solutions: HashMap<BySide<u8>, Solution> = HashMap::new();
        for _ in 0..400 {
            if game.is_over() {
                break;
            }
            let open = game.round_start().open;
            let sol = solutions.entry(open).or_insert_with(|| {
                let roots = [super::super::round_start(r, open, Side::South), super::super::round_start(r, open, Side::North)];
                Solution::solve(&roots, SolveOptions { keep_order: true, ..SolveOptions::default() }, &mut |_| {}).unwrap()
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
