//! Retrograde analysis of a round (R15), level by level of counters on the board.
//!
//! 1. Enumeration, from the highest level down: the positions reachable from the roots, with
//!    the engine's own move generation ([`Position::legal_children`]), so every switch and the
//!    closed pits (R12) apply exactly as in play. A capture lowers the level; a move without one
//!    stays in it. Each finished level is stored as two [`RankSet`]s (one per side to move).
//! 2. Solving, from level 0 up: a move leaving the level is an *exit* whose value is known
//!    (its net captures minus the lower position's value); moves inside the level change no
//!    score and may cycle. In South's terms (South maximizes, North minimizes), a position is
//!    worth at least t > 0 exactly when South can force reaching an exit worth at least t,
//!    since endless play is worth 0 (R15): an attractor. All thresholds are done in one pass
//!    over decreasing t with counters of the in-level moves not yet attracted (as for
//!    tablebases); then the same for North; what neither side attracts is worth 0.
//!
//! Memory is accounted as it is allocated and checked against [`SolveOptions::max_memory`]:
//! a board too large for it gives [`SolveError::MemoryLimit`], never a crash.

use std::convert::Infallible;
use std::ops::{ControlFlow, RangeInclusive};
use std::time::Instant;

use rayon::prelude::*;

use crate::engine::{BySide, Pit, PitSet, Position, Ruleset, Side};
use crate::exact::index::{Codec, Compositions, Key, RankSet};
use crate::exact::round::enumerate::{enumerate_with, Bounds, FoundLevel, BITMAP_BITS};
use crate::exact::round::layers::{best_moves, progress_moves};
pub use crate::exact::round::solve_error::{Progress, SendWatch, SolveError, Watch, MAX_COUNTERS};

/// Default memory allowance of a solve.
pub const DEFAULT_MAX_MEMORY: u64 = 4 << 30;

#[derive(Clone, Copy, Debug)]
pub struct SolveOptions {
    /// The most bytes the solver's tables and working arrays may take.
    pub max_memory: u64,
    /// Keep each position's layer (4 bytes a position), its distance to the outcome it forces
    /// (see [`Solution::layer`]), so that [`Solution::choose`] can make progress towards a won
    /// outcome (R15 play).
    pub keep_layers: bool,
    /// The most positions a solve may reach: a budget by count, so that whether a board is
    /// solved never depends on the machine's speed.
    pub max_positions: u64,
}

impl Default for SolveOptions {
    fn default() -> SolveOptions {
        SolveOptions { max_memory: DEFAULT_MAX_MEMORY, keep_layers: false, max_positions: u64::MAX }
    }
}

/// A watch that hears `progress` and never stops the solve.
fn listening(progress: &mut dyn FnMut(Progress)) -> impl FnMut(Progress) -> ControlFlow<()> + '_ {
    move |p| {
        progress(p);
        ControlFlow::Continue(())
    }
}

/// Checks that boards of `counters` counters in `pits` open pits can be numbered by the solver
/// (a [`Solution::solve`] of such a board fails at once with the same error).
pub fn check_board_size(pits: usize, counters: u32) -> Result<(), SolveError> {
    if counters > MAX_COUNTERS {
        return Err(SolveError::TooManyCounters { counters });
    }
    match Compositions::new(pits).count(counters as usize) {
        Some(_) => Ok(()),
        None => Err(SolveError::TooManyArrangements { pits, counters }),
    }
}

/// Figures of a solve.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SolveStats {
    /// Distinct (board, side to move) reachable from the roots (R15), roots and ends included.
    pub positions: u64,
    /// Positions by counters on the board (index = level).
    pub level_positions: Vec<u64>,
    /// Moves that stay within their level (no capture).
    pub quiet_moves: u64,
    /// Moves that capture (leave their level), and round ends (no legal move).
    pub exits: u64,
    /// Bytes of the finished tables (position sets, values, layers).
    pub table_bytes: u64,
    /// Largest accounted memory at any time.
    pub peak_bytes: u64,
    pub enumerate_seconds: f64,
    pub solve_seconds: f64,
}

impl SolveStats {
    pub fn seconds(&self) -> f64 {
        self.enumerate_seconds + self.solve_seconds
    }
    /// Bytes of the finished tables per position.
    pub fn bytes_per_position(&self) -> f64 {
        self.table_bytes as f64 / self.positions.max(1) as f64
    }
    pub fn positions_per_second(&self) -> f64 {
        self.positions as f64 / self.seconds().max(1e-9)
    }
}

