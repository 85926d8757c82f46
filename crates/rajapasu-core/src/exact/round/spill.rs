//! A round solved (R15) with its levels on disk: memory bounded by one bucket of a level while
//! enumerating and by the largest level while solving, not by the round. The same two steps as
//! [`crate::exact::round::solver`], each level a file ([`crate::exact::files::level_files`]) and a checkpoint:
//!
//! 1. Enumeration, from the highest level down, by buckets on disk ([`crate::exact::round::bucketed`]: delayed
//!    duplicate detection, no set of the level in memory); the positions its captures reach in
//!    lower levels are appended, sorted, deduplicated and delta-coded by batch, to that level's
//!    `pending-NNN.batches` file, merged with the level's earlier batches into one sorted run once
//!    they grow ([`crate::exact::files::pending`]), and read back when the enumeration comes down to it.
//!    `state.json` records, after each round of a level's expansion, the length of each pending
//!    file and each merged run, so that an interrupted run drops what it appended since and
//!    redoes at most one round's expansion, one bucket or one merge.
//! 2. Solving, from level 0 up: the level's best exits read from the lower levels' files,
//!    mapped, its in-level moves written to a scratch file and read back as predecessors; the
//!    values by the attractor of [`crate::exact::round::lean_level`], in about 4 bytes a position and 4 an
//!    in-level move, the in-memory solver's values ([`crate::exact::round::solver::level_values`]).

use std::collections::{BTreeMap, HashSet};
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::engine::{BySide, Position, Ruleset, Side};
use crate::exact::files::bucket_state::{
    pending_refused, work_dir, Appended, Merged, PendingFigures, Tuning, Work,
};
use crate::exact::files::level_files::{
    packed_bytes, positions_path, values_path, write_values, LevelId, PositionsFile, ValuesFile,
};
use crate::exact::files::pending::{batches_path, pending_path};
use crate::exact::index::{Codec, Key, RankSetRef};
use crate::exact::round::solver::{check_board_size, Progress, SolveError};
use crate::exact::round::spill::bounds::SpillBounds;
use crate::files;

pub(crate) use crate::exact::round::spill::bounds::io_error;
pub use crate::exact::round::spill::bounds::{SpillError, SpillOptions};

pub(in crate::exact) mod bounds;
mod choose;
mod level_solve;
pub(in crate::exact) mod pending;

/// Positions expanded per wave.
const WAVE: usize = 1 << 18;
/// Positions per parallel task.
const CHUNK: usize = 2048;

/// The figures of one level.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LevelFigures {
    pub level: u32,
    /// Positions with South and with North to move.
    pub positions: [u64; 2],
    /// Moves within the level (no capture), and captures plus round ends.
    pub quiet_moves: u64,
    pub exits: u64,
    /// Bytes of the level's positions file, and of its values file (0 before solving).
    pub positions_bytes: u64,
    pub values_bytes: u64,
    /// The most working memory accounted while enumerating and while solving the level.
    pub enumerate_peak_bytes: u64,
    pub solve_peak_bytes: u64,
    pub enumerate_seconds: f64,
    pub solve_seconds: f64,
}

impl LevelFigures {
    pub fn count(&self) -> u64 {
        self.positions[0] + self.positions[1]
    }
}

/// What the directory holds between runs.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub(in crate::exact) struct State {
    rules: String,
    open: [u8; 2],
    pub(in crate::exact) roots: Vec<(u32, u64)>,
    /// The next level to enumerate; None when all are.
    pub(in crate::exact) next: Option<u32>,
    /// Bytes of each lower level's pending file at the last checkpoint.
    pub(in crate::exact) pending: BTreeMap<u32, u64>,
    /// Figures of the levels enumerated (and solved) so far, by level.
    pub(in crate::exact) levels: BTreeMap<u32, LevelFigures>,
    /// The level being enumerated, where its last checkpoint left it.
    #[serde(default)]
    pub(in crate::exact) work: Option<Work>,
    /// The buckets each enumerated level was split into, and its rounds of expansion.
    #[serde(default)]
    pub(in crate::exact) buckets: BTreeMap<u32, (u32, u32)>,
    /// Each lower level's merged run of pending positions ([`crate::exact::files::pending`]).
    #[serde(default)]
    pub(in crate::exact) merged: BTreeMap<u32, Merged>,
    /// Each lower level's delta-coded batches appended since its last merge; `pending` holds
    /// the bytes of raw batches appended by earlier versions, still read.
    #[serde(default)]
    pub(in crate::exact) batches: BTreeMap<u32, Appended>,
    /// The pending files while each level was enumerated.
    #[serde(default)]
    pub(in crate::exact) pending_figures: BTreeMap<u32, PendingFigures>,
}

