//! Plays matches into record batches, in parallel, one batch at a time per thread.

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use super::config::{Detail, RunConfig};
use super::record::*;
use super::schema::*;
use crate::agents::{seat_rng, Agent, MatchError};
use crate::engine::{BySide, Game, MoveObserver, MoveSummary, Outcome, RoundEnd, RoundStart, Ruleset, Side};

/// The laps of the move being sown, and the histograms of the moves taken so far.
///
/// A move may be sown again from its start (R9's exact pass, or a random player's endless
/// trial that is struck out), so `begin` forgets the laps logged so far and a move's laps are
/// counted only when it is taken with [`LapLog::take`].
struct LapLog {
    /// lap_length[n]: laps of taken moves that sowed n counters.
    lap_length: [u32; 256],
    /// laps_per_move[n] for moves of fewer than [`SHORT_MOVE`] laps; longer ones go to the batch.
    laps_per_move: [u32; SHORT_MOVE],
    /// (start, sown) of the current move's laps: the first [`SHORT_MOVE`] inline, the rest in
    /// `long` (a long move only).
    laps: [(u8, u8); SHORT_MOVE],
    long: Vec<(u8, u8)>,
    count: usize,
}

const SHORT_MOVE: usize = crate::engine::UNCHECKED_LAPS as usize;

impl Default for LapLog {
    fn default() -> LapLog {
        LapLog { lap_length: [0; 256], laps_per_move: [0; SHORT_MOVE], laps: [(0, 0); SHORT_MOVE], long: Vec::new(), count: 0 }
    }
}

impl LapLog {
    /// The laps of the current move, oldest first.
    fn current(&self) -> impl Iterator<Item = (u8, u8)> + '_ {
        self.laps[..self.count.min(SHORT_MOVE)].iter().chain(&self.long).copied()
    }

    /// The current move is played: its laps are counted.
    #[inline(always)]
    fn take(&mut self, histograms: &mut Histograms) {
        for &(_, sown) in self.laps[..self.count.min(SHORT_MOVE)].iter().chain(&self.long) {
            self.lap_length[sown as usize] += 1;
        }
        if self.count < SHORT_MOVE {
            self.laps_per_move[self.count] += 1;
        } else {
            Histograms::add(&mut histograms.laps_per_move, self.count, 1);
        }
        self.count = 0;
    }

    /// Adds the counts to `histograms` and clears them.
    fn drain_into(&mut self, histograms: &mut Histograms) {
        for (bins, counts) in
            [(&mut histograms.lap_length, &mut self.lap_length[..]), (&mut histograms.laps_per_move, &mut self.laps_per_move[..])]
        {
            for (value, count) in counts.iter_mut().enumerate().filter(|(_, c)| **c > 0) {
                Histograms::add(bins, value, *count as u64);
                *count = 0;
            }
        }
    }
}

impl MoveObserver for LapLog {
    #[inline(always)]
    fn begin(&mut self) {
        self.count = 0;
        self.long.clear();
    }
    #[inline(always)]
    fn lap(&mut self, start: u8, sown: u8) {
        if self.count < SHORT_MOVE {
            self.laps[self.count] = (start, sown);
        } else {
            self.long.push((start, sown));
        }
        self.count += 1;
    }
}

/// Exact histograms, kept at every detail.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Histograms {
    /// lap_length[n]: laps that sowed n counters.
    pub lap_length: Vec<u64>,
    /// laps_per_move[n]: moves of n laps.
    pub laps_per_move: Vec<u64>,
}

impl Histograms {
    /// Adds `count` to bin `value`.
    fn add(bins: &mut Vec<u64>, value: usize, count: u64) {
        if value >= bins.len() {
            bins.resize(value + 1, 0);
        }
        bins[value] += count;
    }

    pub fn merge(&mut self, other: &Histograms) {
        for (mine, theirs) in [(&mut self.lap_length, &other.lap_length), (&mut self.laps_per_move, &other.laps_per_move)] {
            if mine.len() < theirs.len() {
                mine.resize(theirs.len(), 0);
            }
            for (m, t) in mine.iter_mut().zip(theirs) {
                *m += t;
            }
        }
    }

    pub fn to_columns(&self) -> HistogramColumns {
        let mut out = HistogramColumns::default();
        for (metric, bins) in [(HistogramMetric::LapLength, &self.lap_length), (HistogramMetric::LapsPerMove, &self.laps_per_move)] {
            for (value, &count) in bins.iter().enumerate().filter(|(_, &c)| c > 0) {
                out.push(&HistogramRecord { metric, value: value as u64, count });
            }
        }
        out
    }
}

