//! Perfect match play (docs/rules.md R17): the match value of every match state, its `rounds` and
//! its best opening moves.
//!
//! A match state is (South's holdings h, starter); R12 fixes the open pits and the reserves.
//! For each side f, `wins[f]` is the least k such that f can force the match won within k
//! rounds (0: already won, R14). The sets A_k = {states f wins within k} grow with k:
//! A_0 is the states where the opponent cannot open a pit, and a state is in A_k when f can
//! force the round, from its start, to an end whose next match state is in A_{k-1}. That is
//! a reachability game on the round's graph times South's reserve, solved as an attractor
//! ([`RoundGraph::attract`]), so cycles inside a round are never progress. The loop stops
//! when an iteration adds no state: what neither side wins then is a draw (a match that
//! never ends, R16/R17). One graph serves every state with the same open pits, since reserves
//! change only the labels of the round's ends; under `next_starter = round_winner` the labels
//! also depend on the round's kept reserve and starter (R11, R13), so each such state gets its
//! own attractor over the same graph.

use std::collections::BTreeMap;
use std::time::Instant;

use std::ops::ControlFlow;

use serde::{Deserialize, Serialize};

use super::round_graph::{GraphBudget, Mask, RoundGraph, ATTRACTOR_BYTES};
use super::setting::Naming;
use super::solver::{SolveError, SolveOptions};
use super::spill::SpillError;
use crate::engine::{BySide, NextStarter, Pit, PitSet, Ruleset, Side};

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MatchError {
    #[error(transparent)]
    Solve(#[from] SolveError),
    /// A table file that cannot be read or written.
    #[error("{0}")]
    Io(String),
    /// A table file that is not a match table, or not a possible one (named in the message).
    #[error("{0}")]
    Invalid(String),
    #[error("the checkpoint cannot be resumed: {0}; delete it to start again")]
    Checkpoint(String),
    #[error("stopped after {iterations} iterations of the rounds loop, as asked; the checkpoint keeps them: run again to continue")]
    Interrupted { iterations: u32 },
    /// The round graphs on disk of a spilled solve ([`MatchTable::solve_spilled`]): their files
    /// and the disk bound (the memory bound is [`MatchError::Solve`]'s).
    #[error(transparent)]
    Spill(SpillError),
}

impl From<SpillError> for MatchError {
    fn from(e: SpillError) -> MatchError {
        match e {
            SpillError::Solve(e) => MatchError::Solve(e),
            e => MatchError::Spill(e),
        }
    }
}

impl MatchError {
    /// The message, the setting at fault named by `name`.
    pub fn describe(&self, name: Naming) -> String {
        match self {
            MatchError::Solve(e) => e.describe(name),
            MatchError::Spill(e) => e.describe(name),
            e => e.to_string(),
        }
    }
}

/// "Cannot force the win" in a rounds table.
pub const NEVER: u32 = u32::MAX;

/// The value of a match state for its starter (R17).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MatchValue {
    Win,
    Draw,
    Loss,
}

impl MatchValue {
    pub fn name(self) -> &'static str {
        match self {
            MatchValue::Win => "win",
            MatchValue::Draw => "draw",
            MatchValue::Loss => "loss",
        }
    }
}

impl std::fmt::Display for MatchValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A match state (R17): the holdings at a round's start and who starts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MatchState {
    pub holdings: BySide<u32>,
    pub starter: Side,
}

/// The solved value of one match state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateValue {
    pub value: MatchValue,
    /// For a win the least k within which the starter forces it, for a loss the least k within
    /// which the opponent does; None for a draw (R17).
    pub rounds: Option<u32>,
    /// The starter's opening moves that keep value and rounds (empty: no legal move).
    pub best_moves: PitSet,
}

