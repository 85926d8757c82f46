//! A run's pending captures ([`crate::exact::files::pending`] has their files): each lower
//! level's keys appended as batches, merged into the level's run once the batches grow, the
//! state recording each step, and the runs no state names removed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;

use crate::exact::files::append_synced;
use crate::exact::files::bucket_state::{pending_refused as refused, Appended, Merged};
use crate::exact::files::pending::{
    batches_path, encode_batch, merge, merged_bytes_at_most, parse_run_name, pending_path,
    run_path, MergeError, Written,
};
use crate::exact::round::spill::{io_error, Run, SpillError, State};

/// One level's merge: what it reads and where it writes.
struct MergeJob {
    level: u32,
    appended: PathBuf,
    appended_len: u64,
    batches: PathBuf,
    batches_recorded: Appended,
    old: Option<Merged>,
    generation: u32,
    out: PathBuf,
    /// The most bytes its run can take.
    estimate: u64,
}

impl MergeJob {
    fn new(dir: &Path, level: u32, state: &State) -> MergeJob {
        let appended_len = state.pending.get(&level).copied().unwrap_or(0);
        let batches = state.batches.get(&level).copied().unwrap_or_default();
        let old = state.merged.get(&level).copied();
        let generation = old.map_or(1, |r| r.generation + 1);
        let added = appended_len / 8 + batches.keys;
        MergeJob {
            level,
            appended: pending_path(dir, level),
            appended_len,
            batches: batches_path(dir, level),
            batches_recorded: batches,
            old,
            generation,
            out: run_path(dir, level, generation),
            estimate: merged_bytes_at_most(old.map_or(0, |r| r.bytes), added),
        }
    }
}

impl Run {
    /// Appends each lower level's buffered keys, sorted and deduplicated, to its batches file
    /// as one delta-coded batch (synced, so that the state written after a level never records
    /// bytes not on disk).
    pub(in crate::exact) fn flush_pending(
        &mut self,
        out: &mut [Vec<u64>],
        state: &mut State,
    ) -> Result<(), SpillError> {
        // Sorted in place on every thread (tens of millions of keys a flush: on one thread
        // the other core idled), then appended level by level.
        out.par_iter_mut().for_each(|keys| {
            keys.par_sort_unstable();
            keys.dedup();
        });
        for (m, keys) in out.iter_mut().enumerate() {
            if keys.is_empty() {
                continue;
            }
            let path = batches_path(&self.dir, m as u32);
            let mut bytes = Vec::with_capacity(keys.len() * 2 + 16);
            encode_batch(keys, &mut bytes);
            let len = bytes.len() as u64;
            self.bounds
                .check_disk(len, || format!("{len} more bytes of level {m}'s pending positions"))?;
            let used = self.bounds.disk;
            append_synced(&path, &bytes).map_err(|e| io_error(&path, e, used, len))?;
            self.bounds.disk += len;
            let appended = state.batches.entry(m as u32).or_default();
            appended.bytes += len;
            appended.keys += keys.len() as u64;
            *keys = Vec::new();
        }
        Ok(())
    }

    /// Merges the pending files of each level below `n` whose appended batches hold at least
    /// the tuning's threshold and as many keys as the level's run, so that the batches never
    /// hold more keys than the run (and the threshold): merging costs at most twice what was
    /// appended, and the pending files hold at most about twice the distinct positions.
    pub(in crate::exact) fn merge_pending(
        &mut self,
        n: u32,
        state: &mut State,
    ) -> Result<(), SpillError> {
        self.note_pending(state);
        let due: Vec<u32> = appended_keys(state)
            .into_iter()
            .filter(|&(m, keys)| {
                // Keys counted as raw words, as the batches once held them: merges as often as
                // when runs and batches were raw, the files themselves smaller.
                let run = state.merged.get(&m).map_or(0, |r| r.keys * 8);
                m < n && keys > 0 && keys * 8 >= run.max(self.tuning.pending_merge_bytes)
            })
            .map(|(m, _)| m)
            .collect();
        // Two levels at a time, one a core: a merge is one thread's heap over its sources.
        for levels in due.chunks(2) {
            self.merge_levels(n, levels, state)?;
        }
        Ok(())
    }

    /// Records the pending files' bytes among the level's figures.
    pub(in crate::exact) fn note_pending(&mut self, state: &State) {
        let bytes = pending_bytes(state);
        self.pending.peak_bytes = self.pending.peak_bytes.max(bytes);
        self.pending.bytes = bytes;
    }