/// The records of one batch of matches.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Batch {
    pub index: u64,
    pub matches: MatchColumns,
    pub rounds: RoundColumns,
    pub moves: MoveColumns,
    pub laps: LapColumns,
    pub histograms: Histograms,
}

impl Batch {
    /// Takes back the memory of tables made by [`Batch::into_tables`], emptied, for the next
    /// batch: a batch at round detail is tens of megabytes, and allocating it afresh costs
    /// page faults for every batch.
    pub fn recycle(tables: Vec<super::table::Table>) -> Batch {
        let mut batch = Batch::default();
        for table in tables {
            match table.name {
                name if name == MATCHES.name => batch.matches = MatchColumns::recycle(table),
                name if name == ROUNDS.name => batch.rounds = RoundColumns::recycle(table),
                name if name == MOVES.name => batch.moves = MoveColumns::recycle(table),
                name if name == LAPS.name => batch.laps = LapColumns::recycle(table),
                _ => {}
            }
        }
        batch.clear();
        batch
    }

    fn clear(&mut self) {
        self.matches.clear();
        self.rounds.clear();
        self.moves.clear();
        self.laps.clear();
        self.histograms = Histograms::default();
    }

    /// The tables of this batch that `detail` records.
    pub fn into_tables(self, detail: Detail) -> Vec<super::table::Table> {
        let recorded = detail.tables();
        [
            self.matches.into_table(),
            self.histograms.to_columns().into_table(),
            self.rounds.into_table(),
            self.moves.into_table(),
            self.laps.into_table(),
        ]
        .into_iter()
        .filter(|t| recorded.contains(&t.name))
        .collect()
    }
}

/// What the moves of one round added up to, kept by the game loop for the recorders.
#[derive(Default, Clone, Copy)]
struct RoundTally {
    moves: u32,
    laps: u64,
    sown: u64,
    endless: u32,
    /// The remainder is set at the round's end.
    captures: BySide<CaptureCounts<u32>>,
}

impl RoundTally {
    #[inline(always)]
    fn add_move(&mut self, mover: Side, s: &MoveSummary) {
        let opponent = mover.other();
        self.moves += 1;
        self.laps += s.laps as u64;
        self.sown += s.sown as u64;
        self.endless += s.endless as u32;
        self.captures[mover].pussa += s.pussa;
        self.captures[mover].own_fours += s.fours[mover];
        self.captures[opponent].gifted_fours += s.fours[opponent];
    }
}

/// A move as the recorders see it: the engine's summary, and its laps in `laps`.
struct MoveEvent<'a> {
    record: MoveRecord,
    laps: &'a LapLog,
}

/// A round's end as the recorders see it.
struct RoundEvent<'a> {
    start: &'a RoundStart,
    end: &'a RoundEnd,
    tally: &'a RoundTally,
}

/// Turns a match's events into the records of one table.
trait Recorder {
    #[inline(always)]
    fn moved(&mut self, _event: &MoveEvent) {}
    #[inline(always)]
    fn round_ended(&mut self, _event: &RoundEvent) {}
}

/// Both recorders, in order: each detail adds one recorder to the ones before it.
impl<A: Recorder, B: Recorder> Recorder for (A, B) {
    #[inline(always)]
    fn moved(&mut self, event: &MoveEvent) {
        self.0.moved(event);
        self.1.moved(event);
    }
    #[inline(always)]
    fn round_ended(&mut self, event: &RoundEvent) {
        self.0.round_ended(event);
        self.1.round_ended(event);
    }
}

impl<R: Recorder> Recorder for &mut R {
    #[inline(always)]
    fn moved(&mut self, event: &MoveEvent) {
        (**self).moved(event);
    }
    #[inline(always)]
    fn round_ended(&mut self, event: &RoundEvent) {
        (**self).round_ended(event);
    }
}

/// Match detail: the match's totals, one row when the match ends.
#[derive(Default)]
struct MatchRecorder {
    totals: MatchTotals,
    round1: Option<RoundResult>,
}

impl Recorder for MatchRecorder {
    #[inline(always)]
    fn round_ended(&mut self, e: &RoundEvent) {
        let (t, tally) = (&mut self.totals, e.tally);
        t.rounds = e.end.round;
        t.moves += tally.moves;
        t.laps += tally.laps;
        t.sown += tally.sown;
        t.endless_moves += tally.endless;
        t.starter_round_wins += (e.end.winner == Some(e.start.starter)) as u32;
        t.tied_rounds += e.end.winner.is_none() as u32;
        for side in Side::ALL {
            t.captures[side] += tally.captures[side].widen();
        }
        if e.end.round == 1 {
            self.round1 = Some(RoundResult::from_winner(e.end.winner));
        }
    }
}

