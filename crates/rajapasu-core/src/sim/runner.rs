//! Plays a run's matches into record batches, in parallel, one batch at a time per thread,
//! and hands each finished batch to its sink.

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use super::batch::Batch;
use super::config::{Detail, RunConfig};
use super::error::MatchError;
use super::match_play::{match_agents, play_match, record_match_with};
use crate::agents::Resources;

/// Plays batch `b` of the run into `batch`'s memory, with or without the game-quality tallies
/// (the benchmark of their cost; at most round detail, else with).
pub fn simulate_batch_for_bench(
    cfg: &RunConfig,
    players: &Resources,
    b: u64,
    batch: Batch,
    metrics: bool,
) -> Result<Batch, MatchError> {
    let mut batch = prepare(cfg, b, batch);
    for i in cfg.batch_range(b) {
        let mut agents = match_agents(cfg, players, i);
        if metrics || cfg.detail >= Detail::Move {
            record_match_with::<_, _, true>(cfg, i, &mut agents, &mut batch)?;
        } else {
            record_match_with::<_, _, false>(cfg, i, &mut agents, &mut batch)?;
        }
    }
    Ok(batch)
}

/// Plays batch `b` of the run, its players sharing `players`.
pub fn simulate_batch(cfg: &RunConfig, players: &Resources, b: u64) -> Result<Batch, MatchError> {
    simulate_batch_into(cfg, players, b, Batch::default())
}

/// Plays batch `b` of the run into `batch`'s memory (its rows are discarded first).
pub fn simulate_batch_into(
    cfg: &RunConfig,
    players: &Resources,
    b: u64,
    batch: Batch,
) -> Result<Batch, MatchError> {
    let mut batch = prepare(cfg, b, batch);
    play_range(cfg, players, cfg.batch_range(b), &mut batch, &Halt::never())?;
    Ok(batch)
}

/// Empties `batch` for batch `b` and makes room for its rows.
fn prepare(cfg: &RunConfig, b: u64, mut batch: Batch) -> Batch {
    batch.clear();
    batch.index = b;
    // Room for a typical batch of random play under the default rules (docs/rules.md: about 38
    // rounds, 615 moves and 1,440 laps a match), so the columns seldom grow and copy.
    let matches = (cfg.batch_range(b).end - cfg.batch_range(b).start) as usize;
    batch.matches.reserve(matches);
    if cfg.detail >= Detail::Round {
        batch.rounds.reserve(matches * 40);
    }
    if cfg.detail >= Detail::Move {
        batch.moves.reserve(matches * 640);
    }
    if cfg.detail >= Detail::Lap {
        batch.laps.reserve(matches * 1500);
    }
    batch
}

/// When the workers of a run stop: at the caller's request, or at the first error of any of
/// them. Checked before every match, so a failed run ends within one match per worker.
struct Halt<'a> {
    stop: Option<&'a AtomicBool>,
    failed: AtomicBool,
}

impl Halt<'_> {
    fn never() -> Halt<'static> {
        Halt { stop: None, failed: AtomicBool::new(false) }
    }

    fn halted(&self) -> bool {
        self.failed.load(Ordering::Relaxed) || self.stop.is_some_and(|s| s.load(Ordering::Relaxed))
    }

    fn fail<E>(&self, error: E) -> E {
        self.failed.store(true, Ordering::Relaxed);
        error
    }
}

/// Plays matches `range` into `batch`; false when halted before its end.
fn play_range(
    cfg: &RunConfig,
    players: &Resources,
    range: std::ops::Range<u64>,
    batch: &mut Batch,
    halt: &Halt,
) -> Result<bool, MatchError> {
    for i in range {
        if halt.halted() {
            return Ok(false);
        }
        play_match(cfg, players, i, batch).map_err(|e| halt.fail(e))?;
    }
    Ok(true)
}