    /// Merges the pending files of `levels` at once, each into its run of the next generation,
    /// then records them in the state in order: a merge killed anywhere leaves each level with
    /// its old files or its new run (a run no state names is removed by
    /// [`Run::tidy_merged`]), so the merges together are as much a checkpoint as one.
    fn merge_levels(
        &mut self,
        n: u32,
        levels: &[u32],
        state: &mut State,
    ) -> Result<(), SpillError> {
        let clock = Instant::now();
        let jobs: Vec<MergeJob> =
            levels.iter().map(|&m| MergeJob::new(&self.dir, m, state)).collect();
        let estimate: u64 = jobs.iter().map(|j| j.estimate).sum();
        self.bounds.check_disk(estimate, || {
            let names: Vec<String> = levels.iter().map(u32::to_string).collect();
            format!(
                "the pending positions of levels {} merged into runs of at most {estimate} bytes",
                names.join(", ")
            )
        })?;
        let memory = self.bounds.opts.max_memory / 8 / jobs.len() as u64;
        let dir = &self.dir;
        let written: Vec<Result<Written, MergeError>> = jobs
            .par_iter()
            .map(|j| {
                let old_path = j.old.map(|r| run_path(dir, j.level, r.generation));
                let batches = Some((j.batches.as_path(), j.batches_recorded));
                let old = old_path.as_deref();
                merge(j.level, old, &j.appended, j.appended_len, batches, &j.out, memory)
            })
            .collect();
        let mut working = 0;
        let mut done = Vec::with_capacity(jobs.len());
        for (j, w) in jobs.iter().zip(written) {
            let w = w.map_err(|e| match e {
                MergeError::Refused(why) => SpillError::BadFile(why),
                MergeError::Write(e) => io_error(&j.out, e, self.bounds.disk, j.estimate),
            })?;
            working += w.working;
            done.push(w);
        }
        self.bounds.check_memory(working, n, 0, "enumerated")?;
        let seconds = clock.elapsed().as_secs_f64();
        for (j, w) in jobs.iter().zip(done) {
            self.record_merge(n, j, w, state)?;
        }
        self.pending.merge_seconds += seconds;
        Ok(())
    }

    /// Records one finished merge in the state and removes the files it replaced.
    fn record_merge(
        &mut self,
        n: u32,
        j: &MergeJob,
        w: Written,
        state: &mut State,
    ) -> Result<(), SpillError> {
        self.bounds.disk += w.bytes;
        self.merges += 1;
        if self.tuning.stop_after_merges.is_some_and(|stop| self.merges >= stop) {
            return Err(SpillError::Interrupted { levels: self.bounds.finished, next: n });
        }
        state
            .merged
            .insert(j.level, Merged { generation: j.generation, keys: w.keys, bytes: w.bytes });
        state.pending.remove(&j.level);
        state.batches.remove(&j.level);
        self.save_state(state)?;
        let old_path = j.old.map(|r| run_path(&self.dir, j.level, r.generation));
        for path in old_path.iter().chain([&j.appended, &j.batches]) {
            let len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
            remove_if_there(path)?;
            self.bounds.disk = self.bounds.disk.saturating_sub(len);
        }
        self.pending.merges += 1;
        self.note_pending(state);
        Ok(())
    }

    /// Removes the merged runs that `state` does not name (left by a merge killed before its
    /// state was saved, or by a level finished since); refuses a missing run it names.
    pub(in crate::exact) fn tidy_merged(&self, state: &State) -> Result<(), SpillError> {
        let entries = std::fs::read_dir(&self.dir).map_err(|e| io_error(&self.dir, e, 0, 0))?;
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some((level, generation)) = name.to_str().and_then(parse_run_name) else {
                continue;
            };
            if state.merged.get(&level).map(|r| r.generation) != Some(generation) {
                remove_if_there(&entry.path())?;
            }
        }
        for (&m, run) in &state.merged {
            let path = run_path(&self.dir, m, run.generation);
            if !path.exists() {
                return Err(SpillError::BadFile(refused(
                    &path,
                    format!("it is missing; the state records a run of {} keys", run.keys),
                )));
            }
        }
        Ok(())
    }
}

/// Bytes of every pending file the state records.
fn pending_bytes(state: &State) -> u64 {
    state.pending.values().sum::<u64>()
        + state.batches.values().map(|b| b.bytes).sum::<u64>()
        + state.merged.values().map(|r| r.bytes).sum::<u64>()
}

/// The keys appended to each level since its last merge (raw batches and delta-coded ones).
pub(in crate::exact) fn appended_keys(state: &State) -> BTreeMap<u32, u64> {
    let mut keys: BTreeMap<u32, u64> =
        state.pending.iter().map(|(&m, &len)| (m, len / 8)).collect();
    for (&m, b) in &state.batches {
        *keys.entry(m).or_default() += b.keys;
    }
    keys
}

pub(in crate::exact) fn remove_if_there(path: &Path) -> Result<(), SpillError> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io_error(path, e, 0, 0)),
        _ => Ok(()),
    }
}
