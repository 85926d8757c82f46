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

use super::match_solver::{end_masks, reserve_span, Ending, MatchError, MatchTable};
use super::round_graph::{Mask, RoundGraph};
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
pub const DEFAULT_CACHE_BYTES: u64 = 2 << 30;

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

/// The perfect-match values of one round's positions (R17): for each side f, node and South's
/// reserve, the least k within which f forces the match won ([`u8::MAX`]: never), and the order
/// in which that was established (a forcer's position is established after a successor's).
pub struct RoundValues {
    graph: Arc<RoundGraph>,
    /// South's reserves covered: lo..lo+width.
    lo: u32,
    width: u32,
    dist: [Vec<u8>; 2],
    order: [Vec<u32>; 2],
}

/// "Never" in [`RoundValues`].
const NEVER_U8: u8 = u8::MAX;

impl RoundValues {
    /// Computes the values of `graph` under `ending` for South's reserves `lo..=hi`: for each
    /// threshold t, the attractor of the round's ends whose next state f wins within t-1 rounds.
    fn compute(graph: Arc<RoundGraph>, table: &MatchTable, ending: Ending, lo: u32, hi: u32) -> RoundValues {
        let rules = *table.rules();
        let width = hi - lo + 1;
        let cells = graph.nodes() * width as usize;
        let mut dist = [vec![NEVER_U8; cells], vec![NEVER_U8; cells]];
        let mut order = [vec![u32::MAX; cells], vec![u32::MAX; cells]];
        let top = table.max_rounds() + 1;
        assert!(top < NEVER_U8 as u32, "rounds fit a byte");
        let window: Mask = if width >= 128 { Mask::MAX } else { ((1 as Mask) << width) - 1 };
        for f in Side::ALL {
            let wins = table.wins_of(f);
            let mut counter = 0u32;
            for t in 1..=top {
                let masks = end_masks(&rules, ending, graph.on_board(), &|h, st| wins[h as usize][st.index()] < t);
                let (d, o) = (&mut dist[f.index()], &mut order[f.index()]);
                graph.attract_observed(f, &|left, mover| masks[left as usize][mover.index()], |x, bits| {
                    let mut b = (bits >> lo) & window;
                    while b != 0 {
                        let i = b.trailing_zeros() as usize;
                        b &= b - 1;
                        let cell = x as usize * width as usize + i;
                        if d[cell] == NEVER_U8 {
                            d[cell] = t as u8;
                            o[cell] = counter;
                        }
                    }
                    counter += 1;
                });
            }
        }
        RoundValues { graph, lo, width, dist, order }
    }

    fn bytes(&self) -> u64 {
        RoundValues::bytes_for(self.graph.nodes() as u64, self.width)
    }

    /// Bytes of the values of `nodes` positions times `width` reserves of South: a rounds byte
    /// and a four-byte order for each side.
    fn bytes_for(nodes: u64, width: u32) -> u64 {
        nodes * width as u64 * 2 * 5
    }

    /// Whether the values of a round fit `limit` bytes; else why not, with the figures (the real
    /// board's full round, 22 million positions times 99 reserves, needs 22 GB: computed, not
    /// attempted, so that the player fails with a message instead of the process with no memory).
    fn fits(nodes: u64, width: u32, open: BySide<u8>, limit: u64) -> Result<(), String> {
        let needed = RoundValues::bytes_for(nodes, width);
        if needed <= limit {
            return Ok(());
        }
        Err(format!(
            "the values of the round with {},{} pits open need {needed} bytes ({nodes} positions times {width} reserves of South, \
             10 bytes each), more than the {limit} allowed; play a smaller board, or perfect:round (R15), which needs far less",
            open[Side::South],
            open[Side::North]
        ))
    }

    /// (rounds within which f forces the win, order) at a node and South reserve; None: never.
    fn at(&self, f: Side, node: u32, south_reserve: u32) -> (Option<u32>, u32) {
        debug_assert!((self.lo..self.lo + self.width).contains(&south_reserve));
        let cell = node as usize * self.width as usize + (south_reserve - self.lo) as usize;
        let d = self.dist[f.index()][cell];
        ((d != NEVER_U8).then_some(d as u32), self.order[f.index()][cell])
    }

