//! A job's progress and cancellation, shared by the thread doing the work and whoever waits
//! for it: the command line draws the progress as a bar, the server streams it to the page and
//! cancels the job when its client goes away.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::Serialize;

use crate::exact::{MatchProgress, Progress};

/// Where a job is: the stage (what is being computed) and how far, `done` of `total` (0: not
/// known).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct JobProgress {
    pub stage: String,
    pub done: u64,
    pub total: u64,
}

impl std::fmt::Display for JobProgress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.total {
            0 if self.done == 0 => write!(f, "{}", self.stage),
            0 => write!(f, "{}: {}", self.stage, self.done),
            t => write!(f, "{}: {} of {t}", self.stage, self.done),
        }
    }
}

/// The job was cancelled before it finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cancelled")]
pub struct Cancelled;

type Listener = Box<dyn Fn(&JobProgress) + Send + Sync>;

/// See the module's documentation.
#[derive(Default)]
pub struct Job {
    /// Shared with the players of the job ([`Job::stop_flag`]), which look at it while they
    /// search.
    cancelled: Arc<AtomicBool>,
    progress: Mutex<JobProgress>,
    /// Units of work counted by [`Job::advance`] (simulated matches), shown as `done`.
    counted: AtomicU64,
    listener: Option<Listener>,
}