/// The positions of one level (counters on the board) and their values.
#[derive(Default)]
struct Level {
    /// By side to move.
    sets: [RankSet; 2],
    /// Value for the side to move (R15), in set order.
    values: [Vec<i8>; 2],
    /// The layer of each position (u32::MAX: value 0), in set order; empty unless kept.
    layers: [Vec<u32>; 2],
}

/// How to choose among equally good moves in [`Solution::choose`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TieBreak {
    /// The lowest local pit (the mover's leftmost).
    Lowest,
    /// The highest local pit.
    Highest,
}

impl TieBreak {
    pub fn name(self) -> &'static str {
        match self {
            TieBreak::Lowest => "lowest",
            TieBreak::Highest => "highest",
        }
    }

    /// The move of `moves` this tie-break chooses; None when there is none.
    pub fn pick(self, moves: PitSet) -> Option<Pit> {
        match self {
            TieBreak::Lowest => moves.iter().next(),
            TieBreak::Highest => moves.iter().last(),
        }
    }
}

/// The exact values of every position reachable from some round positions (R15).
pub struct Solution {
    codec: Codec,
    levels: Vec<Level>,
    stats: SolveStats,
}

impl std::fmt::Debug for Solution {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Solution").field("open", &self.open()).field("stats", &self.stats).finish()
    }
}

/// Positions expanded per wave of the enumeration (bounds the children buffered at once).
const WAVE: usize = 1 << 18;
/// Positions per parallel task.
const CHUNK: usize = 2048;