/// What a match solve is doing, for a progress display.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatchProgress {
    /// "enumerating" (round graphs built of `total`) or "solving" (graphs done in iteration `round`).
    pub phase: &'static str,
    /// The k of the iteration (states won within k rounds); 0 while enumerating.
    pub round: u32,
    pub done: u64,
    pub total: u64,
    /// The open pits (South, North) of the graph being worked on.
    pub open: (u8, u8),
    /// The level (counters on the board) being enumerated, when a graph is built level by level
    /// on disk ([`MatchTable::solve_spilled`]).
    pub level: Option<u32>,
}

/// Hears a match solve's progress; [`ControlFlow::Break`] stops it
/// ([`SolveError::Cancelled`]: nothing of it is returned, and no table is written).
pub type MatchWatch<'a> = dyn FnMut(MatchProgress) -> ControlFlow<()> + 'a;

/// The watch's answer as the solve's: Err once it asks to stop.
fn heard(watch: &mut MatchWatch, p: MatchProgress) -> Result<(), MatchError> {
    match watch(p) {
        ControlFlow::Continue(()) => Ok(()),
        ControlFlow::Break(()) => Err(MatchError::Solve(SolveError::Cancelled)),
    }
}

/// Figures of a match solve.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MatchStats {
    /// Open-pit configurations (round graphs).
    pub graphs: u64,
    /// Round positions (board, side to move) over all graphs.
    pub positions: u64,
    pub moves: u64,
    /// Match positions decided: round positions times the reserves South can hold there.
    pub match_positions: u64,
    /// Iterations of the rounds loop (the last adds nothing).
    pub iterations: u32,
    /// Attractors computed (graphs times labelings, over the iterations).
    pub attractors: u64,
    /// Bytes of the graphs.
    pub graph_bytes: u64,
    /// Round positions of each graph: (South's open pits, North's, positions).
    pub graph_positions: Vec<(u8, u8, u64)>,
    /// Largest accounted memory (graphs plus one attractor's masks).
    pub peak_bytes: u64,
    pub enumerate_seconds: f64,
    pub solve_seconds: f64,
}

impl MatchStats {
    pub fn seconds(&self) -> f64 {
        self.enumerate_seconds + self.solve_seconds
    }
    /// Match positions decided per second.
    pub fn positions_per_second(&self) -> f64 {
        self.match_positions as f64 / self.seconds().max(1e-9)
    }
    /// Accounted peak bytes per round position.
    pub fn bytes_per_position(&self) -> f64 {
        self.peak_bytes as f64 / self.positions.max(1) as f64
    }
}

/// The state of the rounds loop after a finished iteration: enough to continue an interrupted
/// solve (the graphs are enumerated again, deterministically).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchCheckpoint {
    pub rules: Ruleset,
    /// Iterations finished.
    pub iterations: u32,
    /// wins[f][h][starter] (see [`MatchTable`]).
    pub wins: [Vec<[u32; 2]>; 2],
    /// The same for the position after each opening move: child[f][h][starter][local pit].
    pub child: [Vec<[[u32; 9]; 2]>; 2],
    /// The last iteration added nothing: the table is final.
    pub complete: bool,
    /// Figures of the solve that completed the table.
    pub stats: Option<MatchStats>,
}

impl MatchCheckpoint {
    /// Checks a checkpoint read from a file against the rules it is meant for.
    pub fn check(&self, rules: &Ruleset) -> Result<(), MatchError> {
        let bad = |why: String| Err(MatchError::Checkpoint(why));
        if self.rules != *rules {
            return bad("it was made with other rules".into());
        }
        let total = rules.total_counters();
        if total > super::MAX_COUNTERS {
            return bad(format!(
                "its board holds {total} counters, more than {}",
                super::MAX_COUNTERS
            ));
        }
        let len = total as usize + 1;
        if self.wins.iter().any(|w| w.len() != len) || self.child.iter().any(|c| c.len() != len) {
            return bad(format!(
                "field wins or child does not have {len} rows (holdings 0..={total})"
            ));
        }
        let valid = |w: u32| w == NEVER || w <= self.iterations;
        if self
            .wins
            .iter()
            .flatten()
            .flatten()
            .chain(self.child.iter().flatten().flatten().flatten())
            .any(|&w| !valid(w))
        {
            return bad(format!(
                "field wins or child has a rounds value above its {} iterations",
                self.iterations
            ));
        }
        Ok(())
    }
}

