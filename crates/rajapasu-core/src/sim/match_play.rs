//! One match played into a batch's records: its movers (its players, or the moves a dataset
//! recorded), the game loop, and the recorders of the run's detail fed from it.

use super::batch::Batch;
use super::config::{Detail, RunConfig};
use super::error::{MatchError, MoveError};
use super::laps::{Histograms, LapLog};
use super::quality::{ByRound, PositionKey, QualityTally};
use super::record::*;
use super::recorders::*;
use crate::agents::{seat_rng, Agent, Resources};
use crate::engine::{BySide, Game, MoveSummary, Outcome, Pit, PitSet, Side};

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
pub(super) trait Movers {
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
pub(super) fn record_match_with<P: std::fmt::Display, M: Movers, const METRICS: bool>(
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