impl Solution {
    /// Solves every position reachable from `roots` (same rules, same open pits).
    ///
    /// ```
    /// use rajapasu_core::engine::{BySide, Ruleset, Side};
    /// use rajapasu_core::exact::{round_start, Solution, SolveOptions};
    ///
    /// // Round 1 of the board of 3 pits a row and 3 counters a pit, South starting.
    /// let mut rules = Ruleset::default();
    /// rules.set("pits_per_row", "3").unwrap();
    /// rules.set("seeds_per_pit", "3").unwrap();
    /// let start = round_start(rules, BySide::splat(3), Side::South);
    /// let solution = Solution::solve(&[start], SolveOptions::default(), &mut |_progress| {}).unwrap();
    ///
    /// // docs/rules.md, "Solved values of small boards": the starter can guarantee 2 counters
    /// // more than the opponent (R15), opening from local pit 0 or 1; 11 positions.
    /// assert_eq!(solution.value(&start), Some(2));
    /// let best: Vec<usize> = solution.best_moves(&start).iter().map(|pit| pit.index()).collect();
    /// assert_eq!(best, [0, 1]);
    /// assert_eq!(solution.stats().positions, 11);
    /// ```
    pub fn solve(
        roots: &[Position],
        opts: SolveOptions,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<Solution, SolveError> {
        Solution::solve_watched(roots, opts, &mut listening(progress))
    }

    /// [`Solution::solve`], stopped with [`SolveError::Cancelled`] as soon as `watch` breaks
    /// (it hears the progress after every wave of positions).
    pub fn solve_watched(
        roots: &[Position],
        opts: SolveOptions,
        watch: &mut Watch,
    ) -> Result<Solution, SolveError> {
        let (mut solution, found) =
            Solution::enumerate_from(roots, opts, true, BITMAP_BITS, &|working, _| working, watch)?;
        let start = Instant::now();
        solution.solve_levels(found, opts, watch)?;
        solution.stats.solve_seconds = start.elapsed().as_secs_f64();
        solution.stats.table_bytes = solution.table_bytes();
        Ok(solution)
    }

    /// Step 1 alone: the positions reachable from `roots`, without values, and each level's
    /// moves as recorded (the round graph of the match values, src/exact/matches/round_graph.rs, is
    /// built from them); `watch` hears the enumeration and may stop it. `in_use(working bytes,
    /// positions found)` is what the caller's whole solve holds then, checked against
    /// `opts.max_memory`.
    pub(crate) fn enumerated_with_moves(
        roots: &[Position],
        opts: SolveOptions,
        bitmap_bits: RangeInclusive<u64>,
        in_use: &dyn Fn(u64, u64) -> u64,
        watch: &mut Watch,
    ) -> Result<(Solution, Vec<FoundLevel>), SolveError> {
        Solution::enumerate_from(roots, opts, true, bitmap_bits, in_use, watch)
    }

    /// The solution's positions without values, and the levels as found (with their moves
    /// when `record` is set).
    fn enumerate_from(
        roots: &[Position],
        opts: SolveOptions,
        record: bool,
        bitmap_bits: RangeInclusive<u64>,
        in_use: &dyn Fn(u64, u64) -> u64,
        watch: &mut Watch,
    ) -> Result<(Solution, Vec<FoundLevel>), SolveError> {
        let template = roots[0];
        if roots.iter().any(|r| r.rules() != template.rules() || r.open() != template.open()) {
            return Err(SolveError::MixedRoots);
        }
        let codec = Codec::new(template);
        let top = roots.iter().map(Position::on_board).max().unwrap_or(0);
        check_board_size(codec.pits.len(), top)?;
        let mut solution = Solution {
            codec,
            levels: (0..=top).map(|_| Level::default()).collect(),
            stats: SolveStats {
                level_positions: vec![0; top as usize + 1],
                ..SolveStats::default()
            },
        };
        let start = Instant::now();
        let found = solution.enumerate(roots, opts, record, bitmap_bits, in_use, watch)?;
        solution.stats.enumerate_seconds = start.elapsed().as_secs_f64();
        solution.stats.table_bytes = solution.table_bytes();
        Ok((solution, found))
    }

    pub fn stats(&self) -> &SolveStats {
        &self.stats
    }

    pub fn rules(&self) -> &Ruleset {
        self.codec.template.rules()
    }

    pub fn open(&self) -> BySide<PitSet> {
        self.codec.template.open()
    }

    fn table_bytes(&self) -> u64 {
        self.levels
            .iter()
            .flat_map(|l| {
                (0..2).map(move |s| l.sets[s].bytes() + l.values[s].len() + l.layers[s].len() * 4)
            })
            .sum::<usize>() as u64
    }

    /// Slot of a position within its level and side, if reachable.
    #[inline]
    fn slot(&self, pos: &Position) -> Option<(u32, usize, usize)> {
        let level = pos.on_board();
        let key = self.codec.key(pos);
        let side = key.side();
        let l = self.levels.get(level as usize)?;
        l.sets[side].index(key.rank()).map(|i| (level, side, i))
    }

    /// The value of a reachable position for its side to move (R15); None if the position is
    /// not reachable from the roots (or has other rules or open pits).
    pub fn value(&self, pos: &Position) -> Option<i32> {
        self.slot_of(pos).map(|(level, side, i)| self.levels[level as usize].values[side][i] as i32)
    }

    /// The layer of a reachable position of nonzero value, with [`SolveOptions::keep_layers`]:
    /// how far the side the value favours (the forcer, value t > 0 for it) is from realizing
    /// it. Only in-level moves to positions of the same value (in South's terms) count: with
    /// the forcer to move, 0 when its best exit (a capture, or the round's end) is worth t,
    /// else 1 + the least layer of those successors; with the other side to move, 1 + the
    /// greatest, or 0 when there is none. The least such numbers: the layers of a
    /// breadth-first attractor, defined by the values and the moves alone (so any solver of
    /// the round can compute them). None for a value of 0, an unreachable position, or layers
    /// not kept.
    pub fn layer(&self, pos: &Position) -> Option<u32> {
        let (level, side, i) = self.slot_of(pos)?;
        self.levels[level as usize].layers[side].get(i).copied().filter(|&l| l != u32::MAX)
    }

    /// Each legal move of a reachable position with its value for the mover: its captures
    /// minus the opponent's, then minus the value of the position after it.
    pub fn move_values(&self, pos: &Position) -> Vec<(Pit, i32)> {
        let mover = pos.turn();
        pos.legal_children()
            .map(|(pit, child, summary)| {
                let v =
                    self.value(&child).expect("the children of a reachable position are reachable");
                (pit, summary.net_gain(mover) - v)
            })
            .collect()
    }

    /// The moves that achieve the value (R15).
    pub fn best_moves(&self, pos: &Position) -> PitSet {
        let Some(value) = self.value(pos) else {
            return PitSet::EMPTY;
        };
        let value_of = |child: &Position| {
            Ok::<i32, Infallible>(
                self.value(child).expect("the children of a reachable position are reachable"),
            )
        };
        let Ok(set) = best_moves(pos, value, value_of);
        set
    }

    /// A best move that a perfect player makes: among the best moves, a player whose value is
    /// positive plays only those that make progress towards the outcome (a capture, or an
    /// in-level move to a position of the same value and a lower [`Solution::layer`]), so that
    /// perfect play realizes the value instead of cycling; the tie-break chooses among the rest.
    /// None when there is no legal move. Needs a solve with [`SolveOptions::keep_layers`].
    pub fn choose(&self, pos: &Position, tie: TieBreak) -> Option<Pit> {
        let (level, side, i) = self.slot(pos)?;
        let l = &self.levels[level as usize];
        assert!(
            !l.layers[side].is_empty() || l.values[side][i] == 0 || level == 0,
            "choose needs a solve with keep_layers"
        );
        tie.pick(self.progress_moves(pos))
    }

    /// Calls `f` with every reachable position and its value (for checks).
    pub fn for_each(&self, mut f: impl FnMut(&Position, i32)) {
        for (n, l) in self.levels.iter().enumerate() {
            let mut unranker = self.codec.unranker(n as u32);
            for side in 0..2 {
                for (i, rank) in l.sets[side].iter().enumerate() {
                    let pos = unranker.position(Key::new(rank, side));
                    f(&pos, l.values[side][i] as i32);
                }
            }
        }
    }

    fn check_memory(
        &mut self,
        opts: &SolveOptions,
        working: u64,
        level: u32,
        found: u64,
        phase: &'static str,
    ) -> Result<(), SolveError> {
        let needed = self.table_bytes() + working;
        self.stats.peak_bytes = self.stats.peak_bytes.max(needed);
        SolveError::within_memory(opts.max_memory, needed, found, level, phase)
    }

    /// Step 1: the reachable positions, level by level from the top ([`enumerate_with`]), their
    /// moves recorded when `record` is set.
    fn enumerate(
        &mut self,
        roots: &[Position],
        opts: SolveOptions,
        record: bool,
        bitmap_bits: RangeInclusive<u64>,
        in_use: &dyn Fn(u64, u64) -> u64,
        watch: &mut Watch,
    ) -> Result<Vec<FoundLevel>, SolveError> {
        let (limit, peak) = (opts.max_memory, &mut self.stats.peak_bytes);
        let mut memory = |working: u64, counters: u32, positions: u64| {
            let needed = in_use(working, positions);
            *peak = (*peak).max(needed);
            SolveError::within_memory(limit, needed, positions, counters, "enumerated")
        };
        let mut watch = |p: Progress| watch(p);
        let mut bounds =
            Bounds { max_positions: opts.max_positions, memory: &mut memory, watch: &mut watch };
        let mut found = enumerate_with(&self.codec, roots, record, &mut bounds, bitmap_bits)?;
        let mut positions = 0;
        for (n, level) in found.iter_mut().enumerate() {
            self.levels[n].sets = std::mem::take(&mut level.sets);
            self.stats.level_positions[n] = level.len() as u64;
            positions += level.len() as u64;
            if !record {
                level.keep_positions();
            }
        }
        self.stats.positions = positions;
        Ok(found)
    }

    /// Step 2: the values, level by level from the bottom, from the moves recorded in step 1.
    fn solve_levels(
        &mut self,
        mut found: Vec<FoundLevel>,
        opts: SolveOptions,
        watch: &mut Watch,
    ) -> Result<(), SolveError> {
        let total = self.stats.positions;
        let mut done = 0u64;
        for n in 0..self.levels.len() {
            let south_count = self.levels[n].sets[0].len();
            let m = found[n].len();
            let scan = self.scan_level(n, &found, &mut done, total, watch)?;
            self.stats.quiet_moves += scan.succ.len() as u64;
            self.stats.exits += scan.exits;
            let LevelScan { exit, degree, succ, .. } = scan;
            let recorded: u64 = found.iter().map(FoundLevel::bytes).sum();
            let working =
                level_working_bytes(m, succ.capacity(), succ.len(), opts.keep_layers) + recorded;
            self.check_memory(&opts, working, n as u32, total, "solved")?;
            let (u, layers) = level_values(n, south_count, &exit, &degree, succ, opts.keep_layers);
            let level = &mut self.levels[n];
            for side in 0..2 {
                let range = if side == 0 { 0..south_count } else { south_count..m };
                let sign = if side == 0 { 1 } else { -1 };
                level.values[side] = u[range.clone()].iter().map(|&x| (sign * x) as i8).collect();
                if opts.keep_layers {
                    level.layers[side] = layers[range].to_vec();
                }
            }
            found[n].solved(|x| if x < south_count { u[x] as i8 } else { -u[x] as i8 });
        }
        if watch(Progress { phase: "solving", level: self.levels.len() as u32 - 1, done, total })
            .is_break()
        {
            return Err(SolveError::Cancelled);
        }
        Ok(())
    }

    /// The moves of every position of level `n`: the best exit of each in South's terms (the
    /// max for South to move, the min for North), and the in-level successors, by node. Chunks
    /// of nodes run in parallel, writing their exits and degrees in place; their successors are
    /// joined in order once the level is scanned, on both cores (no array grown and copied on
    /// one).
    fn scan_level(
        &self,
        n: usize,
        found: &[FoundLevel],
        done: &mut u64,
        total: u64,
        watch: &mut Watch,
    ) -> Result<LevelScan, SolveError> {
        let m = found[n].len();
        let mut exit = vec![0i16; m];
        let mut degree = vec![0u8; m];
        let mut succs: Vec<Vec<u32>> = Vec::new();
        let mut exits = 0u64;
        let waves = exit.chunks_mut(WAVE).zip(degree.chunks_mut(WAVE));
        for (first, (exit, degree)) in (0..m).step_by(WAVE).zip(waves) {
            let parts: Vec<(Vec<u32>, u64)> = exit
                .par_chunks_mut(CHUNK)
                .zip(degree.par_chunks_mut(CHUNK))
                .enumerate()
                .map(|(i, (exit, degree))| {
                    self.scan_nodes(n, found, first + i * CHUNK, exit, degree)
                })
                .collect();
            for (succ, part_exits) in parts {
                succs.push(succ);
                exits += part_exits;
            }
            *done += exit.len() as u64;
            if watch(Progress { phase: "solving", level: n as u32, done: *done, total }).is_break()
            {
                return Err(SolveError::Cancelled);
            }
        }
        Ok(LevelScan { exit, degree, succ: concat(succs), exits })
    }

    /// [`Solution::scan_level`] for the nodes from `start` of level `n`, one an element of
    /// `exit` and `degree`: their in-level successors and their exits counted.
    fn scan_nodes(
        &self,
        n: usize,
        found: &[FoundLevel],
        start: usize,
        exit: &mut [i16],
        degree: &mut [u8],
    ) -> (Vec<u32>, u64) {
        let mut succ = Vec::new();
        let mut exits = 0u64;
        let south_count = self.levels[n].sets[0].len();
        let here = &found[n];
        let end = start + exit.len();
        for x in start..end {
            // Two steps for a child in a level of a bitmap: its line, then its value.
            if x + 8 < end {
                for &mv in here.moves_of_node(x + 8) {
                    if mv.level() != n {
                        found[mv.level()].prefetch_place(mv.number());
                    }
                }
            }
            if x + 4 < end {
                for &mv in here.moves_of_node(x + 4) {
                    if mv.level() != n {
                        found[mv.level()].prefetch_value(mv.number());
                    }
                }
            }
            let sign: i32 = if x < south_count { 1 } else { -1 };
            // The mover's best exit, in the mover's terms.
            let mut best: Option<i32> = None;
            let mut in_level = 0u8;
            let moves = here.moves_of_node(x);
            for &mv in moves {
                let cl = mv.level();
                if cl == n {
                    // A move within the level names the child's node.
                    succ.push(mv.number() as u32);
                    in_level += 1;
                } else {
                    let v = mv.gain() - found[cl].value(mv.number()) as i32;
                    best = Some(best.map_or(v, |b| b.max(v)));
                    exits += 1;
                }
            }
            if moves.is_empty() {
                // R10, R15: no legal move; the opponent collects what is on the board.
                best = Some(-(n as i32));
                exits += 1;
            }
            exit[x - start] = match best {
                Some(b) => (sign * b) as i16,
                None if sign == 1 => i16::MIN,
                None => i16::MAX,
            };
            degree[x - start] = in_level;
        }
        (succ, exits)
    }
}

/// The parts joined in order, each copied in parallel into its place.
fn concat(parts: Vec<Vec<u32>>) -> Vec<u32> {
    let mut joined = vec![0u32; parts.iter().map(Vec::len).sum()];
    let mut places = Vec::with_capacity(parts.len());
    let mut rest = &mut joined[..];
    for part in &parts {
        let (place, tail) = rest.split_at_mut(part.len());
        places.push(place);
        rest = tail;
    }
    places.into_par_iter().zip(&parts).for_each(|(place, part)| place.copy_from_slice(part));
    joined
}

/// The working bytes of solving a level of `m` positions and `quiet` in-level moves (their
/// buffer's capacity `succ_capacity`): the best exits, degrees, successors and predecessors,
/// the values and their layers.
pub(crate) fn level_working_bytes(
    m: usize,
    succ_capacity: usize,
    quiet: usize,
    keep_layers: bool,
) -> u64 {
    // The two forcers' values, counts left and layers are held at once (`Attractor::run`).
    (m * 2 + m + succ_capacity * 4 + quiet * 4 + (m + 1) * 4) as u64
        + 2 * m as u64 * (2 + 1 + if keep_layers { 4 } else { 0 })
}

/// The values of one level in South's terms and their layers (empty unless `keep_layers`), from
/// each position's best exit in South's terms (`exit`; i16::MIN / MAX: none), its in-level
/// degree and its in-level successors (positions 0..south_count have South to move).
pub(crate) fn level_values(
    n: usize,
    south_count: usize,
    exit: &[i16],
    degree: &[u8],
    succ: Vec<u32>,
    keep_layers: bool,
) -> (Vec<i16>, Vec<u32>) {
    let m = degree.len();
    // Predecessors, CSR.
    let mut pred_start = vec![0u32; m + 1];
    for &t in &succ {
        pred_start[t as usize + 1] += 1;
    }
    for i in 0..m {
        pred_start[i + 1] += pred_start[i];
    }
    let mut fill = pred_start.clone();
    let mut preds = vec![0u32; succ.len()];
    let mut at = 0usize;
    for (x, &d) in degree.iter().enumerate() {
        for &t in &succ[at..at + d as usize] {
            preds[fill[t as usize] as usize] = x as u32;
            fill[t as usize] += 1;
        }
        at += d as usize;
    }
    drop(fill);
    drop(succ);
    let attractor = Attractor {
        n: n as i32,
        south_count,
        exit,
        degree,
        pred_start: &pred_start,
        preds: &preds,
    };
    attractor.run(keep_layers)
}

/// The moves of one level (see [`Solution::scan_level`]).
struct LevelScan {
    exit: Vec<i16>,
    degree: Vec<u8>,
    succ: Vec<u32>,
    exits: u64,
}

/// The in-level game of one level: nodes 0..south_count have South to move, the rest North.
struct Attractor<'a> {
    n: i32,
    south_count: usize,
    /// Best exit in South's terms (max for South nodes, min for North nodes; i16::MIN / MAX: none).
    exit: &'a [i16],
    degree: &'a [u8],
    pred_start: &'a [u32],
    preds: &'a [u32],
}