/// The match values of every match state of a board (R17).
#[derive(Clone, Debug)]
pub struct MatchTable {
    rules: Ruleset,
    /// wins[f][h][starter]: least k within which f forces the win from the state where South
    /// holds h, `starter` to start; 0 when already won (R14), [`NEVER`] when f cannot.
    wins: [Vec<[u32; 2]>; 2],
    child: [Vec<[[u32; 9]; 2]>; 2],
    iterations: u32,
    stats: MatchStats,
}

/// The open pits of each side when South holds `south` (R12).
pub fn open_pits(rules: &Ruleset, south: u32) -> BySide<u8> {
    let (p, s) = (rules.pits_per_row as u32, rules.seeds_per_pit as u32);
    let north = rules.total_counters() - south;
    BySide::new((south / s).min(p) as u8, (north / s).min(p) as u8)
}

/// The match states of a board (both sides able to open a pit, R14), by South's holdings.
pub fn state_holdings(rules: &Ruleset) -> std::ops::RangeInclusive<u32> {
    let s = rules.seeds_per_pit as u32;
    s..=rules.total_counters() - s
}

/// South's reserves possible in a round whose states keep `kept` off the board at its start
/// (R12) with `on_board` counters in play: from the least kept reserve to the largest plus
/// every capture, at most the board's `total`. None for no states.
pub(crate) fn reserve_span(
    kept: impl Iterator<Item = u32>,
    on_board: u32,
    total: u32,
) -> Option<std::ops::RangeInclusive<u32>> {
    let (lo, hi) = kept.fold(None, |span: Option<(u32, u32)>, k| {
        Some(span.map_or((k, k), |(lo, hi)| (lo.min(k), hi.max(k))))
    })?;
    Some(lo..=(hi + on_board).min(total))
}

/// How a round's end labels the next match state (R11, R13).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Ending {
    /// The collector starts next: the label depends on South's final holdings only.
    Collector,
    /// The round's winner starts next (the starter on a tie): the label depends on the round's
    /// captures, so on South's kept reserve and the starter too.
    RoundWinner { kept: u32, starter: Side },
}

/// The next match state after a round's end with `left` counters on the board, `mover` unable
/// to move and South holding `off` off the board: (South's holdings, next starter).
pub(crate) fn next_state(
    rules: &Ruleset,
    ending: Ending,
    round_counters: u32,
    left: u32,
    mover: Side,
    off: u32,
) -> Option<(u32, Side)> {
    let collector = mover.other();
    let south = off + if collector == Side::South { left } else { 0 };
    let next = match ending {
        Ending::Collector => collector,
        Ending::RoundWinner { kept, starter } => {
            let cap_s = south.checked_sub(kept)?;
            let cap_n = round_counters.checked_sub(cap_s)?;
            match cap_s.cmp(&cap_n) {
                std::cmp::Ordering::Greater => Side::South,
                std::cmp::Ordering::Less => Side::North,
                std::cmp::Ordering::Equal => starter,
            }
        }
    };
    debug_assert!(south <= rules.total_counters());
    Some((south, next))
}

/// The labels of one attractor: which round ends lead to a state in a target set.
pub(crate) fn end_masks(
    rules: &Ruleset,
    ending: Ending,
    round_counters: u32,
    target: &dyn Fn(u32, Side) -> bool,
) -> Vec<[Mask; 2]> {
    let total = rules.total_counters();
    (0..=round_counters)
        .map(|left| {
            let mut m = [0 as Mask; 2];
            for mover in Side::ALL {
                for off in 0..=total - left {
                    if let Some((h, next)) =
                        next_state(rules, ending, round_counters, left, mover, off)
                    {
                        if target(h, next) {
                            m[mover.index()] |= 1 << off;
                        }
                    }
                }
            }
            m
        })
        .collect()
}

