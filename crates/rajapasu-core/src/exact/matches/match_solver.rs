//! Perfect match play (docs/rules.md R17): the match value of every match state, its `rounds` and
//! its best opening moves.
//!
//! A match state is (South's holdings h, starter); R12 fixes the open pits and the reserves.
//! For each side f, `wins[f]` is the least k such that f can force the match won within k
//! rounds (0: already won, R14). The sets A_k = {states f wins within k} grow with k:
//! A_0 is the states where the opponent cannot open a pit, and a state is in A_k when f can
//! force the round, from its start, to an end whose next match state is in A_{k-1}. That is
//! a reachability game on the round's graph times South's reserve, solved as an attractor
//! ([`RoundGraph::attract_from`]), so cycles inside a round are never progress. The loop stops
//! when an iteration adds no state: what neither side wins then is a draw (a match that
//! never ends, R16/R17). One graph serves every state with the same open pits, since reserves
//! change only the labels of the round's ends; under `next_starter = round_winner` the labels
//! also depend on the round's kept reserve and starter (R11, R13), so each such state gets its
//! own attractor over the same graph. A labelling's targets only grow from one iteration to the
//! next, so its attractors are continued from the last iteration's (kept while the memory bound
//! leaves room, `kept.rs`), visiting only what the new targets change.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::time::Instant;

use std::ops::ControlFlow;

use serde::{Deserialize, Serialize};

use crate::engine::{BySide, NextStarter, PitSet, Ruleset, Side};
use crate::exact::matches::round_graph::{GraphBudget, Mask, RoundGraph, ATTRACTOR_BYTES};
use crate::exact::round::solver::{SolveError, SolveOptions};
use crate::exact::round::spill::SpillError;
use crate::exact::setting::Naming;

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
    /// "enumerating" (round graphs built of `total`) or "solving" (graphs done in iteration
    /// `round`).
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
    /// Largest accounted memory (graphs, the attractors kept between iterations and the two
    /// computed at once).
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
        if total > crate::exact::MAX_COUNTERS {
            return bad(format!(
                "its board holds {total} counters, more than {}",
                crate::exact::MAX_COUNTERS
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

/// A match solve asked for ([`MatchTable::solve_watched`]): the rules, the round solves'
/// options, the checkpoint it continues from, the iterations it may run in all, and who hears
/// its progress and its checkpoints.
pub(crate) struct MatchRequest<'a> {
    pub rules: Ruleset,
    pub opts: SolveOptions,
    pub resume: Option<MatchCheckpoint>,
    pub max_iterations: Option<u32>,
    pub progress: &'a mut MatchWatch<'a>,
    pub checkpoint: &'a mut dyn FnMut(&MatchCheckpoint),
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

mod kept;
#[cfg(test)]
pub(crate) use kept::least_memory;
mod request;
mod rounds_loop;
pub use rounds_loop::*;

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
        let asked = MatchRequest { rules, opts, resume, max_iterations, progress, checkpoint };
        Self::solve_keeping(asked, u64::MAX).map(|(table, _)| table)
    }

    /// [`MatchTable::solve_watched`] keeping at most `keep` bytes of attractors between
    /// iterations (as many as the memory bound leaves room for), and what it kept.
    pub(crate) fn solve_keeping(
        asked: MatchRequest,
        keep: u64,
    ) -> Result<(MatchTable, kept::KeptFigures), MatchError> {
        let MatchRequest { rules, opts, resume, max_iterations, progress, checkpoint } = asked;
        let total = rules.total_counters();
        if total > crate::exact::MAX_COUNTERS {
            return Err(SolveError::TooManyCounters { counters: total }.into());
        }
        let mut cp = starting_point(rules, resume)?;
        if cp.complete {
            return Ok((MatchTable::from_checkpoint(cp)?, kept::KeptFigures::default()));
        }
        let configs = configurations(&rules);
        let mut stats = MatchStats::default();
        let graphs = build_graphs(rules, &configs, opts, &mut stats, progress)?;
        let start = Instant::now();
        // Each labelling's attractors are continued from the last iteration's where the memory
        // bound leaves room to keep them, else computed afresh (the same masks either way). The
        // kept ones take at most what the solve needs without them, so keeping them at most
        // doubles its memory, whatever the bound.
        let largest = graphs.iter().map(|g| g.nodes() as u64).max().unwrap_or(0);
        let base = stats.graph_bytes + kept::working_bytes(largest);
        stats.peak_bytes = stats.peak_bytes.max(base);
        SolveError::within_memory(
            opts.max_memory,
            stats.peak_bytes,
            stats.positions,
            total,
            "solved",
        )
        .map_err(MatchError::Solve)?;
        let room = opts.max_memory.saturating_sub(base).min(base).min(keep);
        // Heard by the attractors (to continue) and after each iteration (to let go of those
        // finished), one at a time.
        let kept = RefCell::new(kept::KeptAttractors::new(room));
        let solved = rounds_loop(
            &rules,
            &configs,
            &mut cp,
            &mut stats,
            max_iterations,
            progress,
            &mut |cp| {
                let finished =
                    |step: Step, f| configs[step.config].labels[step.labelling].all_won_by(f, cp);
                kept.borrow_mut().release(finished);
                checkpoint(cp)
            },
            &mut |step, request| {
                Ok::<_, MatchError>(kept.borrow_mut().attract(&graphs[step.config], step, request))
            },
        );
        let figures = kept.borrow().figures();
        stats.peak_bytes = stats.peak_bytes.max(base + figures.peak);
        solved?;
        stats.solve_seconds = start.elapsed().as_secs_f64();
        Ok((MatchTable::finish(rules, &configs, cp, stats, checkpoint), figures))
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
        let legal =
            crate::exact::round_start(self.rules, open_pits(&self.rules, h), st).legal_moves();
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
        // The building holds more than the finished graph: its peak, as its checks heard it.
        stats.peak_bytes = stats.peak_bytes.max(g.build_peak());
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
