//! The match solver (docs/rules.md R17) with its round graphs on disk: memory bounded by the
//! largest level of a round, not by the 13 or so rounds a match reaches.
//!
//! Each open-pit configuration's round is enumerated by the spilled round solver
//! ([`SpilledRound::enumerate`]) into its own directory, `open-S-N/`, as positions files by level;
//! then each level's moves are written once beside them (`moves-NNN.mov`, see
//! [`crate::exact::files::level_files`]): successor by (level, index in the sorted level), South's
//! captures and pit. Every finished level of both is a checkpoint. The rounds loop is the in-memory
//! solver's own ([`crate::exact::matches::match_solver::rounds_loop`]); only its attractors differ:
//! computed level by level from the bottom, a level's masks from its exits into the lower levels'
//! masks files (mapped) and then its in-level fixed point in memory, written to `masks-F-NNN.msk`
//! for the levels above. The least fixed point does not depend on the order in which positions
//! settle, so the masks, and the table, are the in-memory solver's.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;

use crate::engine::{BySide, Pit, Ruleset, Side};
use crate::exact::files::level_files::{
    masks_bytes, masks_path, moves_path, write_masks, write_moves, LevelId, MasksFile, Move,
    MovesFile, PositionsFile,
};
use crate::exact::index::{Codec, Key};
use crate::exact::matches::match_solver::{
    configurations, rounds_loop, starting_point, AttractorRequest, MatchCheckpoint, MatchError,
    MatchProgress, MatchStats, MatchTable, Openings, Step,
};
use crate::exact::matches::range_masks::{
    range_masks, Around, LevelMoves, RANGE_BYTES_PER_POSITION,
};
use crate::exact::matches::round_graph::{reserves, Mask};
use crate::exact::round::solver::SolveError;
use crate::exact::round::spill::bounds::SpillBounds;
use crate::exact::round::spill::{dir_bytes, io_error, SpillError, SpillOptions, SpilledRound};

/// Positions per parallel task.
const CHUNK: usize = 2048;
/// Positions whose moves are found per wave.
const WAVE: usize = 1 << 18;

/// The directory of one configuration's round within a spilled match solve.
pub(crate) fn config_dir(dir: &Path, open: BySide<u8>) -> PathBuf {
    dir.join(format!("open-{}-{}", open[Side::South], open[Side::North]))
}

/// One configuration's round on disk: each level's positions and moves, mapped.
pub(crate) struct DiskGraph {
    dir: PathBuf,
    pub(crate) rules: Ruleset,
    open: BySide<u8>,
    /// Levels 0..=top (counters on the board).
    pub(crate) levels: Vec<(PositionsFile, MovesFile)>,
    /// The round's start with each side to move (South's first): its index in the top level.
    roots: [usize; 2],
}

impl DiskGraph {
    /// Enumerates the round of `open` pits into `dir` and writes its moves, continuing what
    /// is there.
    pub(crate) fn build(
        rules: Ruleset,
        open: BySide<u8>,
        dir: &Path,
        bounds: &mut SpillBounds,
        progress: &mut dyn FnMut(u32),
    ) -> Result<DiskGraph, SpillError> {
        let starts = Side::ALL.map(|st| crate::exact::round_start(rules, open, st));
        let before = dir_bytes(dir);
        let elsewhere = bounds.disk.saturating_sub(before);
        let opts = SpillOptions {
            max_disk: bounds.opts.max_disk.saturating_sub(elsewhere),
            max_levels: bounds.opts.max_levels.map(|m| m.saturating_sub(bounds.finished)),
            ..bounds.opts
        };
        let round = match SpilledRound::enumerate(&starts, dir, opts, &mut |p| progress(p.level)) {
            Err(SpillError::Interrupted { levels, next }) => {
                return Err(SpillError::Interrupted { levels: bounds.finished + levels, next });
            }
            Err(SpillError::DiskLimit { needed, what, .. }) => {
                let (limit, needed) = (bounds.opts.max_disk, needed + elsewhere);
                return Err(SpillError::DiskLimit {
                    limit,
                    needed,
                    what: format!("{what} for open pits {:?}", open.0),
                });
            }
            other => other?,
        };
        bounds.finished = bounds.finished.saturating_add(round.levels_finished());
        bounds.peak = bounds.peak.max(round.peak_bytes());
        bounds.disk = elsewhere.saturating_add(dir_bytes(dir));
        let roots = starts.map(|r| round.slot(&r).expect("the round's start is enumerated").1);
        let positions = round.into_positions();
        let codec = Codec::new(starts[0]);
        let mut moves = Vec::with_capacity(positions.len());
        let mut counts = Vec::with_capacity(positions.len());
        for n in 0..positions.len() {
            let id = LevelId { rules, open, level: n as u32 };
            let path = moves_path(dir, n as u32);
            if !path.exists() {
                bounds.stop_if_asked(n as u32)?;
                progress(n as u32);
                write_level_moves(&codec, &positions, n, &id, &path, bounds)?;
            }
            moves.push(
                MovesFile::open(&path, &id, &positions[n], &counts).map_err(SpillError::BadFile)?,
            );
            counts.push(positions[n].counts().iter().sum());
        }
        Ok(DiskGraph {
            dir: dir.to_path_buf(),
            rules,
            open,
            levels: positions.into_iter().zip(moves).collect(),
            roots,
        })
    }