/// A round whose levels are on disk, solved or only enumerated.
pub struct SpilledRound {
    dir: PathBuf,
    codec: Codec,
    rules: Ruleset,
    open: BySide<u8>,
    /// Levels 0..=top: positions, and values once solved.
    levels: Vec<(PositionsFile, Option<ValuesFile>)>,
    figures: Vec<LevelFigures>,
    peak_bytes: u64,
    /// Levels finished by this run so far (for [`SpillOptions::max_levels`]).
    finished: u32,
    /// The buckets and rounds of expansion of each level, by level.
    splits: BTreeMap<u32, (u32, u32)>,
}

/// The positions and values of the levels below the one being solved, with the values'
/// offsets (South's count) per level.
struct Lower<'a> {
    sets: Vec<[RankSetRef<'a>; 2]>,
    values: Vec<&'a ValuesFile>,
}

impl SpilledRound {
    /// Enumerates (step 1) into `dir`, continuing what is there: every level's positions file.
    pub fn enumerate(
        roots: &[Position],
        dir: &Path,
        opts: SpillOptions,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<SpilledRound, SpillError> {
        SpilledRound::enumerate_tuned(
            roots,
            dir,
            opts,
            Tuning::for_memory(opts.max_memory),
            progress,
        )
    }

    /// [`SpilledRound::enumerate`] with the levels split as `tuning` says.
    pub(crate) fn enumerate_tuned(
        roots: &[Position],
        dir: &Path,
        opts: SpillOptions,
        tuning: Tuning,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<SpilledRound, SpillError> {
        let template = *roots.first().ok_or(SolveError::MixedRoots)?;
        if roots.iter().any(|r| r.rules() != template.rules() || r.open() != template.open()) {
            return Err(SolveError::MixedRoots.into());
        }
        let codec = Codec::new(template);
        let top = roots.iter().map(Position::on_board).max().unwrap_or(0);
        check_board_size(codec.pits.len(), top)?;
        let open = template.open().map(|s| s.len() as u8);
        std::fs::create_dir_all(dir).map_err(|e| io_error(dir, e, 0, 0))?;
        crate::exact::files::temporaries::remove_stale_temporaries(dir);
        let mut roots_keys: Vec<(u32, u64)> =
            roots.iter().map(|r| (r.on_board(), codec.key(r).word())).collect();
        roots_keys.sort_unstable();
        roots_keys.dedup();
        let fresh = State {
            rules: template.rules().to_json(),
            open: [open[Side::South], open[Side::North]],
            roots: roots_keys,
            next: Some(top),
            pending: BTreeMap::new(),
            levels: BTreeMap::new(),
            work: None,
            buckets: BTreeMap::new(),
            merged: BTreeMap::new(),
            batches: BTreeMap::new(),
            pending_figures: BTreeMap::new(),
        };
        let mut run = Run::new(dir, codec, opts, tuning, *template.rules(), open);
        let mut state = run.load_state(fresh)?;
        run.bounds.disk =
            dir_bytes(dir) + state.work.as_ref().map_or(0, |w| dir_bytes(&work_dir(dir, w.level)));
        while let Some(n) = state.next {
            run.bounds.stop_if_asked(n)?;
            run.enumerate_level(n, &mut state, progress)?;
            run.bounds.finished += 1;
        }
        let mut levels = Vec::with_capacity(top as usize + 1);
        let mut figures = Vec::with_capacity(top as usize + 1);
        // Each file's checksum is read whole (about 14 GB for `stays`): on both cores, the
        // first damaged file in level order named.
        let files = by_level(top as usize + 1, |n| {
            PositionsFile::open(&positions_path(dir, n), &run.id(n))
        });
        for (n, file) in (0..=top).zip(files) {
            let file = file.map_err(SpillError::BadFile)?;
            figures.push(state.levels.get(&n).cloned().unwrap_or_else(|| LevelFigures {
                level: n,
                positions: file.counts(),
                quiet_moves: file.quiet,
                exits: file.exits,
                positions_bytes: file.bytes(),
                ..LevelFigures::default()
            }));
            levels.push((file, None));
        }
        Ok(SpilledRound {
            dir: dir.to_path_buf(),
            codec: run.codec,
            rules: run.rules,
            open,
            levels,
            figures,
            peak_bytes: run.bounds.peak,
            finished: run.bounds.finished,
            splits: state.buckets,
        })
    }

    /// Enumerates and solves (steps 1 and 2) in `dir`, continuing what is there.
    pub fn solve(
        roots: &[Position],
        dir: &Path,
        opts: SpillOptions,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<SpilledRound, SpillError> {
        SpilledRound::solve_tuned(roots, dir, opts, Tuning::for_memory(opts.max_memory), progress)
    }

    /// [`SpilledRound::solve`] with the levels split as `tuning` says.
    pub(crate) fn solve_tuned(
        roots: &[Position],
        dir: &Path,
        opts: SpillOptions,
        tuning: Tuning,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<SpilledRound, SpillError> {
        let mut round = SpilledRound::enumerate_tuned(roots, dir, opts, tuning, progress)?;
        round.solve_levels(opts, progress)?;
        Ok(round)
    }

    /// The values files of the levels already solved, opened (and their checksums read) on
    /// both cores: by level, None where a level has none.
    fn open_solved(&self, run: &Run) -> Vec<Option<Result<ValuesFile, String>>> {
        by_level(self.levels.len(), |n| {
            let path = values_path(&self.dir, n);
            let positions = &self.levels[n as usize].0;
            path.exists().then(|| ValuesFile::open(&path, &run.id(n), positions))
        })
    }

    fn solve_levels(
        &mut self,
        opts: SpillOptions,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<(), SpillError> {
        let mut run = Run::new(
            &self.dir,
            Codec::new(self.codec.template),
            opts,
            Tuning::for_memory(opts.max_memory),
            self.rules,
            self.open,
        );
        run.bounds.disk = dir_bytes(&self.dir);
        run.bounds.peak = self.peak_bytes;
        run.bounds.finished = self.finished;
        let total: u64 = self.levels.iter().map(|(p, _)| p.counts().iter().sum::<u64>()).sum();
        let mut done = 0u64;
        let mut solved = self.open_solved(&run).into_iter();
        for n in 0..self.levels.len() {
            let id = run.id(n as u32);
            let path = values_path(&self.dir, n as u32);
            let count: u64 = self.levels[n].0.counts().iter().sum();
            if let Some(values) = solved.next().flatten() {
                let values = values.map_err(SpillError::BadFile)?;
                self.figures[n].values_bytes = values.bytes();
                self.levels[n].1 = Some(values);
                done += count;
                continue;
            }
            run.bounds.stop_if_asked(n as u32)?;
            let start = Instant::now();
            let (below, here) = self.levels.split_at(n);
            let lower = Lower {
                sets: below.iter().map(|(p, _)| [p.set(0), p.set(1)]).collect(),
                values: below
                    .iter()
                    .map(|(_, v)| v.as_ref().expect("lower levels are solved first"))
                    .collect(),
            };
            let (values, peak) =
                run.solve_level(n as u32, &here[0].0, &lower, &mut done, total, progress)?;
            let bytes = run.write_values(&path, &id, &here[0].0, &values)?;
            let file =
                ValuesFile::open(&path, &id, &self.levels[n].0).map_err(SpillError::BadFile)?;
            self.levels[n].1 = Some(file);
            let f = &mut self.figures[n];
            f.values_bytes = bytes;
            f.solve_peak_bytes = peak;
            f.solve_seconds = start.elapsed().as_secs_f64();
            run.bounds.finished += 1;
            run.record_solved(n as u32, f)?;
        }
        self.peak_bytes = run.bounds.peak;
        self.finished = run.bounds.finished;
        Ok(())
    }

    /// The figures of each level 0..=top.
    pub fn figures(&self) -> &[LevelFigures] {
        &self.figures
    }

    /// The most working memory accounted in this run.
    pub fn peak_bytes(&self) -> u64 {
        self.peak_bytes
    }

    /// Bytes of the level files.
    pub fn disk_bytes(&self) -> u64 {
        self.levels.iter().map(|(p, v)| p.bytes() + v.as_ref().map_or(0, |v| v.bytes())).sum()
    }

    pub fn positions(&self) -> u64 {
        self.levels.iter().map(|(p, _)| p.counts().iter().sum::<u64>()).sum()
    }

    /// The levels' positions files, 0..=top.
    pub(crate) fn into_positions(self) -> Vec<PositionsFile> {
        self.levels.into_iter().map(|(p, _)| p).collect()
    }

    /// The buckets each level enumerated was split into and its rounds of expansion, by level.
    pub fn splits(&self) -> &BTreeMap<u32, (u32, u32)> {
        &self.splits
    }

    /// Levels finished by this run.
    pub(crate) fn levels_finished(&self) -> u32 {
        self.finished
    }

    /// The level of a reachable position and its index there (South's positions first).
    pub(crate) fn slot(&self, pos: &Position) -> Option<(usize, usize)> {
        if pos.rules() != self.codec.template.rules() || pos.open() != self.codec.template.open() {
            return None;
        }
        let level = pos.on_board() as usize;
        let key = self.codec.key(pos);
        let side = key.side();
        let (file, _) = self.levels.get(level)?;
        let i = file.set(side).index(key.rank())?;
        Some((level, i + if side == 1 { file.counts()[0] as usize } else { 0 }))
    }

    /// The value of a reachable position for its side to move (R15); None if it is not
    /// reachable or the round is not solved.
    pub fn value(&self, pos: &Position) -> Option<i32> {
        let (level, i) = self.slot(pos)?;
        self.levels[level].1.as_ref().map(|v| v.get(i))
    }

    /// Calls `f` with every enumerated position and its value (None before solving).
    pub fn for_each(&self, mut f: impl FnMut(&Position, Option<i32>)) {
        for (n, (file, values)) in self.levels.iter().enumerate() {
            let south = file.counts()[0] as usize;
            let mut unranker = self.codec.unranker(n as u32);
            for side in 0..2 {
                for (i, rank) in file.set(side).range(0, file.set(side).len()).enumerate() {
                    let pos = unranker.position(Key::new(rank, side));
                    let at = i + if side == 1 { south } else { 0 };
                    f(&pos, values.as_ref().map(|v| v.get(at)));
                }
            }
        }
    }

    /// The directory of the level files.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// One run over a directory: what it may use and what it has used.
pub(in crate::exact) struct Run {
    pub(in crate::exact) dir: PathBuf,
    pub(in crate::exact) codec: Codec,
    pub(in crate::exact) tuning: Tuning,
    /// What the run may use and has used: memory, the directory's bytes, levels finished.
    pub(in crate::exact) bounds: SpillBounds,
    /// Buckets merged in this run (for [`Tuning::stop_after_buckets`]).
    pub(in crate::exact) buckets_merged: u64,
    /// The level's runs whose checksums this run has checked.
    pub(in crate::exact) checked: HashSet<PathBuf>,
    /// Pending merges made in this run (for [`Tuning::stop_after_merges`]).
    pub(in crate::exact) merges: u64,
    /// The pending files while the level in hand is enumerated.
    pub(in crate::exact) pending: PendingFigures,
    rules: Ruleset,
    open: BySide<u8>,
}

/// Cuts a pending file back to the `keep` bytes the state records (what a killed run appended
/// since is dropped); refuses one shorter, or missing while `expected` and `keep` > 0.
fn cut_back(path: &Path, keep: u64, expected: bool) -> Result<(), SpillError> {
    if !path.exists() {
        if keep > 0 && expected {
            let why = format!("it is missing; the state records {keep} bytes");
            return Err(SpillError::BadFile(pending_refused(path, why)));
        }
        return Ok(());
    }
    let f = OpenOptions::new().write(true).open(path).map_err(|e| io_error(path, e, 0, 0))?;
    let len = f.metadata().map_err(|e| io_error(path, e, 0, 0))?.len();
    if len < keep {
        let why = format!("it holds {len} bytes; the state records {keep}");
        return Err(SpillError::BadFile(pending_refused(path, why)));
    }
    f.set_len(keep).map_err(|e| io_error(path, e, 0, 0))
}

fn state_path(dir: &Path) -> PathBuf {
    dir.join("state.json")
}

pub(crate) fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok()?.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

impl Run {
    fn new(
        dir: &Path,
        codec: Codec,
        opts: SpillOptions,
        tuning: Tuning,
        rules: Ruleset,
        open: BySide<u8>,
    ) -> Run {
        Run {
            dir: dir.to_path_buf(),
            codec,
            tuning,
            bounds: SpillBounds::new(opts, 0),
            buckets_merged: 0,
            checked: HashSet::new(),
            merges: 0,
            pending: PendingFigures::default(),
            rules,
            open,
        }
    }

    pub(in crate::exact) fn id(&self, level: u32) -> LevelId {
        LevelId { rules: self.rules, open: self.open, level }
    }

    /// The directory's state, or `fresh` for an empty directory; pending files cut back to
    /// their lengths at the last finished level.
    fn load_state(&self, fresh: State) -> Result<State, SpillError> {
        let path = state_path(&self.dir);
        if !path.exists() {
            for n in 0..=fresh.next.unwrap_or(0) {
                for p in [pending_path(&self.dir, n), batches_path(&self.dir, n)] {
                    if p.exists() {
                        std::fs::remove_file(&p).map_err(|e| io_error(&p, e, 0, 0))?;
                    }
                }
            }
            self.tidy_merged(&fresh)?;
            self.save_state(&fresh)?;
            return Ok(fresh);
        }
        let text =
            files::read_regular_file(&path, 1 << 20).map_err(|e| io_error(&path, e, 0, 0))?;
        let state: State = serde_json::from_str(&text).map_err(|e| {
            SpillError::BadFile(crate::exact::files::level_files::refused(&path, e))
        })?;
        if state.rules != fresh.rules || state.open != fresh.open || state.roots != fresh.roots {
            return Err(SpillError::OtherSolve {
                dir: self.dir.clone(),
                found: format!(
                    "rules {}, open {:?}, roots {:?}",
                    state.rules, state.open, state.roots
                ),
            });
        }
        for n in 0..=state.next.unwrap_or(0) {
            let raw = state.pending.get(&n).copied().unwrap_or(0);
            cut_back(&pending_path(&self.dir, n), raw, state.next.is_some())?;
            let coded = state.batches.get(&n).map_or(0, |b| b.bytes);
            cut_back(&batches_path(&self.dir, n), coded, state.next.is_some())?;
        }
        self.tidy_merged(&state)?;
        Ok(state)
    }

    pub(in crate::exact) fn save_state(&self, state: &State) -> Result<(), SpillError> {
        let path = state_path(&self.dir);
        let text = serde_json::to_string_pretty(state).expect("the state serializes");
        files::write_atomically(&path, |f| f.write_all(text.as_bytes()))
            .map_err(|e| io_error(&path, e, self.bounds.disk, text.len() as u64))
    }

    fn write_values(
        &mut self,
        path: &Path,
        id: &LevelId,
        file: &PositionsFile,
        values: &[i8],
    ) -> Result<u64, SpillError> {
        let estimate = packed_bytes(values.len(), id.level) as u64 + 4096;
        self.bounds.check_disk(estimate, || {
            format!("level {}'s values file of about {estimate} bytes", id.level)
        })?;
        let bytes = write_values(path, id, file.counts(), &file.digest, values)
            .map_err(|e| io_error(path, e, self.bounds.disk, estimate))?;
        self.bounds.disk += bytes;
        Ok(bytes)
    }

    /// Records a solved level's figures in the state.
    fn record_solved(&self, n: u32, figures: &LevelFigures) -> Result<(), SpillError> {
        let path = state_path(&self.dir);
        let text =
            files::read_regular_file(&path, 1 << 20).map_err(|e| io_error(&path, e, 0, 0))?;
        let mut state: State = serde_json::from_str(&text).map_err(|e| {
            SpillError::BadFile(crate::exact::files::level_files::refused(&path, e))
        })?;
        state.levels.insert(n, figures.clone());
        self.save_state(&state)
    }
}

/// `open` of levels 0..levels on both cores, in level order (so that the first error a caller
/// meets is the lowest level's): a level file is read whole for its checksum when opened.
fn by_level<T: Send>(levels: usize, open: impl Fn(u32) -> T + Sync) -> Vec<T> {
    (0..levels as u32).into_par_iter().map(&open).collect()
}
