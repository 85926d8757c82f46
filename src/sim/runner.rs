//! Plays matches into record batches, in parallel, one batch at a time per thread.

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use super::config::{Detail, RunConfig};
use super::schema::*;
use crate::agents::{seat_rng, Agent, MatchError};
use crate::engine::{BySide, Game, MoveObserver, Outcome, Side};

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
        for (metric, bins) in [("lap_length", &self.lap_length), ("laps_per_move", &self.laps_per_move)] {
            for (value, &count) in bins.iter().enumerate().filter(|(_, &c)| c > 0) {
                out.push(HistogramRow { metric: Some(metric), value: value as u64, count });
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
                name if name == MATCHES.name => batch.matches = MatchColumns::from_table(table),
                name if name == ROUNDS.name => batch.rounds = RoundColumns::from_table(table),
                name if name == MOVES.name => batch.moves = MoveColumns::from_table(table),
                name if name == LAPS.name => batch.laps = LapColumns::from_table(table),
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

fn side_sym(side: Side) -> Sym {
    Some(side.name())
}

fn winner_sym(w: Option<Side>) -> Sym {
    Some(w.map_or("tie", Side::name))
}

/// Capture sources of one round, by side.
#[derive(Default, Clone, Copy)]
struct RoundTally {
    moves: u32,
    laps: u64,
    sown: u64,
    endless: u32,
    pussa: BySide<u32>,
    own_fours: BySide<u32>,
    gifted_fours: BySide<u32>,
}

/// Plays match `index` of the run and appends its records to `batch`. Fails only when a
/// player cannot decide (an external program); `batch` then holds part of the match.
pub fn play_match(cfg: &RunConfig, index: u64, batch: &mut Batch) -> Result<(), MatchError> {
    let detail = cfg.detail;
    let first = cfg.first.for_match(index);
    let mut game = Game::new(cfg.rules, first);
    let mut agents =
        [Agent::new(cfg.south, seat_rng(cfg.seed, index, Side::South)), Agent::new(cfg.north, seat_rng(cfg.seed, index, Side::North))];
    let mut log = LapLog::default();
    let mut tally = RoundTally::default();
    let mut totals = MatchRow {
        match_id: index,
        seed: cfg.seed,
        south_player: cfg.south.to_string(),
        north_player: cfg.north.to_string(),
        first: side_sym(first),
        outcome: None,
        winner: None,
        rounds: 0,
        moves: 0,
        laps: 0,
        sown: 0,
        south_holdings: 0,
        north_holdings: 0,
        endless_moves: 0,
        round1_winner: None,
        starter_round_wins: 0,
        tied_rounds: 0,
        south_pussa: 0,
        south_own_fours: 0,
        south_gifted_fours: 0,
        south_remainder: 0,
        north_pussa: 0,
        north_own_fours: 0,
        north_gifted_fours: 0,
        north_remainder: 0,
    };
    loop {
        let mover = game.position().turn();
        let round = game.round();
        let ply = game.ply() + 1;
        let played =
            agents[mover.index()].play(&mut game, &mut log).map_err(|error| MatchError { match_index: index, ply, side: mover, error })?;
        if let Some((pit, s)) = played {
            let opp = mover.other();
            tally.moves += 1;
            tally.laps += s.laps as u64;
            tally.sown += s.sown as u64;
            tally.endless += s.endless as u32;
            tally.pussa[mover] += s.pussa;
            tally.own_fours[mover] += s.fours[mover];
            tally.gifted_fours[opp] += s.fours[opp];
            if detail >= Detail::Move {
                let ply = game.ply();
                batch.moves.push(MoveRow {
                    match_id: index,
                    round,
                    ply,
                    side: side_sym(mover),
                    pit: pit.index() as u32,
                    laps: s.laps,
                    sown: s.sown,
                    pussa: s.pussa,
                    fours_mover: s.fours[mover],
                    fours_opponent: s.fours[opp],
                    endless: s.endless,
                });
                if detail >= Detail::Lap {
                    for (i, (start, sown)) in log.current().enumerate() {
                        batch.laps.push(LapRow {
                            match_id: index,
                            round,
                            ply,
                            lap: i as u32 + 1,
                            start_pit: start as u32,
                            sown: sown as u32,
                        });
                    }
                }
            }
            log.take(&mut batch.histograms);
            continue;
        }
        // R10: the side to move has no legal move.
        let start = *game.round_start();
        let end = game.end_round();
        let remainder = |side: Side| if end.collector == side { end.remainder } else { 0 };
        totals.rounds = end.round;
        totals.moves += tally.moves;
        totals.laps += tally.laps;
        totals.sown += tally.sown;
        totals.endless_moves += tally.endless;
        totals.starter_round_wins += (end.winner == Some(start.starter)) as u32;
        totals.tied_rounds += end.winner.is_none() as u32;
        if end.round == 1 {
            totals.round1_winner = winner_sym(end.winner);
        }
        totals.south_pussa += tally.pussa[Side::South] as u64;
        totals.south_own_fours += tally.own_fours[Side::South] as u64;
        totals.south_gifted_fours += tally.gifted_fours[Side::South] as u64;
        totals.south_remainder += remainder(Side::South) as u64;
        totals.north_pussa += tally.pussa[Side::North] as u64;
        totals.north_own_fours += tally.own_fours[Side::North] as u64;
        totals.north_gifted_fours += tally.gifted_fours[Side::North] as u64;
        totals.north_remainder += remainder(Side::North) as u64;
        if detail >= Detail::Round {
            batch.rounds.push(RoundRow {
                match_id: index,
                round: end.round,
                starter: side_sym(start.starter),
                south_open: start.open[Side::South] as u32,
                north_open: start.open[Side::North] as u32,
                south_kept: start.kept[Side::South],
                north_kept: start.kept[Side::North],
                moves: tally.moves,
                laps: tally.laps,
                sown: tally.sown,
                endless_moves: tally.endless,
                collector: side_sym(end.collector),
                south_pussa: tally.pussa[Side::South],
                south_own_fours: tally.own_fours[Side::South],
                south_gifted_fours: tally.gifted_fours[Side::South],
                south_remainder: remainder(Side::South),
                south_total: end.captured[Side::South],
                north_pussa: tally.pussa[Side::North],
                north_own_fours: tally.own_fours[Side::North],
                north_gifted_fours: tally.gifted_fours[Side::North],
                north_remainder: remainder(Side::North),
                north_total: end.captured[Side::North],
                winner: winner_sym(end.winner),
            });
        }
        tally = RoundTally::default();
        if let Some(outcome) = end.outcome {
            let (o, w) = match outcome {
                Outcome::Won(side) => ("win", Some(side.name())),
                Outcome::Unfinished => ("unfinished", None),
            };
            totals.outcome = Some(o);
            totals.winner = w;
            totals.south_holdings = end.holdings[Side::South];
            totals.north_holdings = end.holdings[Side::North];
            batch.matches.push(totals);
            log.drain_into(&mut batch.histograms);
            return Ok(());
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