    pub(crate) fn id(&self, level: usize) -> LevelId {
        LevelId { rules: self.rules, open: self.open, level: level as u32 }
    }

    pub(crate) fn positions(&self) -> u64 {
        self.levels.iter().map(|(p, _)| p.counts().iter().sum::<u64>()).sum()
    }

    pub(crate) fn moves(&self) -> u64 {
        self.levels.iter().map(|(_, m)| m.count()).sum()
    }

    /// Bytes of the positions and moves files.
    pub(crate) fn bytes(&self) -> u64 {
        self.levels.iter().map(|(p, m)| p.bytes() + m.bytes()).sum()
    }

    /// The attractor of `forcer` towards the round's ends labelled by `ends` (by counters left, by
    /// mover; [`crate::exact::matches::round_graph::RoundGraph::attract_from`]), level by level:
    /// what the rounds loop needs of it.
    fn attract(
        &self,
        forcer: Side,
        ends: &[[Mask; 2]],
        bounds: &mut SpillBounds,
    ) -> Result<Openings, SpillError> {
        let top = self.levels.len() - 1;
        let mut lower: Vec<MasksFile> = Vec::with_capacity(top);
        for n in 0..top {
            let masks = self.level_masks(n, forcer, ends, &lower, bounds)?;
            lower.push(self.write_level_masks(n, forcer, &masks, bounds)?);
        }
        let win = self.level_masks(top, forcer, ends, &lower, bounds)?;
        Ok(self.openings(&|level, i| if level == top { win[i] } else { lower[level].get(i) }))
    }

    /// What the rounds loop needs of an attractor whose mask of position i of a level is
    /// `mask(level, i)`: for each starter, the root's mask and its opening moves'.
    pub(crate) fn openings(&self, mask: &dyn Fn(usize, usize) -> Mask) -> Openings {
        let top = self.levels.len() - 1;
        let (degrees, moves) = (self.levels[top].1.degrees(), self.levels[top].1.moves());
        self.roots.map(|root| {
            let from: usize = degrees[..root].iter().map(|&d| d as usize).sum();
            let openings = moves[from..from + degrees[root] as usize]
                .iter()
                .map(|&w| {
                    let mv = Move::decode(w);
                    let m = mask(mv.level as usize, mv.index as usize);
                    (Pit::new_unchecked(mv.pit as usize), m, mv.gain)
                })
                .collect();
            (mask(top, root), openings)
        })
    }

