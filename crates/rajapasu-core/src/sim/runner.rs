//! Plays matches into record batches, in parallel, one batch at a time per thread.

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use super::config::{Detail, RunConfig};
use super::error::{MatchError, MoveError};
use super::laps::{Histograms, LapLog};
use super::quality::{ByRound, PositionKey, QualityScratch, QualityTally};
use super::record::*;
use super::schema::*;
use crate::agents::{seat_rng, Agent, Resources};
use crate::engine::{
    BySide, Game, MoveSummary, Outcome, Pit, PitSet, RoundEnd, RoundStart, Ruleset, Side,
};

/// The records of one batch of matches.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Batch {
    pub index: u64,
    pub matches: MatchColumns,
    pub rounds: RoundColumns,
    pub moves: MoveColumns,
    pub laps: LapColumns,
    pub histograms: Histograms,
    /// Game-quality tallies, a row per match, and sums by round number (every detail).
    pub quality: QualityColumns,
    pub by_round: ByRound,
    /// Memory of the current match's quality tally (see [`QualityTally`]).
    scratch: QualityScratch,
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
                name if name == QUALITY.name => batch.quality = QualityColumns::recycle(table),
                _ => {}
            }
        }
        batch.clear();
        batch
    }

    /// Moves the rows of `other`, the next matches of the same batch, after these.
    fn append(&mut self, mut other: Batch) {
        self.matches.append(&mut other.matches);
        self.rounds.append(&mut other.rounds);
        self.moves.append(&mut other.moves);
        self.laps.append(&mut other.laps);
        self.histograms.merge(&other.histograms);
        self.quality.append(&mut other.quality);
        self.by_round.merge(&other.by_round);
    }

    fn clear(&mut self) {
        self.matches.clear();
        self.rounds.clear();
        self.moves.clear();
        self.laps.clear();
        self.histograms = Histograms::default();
        self.quality.clear();
        self.by_round = ByRound::default();
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
            self.quality.into_table(),
            by_round_columns(&self.by_round).into_table(),
        ]
        .into_iter()
        .filter(|t| recorded.contains(&t.name))
        .collect()
    }
}

fn by_round_columns(by_round: &ByRound) -> ByRoundColumns {
    let mut out = ByRoundColumns::default();
    for r in by_round.played() {
        out.push(r);
    }
    out
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
            self.rows.push(&LapRecord {
                match_id: m.match_id,
                round: m.round,
                ply: m.ply,
                lap: i as u32 + 1,
                start_pit,
                sown,
            });
        }
    }
}

/// Plays match `index` of the run and appends its records to `batch`. Fails only when a
/// player cannot decide (an external program); `batch` then holds part of the match.
pub fn play_match(
    cfg: &RunConfig,
    players: &Resources,
    index: u64,
    batch: &mut Batch,
) -> Result<(), MatchError> {
    record_match(cfg, index, &mut match_agents(cfg, players, index), batch)
}

/// The two players of match `index`, South first, each with its seat's stream (seed, match
/// index, seat): whoever plays the match again gets the same match.
/// They share the run's `players` resources.
pub fn match_agents(cfg: &RunConfig, players: &Resources, index: u64) -> [Agent; 2] {
    [
        Agent::seated(cfg.south.clone(), seat_rng(cfg.seed, index, Side::South), players),
        Agent::seated(cfg.north.clone(), seat_rng(cfg.seed, index, Side::North), players),
    ]
}

/// Plays match `index` of the run again from its recorded moves (local pits, in ply order)
/// instead of its players, so that no player (no external program) runs, and appends its
/// records to `batch` as [`play_match`] would. Fails when a recorded move is not legal, or
/// the moves end before the match or go on after it.
pub fn replay_match<P: std::fmt::Display>(
    cfg: &RunConfig<P>,
    index: u64,
    moves: &[u32],
    batch: &mut Batch,
) -> Result<(), String> {
    let mut recorded = Recorded { moves, next: 0 };
    record_match(cfg, index, &mut recorded, batch).map_err(|e| e.to_string())?;
    if recorded.next < moves.len() {
        return Err(format!(
            "match {index}: {} moves are recorded but the match ends after {}",
            moves.len(),
            recorded.next
        ));
    }
    Ok(())
}

