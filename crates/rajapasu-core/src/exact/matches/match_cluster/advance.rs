//! The barrier between a cluster solve's steps: checks the step's files and decides the next.

use super::task::level_len;
use super::*;

impl ClusterSolve {
    /// Once every task of the current step has finished: checks their files and moves the solve
    /// to the next step, which it returns. Run again after a kill, it continues where it
    /// stopped. A task that has not finished, or a file missing or damaged, is an error naming
    /// it (run the step's tasks again: they redo what is missing).
    pub fn advance(&self) -> Result<Step, MatchError> {
        let mut state = self.state()?;
        match state.step {
            Step::Done => self.clean().map(|()| Step::Done),
            Step::Graphs => self.after_graphs(&mut state),
            Step::Level { iteration, level, round } => {
                self.after_level(&mut state, iteration, level, round)
            }
        }
    }

    fn unfinished(&self, path: &Path, task: u32, step: Step) -> MatchError {
        MatchError::Invalid(format!(
            "task {task} of step {step} has not finished ({} is missing): run it",
            path.display()
        ))
    }

    fn after_graphs(&self, state: &mut State) -> Result<Step, MatchError> {
        for i in 0..self.configs.len() {
            let done = self.graph_done(i);
            if !done.exists() {
                return Err(self.unfinished(&done, i as u32, Step::Graphs));
            }
        }
        let mut stats = MatchStats::default();
        for (i, c) in self.configs.iter().enumerate() {
            let g = self.graph(i)?;
            stats.positions += g.positions();
            stats.moves += g.moves();
            stats.graph_bytes += g.bytes();
            stats.graph_positions.push((c.open[Side::South], c.open[Side::North], g.positions()));
        }
        stats.graphs = self.configs.len() as u64;
        stats.enumerate_seconds = now() - state.started;
        state.stats = stats;
        self.start_iteration(state, self.checkpoint()?)
    }

    /// Starts the iteration after `cp`'s; one that asks no attractor adds nothing, and the
    /// solve is done.
    fn start_iteration(
        &self,
        state: &mut State,
        mut cp: MatchCheckpoint,
    ) -> Result<Step, MatchError> {
        if cp.complete {
            return self.finish(state, cp);
        }
        let k = cp.iterations + 1;
        if self.jobs(&cp).is_empty() {
            apply_updates(&mut cp, &[], k);
            return self.finish(state, cp);
        }
        state.step = Step::Level { iteration: k, level: 0, round: 0 };
        write_json(&self.dir.join(STATE), state)?;
        Ok(state.step)
    }

    fn after_level(&self, state: &mut State, k: u32, n: u32, r: u32) -> Result<Step, MatchError> {
        let cp = self.checkpoint()?;
        if cp.iterations >= k {
            // Recorded already by a barrier killed before it moved on.
            self.remove(&self.iteration_dir(k))?;
            return self.start_iteration(state, cp);
        }
        let mut changed = false;
        for b in 0..self.buckets {
            let marker = self.marker(k, n, r, b);
            if !marker.exists() {
                return Err(self.unfinished(&marker, b, state.step));
            }
            changed |= read_json::<bool>(&marker, "task marker")?;
        }
        let jobs = self.jobs(&cp);
        let graphs = self.graphs_of(&jobs)?;
        let n = n as usize;
        // Every bucket file of the round checked (a barrier killed while renaming them to the
        // level's final names finds some renamed).
        let mut largest = (0, 0);
        for (ji, job) in jobs.iter().enumerate() {
            let g = &graphs[&job.config];
            if n >= g.levels.len() {
                continue;
            }
            let m = level_len(g, n);
            largest.0 = largest.0.max(m);
            for b in 0..self.buckets {
                let (round, fin) =
                    (self.masks_file(k, ji, n, b, Some(r)), self.masks_file(k, ji, n, b, None));
                // Renamed already only by a barrier that found no change (and then both are
                // missing: the round's file is named).
                let path = if !round.exists() && !changed && fin.exists() { fin } else { round };
                let len = bucket_range(m, self.buckets, b).len();
                largest.1 = largest.1.max(len);
                self.open_masks(g, &path, n, job.forcer, len)?;
            }
        }
        let f = &mut state.figures;
        f.rounds += 1;
        if changed {
            self.remove_round(k, &jobs, n, r.checked_sub(1))?;
            state.step = Step::Level { iteration: k, level: n as u32, round: r + 1 };
            write_json(&self.dir.join(STATE), state)?;
            return Ok(state.step);
        }
        f.levels += 1;
        f.most_rounds = f.most_rounds.max(r + 1);
        f.largest_level = f.largest_level.max(largest.0 as u64);
        f.largest_bucket = f.largest_bucket.max(largest.1 as u64);
        self.finalize_level(k, &jobs, &graphs, n, r)?;
        if jobs.iter().any(|j| graphs[&j.config].levels.len() > n + 1) {
            state.step = Step::Level { iteration: k, level: n as u32 + 1, round: 0 };
            write_json(&self.dir.join(STATE), state)?;
            return Ok(state.step);
        }
        self.end_iteration(state, cp, &jobs, &graphs)
    }