/// One labelling of a graph: its ending and the match states (South's holdings, starter)
/// whose round is this graph under it.
pub(crate) struct Labelling {
    ending: Ending,
    states: Vec<(u32, Side)>,
}

/// One open-pit configuration of the rounds loop: its open pits, the counters on the board at
/// its round's start and its labellings.
pub(crate) struct Config {
    pub open: BySide<u8>,
    pub on_board: u32,
    labels: Vec<Labelling>,
    /// South's holdings of its match states.
    holdings: Vec<u32>,
}

impl Config {
    /// South's reserves possible in this configuration's rounds: how many.
    fn reserves(&self, rules: &Ruleset) -> u64 {
        let kept = self
            .holdings
            .iter()
            .map(|&h| h - self.open[Side::South] as u32 * rules.seeds_per_pit as u32);
        reserve_span(kept, self.on_board, rules.total_counters())
            .expect("a configuration has states")
            .count() as u64
    }
}

/// For each starter (South's first): the attractor's mask at the round's start and, for each
/// opening move, its pit, the mask after it and South's captures in it.
pub(crate) type Openings = [(Mask, Vec<(Pit, Mask, u32)>); 2];

/// The attractors one step of the rounds loop asks for: the configuration's index and, for each
/// forcer (South's first), the labels of the round's ends (by counters left, by mover) when
/// that side needs one.
pub(crate) type AttractorRequest = [Option<Vec<[Mask; 2]>>; 2];

/// The open-pit configurations the match states reach (R12), ascending, each with its labellings
/// (R11, R13).
pub(crate) fn configurations(rules: &Ruleset) -> Vec<Config> {
    let s = rules.seeds_per_pit as u32;
    let mut by_open: BTreeMap<(u8, u8), Vec<u32>> = BTreeMap::new();
    for h in state_holdings(rules) {
        let open = open_pits(rules, h);
        by_open.entry((open[Side::South], open[Side::North])).or_default().push(h);
    }
    by_open
        .into_iter()
        .map(|((south, north), holdings)| {
            let labels = match rules.next_starter {
                NextStarter::Collector => {
                    vec![Labelling {
                        ending: Ending::Collector,
                        states: holdings
                            .iter()
                            .flat_map(|&h| Side::ALL.map(|st| (h, st)))
                            .collect(),
                    }]
                }
                NextStarter::RoundWinner => holdings
                    .iter()
                    .flat_map(|&h| {
                        Side::ALL.map(|st| Labelling {
                            ending: Ending::RoundWinner { kept: h - south as u32 * s, starter: st },
                            states: vec![(h, st)],
                        })
                    })
                    .collect(),
            };
            Config {
                open: BySide::new(south, north),
                on_board: (south as u32 + north as u32) * s,
                labels,
                holdings,
            }
        })
        .collect()
}

/// Where the rounds loop starts: `resume` once checked, else no iteration done (A_0: the states
/// whose opponent cannot open a pit, R14).
pub(crate) fn starting_point(
    rules: Ruleset,
    resume: Option<MatchCheckpoint>,
) -> Result<MatchCheckpoint, MatchError> {
    if let Some(cp) = resume {
        cp.check(&rules)?;
        return Ok(cp);
    }
    let total = rules.total_counters();
    let s = rules.seeds_per_pit as u32;
    let mut wins = [vec![[NEVER; 2]; total as usize + 1], vec![[NEVER; 2]; total as usize + 1]];
    for h in 0..=total {
        if h < s {
            wins[Side::North.index()][h as usize] = [0; 2];
        } else if total - h < s {
            wins[Side::South.index()][h as usize] = [0; 2];
        }
    }
    let child =
        [vec![[[NEVER; 9]; 2]; total as usize + 1], vec![[[NEVER; 9]; 2]; total as usize + 1]];
    Ok(MatchCheckpoint { rules, iterations: 0, wins, child, complete: false, stats: None })
}