    /// The moves of perfect match play (R17) at `node` with South holding `south_reserve` off
    /// the board, for the side to move.
    fn best(&self, node: u32, south_reserve: u32, mover: Side) -> PitSet {
        let (mine, my_order) = self.at(mover, node, south_reserve);
        let (theirs, _) = self.at(mover.other(), node, south_reserve);
        let mut set = PitSet::EMPTY;
        for (pit, child, gain) in self.graph.moves_of(node) {
            let off = south_reserve + gain;
            let (cm, co) = self.at(mover, child, off);
            let (ct, _) = self.at(mover.other(), child, off);
            let keeps = match (mine, theirs) {
                // Keep the rounds and make progress: a successor established earlier.
                (Some(k), _) => cm == Some(k) && co < my_order,
                // Hold out longest.
                (None, Some(k)) => ct == Some(k),
                (None, None) => cm.is_none() && ct.is_none(),
            };
            if keeps {
                set.insert(pit);
            }
        }
        set
    }
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
                    let graph = match c.graphs.get(&(rules, open)) {
                        Some(g) => g,
                        None => {
                            let g = Arc::new(
                                RoundGraph::build(rules, open, SolveOptions { keep_order: false, ..s.solve }).map_err(|e| e.to_string())?,
                            );
                            c.graphs.insert((rules, open), g.clone(), g.bytes(), s.cache_bytes / 2);
                            g
                        }
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
                    RoundValues::fits(graph.nodes() as u64, hi - lo + 1, open, s.solve.max_memory)?;
                    let v = Arc::new(RoundValues::compute(graph, &table, ending, lo, hi));
                    c.values.insert((rules, open, ending), v.clone(), v.bytes(), s.cache_bytes / 2);
                    Ok(v)
                })
                .map_err(|e| err(self.kind, e))?;
                let node =
                    values.graph.node(pos).ok_or_else(|| err(self.kind, "the position is not reachable from its round's start".into()))?;
                let off = pos.reserve()[Side::South];
                if !(values.lo..values.lo + values.width).contains(&off) {
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
mod tests {
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
    fn isolated() {
        static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
        set_tables_dir(Some(DIR.get_or_init(|| tempfile::tempdir().unwrap()).path().to_path_buf()));
    }

    #[test]
    fn round_values_too_large_for_the_memory_are_refused_with_their_figures() {
        let open = BySide::new(7, 7);
        // The real board's full round (22,239,436 positions, 99 reserves of South): 22 GB.
        let err = RoundValues::fits(22_239_436, 99, open, 6 << 30).unwrap_err();
        assert!(err.contains("7,7 pits open need 22017041640 bytes") && err.contains("more than the 6442450944 allowed"), "{err}");
        assert_eq!(RoundValues::fits(1000, 10, open, 100_000), Ok(()));
        assert!(RoundValues::fits(1000, 10, open, 99_999).is_err());
    }

    #[test]
    fn round_values_at_each_round_start_equal_the_match_table() {
        isolated();
        for r in [rules(3, 2, &[]), rules(4, 2, &[]), rules(3, 4, &[]), rules(3, 2, &["next_starter=round_winner"])] {
            let table = match_table(r).unwrap();
            for (state, v) in table.states() {
                let h = state.holdings[Side::South];
                let open = super::super::open_pits(&r, h);
                let kept = h - open[Side::South] as u32 * r.seeds_per_pit as u32;
                let graph = Arc::new(RoundGraph::build(r, open, SolveOptions::default()).unwrap());
                let ending = match r.next_starter {
                    NextStarter::Collector => Ending::Collector,
                    NextStarter::RoundWinner => Ending::RoundWinner { kept, starter: state.starter },
                };
                let values = RoundValues::compute(graph.clone(), &table, ending, kept, (kept + graph.on_board()).min(r.total_counters()));
                let root = graph.root(state.starter);
                for f in Side::ALL {
                    assert_eq!(values.at(f, root, kept).0, table.wins_within(f, state), "{r:?} {state:?} {f}");
                }
                // The player's moves at the round's start are among the state's best moves.
                if !v.best_moves.is_empty() {
                    let chosen = values.best(root, kept, state.starter);
                    assert!(
                        !chosen.is_empty() && chosen.iter().all(|p| v.best_moves.contains(p)),
                        "{r:?} {state:?} {chosen} {}",
                        v.best_moves
                    );
                }
            }
        }
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
