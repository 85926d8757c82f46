//! The match solve (R17) split into tasks over files in a shared directory, for a cluster (a Slurm
//! job array, or the tasks of one job step) or a local driver: the spilled solver's round graphs,
//! moves and masks files ([`crate::exact::matches::match_spill`]) and its rounds loop's iterations
//! ([`crate::exact::matches::match_solver::rounds_loop`]), with each level's attractor split into
//! buckets.
//!
//! The solve is a chain of steps; each step is a set of independent tasks, then a barrier
//! ([`ClusterSolve::advance`]) that checks their files and decides the next step:
//!
//! - [`Step::Graphs`]: a task per open-pit configuration enumerates its round and writes its
//!   moves (`graphs/open-S-N/`, each level a checkpoint).
//! - [`Step::Level`] `{ iteration k, level n, round r }`: a task per bucket computes, for every
//!   attractor iteration k asks whose round has a level n, the masks of its bucket of level n
//!   (`kKKK/jJJJJ/LNNN-bBBBB-rRRR.msk`): base masks from the lower levels' final masks, then
//!   the fixed point within the bucket, the other buckets read as of round r - 1. The barrier
//!   starts round r + 1 while a bucket changed; else the round's files become the level's
//!   final masks (`LNNN-bBBBB.msk`) and the next level starts, or, after the top level, the
//!   iteration's attractors are recorded into the checkpoint (`checkpoint.json`) as the
//!   rounds loop records them, and the next iteration starts.
//! - [`Step::Done`]: the last iteration added nothing; the table is `match-<rules hash>.json`.
//!
//! Every file is written under a temporary name and renamed, every task skips what it finds
//! done and recomputes what it does not, and a barrier run again after a kill finds where it
//! stopped: any task or step killed and run again gives the same files.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::engine::{Ruleset, Side};
use crate::exact::files::level_files::{write_masks, MasksFile};
use crate::exact::matches::match_solver::{
    apply_updates, changed_by, configurations, label_request, record_label, starting_point, Config,
    MatchCheckpoint, MatchError, MatchStats, MatchTable,
};
use crate::exact::matches::match_spill::{config_dir, DiskGraph};
use crate::exact::matches::range_masks::{range_masks, Around};
use crate::exact::matches::round_graph::Mask;
use crate::exact::matches::tables::{read_checkpoint, table_path, write_checkpoint};
use crate::exact::round::spill::bounds::SpillBounds;
use crate::exact::round::spill::SpillOptions;
use crate::files;

mod bucket;
use bucket::{bucket_of, bucket_range};

/// The most buckets a level is split into.
pub const MAX_BUCKETS: u32 = 4096;

const PLAN: &str = "plan.json";
const STATE: &str = "state.json";
const CHECKPOINT: &str = "checkpoint.json";
/// The largest plan or state file read.
const MAX_STATE_BYTES: u64 = 1 << 20;

/// What a cluster solve runs now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum Step {
    /// Each configuration's round enumerated and its moves written: a task per configuration.
    Graphs,
    /// One propagation round of one level of every attractor of an iteration: a task per bucket.
    Level { iteration: u32, level: u32, round: u32 },
    /// The table is written.
    Done,
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Step::Graphs => f.write_str("graphs"),
            Step::Level { iteration, level, round } => {
                write!(f, "iteration {iteration} level {level} round {round}")
            }
            Step::Done => f.write_str("done"),
        }
    }
}

/// Figures of a cluster solve's levels, for a check that the levels were split.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterFigures {
    /// Levels solved (over iterations), and their propagation rounds in all.
    pub levels: u64,
    pub rounds: u64,
    /// The most propagation rounds one level took.
    pub most_rounds: u32,
    /// The most positions of a level, and of a bucket.
    pub largest_level: u64,
    pub largest_bucket: u64,
}

/// The solve's fixed inputs (`plan.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Plan {
    rules: Ruleset,
    buckets: u32,
}

/// Where the solve stands (`state.json`).
#[derive(Clone, Debug, Serialize, Deserialize)]
struct State {
    #[serde(flatten)]
    step: Step,
    stats: MatchStats,
    figures: ClusterFigures,
    /// When the plan was made (seconds since 1970), for the table's figures.
    started: f64,
}