/// The rounds loop (R17) over `configs`, from `cp`: iteration k asks `attract` for the attractors
/// of the targets "won within k - 1" and records the states and opening moves they win, until
/// an iteration adds no state. `checkpoint` hears every finished iteration; `max_iterations`
/// stops the loop ([`MatchError::Interrupted`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn rounds_loop<E: From<MatchError>>(
    rules: &Ruleset,
    configs: &[Config],
    cp: &mut MatchCheckpoint,
    stats: &mut MatchStats,
    max_iterations: Option<u32>,
    progress: &mut MatchWatch,
    checkpoint: &mut dyn FnMut(&MatchCheckpoint),
    attract: &mut dyn FnMut(usize, AttractorRequest) -> Result<[Option<Openings>; 2], E>,
) -> Result<(), E> {
    let total = rules.total_counters();
    // Which holdings got a new value in the last iteration, by side (all, at the start).
    let mut changed = [vec![true; total as usize + 1], vec![true; total as usize + 1]];
    loop {
        let k = cp.iterations + 1;
        let updates = iteration(rules, configs, cp, &changed, k, stats, progress, attract)?;
        for c in changed.iter_mut() {
            c.fill(false);
        }
        let done = updates.is_empty();
        for (fi, h, st) in updates {
            cp.wins[fi][h as usize][st.index()] = k;
            changed[fi][h as usize] = true;
        }
        cp.iterations = k;
        cp.complete = done;
        if done {
            stats.iterations = k;
            return Ok(());
        }
        checkpoint(cp);
        if max_iterations.is_some_and(|m| k >= m) {
            return Err(MatchError::Interrupted { iterations: k }.into());
        }
    }
}

/// Iteration k of the rounds loop: the states won within k that were not within k - 1 (side,
/// South's holdings, starter); the opening moves' rounds are recorded in `cp` directly.
#[allow(clippy::too_many_arguments)]
fn iteration<E: From<MatchError>>(
    rules: &Ruleset,
    configs: &[Config],
    cp: &mut MatchCheckpoint,
    changed: &[Vec<bool>; 2],
    k: u32,
    stats: &mut MatchStats,
    progress: &mut MatchWatch,
    attract: &mut dyn FnMut(usize, AttractorRequest) -> Result<[Option<Openings>; 2], E>,
) -> Result<Vec<(usize, u32, Side)>, E> {
    let total = rules.total_counters();
    let s = rules.seeds_per_pit as u32;
    let mut updates = Vec::new();
    for (gi, config) in configs.iter().enumerate() {
        let open = (config.open[Side::South], config.open[Side::North]);
        let at = MatchProgress {
            phase: "solving",
            round: k,
            done: gi as u64,
            total: configs.len() as u64,
            open,
            level: None,
        };
        let n0 = config.on_board;
        let kept_of = |h: u32| h - config.open[Side::South] as u32 * s;
        for label in &config.labels {
            // Heard before each attractor: a labelling's attractors on a large graph take a while.
            heard(progress, at)?;
            let (lo, hi) = reserve_span(label.states.iter().map(|&(h, _)| kept_of(h)), n0, total)
                .expect("a labelling has states")
                .into_inner();
            let need = Side::ALL.map(|f| {
                let fi = f.index();
                changed[fi][lo as usize..=hi as usize].iter().any(|&c| c)
                    && label
                        .states
                        .iter()
                        .any(|&(h, st)| cp.wins[fi][h as usize][st.index()] == NEVER)
            });
            let request = Side::ALL.map(|f| {
                let wins = &cp.wins[f.index()];
                need[f.index()].then(|| {
                    end_masks(rules, label.ending, n0, &|h, st| wins[h as usize][st.index()] < k)
                })
            });
            let found = attract(gi, request)?;
            for f in Side::ALL {
                if let Some(openings) = &found[f.index()] {
                    stats.attractors += 1;
                    record(cp, f, label, openings, k, &kept_of, &mut updates);
                }
            }
        }
    }
    Ok(updates)
}

