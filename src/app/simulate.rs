//! The `simulate` job: seeded matches in parallel into a dataset (also each arm of a study and
//! each pairing of a tournament).

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use crate::agents::{AgentSpec, Resources};
use crate::engine::Ruleset;
use crate::io::{DatasetError, DatasetWriter, Formats, Manifest};
use crate::sim::{
    check_batch_size, check_matches, Detail, FirstPolicy, MatchError, RunConfig, RunCounts,
    RunError, Shard,
};

use super::FieldError;

/// Most worker threads: far more than any machine's cores, few enough not to swamp it.
pub const MAX_THREADS: usize = 1024;

/// What a front end asks to simulate, before it is checked.
#[derive(Clone, Debug)]
pub struct SimulateRequest {
    pub rules: Ruleset,
    pub south: AgentSpec,
    pub north: AgentSpec,
    pub first: FirstPolicy,
    pub seed: u64,
    /// Matches in the whole run (all shards).
    pub matches: u64,
    pub detail: Detail,
    /// Matches per batch; None: the detail level's default.
    pub batch_size: Option<u64>,
    pub shard: Shard,
    /// The dataset's directory.
    pub out: PathBuf,
    pub format: Formats,
    /// Worker threads (0: one per core).
    pub threads: usize,
    /// Continue the run found in `out`.
    pub resume: bool,
}

/// A checked simulation: the run and where it is written.
#[derive(Clone, Debug)]
pub struct Simulation {
    pub cfg: RunConfig,
    pub out: PathBuf,
    pub format: Formats,
    pub threads: usize,
    pub resume: bool,
}

/// Why a simulation stopped.
#[derive(Debug, thiserror::Error)]
pub enum SimulateError {
    /// The dataset refused the run or could not be written (see [`DatasetError::is_bad_input`]).
    #[error("{0}")]
    Dataset(DatasetError),
    /// A player could not decide; nothing of its batch was written, and resuming continues.
    #[error("{0}; nothing of its batch was written")]
    Match(MatchError),
}

impl crate::app::BadInput for SimulateError {
    fn is_bad_input(&self) -> bool {
        match self {
            SimulateError::Dataset(e) => e.is_bad_input(),
            SimulateError::Match(_) => false,
        }
    }
}

impl From<RunError<DatasetError>> for SimulateError {
    fn from(e: RunError<DatasetError>) -> SimulateError {
        match e {
            RunError::Sink(e) => SimulateError::Dataset(e),
            RunError::Match(e) => SimulateError::Match(e),
        }
    }
}

impl From<DatasetError> for SimulateError {
    fn from(e: DatasetError) -> SimulateError {
        SimulateError::Dataset(e)
    }
}