    /// Round r's files of level n become the level's final masks; the earlier rounds' go.
    fn finalize_level(
        &self,
        k: u32,
        jobs: &[Job],
        graphs: &HashMap<usize, DiskGraph>,
        n: usize,
        r: u32,
    ) -> Result<(), MatchError> {
        for (ji, job) in jobs.iter().enumerate() {
            if n >= graphs[&job.config].levels.len() {
                continue;
            }
            for b in 0..self.buckets {
                let round = self.masks_file(k, ji, n, b, Some(r));
                if round.exists() {
                    let fin = self.masks_file(k, ji, n, b, None);
                    std::fs::rename(&round, &fin)
                        .map_err(|e| io_error(&round, "rename to the level's final masks", e))?;
                }
            }
        }
        self.remove_round(k, jobs, n, r.checked_sub(1))
    }

    /// Removes round r's masks files of level n (none for None).
    fn remove_round(
        &self,
        k: u32,
        jobs: &[Job],
        n: usize,
        r: Option<u32>,
    ) -> Result<(), MatchError> {
        let Some(r) = r else { return Ok(()) };
        for ji in 0..jobs.len() {
            for b in 0..self.buckets {
                let path = self.masks_file(k, ji, n, b, Some(r));
                match std::fs::remove_file(&path) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        return Err(io_error(&path, "remove", e))
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    fn remove(&self, dir: &Path) -> Result<(), MatchError> {
        match std::fs::remove_dir_all(dir) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io_error(dir, "remove", e)),
            _ => Ok(()),
        }
    }

    /// Records iteration k's attractors, from their final masks, as the rounds loop does, and
    /// starts the next iteration (or finishes).
    fn end_iteration(
        &self,
        state: &mut State,
        mut cp: MatchCheckpoint,
        jobs: &[Job],
        graphs: &HashMap<usize, DiskGraph>,
    ) -> Result<Step, MatchError> {
        let k = cp.iterations + 1;
        let mut updates = Vec::new();
        for (ji, job) in jobs.iter().enumerate() {
            let g = &graphs[&job.config];
            let masks = (0..g.levels.len())
                .map(|l| self.level_masks(g, k, (ji, job), l, None))
                .collect::<Result<Vec<_>, _>>()?;
            let openings = g.openings(&|l, i| masks[l].get(i));
            let config = &self.configs[job.config];
            record_label(
                &self.rules,
                &mut cp,
                config,
                job.label,
                job.forcer,
                &openings,
                k,
                &mut updates,
            );
            state.stats.attractors += 1;
        }
        if apply_updates(&mut cp, &updates, k) {
            return self.finish(state, cp);
        }
        write_checkpoint(&self.dir.join(CHECKPOINT), &cp)?;
        self.remove(&self.iteration_dir(k))?;
        self.start_iteration(state, cp)
    }

    /// Writes the complete table, then the state Done; then removes the graphs and masks.
    fn finish(&self, state: &mut State, cp: MatchCheckpoint) -> Result<Step, MatchError> {
        let mut stats = state.stats.clone();
        stats.solve_seconds = (now() - state.started - stats.enumerate_seconds).max(0.0);
        let path = self.table_path();
        let mut saved = Ok(());
        MatchTable::finish(self.rules, &self.configs, cp, stats, &mut |cp| {
            saved = write_checkpoint(&path, cp);
        });
        saved?;
        state.step = Step::Done;
        write_json(&self.dir.join(STATE), state)?;
        self.clean()?;
        Ok(Step::Done)
    }

    /// Removes the graphs and the iterations' masks of a finished solve.
    fn clean(&self) -> Result<(), MatchError> {
        for entry in std::fs::read_dir(&self.dir).map_err(|e| io_error(&self.dir, "list", e))? {
            let entry = entry.map_err(|e| io_error(&self.dir, "list", e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == "graphs" || name.starts_with('k') && entry.path().is_dir() {
                self.remove(&entry.path())?;
            }
        }
        Ok(())
    }
}