/// Records what one attractor of `forcer` wins for a labelling's states in iteration k: the
/// states (pushed to `updates`) and the opening moves (in `cp.child`).
fn record(
    cp: &mut MatchCheckpoint,
    forcer: Side,
    label: &Labelling,
    openings: &Openings,
    k: u32,
    kept_of: &dyn Fn(u32) -> u32,
    updates: &mut Vec<(usize, u32, Side)>,
) {
    let fi = forcer.index();
    for &(h, st) in &label.states {
        let kept = kept_of(h);
        let (root, moves) = &openings[st.index()];
        if cp.wins[fi][h as usize][st.index()] == NEVER && root >> kept & 1 == 1 {
            updates.push((fi, h, st));
        }
        for &(pit, child, gain) in moves {
            let d = &mut cp.child[fi][h as usize][st.index()][pit.index()];
            if *d == NEVER && child >> (kept + gain) & 1 == 1 {
                *d = k;
            }
        }
    }
}

impl MatchTable {
    /// Solves every match state of `rules` (R17). `resume` continues from a checkpoint of the
    /// same rules (a complete one is the table); `checkpoint` is called after each finished
    /// iteration and with the complete table; `max_iterations` stops the loop after that many
    /// iterations in all ([`MatchError::Interrupted`]; resume from the checkpoint).
    pub fn solve(
        rules: Ruleset,
        opts: SolveOptions,
        resume: Option<MatchCheckpoint>,
        max_iterations: Option<u32>,
        progress: &mut dyn FnMut(MatchProgress),
        checkpoint: &mut dyn FnMut(&MatchCheckpoint),
    ) -> Result<MatchTable, MatchError> {
        let mut watch = |p| {
            progress(p);
            ControlFlow::Continue(())
        };
        MatchTable::solve_watched(rules, opts, resume, max_iterations, &mut watch, checkpoint)
    }

    /// [`MatchTable::solve`], stopped with [`SolveError::Cancelled`] at the next graph
    /// enumerated or attracted once `watch` breaks (the checkpoints of the iterations finished
    /// by then have been heard; a caller that keeps them can resume from them).
    pub fn solve_watched(
        rules: Ruleset,
        opts: SolveOptions,
        resume: Option<MatchCheckpoint>,
        max_iterations: Option<u32>,
        progress: &mut MatchWatch,
        checkpoint: &mut dyn FnMut(&MatchCheckpoint),
    ) -> Result<MatchTable, MatchError> {
        let total = rules.total_counters();
        if total > super::MAX_COUNTERS {
            return Err(SolveError::TooManyCounters { counters: total }.into());
        }
        let mut cp = starting_point(rules, resume)?;
        if cp.complete {
            return MatchTable::from_checkpoint(cp);
        }
        let configs = configurations(&rules);
        let mut stats = MatchStats::default();
        let graphs = build_graphs(rules, &configs, opts, &mut stats, progress)?;
        let start = Instant::now();
        // Each iteration computes its attractors afresh, level by level from the round's ends
        // (two at a time, one per side). Continuing the last iteration's instead (kept in memory,
        // carrying the new targets up through the predecessors) was measured 10 to 20 times
        // slower on the real board under next_starter = round_winner (an iteration of 9 to 13
        // minutes against 30 s), and it needed the masks of every labelling kept.
        let largest = graphs.iter().map(|g| g.nodes() as u64).max().unwrap_or(0);
        stats.peak_bytes = stats.peak_bytes.max(stats.graph_bytes + ATTRACTOR_BYTES * largest);
        SolveError::within_memory(
            opts.max_memory,
            stats.peak_bytes,
            stats.positions,
            total,
            "solved",
        )
        .map_err(MatchError::Solve)?;
        rounds_loop(
            &rules,
            &configs,
            &mut cp,
            &mut stats,
            max_iterations,
            progress,
            checkpoint,
            &mut |gi, request| Ok::<_, MatchError>(attract_in_memory(&graphs[gi], request)),
        )?;
        stats.solve_seconds = start.elapsed().as_secs_f64();
        Ok(MatchTable::finish(rules, &configs, cp, stats, checkpoint))
    }