/// One attractor an iteration asks: configuration, labelling, forcer and end labels.
struct Job {
    config: usize,
    label: usize,
    forcer: Side,
    ends: Vec<[Mask; 2]>,
}

/// A cluster solve in its directory.
pub struct ClusterSolve {
    dir: PathBuf,
    rules: Ruleset,
    buckets: u32,
    configs: Vec<Config>,
}

fn now() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64())
}

fn io_error(path: &Path, what: &str, e: impl std::fmt::Display) -> MatchError {
    MatchError::Io(format!("{}: cannot {what}: {e}", path.display()))
}

fn write_json(path: &Path, value: &impl Serialize) -> Result<(), MatchError> {
    let text = serde_json::to_string(value).expect("serializes") + "\n";
    files::write_atomically(path, |f| std::io::Write::write_all(f, text.as_bytes()))
        .map_err(|e| io_error(path, "write", e))
}

fn read_json<T: for<'de> Deserialize<'de>>(path: &Path, what: &str) -> Result<T, MatchError> {
    let text = files::read_regular_file(path, MAX_STATE_BYTES)
        .map_err(|e| io_error(path, &format!("read the {what}"), e))?;
    serde_json::from_str(&text).map_err(|e| {
        MatchError::Invalid(format!("{}: not the {what} of a cluster solve ({e})", path.display()))
    })
}

impl ClusterSolve {
    /// Plans the solve of the match table of `rules` in `dir`, each level split into `buckets`;
    /// a plan already there is continued if it is the same, refused otherwise.
    pub fn plan(dir: &Path, rules: Ruleset, buckets: u32) -> Result<ClusterSolve, MatchError> {
        if rules.total_counters() > crate::exact::MAX_COUNTERS {
            let counters = rules.total_counters();
            return Err(crate::exact::SolveError::TooManyCounters { counters }.into());
        }
        if !(1..=MAX_BUCKETS).contains(&buckets) {
            return Err(MatchError::Invalid(format!(
                "{buckets} buckets: a level is split into 1 to {MAX_BUCKETS}"
            )));
        }
        let plan = Plan { rules, buckets };
        let path = dir.join(PLAN);
        if path.exists() {
            let found: Plan = read_json(&path, "plan")?;
            if found != plan {
                return Err(MatchError::Invalid(format!(
                    "{}: a cluster solve of other rules or another bucket count ({}) is planned there; use another directory or delete it",
                    path.display(),
                    found.buckets
                )));
            }
            return ClusterSolve::open(dir);
        }
        std::fs::create_dir_all(dir).map_err(|e| io_error(dir, "create the directory", e))?;
        write_checkpoint(&dir.join(CHECKPOINT), &starting_point(rules, None)?)?;
        let state = State {
            step: Step::Graphs,
            stats: MatchStats::default(),
            figures: ClusterFigures::default(),
            started: now(),
        };
        write_json(&dir.join(STATE), &state)?;
        // The plan last: a directory with a plan has a state and a checkpoint.
        write_json(&path, &plan)?;
        ClusterSolve::open(dir)
    }

    /// The solve planned in `dir`.
    pub fn open(dir: &Path) -> Result<ClusterSolve, MatchError> {
        let plan: Plan = read_json(&dir.join(PLAN), "plan")?;
        if !(1..=MAX_BUCKETS).contains(&plan.buckets) {
            return Err(MatchError::Invalid(format!(
                "{}: {} buckets, not 1 to {MAX_BUCKETS}",
                dir.join(PLAN).display(),
                plan.buckets
            )));
        }
        Ok(ClusterSolve {
            dir: dir.to_path_buf(),
            rules: plan.rules,
            buckets: plan.buckets,
            configs: configurations(&plan.rules),
        })
    }

    pub fn rules(&self) -> Ruleset {
        self.rules
    }

    pub fn buckets(&self) -> u32 {
        self.buckets
    }

    /// The step to run now.
    pub fn step(&self) -> Result<Step, MatchError> {
        Ok(self.state()?.step)
    }

    /// The figures of the levels solved so far.
    pub fn figures(&self) -> Result<ClusterFigures, MatchError> {
        Ok(self.state()?.figures)
    }