impl Job {
    /// A job whose progress is also told to `listener` as it changes.
    pub fn with_listener(listener: impl Fn(&JobProgress) + Send + Sync + 'static) -> Job {
        Job { listener: Some(Box::new(listener)), ..Job::default() }
    }

    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
    }

    /// The flag set when the job is cancelled, for work that watches it itself (a search
    /// player's, [`crate::agents::Agent::stopped_by`]).
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.cancelled.clone()
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
    }

    /// Err once the job is cancelled: where the work checks between its steps.
    pub fn check(&self) -> Result<(), Cancelled> {
        if self.is_cancelled() {
            Err(Cancelled)
        } else {
            Ok(())
        }
    }

    /// A new stage of `total` units (0: not known).
    pub fn stage(&self, stage: impl Into<String>, total: u64) {
        self.counted.store(0, Ordering::SeqCst);
        self.set(JobProgress { stage: stage.into(), done: 0, total });
    }

    fn set(&self, progress: JobProgress) {
        if let Some(listener) = &self.listener {
            listener(&progress);
        }
        *self.progress.lock().unwrap_or_else(|e| e.into_inner()) = progress;
    }

    /// Counts `n` units of the stage done (from any thread).
    pub fn advance(&self, n: u64) {
        self.counted.fetch_add(n, Ordering::Relaxed);
    }

    /// Where the job is now.
    pub fn progress(&self) -> JobProgress {
        let mut p = self.progress.lock().unwrap_or_else(|e| e.into_inner()).clone();
        p.done = p.done.max(self.counted.load(Ordering::Relaxed));
        p
    }

    /// A watch of a round solve: reports its progress, stops it once the job is cancelled.
    pub fn solve_watch<'a>(
        &'a self,
        what: &'a str,
    ) -> impl FnMut(Progress) -> ControlFlow<()> + 'a {
        self.watch(move |p| format!("{what}: {} positions, {} counters", p.phase, p.level))
    }

    /// A watch of the match values of a round (R17): the graph of its positions enumerated,
    /// then the attractors, one step per number of rounds k; stops them once the job is
    /// cancelled.
    pub fn round_match_watch(&self) -> impl FnMut(Progress) -> ControlFlow<()> + Send + '_ {
        self.watch(|p| match p.phase {
            "attracting" => {
                format!("the round's match values (R17): wins within k = {} rounds", p.level)
            }
            phase => {
                format!("the round's match values (R17): {phase} positions, {} counters", p.level)
            }
        })
    }

    /// Reports each progress as the stage `stage` names it; breaks once the job is cancelled.
    fn watch<'a>(
        &'a self,
        stage: impl Fn(&Progress) -> String + Send + 'a,
    ) -> impl FnMut(Progress) -> ControlFlow<()> + Send + 'a {
        move |p: Progress| {
            self.set(JobProgress { stage: stage(&p), done: p.done, total: p.total });
            if self.is_cancelled() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        }
    }

    /// A watch of a match table's solve: reports its progress, stops it once the job is
    /// cancelled.
    pub fn match_watch(&self) -> impl FnMut(MatchProgress) -> ControlFlow<()> + '_ {
        move |p: MatchProgress| {
            let stage = format!("match table: {} (round graphs, k = {})", p.phase, p.round);
            self.set(JobProgress { stage, done: p.done, total: p.total });
            if self.is_cancelled() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// A cancelled job stops a solve at its next wave; the listener hears every report.
    #[test]
    fn a_cancelled_job_stops_the_solve_it_watches() {
        let heard = Arc::new(AtomicU64::new(0));
        let counter = heard.clone();
        let job = Job::with_listener(move |_| {
            counter.fetch_add(1, Ordering::SeqCst);
        });
        let rules =
            crate::engine::Ruleset { pits_per_row: 4, seeds_per_pit: 3, ..Default::default() };
        let start = crate::exact::round_start(
            rules,
            crate::engine::BySide::splat(4),
            crate::engine::Side::South,
        );
        let opts = crate::exact::SolveOptions::default();
        let solved =
            crate::exact::Solution::solve_watched(&[start], opts, &mut job.solve_watch("round"))
                .unwrap();
        assert!(
            heard.load(Ordering::SeqCst) > 0 && job.progress().stage.starts_with("round: solving")
        );
        assert_eq!(
            solved.value(&start),
            crate::exact::Solution::solve(&[start], opts, &mut |_| {}).unwrap().value(&start)
        );
        job.cancel();
        assert_eq!(job.check(), Err(Cancelled));
        let stopped =
            crate::exact::Solution::solve_watched(&[start], opts, &mut job.solve_watch("round"));
        assert_eq!(stopped.err(), Some(crate::exact::SolveError::Cancelled));
    }

    /// A cancelled job stops the computation of a round's match values (R17) at its next
    /// step, keeping nothing; uncancelled, the values are the store's own.
    #[test]
    fn a_cancelled_job_stops_the_match_values_of_a_round() {
        let dir = tempfile::tempdir().unwrap();
        let settings =
            crate::exact::StoreSettings { tables: dir.path().to_path_buf(), ..Default::default() };
        let store = crate::exact::ExactStore::new(settings);
        let rules =
            crate::engine::Ruleset { pits_per_row: 3, seeds_per_pit: 3, ..Default::default() };
        let (table, _) = store.match_table_watched(rules, None, &mut |_| {}).unwrap();
        let open = crate::engine::BySide::splat(3);
        let job = Job::default();
        job.cancel();
        let stopped = store.round_match_watched(&table, open, None, &mut job.round_match_watch());
        assert_eq!(stopped.err(), Some(crate::exact::RoundValuesError::Cancelled));
        assert_eq!(store.counts().round_values, 0, "nothing is kept of a cancelled computation");
        let job = Job::default();
        let values =
            store.round_match_watched(&table, open, None, &mut job.round_match_watch()).unwrap();
        let p = job.progress();
        assert!(p.stage.contains("R17") && p.done > 0 && p.done <= p.total, "{p:?}");
        assert_eq!(store.counts().round_values, 1);
        // The same values as another store's, computed unwatched.
        let other_dir = tempfile::tempdir().unwrap();
        let other = crate::exact::ExactStore::new(crate::exact::StoreSettings {
            tables: other_dir.path().to_path_buf(),
            ..Default::default()
        });
        let plain = other.round_match(&table, open, None).unwrap();
        let opts = crate::exact::SolveOptions { keep_layers: true, ..Default::default() };
        let solution = store.round_solution(rules, open, opts).unwrap();
        for starter in crate::engine::Side::ALL {
            let start = crate::exact::round_start(rules, open, starter);
            let (watched, _) = crate::exact::analyse(&start, &solution, Some(&values)).unwrap();
            let (unwatched, _) = crate::exact::analyse(&start, &solution, Some(&plain)).unwrap();
            assert!(watched.match_outlook.is_some());
            assert_eq!(watched.match_outlook, unwatched.match_outlook);
            let outlooks = |a: &crate::exact::Analysis| {
                a.moves.iter().map(|m| m.match_outlook).collect::<Vec<_>>()
            };
            assert_eq!(outlooks(&watched), outlooks(&unwatched));
        }
    }

    /// A cancelled job stops the solve of a match table, and nothing of it is kept: not in
    /// memory, not in the tables directory; uncancelled, the table is solved and written.
    #[test]
    fn a_cancelled_job_stops_the_match_table_it_watches() {
        let dir = tempfile::tempdir().unwrap();
        let settings =
            crate::exact::StoreSettings { tables: dir.path().to_path_buf(), ..Default::default() };
        let store = crate::exact::ExactStore::new(settings);
        let rules =
            crate::engine::Ruleset { pits_per_row: 3, seeds_per_pit: 3, ..Default::default() };
        let job = Job::default();
        job.cancel();
        let stopped = store.match_table_cancellable(rules, &mut job.match_watch());
        assert_eq!(
            stopped.err(),
            Some(crate::exact::MatchError::Solve(crate::exact::SolveError::Cancelled))
        );
        assert_eq!(store.counts().match_tables, 0);
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "no file is left of a cancelled solve"
        );
        let job = Job::default();
        let table = store.match_table_cancellable(rules, &mut job.match_watch()).unwrap();
        assert!(job.progress().stage.starts_with("match table"));
        assert_eq!(table.digest(), store.match_table(rules).unwrap().digest());
        assert!(crate::exact::table_stored(dir.path(), &rules));
    }

    #[test]
    fn progress_counts_the_units_of_its_stage() {
        let job = Job::default();
        job.stage("continuations", 10);
        job.advance(3);
        job.advance(4);
        assert_eq!(
            job.progress(),
            JobProgress { stage: "continuations".into(), done: 7, total: 10 }
        );
        assert_eq!(job.progress().to_string(), "continuations: 7 of 10");
        job.stage("next", 0);
        assert_eq!(job.progress().done, 0);
    }
}