    /// The complete table from the loop's last checkpoint, its figures completed; `checkpoint`
    /// hears it.
    pub(crate) fn finish(
        rules: Ruleset,
        configs: &[Config],
        mut cp: MatchCheckpoint,
        mut stats: MatchStats,
        checkpoint: &mut dyn FnMut(&MatchCheckpoint),
    ) -> MatchTable {
        stats.iterations = cp.iterations;
        stats.match_positions = configs
            .iter()
            .zip(&stats.graph_positions)
            .map(|(c, &(_, _, positions))| positions * c.reserves(&rules))
            .sum();
        cp.stats = Some(stats.clone());
        checkpoint(&cp);
        MatchTable { rules, wins: cp.wins, child: cp.child, iterations: cp.iterations, stats }
    }

    /// A finished table from its saved form (checked: rules, sizes, values).
    pub fn from_checkpoint(cp: MatchCheckpoint) -> Result<MatchTable, MatchError> {
        cp.check(&cp.rules)?;
        if !cp.complete {
            return Err(MatchError::Checkpoint(format!(
                "it is not complete ({} iterations done)",
                cp.iterations
            )));
        }
        Ok(MatchTable {
            rules: cp.rules,
            wins: cp.wins,
            child: cp.child,
            iterations: cp.iterations,
            stats: cp.stats.unwrap_or_default(),
        })
    }

    /// The table in its saved form.
    pub fn to_checkpoint(&self) -> MatchCheckpoint {
        MatchCheckpoint {
            rules: self.rules,
            iterations: self.iterations,
            wins: self.wins.clone(),
            child: self.child.clone(),
            complete: true,
            stats: Some(self.stats.clone()),
        }
    }

    pub fn rules(&self) -> &Ruleset {
        &self.rules
    }

    /// The digest of the table's values ([`MatchCheckpoint::digest`]): what a dataset records of
    /// the tables its perfect players read, and what a values file names as its source.
    pub fn digest(&self) -> String {
        self.to_checkpoint().digest()
    }

    /// wins[f][h][starter] for side `f` (see the struct).
    pub(crate) fn wins_of(&self, f: Side) -> &[[u32; 2]] {
        &self.wins[f.index()]
    }

    /// The largest finite rounds value of the table.
    pub(crate) fn max_rounds(&self) -> u32 {
        self.wins.iter().flatten().flatten().copied().filter(|&w| w != NEVER).max().unwrap_or(0)
    }

    pub fn stats(&self) -> &MatchStats {
        &self.stats
    }

    /// The least k within which `side` can force the match won from `state` (0: won already),
    /// None if it cannot.
    pub fn wins_within(&self, side: Side, state: MatchState) -> Option<u32> {
        let w = self.wins[side.index()].get(state.holdings[Side::South] as usize)?
            [state.starter.index()];
        (w != NEVER).then_some(w)
    }

    /// The value of a match state for its starter (R17). None if the holdings do not sum to the
    /// board's total or the match is already over (a side below `seeds_per_pit`, R14).
    pub fn value(&self, state: MatchState) -> Option<StateValue> {
        let h = state.holdings[Side::South];
        if h + state.holdings[Side::North] != self.rules.total_counters()
            || !state_holdings(&self.rules).contains(&h)
        {
            return None;
        }
        let st = state.starter;
        let (me, them) = (st.index(), st.other().index());
        let mine = self.wins[me][h as usize][me];
        let theirs = self.wins[them][h as usize][me];
        let children = |f: usize| self.child[f][h as usize][me];
        let legal = super::round_start(self.rules, open_pits(&self.rules, h), st).legal_moves();
        let mut best = PitSet::EMPTY;
        let (value, rounds) = if mine != NEVER {
            (MatchValue::Win, Some(mine))
        } else if theirs != NEVER {
            (MatchValue::Loss, Some(theirs))
        } else {
            (MatchValue::Draw, None)
        };
        for pit in legal.iter() {
            let keeps = match value {
                MatchValue::Win => children(me)[pit.index()] == mine,
                MatchValue::Loss => children(them)[pit.index()] == theirs,
                MatchValue::Draw => {
                    children(me)[pit.index()] == NEVER && children(them)[pit.index()] == NEVER
                }
            };
            if keeps {
                best.insert(pit);
            }
        }
        Some(StateValue { value, rounds, best_moves: best })
    }