    fn write_level_masks(
        &self,
        n: usize,
        forcer: Side,
        masks: &[Mask],
        bounds: &mut SpillBounds,
    ) -> Result<MasksFile, SpillError> {
        let id = self.id(n);
        let path = masks_path(&self.dir, forcer, n as u32);
        let bytes = masks_bytes(&id, masks.len() as u64);
        let old = std::fs::metadata(&path).map_or(0, |m| m.len());
        bounds.check_disk_replacing(bytes, old, || {
            format!("level {n}'s masks of {} bytes for open pits {:?}", bytes, self.open.0)
        })?;
        let written = write_masks(&path, &id, forcer, masks)
            .map_err(|e| io_error(&path, e, bounds.disk, bytes))?;
        bounds.disk = bounds.disk_with(written, old);
        MasksFile::open(&path, &id, forcer, masks.len() as u64).map_err(SpillError::BadFile)
    }

    /// Level n's masks ([`range_masks`] over the whole level, from zeros).
    fn level_masks(
        &self,
        n: usize,
        forcer: Side,
        ends: &[[Mask; 2]],
        lower: &[MasksFile],
        bounds: &mut SpillBounds,
    ) -> Result<Vec<Mask>, SpillError> {
        let level = self.level_moves(n);
        let m = level.degrees.len();
        // The level's moves, its positions' working bytes, an in-level predecessor each quiet
        // move.
        let working = 8 * level.moves.len() as u64
            + RANGE_BYTES_PER_POSITION * m as u64
            + 4 * self.levels[n].0.quiet;
        bounds.check_memory(working, n as u32, m as u64, "solved")?;
        let lower_of = |l: usize, i: usize| lower[l].get(i);
        let other = |_: usize| unreachable!("the range is the whole level");
        let around = Around { lower: &lower_of, other: &other, prev: None };
        Ok(range_masks(&level, forcer, ends, 0..m, &around).0)
    }

    /// Level n as [`range_masks`] reads it.
    pub(crate) fn level_moves(&self, n: usize) -> LevelMoves<'_> {
        let (file, moves_file) = &self.levels[n];
        LevelMoves {
            n,
            south: file.counts()[0] as usize,
            valid: reserves(self.rules.total_counters(), n),
            degrees: moves_file.degrees(),
            moves: moves_file.moves(),
        }
    }
}

/// Finds and writes level n's moves (a checkpoint).
fn write_level_moves(
    codec: &Codec,
    positions: &[PositionsFile],
    n: usize,
    id: &LevelId,
    path: &Path,
    bounds: &mut SpillBounds,
) -> Result<(), SpillError> {
    let file = &positions[n];
    let m = file.counts()[0] + file.counts()[1];
    let most = file.quiet + file.exits;
    bounds.check_memory(m + 8 * most, n as u32, m, "enumerated")?;
    let (mut degrees, mut moves) =
        (Vec::with_capacity(m as usize), Vec::with_capacity(most as usize));
    for side in 0..2 {
        let set = file.set(side);
        for start in (0..set.len()).step_by(WAVE) {
            let ranks: Vec<u64> = set.range(start, (start + WAVE).min(set.len())).collect();
            let parts: Vec<(Vec<u8>, Vec<u64>)> = ranks
                .par_chunks(CHUNK)
                .map(|chunk| chunk_moves(codec, positions, n as u32, side, chunk))
                .collect();
            for (d, mv) in parts {
                degrees.extend_from_slice(&d);
                moves.extend_from_slice(&mv);
            }
        }
    }
    let estimate = m + 8 * moves.len() as u64 + 4096;
    bounds.check_disk(estimate, || format!("level {n}'s moves file of about {estimate} bytes"))?;
    let bytes = write_moves(path, id, file, &degrees, &moves)
        .map_err(|e| io_error(path, e, bounds.disk, estimate))?;
    bounds.disk = bounds.disk_with(bytes, 0);
    bounds.finished = bounds.finished.saturating_add(1);
    Ok(())
}