/// Plays match `index` of the run as [`play_match`] does (its rows appended to `batch`), calling
/// `observe` with the game before each move (every position whose mover has a move, R4/R10, as
/// the quality tally counts them), so that an analysis played alongside sees the match through
/// the simulator's own game loop, its round cut ([`MAX_ROUND_MOVES`]) included. An error of
/// `observe` stops the match and is returned as the player's error.
pub fn play_match_observed(
    cfg: &RunConfig,
    players: &Resources,
    index: u64,
    batch: &mut Batch,
    observe: &mut dyn FnMut(&Game) -> Result<(), String>,
) -> Result<(), MatchError> {
    record_match(
        cfg,
        index,
        &mut Observed { agents: match_agents(cfg, players, index), observe },
        batch,
    )
}

/// Who plays the moves of a match: its two players, or the moves a dataset recorded.
trait Movers {
    /// Plays a move for the side to move, or None when it has no legal move (R10).
    /// `candidates` are the position's (R4), which the game loop counts anyway.
    fn play(
        &mut self,
        game: &mut Game,
        candidates: PitSet,
        log: &mut LapLog,
    ) -> Result<Option<(Pit, MoveSummary)>, MoveError>;
}

impl Movers for [Agent; 2] {
    #[inline(always)]
    fn play(
        &mut self,
        game: &mut Game,
        candidates: PitSet,
        log: &mut LapLog,
    ) -> Result<Option<(Pit, MoveSummary)>, MoveError> {
        Ok(self[game.position().turn().index()].play_among(game, candidates, log)?)
    }
}

/// The two players of a match, with an observer of each position before its move.
struct Observed<'a> {
    agents: [Agent; 2],
    observe: &'a mut dyn FnMut(&Game) -> Result<(), String>,
}

impl Movers for Observed<'_> {
    fn play(
        &mut self,
        game: &mut Game,
        candidates: PitSet,
        log: &mut LapLog,
    ) -> Result<Option<(Pit, MoveSummary)>, MoveError> {
        if !candidates.is_empty() {
            (self.observe)(game).map_err(MoveError::Observer)?;
        }
        self.agents.play(game, candidates, log)
    }
}

struct Recorded<'a> {
    moves: &'a [u32],
    next: usize,
}

impl Movers for Recorded<'_> {
    fn play(
        &mut self,
        game: &mut Game,
        _: PitSet,
        log: &mut LapLog,
    ) -> Result<Option<(Pit, MoveSummary)>, MoveError> {
        // R10 (no simulation of every candidate): the recorded move's legality is checked below.
        if !game.position().has_legal_move() {
            return Ok(None);
        }
        let ply = self.next + 1;
        let &pit = self.moves.get(self.next).ok_or_else(|| {
            MoveError::Recorded(format!(
                "the recorded moves end after {} moves, before the match does",
                self.next
            ))
        })?;
        let summary = game.play_checked_observed(pit as usize, log).map_err(|e| {
            MoveError::Recorded(format!(
                "the recorded move of ply {ply}, pit {pit}, cannot be played: {e}"
            ))
        })?;
        self.next += 1;
        Ok(Some((Pit::new_unchecked(pit as usize), summary)))
    }
}

fn record_match<P: std::fmt::Display, M: Movers>(
    cfg: &RunConfig<P>,
    index: u64,
    movers: &mut M,
    batch: &mut Batch,
) -> Result<(), MatchError> {
    record_match_with::<P, M, true>(cfg, index, movers, batch)
}

/// [`record_match`]; without `METRICS` (the benchmark of their cost only, at most round
/// detail) the quality and by_round tallies are left out (the R4 candidates are found either
/// way: the random player draws from them).
fn record_match_with<P: std::fmt::Display, M: Movers, const METRICS: bool>(
    cfg: &RunConfig<P>,
    index: u64,
    movers: &mut M,
    batch: &mut Batch,
) -> Result<(), MatchError> {
    let Batch { matches, rounds, moves, laps, histograms, quality, by_round, scratch, .. } = batch;
    let mut tallies = Tallies { histograms, quality: QualityTally::new(index, scratch), by_round };
    let first = cfg.first.for_match(index);
    // Each detail adds its recorder to those of the details before it (one game loop per detail).
    let mut whole = MatchRecorder::default();
    let (round, moved, lapped) = (
        RoundRecorder { match_id: index, first, rules: &cfg.rules, rows: rounds },
        MoveRecorder { rows: moves },
        LapRecorder { rows: laps },
    );
    let (outcome, holdings) = match cfg.detail {
        Detail::Match => {
            game_loop::<_, M, _, METRICS>(cfg, index, first, movers, &mut whole, &mut tallies)?
        }
        Detail::Round => game_loop::<_, M, _, METRICS>(
            cfg,
            index,
            first,
            movers,
            &mut (&mut whole, round),
            &mut tallies,
        )?,
        Detail::Move => game_loop::<_, M, _, true>(
            cfg,
            index,
            first,
            movers,
            &mut (&mut whole, (round, moved)),
            &mut tallies,
        )?,
        Detail::Lap => game_loop::<_, M, _, true>(
            cfg,
            index,
            first,
            movers,
            &mut (&mut whole, (round, (moved, lapped))),
            &mut tallies,
        )?,
    };
    if METRICS {
        quality.push(&tallies.quality.finish(outcome));
    }
    matches.push(&MatchRecord {
        match_id: index,
        seed: cfg.seed,
        players: BySide::new(cfg.south.to_string(), cfg.north.to_string()),
        first,
        outcome,
        holdings,
        round1: whole.round1.unwrap_or(RoundResult::Unfinished),
        totals: whole.totals,
    });
    Ok(())
}