/// Round detail: a row per round.
struct RoundRecorder<'a> {
    match_id: u64,
    first: Side,
    rules: &'a Ruleset,
    rows: &'a mut RoundColumns,
}

impl Recorder for RoundRecorder<'_> {
    #[inline(always)]
    fn round_ended(&mut self, e: &RoundEvent) {
        let (start, end, tally) = (e.start, e.end, e.tally);
        let (pits, seeds) = (self.rules.pits_per_row, self.rules.seeds_per_pit as u32);
        let holdings = |side: Side| seeds * start.open[side] as u32 + start.kept[side];
        self.rows.push(&RoundRecord {
            match_id: self.match_id,
            round: end.round,
            starter: start.starter,
            first: self.first,
            holdings: BySide::new(holdings(Side::South), holdings(Side::North)),
            open: start.open,
            closed: start.open.map(|open| pits - open),
            kept: start.kept,
            moves: tally.moves,
            laps: tally.laps,
            sown: tally.sown,
            endless_moves: tally.endless,
            collector: end.collector,
            captures: tally.captures,
            captured: end.captured,
            result: RoundResult::from_winner(end.winner),
        });
    }
}

/// Move detail: a row per move.
struct MoveRecorder<'a> {
    rows: &'a mut MoveColumns,
}

impl Recorder for MoveRecorder<'_> {
    #[inline(always)]
    fn moved(&mut self, e: &MoveEvent) {
        self.rows.push(&e.record);
    }
}

/// Lap detail: a row per lap.
struct LapRecorder<'a> {
    rows: &'a mut LapColumns,
}

impl Recorder for LapRecorder<'_> {
    #[inline(always)]
    fn moved(&mut self, e: &MoveEvent) {
        let m = &e.record;
        for (i, (start_pit, sown)) in e.laps.current().enumerate() {
            self.rows.push(&LapRecord { match_id: m.match_id, round: m.round, ply: m.ply, lap: i as u32 + 1, start_pit, sown });
        }
    }
}

/// Plays match `index` of the run and appends its records to `batch`. Fails only when a
/// player cannot decide (an external program); `batch` then holds part of the match.
pub fn play_match(cfg: &RunConfig, index: u64, batch: &mut Batch) -> Result<(), MatchError> {
    let Batch { matches, rounds, moves, laps, histograms, .. } = batch;
    // Each detail adds its recorder to those of the details before it (one game loop per detail).
    let mut whole = MatchRecorder::default();
    let (round, moved, lapped) = (
        RoundRecorder { match_id: index, first: cfg.first.for_match(index), rules: &cfg.rules, rows: rounds },
        MoveRecorder { rows: moves },
        LapRecorder { rows: laps },
    );
    let (outcome, holdings) = match cfg.detail {
        Detail::Match => game_loop(cfg, index, &mut whole, histograms)?,
        Detail::Round => game_loop(cfg, index, &mut (&mut whole, round), histograms)?,
        Detail::Move => game_loop(cfg, index, &mut (&mut whole, (round, moved)), histograms)?,
        Detail::Lap => game_loop(cfg, index, &mut (&mut whole, (round, (moved, lapped))), histograms)?,
    };
    matches.push(&MatchRecord {
        match_id: index,
        seed: cfg.seed,
        players: BySide::new(cfg.south, cfg.north),
        first: cfg.first.for_match(index),
        outcome,
        holdings,
        round1: whole.round1.expect("a match plays at least one round"),
        totals: whole.totals,
    });
    Ok(())
}

/// Plays match `index` to its end, feeding its moves and rounds to `recorder` and its laps to
/// `histograms`; returns how it ended and the final holdings, or the error of a player that
/// cannot decide.
#[inline(always)]
fn game_loop<R: Recorder>(
    cfg: &RunConfig,
    index: u64,
    recorder: &mut R,
    histograms: &mut Histograms,
) -> Result<(Outcome, BySide<u32>), MatchError> {
    let first = cfg.first.for_match(index);
    let mut game = Game::new(cfg.rules, first);
    let mut agents =
        [Agent::new(cfg.south, seat_rng(cfg.seed, index, Side::South)), Agent::new(cfg.north, seat_rng(cfg.seed, index, Side::North))];
    let mut log = LapLog::default();
    let mut tally = RoundTally::default();
    loop {
        let mover = game.position().turn();
        let round = game.round();
        let ply = game.ply() + 1;
        let played =
            agents[mover.index()].play(&mut game, &mut log).map_err(|error| MatchError { match_index: index, ply, side: mover, error })?;
        if let Some((pit, summary)) = played {
            tally.add_move(mover, &summary);
            let record = MoveRecord { match_id: index, round, ply: game.ply(), mover, pit, summary };
            recorder.moved(&MoveEvent { record, laps: &log });
            log.take(histograms);
            continue;
        }
        // R10: the side to move has no legal move.
        let start = *game.round_start();
        let end = game.end_round();
        tally.captures[end.collector].remainder = end.remainder;
        recorder.round_ended(&RoundEvent { start: &start, end: &end, tally: &tally });
        tally = RoundTally::default();
        if let Some(outcome) = end.outcome {
            log.drain_into(histograms);
            return Ok((outcome, end.holdings));
        }
    }
}