impl Attractor<'_> {
    /// Values in South's terms, and the layers (empty unless `keep_layers`). The two forcers
    /// settle disjoint positions (a position South forces 1 or more from is not one North does),
    /// so each runs alone on its own arrays, on both cores, and North's are laid over South's.
    fn run(&self, keep_layers: bool) -> (Vec<i16>, Vec<u32>) {
        let alone = |forcer| {
            let m = self.degree.len();
            let mut u = vec![0i16; m];
            let mut layers = if keep_layers { vec![u32::MAX; m] } else { Vec::new() };
            self.phase(forcer, &mut u, &mut layers);
            (u, layers)
        };
        let ((mut u, mut layers), (north, north_layers)) =
            rayon::join(|| alone(Side::South), || alone(Side::North));
        for (x, &v) in north.iter().enumerate().filter(|(_, &v)| v != 0) {
            debug_assert_eq!(u[x], 0, "position {x} settled by both forcers");
            u[x] = v;
            if keep_layers {
                layers[x] = north_layers[x];
            }
        }
        (u, layers)
    }

    /// Settles the positions whose value is at least 1 for `forcer` (in `forcer`'s terms),
    /// thresholds from n down to 1, each breadth-first so that a position is settled at its
    /// layer ([`Solution::layer`]): a forcer's first settled successor has the least layer,
    /// an opponent's last the greatest.
    fn phase(&self, forcer: Side, u: &mut [i16], layers: &mut [u32]) {
        let m = self.degree.len();
        let sign: i32 = if forcer == Side::South { 1 } else { -1 };
        let is_forcer = |x: usize| (x < self.south_count) == (forcer == Side::South);
        // The best exit of the forcer's nodes and the worst of the others, in the forcer's terms.
        let exit_value = |x: usize| sign * self.exit[x] as i32;
        let mut left: Vec<u8> =
            (0..m).map(|x| if is_forcer(x) { 0 } else { self.degree[x] }).collect();
        let mut bucket: Vec<Vec<u32>> = vec![Vec::new(); self.n as usize + 1];
        for x in 0..m {
            let f = exit_value(x);
            if f >= 1 && (is_forcer(x) || self.degree[x] == 0) {
                bucket[f as usize].push(x as u32);
            }
        }
        // The positions of the layer in hand, and of the next.
        let mut now: Vec<u32> = Vec::new();
        let mut next: Vec<u32> = Vec::new();
        for t in (1..=self.n).rev() {
            now.append(&mut bucket[t as usize]);
            let mut layer = 0u32;
            while !now.is_empty() {
                for &x in &now {
                    let x = x as usize;
                    if u[x] != 0 {
                        continue;
                    }
                    u[x] = (sign * t) as i16;
                    if !layers.is_empty() {
                        layers[x] = layer;
                    }
                    let preds =
                        &self.preds[self.pred_start[x] as usize..self.pred_start[x + 1] as usize];
                    for &p in preds {
                        let p = p as usize;
                        if u[p] != 0 {
                            continue;
                        }
                        if is_forcer(p) {
                            next.push(p as u32);
                        } else {
                            left[p] -= 1;
                            if left[p] == 0 {
                                let f = exit_value(p);
                                if f >= t {
                                    next.push(p as u32);
                                } else if f >= 1 {
                                    bucket[f as usize].push(p as u32);
                                }
                            }
                        }
                    }
                }
                now.clear();
                std::mem::swap(&mut now, &mut next);
                layer += 1;
            }
        }
    }
}

