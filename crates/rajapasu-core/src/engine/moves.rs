//! What a move reports: its captures and summary, the observer that hears its laps as they are
//! sown, and why a move is refused (R4-R9).

use std::fmt;

use super::{BySide, PitSet, Side};

/// How the counters of a capture were won (R6, R8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CaptureKind {
    /// A pit brought to exactly four (R6), taken by its row's owner (or by the sower, `final_four = sower`).
    Four,
    /// The pit beyond the empty pit at the end of a move (R8), taken by the mover.
    Pussa,
}

/// One capture, in the order it happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Capture {
    pub kind: CaptureKind,
    pub by: Side,
    /// Global pit (R2).
    pub pit: u8,
    pub n: u8,
}

/// What a move did, without the details (these go to a [`MoveObserver`]).
// Aligned to 8 bytes: packed next to the callers' one-byte values, copies of this struct
// stalled on store forwarding in the hot loop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, align(8))]
pub struct MoveSummary {
    /// Laps sown (R7): the first one and every relay.
    pub laps: u32,
    /// Counters sown over all laps.
    pub sown: u32,
    /// Counters the mover captured by pussa (R8).
    pub pussa: u32,
    /// Counters captured as fours (R6) by each side during this move.
    pub fours: BySide<u32>,
    /// The move was endless (R9). Under `endless = forbid` such a move is illegal.
    pub endless: bool,
}

impl MoveSummary {
    /// Counters `side` captured during the move.
    #[inline]
    pub fn captured_by(&self, side: Side, mover: Side) -> u32 {
        self.fours[side] + if side == mover { self.pussa } else { 0 }
    }

    /// The mover's captures minus the opponent's (the greedy player's score).
    #[inline]
    pub fn net_gain(&self, mover: Side) -> i32 {
        self.captured_by(mover, mover) as i32 - self.captured_by(mover.other(), mover) as i32
    }
}

/// Receives the details of a move as it is played. `()` ignores them, at no cost.
pub trait MoveObserver {
    /// False for an observer that ignores everything, so the hot path can skip building events.
    const DETAILS: bool = true;
    /// A move starts. Observers that collect details must clear them here: a move may be
    /// played again from its start (a player's discarded trial, or the exact R9 pass).
    #[inline(always)]
    fn begin(&mut self) {}
    /// A lap (R7) starts from global pit `start`, lifting `sown` counters.
    #[inline(always)]
    fn lap(&mut self, _start: u8, _sown: u8) {}
    #[inline(always)]
    fn capture(&mut self, _capture: Capture) {}
}

impl MoveObserver for () {
    const DETAILS: bool = false;
}

/// An observer borrowed for one move (e.g. inside a pair).
impl<O: MoveObserver> MoveObserver for &mut O {
    const DETAILS: bool = O::DETAILS;
    #[inline(always)]
    fn begin(&mut self) {
        (**self).begin()
    }
    #[inline(always)]
    fn lap(&mut self, start: u8, sown: u8) {
        (**self).lap(start, sown)
    }
    #[inline(always)]
    fn capture(&mut self, capture: Capture) {
        (**self).capture(capture)
    }
}

/// Two observers of one move, each told everything in turn.
impl<A: MoveObserver, B: MoveObserver> MoveObserver for (A, B) {
    const DETAILS: bool = A::DETAILS || B::DETAILS;
    #[inline(always)]
    fn begin(&mut self) {
        self.0.begin();
        self.1.begin();
    }
    #[inline(always)]
    fn lap(&mut self, start: u8, sown: u8) {
        self.0.lap(start, sown);
        self.1.lap(start, sown);
    }
    #[inline(always)]
    fn capture(&mut self, capture: Capture) {
        self.0.capture(capture);
        self.1.capture(capture);
    }
}

/// Why a move is illegal (R4, R9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IllegalReason {
    /// The local pit does not exist on a row of this size.
    NoSuchPit,
    /// The pit is closed for this round (R12).
    Closed,
    /// The pit is empty (R4).
    Empty,
    /// The move would repeat a lap's position (R9, `endless = forbid`).
    Endless,
}

/// A move that cannot be played, with what the caller needs to report or retry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayError {
    pub side: Side,
    /// The local pit asked for (may be out of range).
    pub pit: usize,
    pub reason: IllegalReason,
    pub legal: PitSet,
}

impl fmt::Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let why = match self.reason {
            IllegalReason::NoSuchPit => "there is no such pit on the row",
            IllegalReason::Closed => "the pit is closed this round (R12)",
            IllegalReason::Empty => "the pit is empty (R4)",
            IllegalReason::Endless => "the move is endless and endless=forbid (R9)",
        };
        write!(f, "{} cannot play pit {}: {}; legal pits: ", self.side, self.pit, why)?;
        if self.legal.is_empty() {
            f.write_str("none")
        } else {
            write!(f, "{}", self.legal)
        }
    }
}

impl std::error::Error for PlayError {}