/// Why `threads` is not a thread count the job runs with, if it is not.
pub fn check_threads(threads: usize) -> Result<(), String> {
    if threads <= MAX_THREADS {
        return Ok(());
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    Err(format!("{threads} threads are more than the maximum of {MAX_THREADS} (allowed: 0 (one per core, {cores} here) to {MAX_THREADS})"))
}

/// The batch size of a run of `matches` at `detail`, checked with the matches.
pub fn check_counts(
    matches: u64,
    batch_size: Option<u64>,
    detail: Detail,
) -> Result<u64, FieldError> {
    check_matches(matches).map_err(|e| FieldError::new("matches", e))?;
    check_batch_size(batch_size.unwrap_or(detail.default_batch_size()))
        .map_err(|e| FieldError::new("batch_size", e))
}

impl SimulateRequest {
    /// The simulation, or the first field that is not what it should be.
    pub fn validate(self) -> Result<Simulation, FieldError> {
        check_threads(self.threads).map_err(|e| FieldError::new("threads", e))?;
        let batch_size = check_counts(self.matches, self.batch_size, self.detail)?;
        let cfg = RunConfig {
            rules: self.rules,
            south: self.south,
            north: self.north,
            first: self.first,
            seed: self.seed,
            matches: self.matches,
            detail: self.detail,
            batch_size,
            shard: self.shard,
        };
        Ok(Simulation {
            cfg,
            out: self.out,
            format: self.format,
            threads: self.threads,
            resume: self.resume,
        })
    }
}

/// What a finished simulation wrote.
#[derive(Clone, Debug)]
pub struct Simulated {
    pub manifest: Manifest,
    pub counts: RunCounts,
}

/// Plays the simulation into its dataset with what the players share (`players`); `command`
/// is recorded in the manifest, `progress` hears the matches played as they finish.
pub fn run(
    sim: &Simulation,
    players: &Resources,
    command: &str,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Simulated, SimulateError> {
    let writer = DatasetWriter::create(&sim.out, &sim.cfg, sim.format, sim.resume, command)?;
    let stop = AtomicBool::new(false);
    // Fewer batches than threads are played in pieces, so every thread has work; more threads
    // than matches would only wait (0 keeps rayon's one per core).
    let threads =
        sim.threads.min(usize::try_from(sim.cfg.shard_matches().max(1)).unwrap_or(usize::MAX));
    let counts = crate::sim::run(&sim.cfg, players, threads, &writer, progress, &stop)?;
    let manifest = writer.finish(true)?;
    Ok(Simulated { manifest, counts })
}

/// How a front end follows the datasets it plays (progress, reports).
pub trait Follow: Sync {
    /// The dataset `label` starts, `matches` of it to play in this run.
    fn started(&self, label: &str, matches: u64);
    /// `n` more matches of it were played.
    fn played(&self, n: u64);
    /// It ended: what it wrote, or None when it stopped.
    fn finished(&self, label: &str, done: Option<&Simulated>);
}

/// [`run`], told to `follow` as the dataset `label`.
pub fn play(
    sim: &Simulation,
    players: &Resources,
    command: &str,
    label: &str,
    follow: &dyn Follow,
) -> Result<Simulated, SimulateError> {
    follow.started(label, sim.cfg.shard_matches());
    let done = run(sim, players, command, &|n| follow.played(n));
    follow.finished(label, done.as_ref().ok());
    done
}

/// The rows a dataset holds, e.g. "100 matches, 1234 rounds".
pub fn describe_rows(m: &Manifest) -> String {
    m.rows.iter().map(|(t, n)| format!("{n} {t}")).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(dir: &std::path::Path) -> SimulateRequest {
        SimulateRequest {
            rules: Ruleset::default(),
            south: AgentSpec::Random,
            north: AgentSpec::Greedy,
            first: FirstPolicy::Alternate,
            seed: 3,
            matches: 6,
            detail: Detail::Round,
            batch_size: Some(4),
            shard: "1/1".parse().unwrap(),
            out: dir.join("out"),
            format: Formats::Csv,
            threads: 1,
            resume: false,
        }
    }

    #[test]
    fn a_bad_request_names_its_field() {
        let dir = tempfile::tempdir().unwrap();
        for (change, field, says) in [
            (
                &(|r: &mut SimulateRequest| r.matches = 0) as &dyn Fn(&mut SimulateRequest),
                "matches",
                "0",
            ),
            (&|r: &mut SimulateRequest| r.batch_size = Some(0), "batch_size", "0"),
            (&|r: &mut SimulateRequest| r.threads = MAX_THREADS + 1, "threads", "maximum of 1024"),
        ] {
            let mut r = request(dir.path());
            change(&mut r);
            let e = r.validate().unwrap_err();
            assert_eq!(e.field, field, "{e}");
            assert!(e.message.contains(says) && !e.message.contains("--"), "{e}");
        }
    }

    #[test]
    fn a_simulation_writes_its_dataset_and_refuses_to_write_over_it() {
        let dir = tempfile::tempdir().unwrap();
        let sim = request(dir.path()).validate().unwrap();
        let played = std::sync::atomic::AtomicU64::new(0);
        let progress = |n: u64| {
            played.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        };
        let done = run(&sim, &Resources::default(), "test", &progress).unwrap();
        assert_eq!((done.counts.matches, done.counts.written, played.into_inner()), (6, 2, 6));
        assert_eq!(
            done.manifest.rows.iter().find(|(t, _)| t.as_str() == "matches").map(|(_, n)| *n),
            Some(6)
        );
        let again = run(&sim, &Resources::default(), "test", &|_| {}).unwrap_err();
        assert!(matches!(&again, SimulateError::Dataset(e) if e.is_bad_input()), "{again}");
    }
}