/// Access to the enumerated positions for the match solver (src/exact/match_solver.rs): a
/// position's slot is (counters on the board, side to move, index in the level's set).
impl Solution {
    /// Positions of level `n` with `side` to move.
    pub(crate) fn level_len(&self, n: usize, side: usize) -> usize {
        self.levels.get(n).map_or(0, |l| l.sets[side].len())
    }

    /// The most counters on the board (the roots' level).
    pub(crate) fn top_level(&self) -> usize {
        self.levels.len() - 1
    }

    /// The positions of level `n` with `side` to move, `start..end` in set order (the tests'
    /// oracles sow them).
    #[cfg(test)]
    pub(crate) fn level_positions(
        &self,
        n: usize,
        side: usize,
        start: usize,
        end: usize,
    ) -> impl Iterator<Item = Position> + '_ {
        self.levels[n].sets[side]
            .range(start, end)
            .map(move |rank| self.codec.position(n as u32, Key::new(rank, side)))
    }

    /// Every move that [`Solution::choose`] may make (before its tie-break): the best moves,
    /// and with a positive value only those that make progress ([`progress_moves`]). Needs
    /// `keep_layers`.
    pub(crate) fn progress_moves(&self, pos: &Position) -> PitSet {
        let Some((level, side, i)) = self.slot(pos) else { return PitSet::EMPTY };
        let value = self.levels[level as usize].values[side][i] as i32;
        let value_of = |child: &Position| {
            let (cl, cs, ci) =
                self.slot(child).expect("the children of a reachable position are reachable");
            Ok::<i32, Infallible>(self.levels[cl as usize].values[cs][ci] as i32)
        };
        let Ok(set) = progress_moves(pos, value, value_of, || Ok(|c: &Position| self.layer(c)));
        set
    }

    /// The slot of a reachable position (same rules and open pits), None otherwise.
    pub(crate) fn slot_of(&self, pos: &Position) -> Option<(u32, usize, usize)> {
        if pos.rules() != self.codec.template.rules() || pos.open() != self.codec.template.open() {
            return None;
        }
        self.slot(pos)
    }
}