/// Plays batch `b` in `pieces` contiguous parts in parallel, joined in match order: the rows
/// are those of the batch played whole (each match depends on its index only). None: halted.
fn play_batch(
    cfg: &RunConfig,
    players: &Resources,
    b: u64,
    spare: Batch,
    pieces: u64,
    halt: &Halt,
) -> Result<Option<Batch>, MatchError> {
    let range = cfg.batch_range(b);
    let n = range.end - range.start;
    let pieces = pieces.clamp(1, n.max(1));
    let mut batch = prepare(cfg, b, spare);
    if pieces == 1 {
        return Ok(play_range(cfg, players, range, &mut batch, halt)?.then_some(batch));
    }
    // Scoped threads, one per piece: each piece surely runs at the same time as the others (a
    // piece blocked on an external program must not hold back the pieces queued behind it).
    let parts: Vec<Result<Option<Batch>, MatchError>> = std::thread::scope(|scope| {
        let pieces: Vec<_> = (0..pieces)
            .map(|k| {
                let (start, end) =
                    (range.start + k * n / pieces, range.start + (k + 1) * n / pieces);
                scope.spawn(move || -> Result<Option<Batch>, MatchError> {
                    let mut part = Batch::default();
                    Ok(play_range(cfg, players, start..end, &mut part, halt)?.then_some(part))
                })
            })
            .collect();
        pieces
            .into_iter()
            .map(|p| p.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
            .collect()
    });
    // Any error first (a halted part may come before the part that failed).
    let parts = parts.into_iter().collect::<Result<Vec<_>, _>>()?;
    for part in parts {
        match part {
            Some(part) => batch.append(part),
            None => return Ok(None),
        }
    }
    Ok(Some(batch))
}

/// Where batches go. Implemented by the file layer; `is_done` lets a resumed run skip batches.
pub trait BatchSink: Sync {
    type Error: Send;
    fn is_done(&self, batch: u64) -> bool;
    /// Writes the batch; may hand back its memory (see [`Batch::recycle`]) for the next one.
    fn write(&self, batch: Batch) -> Result<Batch, Self::Error>;
}

thread_local! {
    /// The memory of this worker's last written batch.
    static SPARE: std::cell::Cell<Batch> = std::cell::Cell::new(Batch::default());
}

/// Runs the shard's batches on `threads` threads (0: all cores). `progress` gets the matches of
/// each finished batch; `stop` lets a caller end the run early (finished batches stay written).
/// The first error stops every worker before its next match. When fewer batches are left to
/// play than there are threads, each batch is played in pieces so that every thread has work.
pub fn run<S: BatchSink>(
    cfg: &RunConfig,
    players: &Resources,
    threads: usize,
    sink: &S,
    progress: &(dyn Fn(u64) + Sync),
    stop: &AtomicBool,
) -> Result<RunCounts, RunError<S::Error>> {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool");
    let matches_of = |b: u64| {
        let range = cfg.batch_range(b);
        range.end - range.start
    };
    let halt = Halt { stop: Some(stop), failed: AtomicBool::new(false) };
    let counts = pool.install(|| {
        let batches: Vec<u64> = cfg.shard_batches().collect();
        let done: Vec<bool> =
            batches.par_iter().with_max_len(1).map(|&b| sink.is_done(b)).collect();
        let mut counts = RunCounts::default();
        let mut todo = Vec::new();
        for (&b, done) in batches.iter().zip(done) {
            if done {
                progress(matches_of(b));
                counts.skipped += 1;
            } else {
                todo.push(b);
            }
        }
        let pieces = (rayon::current_num_threads() as u64).div_ceil(todo.len().max(1) as u64);
        todo.par_iter()
            .with_max_len(1)
            .map(|&b| {
                if halt.halted() {
                    return Ok(RunCounts::default());
                }
                // A failed batch is never handed to the sink: nothing of it is written.
                let Some(batch) = play_batch(cfg, players, b, SPARE.take(), pieces, &halt)
                    .map_err(RunError::Match)?
                else {
                    return Ok(RunCounts::default());
                };
                SPARE.set(sink.write(batch).map_err(|e| halt.fail(RunError::Sink(e)))?);
                let n = matches_of(b);
                progress(n);
                Ok(RunCounts { written: 1, matches: n, ..RunCounts::default() })
            })
            .try_reduce(RunCounts::default, |a, b| Ok(a.add(b)))
            .map(|played| played.add(counts))
    })?;
    Ok(counts)
}

/// Why a run stopped: the sink failed, or a player could not decide.
#[derive(Debug)]
pub enum RunError<E> {
    Sink(E),
    Match(MatchError),
}

/// Batches written and skipped (already done) by a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunCounts {
    pub written: u64,
    pub skipped: u64,
    /// Matches played by this invocation.
    pub matches: u64,
}

impl RunCounts {
    fn add(self, o: RunCounts) -> RunCounts {
        RunCounts {
            written: self.written + o.written,
            skipped: self.skipped + o.skipped,
            matches: self.matches + o.matches,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_played_in_pieces_is_the_batch_played_whole() {
        let cfg = RunConfig {
            rules: crate::engine::Ruleset::default(),
            south: crate::agents::AgentSpec::Random,
            north: crate::agents::AgentSpec::Greedy,
            first: super::super::FirstPolicy::Alternate,
            seed: 3,
            matches: 30,
            detail: Detail::Lap,
            batch_size: 23,
            shard: super::super::Shard::WHOLE,
        };
        for b in [0, 1] {
            let whole = simulate_batch(&cfg, &Resources::default(), b).unwrap();
            for pieces in [1, 2, 3, 7, 23, 40] {
                let played = play_batch(
                    &cfg,
                    &Resources::default(),
                    b,
                    Batch::default(),
                    pieces,
                    &Halt::never(),
                )
                .unwrap();
                // The tables, not the scratch buffer of leads that the last match left behind.
                let tables = played.map(|p| p.into_tables(cfg.detail));
                assert!(
                    tables == Some(whole.clone().into_tables(cfg.detail)),
                    "batch {b} in {pieces} pieces"
                );
            }
        }
        // Halted (another worker failed): nothing of the batch is handed back.
        let halt = Halt::never();
        halt.failed.store(true, Ordering::Relaxed);
        assert_eq!(
            play_batch(&cfg, &Resources::default(), 0, Batch::default(), 3, &halt).unwrap(),
            None
        );
    }
}