/// What is kept at every detail besides the match row: histograms, quality tallies, sums by round.
struct Tallies<'a, 'b> {
    histograms: &'a mut Histograms,
    quality: QualityTally<'b>,
    by_round: &'a mut ByRound,
}

/// A round that has not ended after this many moves is taken as play that never ends (R17: a
/// draw), and its match is recorded unfinished. Random play's longest round among the 38
/// million of data/quickstart has 326 moves; a perfect player that cannot win keeps a round
/// going forever when the other side cannot force its end (docs/players.md).
pub const MAX_ROUND_MOVES: u32 = 10_000;

/// Plays match `index` to its end, feeding its moves and rounds to `recorder` and its laps,
/// positions and rounds to `tallies`; returns how it ended and the final holdings, or the error of a player that
/// cannot decide.
#[inline(always)]
fn game_loop<P, M: Movers, R: Recorder, const METRICS: bool>(
    cfg: &RunConfig<P>,
    index: u64,
    first: Side,
    movers: &mut M,
    recorder: &mut R,
    tallies: &mut Tallies,
) -> Result<(Outcome, BySide<u32>), MatchError> {
    let histograms = &mut *tallies.histograms;
    let pits = cfg.rules.pits_per_row;
    let mut game = Game::new(cfg.rules, first);
    let mut log = LapLog::default();
    let mut tally = RoundTally::default();
    loop {
        if tally.moves == MAX_ROUND_MOVES {
            // Play that never ends (R17: a draw): the match is unfinished, its holdings those
            // of the endless round's start, and that round has no row (it has no end) and no
            // positions in the quality tally (its moves are not counted).
            if METRICS {
                tallies.quality.round_cut();
            }
            log.drain_into(histograms);
            return Ok((Outcome::Unfinished, game.holdings()));
        }
        let mover = game.position().turn();
        let round = game.round();
        let ply = game.ply() + 1;
        // R4's moves, counted before the move. R9 forbids an endless one among them at about 5
        // positions in a million (final_four=stays; none in a million default matches), and
        // deciding which costs a simulation of every candidate: 73% of the simulation's speed
        // (docs/metrics.md), so the count is R4's.
        let candidates = game.position().candidates();
        let legal = candidates.len() as u32;
        // With no legal move nothing is played (R10), and there is no position before a move.
        if METRICS && legal > 0 {
            let position = game.position();
            tallies.quality.position(legal, PositionKey::of(position), position.reserve());
        }
        let played = movers.play(&mut game, candidates, &mut log).map_err(|error| MatchError {
            match_index: index,
            ply,
            side: mover,
            error,
        })?;
        if let Some((pit, summary)) = played {
            tally.add_move(mover, &summary);
            if METRICS {
                tallies.quality.moved(pit.global(mover, pits));
            }
            let record =
                MoveRecord { match_id: index, round, ply: game.ply(), mover, pit, legal, summary };
            recorder.moved(&MoveEvent { record, laps: &log });
            log.take(histograms);
            continue;
        }
        // R10: the side to move has no legal move.
        let start = *game.round_start();
        let end = game.end_round();
        tally.captures[end.collector].remainder = end.remainder;
        recorder.round_ended(&RoundEvent { start: &start, end: &end, tally: &tally });
        if METRICS {
            tallies.quality.round_ended(end.holdings);
            tallies.by_round.add(first, end.round, start.starter, start.open, end.winner);
        }
        tally = RoundTally::default();
        if let Some(outcome) = end.outcome {
            log.drain_into(histograms);
            return Ok((outcome, end.holdings));
        }
    }
}

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