/// The moves of positions of one side of level n: their degrees and moves, encoded.
fn chunk_moves(
    codec: &Codec,
    positions: &[PositionsFile],
    n: u32,
    side: usize,
    ranks: &[u64],
) -> (Vec<u8>, Vec<u64>) {
    let (mut degrees, mut moves) =
        (Vec::with_capacity(ranks.len()), Vec::with_capacity(ranks.len() * 4));
    let mut unranker = codec.unranker(n);
    for &rank in ranks {
        let pos = unranker.position(Key::new(rank, side));
        let mut d = 0u8;
        for (pit, child, summary) in pos.legal_children() {
            let key = codec.key(&child);
            let (cs, level) = (key.side(), child.on_board());
            let f = &positions[level as usize];
            let i = f
                .set(cs)
                .index(key.rank())
                .expect("children of enumerated positions are enumerated");
            let index = (i + if cs == 1 { f.counts()[0] as usize } else { 0 }) as u32;
            let gain = summary.captured_by(Side::South, pos.turn());
            moves.push(Move { index, level, gain, pit: pit.index() as u8 }.encode());
            d += 1;
        }
        degrees.push(d);
    }
    (degrees, moves)
}

impl MatchTable {
    /// [`MatchTable::solve`] with the round graphs on disk in `dir` (one directory per
    /// open-pit configuration; see the module), within `opts.max_memory` of working memory and
    /// `opts.max_disk` of disk: the same table. What is in `dir` is continued (enumerated levels,
    /// moves); `resume`, `max_iterations` and `checkpoint` are the rounds loop's, as for
    /// [`MatchTable::solve`]; `opts.max_levels` stops after that many levels enumerated or
    /// given their moves in this run ([`SpillError::Interrupted`]).
    pub fn solve_spilled(
        rules: Ruleset,
        opts: SpillOptions,
        dir: &Path,
        resume: Option<MatchCheckpoint>,
        max_iterations: Option<u32>,
        progress: &mut dyn FnMut(MatchProgress),
        checkpoint: &mut dyn FnMut(&MatchCheckpoint),
    ) -> Result<MatchTable, MatchError> {
        let total = rules.total_counters();
        if total > crate::exact::MAX_COUNTERS {
            return Err(SolveError::TooManyCounters { counters: total }.into());
        }
        let mut cp = starting_point(rules, resume)?;
        if cp.complete {
            return MatchTable::from_checkpoint(cp);
        }
        let configs = configurations(&rules);
        std::fs::create_dir_all(dir).map_err(|e| io_error(dir, e, 0, 0))?;
        let disk = configs.iter().map(|c| dir_bytes(&config_dir(dir, c.open))).sum();
        let mut bounds = SpillBounds::new(opts, disk);
        let mut stats = MatchStats::default();
        let start = Instant::now();
        let mut graphs = Vec::with_capacity(configs.len());
        for (i, c) in configs.iter().enumerate() {
            let open = (c.open[Side::South], c.open[Side::North]);
            let mut heard = |level: u32| {
                progress(MatchProgress {
                    phase: "enumerating",
                    round: 0,
                    done: i as u64,
                    total: configs.len() as u64,
                    open,
                    level: Some(level),
                })
            };
            let g =
                DiskGraph::build(rules, c.open, &config_dir(dir, c.open), &mut bounds, &mut heard)?;
            stats.positions += g.positions();
            stats.moves += g.moves();
            stats.graph_bytes += g.bytes();
            stats.graph_positions.push((open.0, open.1, g.positions()));
            graphs.push(g);
        }
        stats.graphs = graphs.len() as u64;
        stats.enumerate_seconds = start.elapsed().as_secs_f64();
        let start = Instant::now();
        // A spilled solve is not cancelled: it is the command line's, stopped by its checkpoints.
        let mut watch = |p| {
            progress(p);
            std::ops::ControlFlow::Continue(())
        };
        rounds_loop(
            &rules,
            &configs,
            &mut cp,
            &mut stats,
            max_iterations,
            &mut watch,
            checkpoint,
            &mut |step: Step, request: AttractorRequest| {
                let mut found = [None, None];
                for f in Side::ALL {
                    if let Some(ends) = &request[f.index()] {
                        found[f.index()] =
                            Some(graphs[step.config].attract(f, ends, &mut bounds)?);
                    }
                }
                Ok::<_, MatchError>(found)
            },
        )?;
        stats.peak_bytes = bounds.peak;
        stats.solve_seconds = start.elapsed().as_secs_f64();
        Ok(MatchTable::finish(rules, &configs, cp, stats, checkpoint))
    }
}
