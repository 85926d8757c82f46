//! The recorders: each turns a match's moves and rounds, as the game loop
//! ([`super::match_play`]) reports them, into the rows of one table. Each detail adds one
//! recorder to those of the details before it.

use super::laps::LapLog;
use super::record::*;
use super::schema::*;
use crate::engine::{BySide, MoveSummary, RoundEnd, RoundStart, Ruleset, Side};

/// What the moves of one round added up to, kept by the game loop for the recorders.
#[derive(Default, Clone, Copy)]
pub(super) struct RoundTally {
    pub(super) moves: u32,
    laps: u64,
    sown: u64,
    endless: u32,
    /// The remainder is set at the round's end.
    pub(super) captures: BySide<CaptureCounts<u32>>,
}

impl RoundTally {
    #[inline(always)]
    pub(super) fn add_move(&mut self, mover: Side, s: &MoveSummary) {
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
pub(super) struct MoveEvent<'a> {
    pub(super) record: MoveRecord,
    pub(super) laps: &'a LapLog,
}

/// A round's end as the recorders see it.
pub(super) struct RoundEvent<'a> {
    pub(super) start: &'a RoundStart,
    pub(super) end: &'a RoundEnd,
    pub(super) tally: &'a RoundTally,
}

/// Turns a match's events into the records of one table.
pub(super) trait Recorder {
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
pub(super) struct MatchRecorder {
    pub(super) totals: MatchTotals,
    pub(super) round1: Option<RoundResult>,
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
pub(super) struct RoundRecorder<'a> {
    pub(super) match_id: u64,
    pub(super) first: Side,
    pub(super) rules: &'a Ruleset,
    pub(super) rows: &'a mut RoundColumns,
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
pub(super) struct MoveRecorder<'a> {
    pub(super) rows: &'a mut MoveColumns,
}

impl Recorder for MoveRecorder<'_> {
    #[inline(always)]
    fn moved(&mut self, e: &MoveEvent) {
        self.rows.push(&e.record);
    }
}

/// Lap detail: a row per lap.
pub(super) struct LapRecorder<'a> {
    pub(super) rows: &'a mut LapColumns,
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