/// Plays batch `b` of the run.
pub fn simulate_batch(cfg: &RunConfig, b: u64) -> Result<Batch, MatchError> {
    simulate_batch_into(cfg, b, Batch::default())
}

/// Plays batch `b` of the run into `batch`'s memory (its rows are discarded first).
pub fn simulate_batch_into(cfg: &RunConfig, b: u64, mut batch: Batch) -> Result<Batch, MatchError> {
    batch.clear();
    batch.index = b;
    // Room for a typical batch of random play under the default rules (RULES.md: about 38
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
    for i in cfg.batch_range(b) {
        play_match(cfg, i, &mut batch)?;
    }
    Ok(batch)
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
pub fn run<S: BatchSink>(
    cfg: &RunConfig,
    threads: usize,
    sink: &S,
    progress: &(dyn Fn(u64) + Sync),
    stop: &AtomicBool,
) -> Result<RunCounts, RunError<S::Error>> {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool");
    let batches: Vec<u64> = cfg.shard_batches().collect();
    let counts = pool.install(|| {
        batches
            .par_iter()
            .with_max_len(1)
            .map(|&b| {
                let n = cfg.batch_range(b).end - cfg.batch_range(b).start;
                if sink.is_done(b) {
                    progress(n);
                    return Ok(RunCounts { skipped: 1, ..RunCounts::default() });
                }
                if stop.load(Ordering::Relaxed) {
                    return Ok(RunCounts::default());
                }
                // A failed batch is never handed to the sink: nothing of it is written.
                let batch = simulate_batch_into(cfg, b, SPARE.take()).map_err(RunError::Match)?;
                SPARE.set(sink.write(batch).map_err(RunError::Sink)?);
                progress(n);
                Ok(RunCounts { written: 1, matches: n, ..RunCounts::default() })
            })
            .try_reduce(RunCounts::default, |a, b| Ok(a.add(b)))
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
        RunCounts { written: self.written + o.written, skipped: self.skipped + o.skipped, matches: self.matches + o.matches }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sows a move of `laps` laps of lengths 1, 2, ... into the log.
    fn sow(log: &mut LapLog, laps: u8) {
        log.begin();
        for i in 0..laps {
            log.lap(i, i + 1);
        }
    }

    #[test]
    fn lap_log_counts_taken_moves_once_and_forgets_unfinished_sowings() {
        let mut log = LapLog::default();
        let mut h = Histograms::default();
        // A short move, taken.
        sow(&mut log, 3);
        assert_eq!(log.current().collect::<Vec<_>>(), [(0, 1), (1, 2), (2, 3)]);
        log.take(&mut h);
        // A long move stopped after the unchecked laps and sown again from its start (R9's
        // exact pass) with 70 laps, then taken.
        sow(&mut log, SHORT_MOVE as u8);
        sow(&mut log, 70);
        assert_eq!(log.current().count(), 70);
        assert_eq!(log.current().last(), Some((69, 70)));
        log.take(&mut h);
        // An endless trial struck out (sown 100 laps, never taken), then a one-lap move.
        sow(&mut log, 100);
        sow(&mut log, 1);
        log.take(&mut h);
        // A trial left unfinished when the match ends.
        sow(&mut log, 5);
        log.drain_into(&mut h);
        let mut lap_length = vec![0u64; 71];
        for n in [3, 70, 1] {
            lap_length[1..=n].iter_mut().for_each(|c| *c += 1);
        }
        assert_eq!(h.lap_length, lap_length);
        let mut laps_per_move = vec![0u64; 71];
        laps_per_move[1] = 1;
        laps_per_move[3] = 1;
        laps_per_move[70] = 1;
        assert_eq!(h.laps_per_move, laps_per_move);
        assert!(log.lap_length.iter().chain(&log.laps_per_move).all(|&c| c == 0), "drained");
    }
}