    /// The tasks of `step` (numbered from 0).
    pub fn tasks(&self, step: Step) -> u32 {
        match step {
            Step::Graphs => self.configs.len() as u32,
            Step::Level { .. } => self.buckets,
            Step::Done => 0,
        }
    }

    /// The table file, written once the solve is done.
    pub fn table_path(&self) -> PathBuf {
        table_path(&self.dir, &self.rules)
    }

    /// The finished table.
    pub fn table(&self) -> Result<MatchTable, MatchError> {
        let path = self.table_path();
        let cp = read_checkpoint(&path)?.ok_or_else(|| {
            MatchError::Io(format!("{}: the solve has not finished", path.display()))
        })?;
        MatchTable::from_checkpoint(cp)
    }

    fn state(&self) -> Result<State, MatchError> {
        read_json(&self.dir.join(STATE), "state")
    }

    fn checkpoint(&self) -> Result<MatchCheckpoint, MatchError> {
        let path = self.dir.join(CHECKPOINT);
        let cp = read_checkpoint(&path)?
            .ok_or_else(|| MatchError::Io(format!("{}: no checkpoint", path.display())))?;
        cp.check(&self.rules)?;
        Ok(cp)
    }

    fn graph_dir(&self, config: usize) -> PathBuf {
        config_dir(&self.dir.join("graphs"), self.configs[config].open)
    }

    fn graph_done(&self, config: usize) -> PathBuf {
        self.dir.join("graphs").join(format!("done-{config:03}"))
    }

    /// The round graph of a configuration, enumerated (or continued) in its directory.
    fn graph(&self, config: usize) -> Result<DiskGraph, MatchError> {
        let mut bounds = SpillBounds::new(SpillOptions::default(), 0);
        let open = self.configs[config].open;
        Ok(DiskGraph::build(self.rules, open, &self.graph_dir(config), &mut bounds, &mut |_| {})?)
    }

    /// The attractors iteration `cp.iterations + 1` asks, in the rounds loop's order.
    fn jobs(&self, cp: &MatchCheckpoint) -> Vec<Job> {
        let (k, changed) = (cp.iterations + 1, changed_by(cp));
        let mut jobs = Vec::new();
        for (gi, config) in self.configs.iter().enumerate() {
            for (li, label) in config.labels.iter().enumerate() {
                let request = label_request(&self.rules, config, label, cp, &changed, k);
                for (f, ends) in Side::ALL.into_iter().zip(request) {
                    if let Some(ends) = ends {
                        jobs.push(Job { config: gi, label: li, forcer: f, ends });
                    }
                }
            }
        }
        jobs
    }

    fn iteration_dir(&self, k: u32) -> PathBuf {
        self.dir.join(format!("k{k:03}"))
    }

    /// A bucket's masks file: final (`round` None) or of a propagation round.
    fn masks_file(&self, k: u32, job: usize, n: usize, b: u32, round: Option<u32>) -> PathBuf {
        let name = match round {
            Some(r) => format!("L{n:03}-b{b:04}-r{r:03}.msk"),
            None => format!("L{n:03}-b{b:04}.msk"),
        };
        self.iteration_dir(k).join(format!("j{job:04}")).join(name)
    }

    /// The file that says a level task finished, holding whether a bucket changed.
    fn marker(&self, k: u32, n: u32, r: u32, task: u32) -> PathBuf {
        self.iteration_dir(k).join(format!("L{n:03}-r{r:03}-t{task:04}.done"))
    }

    /// Opens a bucket's masks file: the bucket of positions `range` of level n of `g`.
    fn open_masks(
        &self,
        g: &DiskGraph,
        path: &Path,
        n: usize,
        forcer: Side,
        len: usize,
    ) -> Result<MasksFile, MatchError> {
        if !path.exists() {
            return Err(MatchError::Invalid(format!(
                "{}: missing; run the step's tasks again",
                path.display()
            )));
        }
        MasksFile::open(path, &g.id(n), forcer, len as u64).map_err(MatchError::Invalid)
    }
}

mod advance;
mod task;
#[cfg(test)]
mod tests;
