//! The tasks of a cluster solve's steps: a configuration's round graph, or a bucket of a level.

use super::*;

/// The final or last-round masks of one level of one attractor, bucket by bucket.
pub(super) struct LevelMasks {
    m: usize,
    buckets: u32,
    files: Vec<MasksFile>,
}

impl LevelMasks {
    #[inline]
    pub(super) fn get(&self, i: usize) -> Mask {
        let b = bucket_of(self.m, self.buckets, i);
        self.files[b as usize].get(i - bucket_range(self.m, self.buckets, b).start)
    }

    /// Bucket b's masks.
    fn bucket(&self, b: u32) -> Vec<Mask> {
        bucket_range(self.m, self.buckets, b).map(|i| self.get(i)).collect()
    }
}

/// The positions of level n of `g`.
pub(super) fn level_len(g: &DiskGraph, n: usize) -> usize {
    g.levels[n].0.counts().iter().sum::<u64>() as usize
}

impl ClusterSolve {
    /// Runs task `index` of the step the solve is at ([`ClusterSolve::step`]); a task already
    /// done (its files there and sound) is not run again.
    pub fn task(&self, index: u32) -> Result<(), MatchError> {
        let step = self.step()?;
        let tasks = self.tasks(step);
        if index >= tasks {
            return Err(MatchError::Invalid(format!(
                "task {index}: step {step} has {tasks} tasks (0 to {})",
                tasks.saturating_sub(1)
            )));
        }
        match step {
            Step::Graphs => self.graph_task(index as usize),
            Step::Level { iteration, level, round } => {
                self.level_task(iteration, level, round, index)
            }
            Step::Done => Ok(()),
        }
    }

    fn graph_task(&self, config: usize) -> Result<(), MatchError> {
        let done = self.graph_done(config);
        if done.exists() {
            return Ok(());
        }
        self.graph(config)?;
        write_json(&done, &self.configs[config].open.0)
    }

    /// The graphs of the configurations `jobs` use, opened.
    pub(super) fn graphs_of(&self, jobs: &[Job]) -> Result<HashMap<usize, DiskGraph>, MatchError> {
        let mut graphs = HashMap::new();
        for job in jobs {
            if let std::collections::hash_map::Entry::Vacant(e) = graphs.entry(job.config) {
                e.insert(self.graph(job.config)?);
            }
        }
        Ok(graphs)
    }

    /// Level n's masks of attractor `job` of iteration k, bucket by bucket: the final ones
    /// (`round` None) or a round's.
    pub(super) fn level_masks(
        &self,
        g: &DiskGraph,
        k: u32,
        (ji, job): (usize, &Job),
        n: usize,
        round: Option<u32>,
    ) -> Result<LevelMasks, MatchError> {
        let m = level_len(g, n);
        let files = (0..self.buckets)
            .map(|b| {
                let path = self.masks_file(k, ji, n, b, round);
                let len = bucket_range(m, self.buckets, b).len();
                self.open_masks(g, &path, n, job.forcer, len)
            })
            .collect::<Result<_, _>>()?;
        Ok(LevelMasks { m, buckets: self.buckets, files })
    }