    /// Every match state of the board (South's holdings ascending, South starting first) with
    /// its value.
    pub fn states(&self) -> Vec<(MatchState, StateValue)> {
        let total = self.rules.total_counters();
        state_holdings(&self.rules)
            .flat_map(|h| {
                Side::ALL.map(|starter| MatchState { holdings: BySide::new(h, total - h), starter })
            })
            .map(|st| (st, self.value(st).expect("a match state")))
            .collect()
    }

    /// The value of the match (R17): its first state, each side holding P x S, `first` starting.
    pub fn match_value(&self, first: Side) -> StateValue {
        let half = self.rules.total_counters() / 2;
        self.value(MatchState { holdings: BySide::splat(half), starter: first })
            .expect("the match's start is a match state")
    }
}

/// Enumerates the round graph of every configuration, within `opts.max_memory` for all of them
/// together and one attractor's masks.
fn build_graphs(
    rules: Ruleset,
    configs: &[Config],
    opts: SolveOptions,
    stats: &mut MatchStats,
    progress: &mut MatchWatch,
) -> Result<Vec<RoundGraph>, MatchError> {
    let start = Instant::now();
    let mut graphs = Vec::with_capacity(configs.len());
    let mut largest = 0u64;
    for (i, config) in configs.iter().enumerate() {
        let open = (config.open[Side::South], config.open[Side::North]);
        let at = MatchProgress {
            phase: "enumerating",
            round: 0,
            done: i as u64,
            total: configs.len() as u64,
            open,
            level: None,
        };
        heard(progress, at)?;
        let budget = GraphBudget {
            held: stats.graph_bytes,
            reserved_nodes: largest,
            mask_bytes: ATTRACTOR_BYTES,
        };
        // The largest graphs take seconds: the watch is heard within each (and can stop it).
        let g = RoundGraph::build_watched(rules, config.open, opts, budget, &mut |_| progress(at))?;
        stats.peak_bytes = stats.peak_bytes.max(budget.needed(g.bytes(), g.nodes() as u64));
        stats.graph_bytes += g.bytes();
        largest = largest.max(g.nodes() as u64);
        stats.positions += g.nodes() as u64;
        stats.graph_positions.push((open.0, open.1, g.nodes() as u64));
        stats.moves += g.moves() as u64;
        graphs.push(g);
    }
    stats.graphs = graphs.len() as u64;
    stats.enumerate_seconds = start.elapsed().as_secs_f64();
    Ok(graphs)
}

/// The attractors a step of the rounds loop asks for, both sides at once (one per core), on a
/// graph in memory.
fn attract_in_memory(graph: &RoundGraph, request: AttractorRequest) -> [Option<Openings>; 2] {
    let run = |f: Side| -> Option<Openings> {
        let masks = request[f.index()].as_ref()?;
        let win = graph.attract(f, &|left: u32, mover: Side| masks[left as usize][mover.index()]);
        Some(Side::ALL.map(|st| {
            let root = graph.root(st);
            (
                win[root as usize],
                graph
                    .moves_of(root)
                    .map(|(pit, child, gain)| (pit, win[child as usize], gain))
                    .collect(),
            )
        }))
    };
    let (a, b) = rayon::join(|| run(Side::South), || run(Side::North));
    [a, b]
}