    /// Round r of level n of iteration k: bucket b of every attractor whose round has a level
    /// n, then the marker saying whether any changed.
    fn level_task(&self, k: u32, n: u32, r: u32, b: u32) -> Result<(), MatchError> {
        let cp = self.checkpoint()?;
        if cp.iterations >= k {
            // The barrier recorded this iteration already (it was killed before moving on).
            return Ok(());
        }
        let jobs = self.jobs(&cp);
        let graphs = self.graphs_of(&jobs)?;
        let marker = self.marker(k, n, r, b);
        if marker.exists() && self.outputs_sound(k, n as usize, r, b, &jobs, &graphs) {
            return Ok(());
        }
        let n = n as usize;
        let mut changed = false;
        for (ji, job) in jobs.iter().enumerate() {
            let g = &graphs[&job.config];
            if n >= g.levels.len() {
                continue;
            }
            let range = bucket_range(level_len(g, n), self.buckets, b);
            let lower = (0..n)
                .map(|l| self.level_masks(g, k, (ji, job), l, None))
                .collect::<Result<Vec<_>, _>>()?;
            let last = match r {
                0 => None,
                _ => Some(self.level_masks(g, k, (ji, job), n, Some(r - 1))?),
            };
            let prev = last.as_ref().map(|l| l.bucket(b));
            let lower_of = |l: usize, i: usize| lower[l].get(i);
            let other = |i: usize| last.as_ref().map_or(0, |l| l.get(i));
            let around = Around { lower: &lower_of, other: &other, prev: prev.as_deref() };
            let (win, ch) = range_masks(&g.level_moves(n), job.forcer, &job.ends, range, &around);
            changed |= ch;
            let path = self.masks_file(k, ji, n, b, Some(r));
            write_bucket(&path, g, n, job.forcer, &win)?;
        }
        write_scratch(&marker, |tmp| std::fs::write(tmp, format!("{changed}\n")))
    }

    /// Whether bucket b's files of round r of level n are all there and sound, under the
    /// round's names or, once a barrier has made them the level's final masks (a round in
    /// which no bucket changed, as every bucket's marker says) and was killed before it moved
    /// the solve on, under those.
    fn outputs_sound(
        &self,
        k: u32,
        n: usize,
        r: u32,
        b: u32,
        jobs: &[Job],
        graphs: &HashMap<usize, DiskGraph>,
    ) -> bool {
        let finalised = self.round_unchanged(k, n as u32, r);
        jobs.iter().enumerate().all(|(ji, job)| {
            let g = &graphs[&job.config];
            if n >= g.levels.len() {
                return true;
            }
            let len = bucket_range(level_len(g, n), self.buckets, b).len();
            let round = self.masks_file(k, ji, n, b, Some(r));
            let path = if !round.exists() && finalised {
                self.masks_file(k, ji, n, b, None)
            } else {
                round
            };
            self.open_masks(g, &path, n, job.forcer, len).is_ok()
        })
    }

    /// Whether every bucket's marker of round r of level n is there and says it did not
    /// change: only then does the barrier make the round's files the level's final masks.
    fn round_unchanged(&self, k: u32, n: u32, r: u32) -> bool {
        (0..self.buckets).all(|b| {
            let marker = self.marker(k, n, r, b);
            read_json::<bool>(&marker, "task marker").is_ok_and(|c| !c)
        })
    }
}

/// Writes a bucket's masks under a temporary name, renamed when complete.
fn write_bucket(
    path: &Path,
    g: &DiskGraph,
    n: usize,
    forcer: Side,
    masks: &[Mask],
) -> Result<(), MatchError> {
    write_scratch(path, |tmp| write_masks(tmp, &g.id(n), forcer, masks).map(|_| ()))
}

/// Writes a file of a step (a bucket's masks, a task's marker) with `write` under a temporary
/// name, then renames it: a task killed leaves no file or a whole one. Not synced, as the
/// spilled solver's masks files are not: they are scratch, a file damaged by a crash of the
/// machine fails its checksum when read, and its task is run again.
pub(super) fn write_scratch(
    path: &Path,
    write: impl FnOnce(&Path) -> std::io::Result<()>,
) -> Result<(), MatchError> {
    let dir = path.parent().expect("a step's file is in a directory");
    std::fs::create_dir_all(dir).map_err(|e| io_error(dir, "create the directory", e))?;
    let mut tmp = files::Temporary::create(path).map_err(|e| io_error(path, "create", e))?;
    tmp.close();
    write(tmp.path()).map_err(|e| io_error(path, "write", e))?;
    // The temporary's own drop finds nothing left to remove.
    std::fs::rename(tmp.path(), path).map_err(|e| io_error(path, "rename into place", e))
}
