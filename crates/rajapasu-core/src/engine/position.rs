//! A position inside a round and the move rules R4-R9.
//!
//! The board is a fixed array; a move allocates nothing unless it is endless (R9).

use std::collections::HashSet;
use std::fmt;

use super::moves::{Capture, CaptureKind, IllegalReason, MoveObserver, MoveSummary, PlayError};
use super::{BySide, Endless, FinalFour, Pit, PitSet, Ruleset, Side, MAX_PITS, MAX_PITS_PER_ROW};

/// Storage length of the board arrays: a power of two at least MAX_PITS, so that an index
/// masked with `& SLOT` is provably in bounds and the hot loop carries no bounds checks.
const SLOTS: usize = 32;
const SLOT: usize = SLOTS - 1;
const _: () = assert!(SLOTS >= MAX_PITS + 9);

/// The position a lap starts from (R9): the board before lifting, and the pit to lift.
type LapKey = ([u8; SLOTS], u8);

/// Watches the lap starts of a move (R9).
trait LapStarts {
    /// Called before each lap is lifted; true stops the move there.
    fn stop(&mut self, board: &[u8; SLOTS], start: u8) -> bool;
}

/// Laps a move may take before its lap starts are checked for a repeat. A move whose lap
/// start repeats never ends (each lap follows from the one before), so a move that ends within
/// this many laps is not endless: the common case needs no check at all. Random play has a
/// longest move of about 35 laps in a million matches.
pub const UNCHECKED_LAPS: u32 = 64;

/// Stops a move after [`UNCHECKED_LAPS`] laps.
#[derive(Default)]
struct LapLimit {
    laps: u32,
}

impl LapStarts for LapLimit {
    #[inline(always)]
    fn stop(&mut self, _: &[u8; SLOTS], _: u8) -> bool {
        self.laps += 1;
        self.laps > UNCHECKED_LAPS
    }
}

/// Every lap start of the move, to find the first repeat exactly (long moves only).
#[derive(Default)]
struct AllStarts {
    seen: HashSet<LapKey>,
}

impl LapStarts for AllStarts {
    fn stop(&mut self, board: &[u8; SLOTS], start: u8) -> bool {
        !self.seen.insert((*board, start))
    }
}

/// How a sowing ended.
enum Sowing {
    /// The move ended normally: R7 found an empty pit and R8 applied.
    Done,
    /// The lap watcher stopped it: too long to trust without a check, or a repeated lap start.
    Stopped,
}

/// A position inside a round: board, open pits, reserves and the side to move.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Position {
    rules: Ruleset,
    board: [u8; SLOTS],
    /// next[p]: the first open pit after global pit p, counter-clockwise (R2, R5, R12).
    next: [u8; SLOTS],
    /// Counters off the board: kept at the round's start plus captured since.
    reserve: BySide<u32>,
    open: BySide<PitSet>,
    turn: Side,
}

/// A position as data, for validation at the boundary ([`Position::from_setup`]).
///
/// ```
/// use rajapasu_core::engine::{BySide, PitSet, Position, Ruleset, Setup, Side};
///
/// // Round 1 of a board of 3 pits a row and 2 counters a pit (R1): every pit open (R12).
/// let mut rules = Ruleset::default();
/// rules.set("pits_per_row", "3").unwrap();
/// rules.set("seeds_per_pit", "2").unwrap();
/// let setup = Setup {
///     rules,
///     board: vec![2, 2, 2, 2, 2, 2], // global pits 0..6 (R2)
///     open: BySide::splat(PitSet(0b111)),
///     reserve: BySide::splat(0),
///     turn: Side::South,
/// };
/// let position = Position::from_setup(setup.clone()).unwrap();
/// assert_eq!(position, Position::opening(rules, Side::South));
/// assert_eq!(position.to_setup(), setup);
///
/// // South's local pit 0 closed (R12) but holding counters: refused, naming the pit.
/// let closed = Setup { open: BySide::new(PitSet(0b110), PitSet(0b111)), ..setup };
/// let error = Position::from_setup(closed).unwrap_err();
/// assert_eq!(error.to_string(), "pit 0 is closed but holds 2 counters (R12: closed pits are empty)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    pub rules: Ruleset,
    /// 2P counts, global pit order (R2).
    pub board: Vec<u8>,
    pub open: BySide<PitSet>,
    pub reserve: BySide<u32>,
    pub turn: Side,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error("the board has {got} pits; these rules need {want} (2 x pits_per_row)")]
    BoardSize { got: usize, want: usize },
    #[error("pit {pit} is closed but holds {n} counters (R12: closed pits are empty)")]
    ClosedPitNotEmpty { pit: usize, n: u8 },
    #[error("{side} has no open pit (R12: every player opens at least one pit in a round)")]
    NoOpenPit { side: Side },
    #[error("{side}'s open pits must be at the right end of the row (R12)")]
    OpenNotAtRightEnd { side: Side },
    #[error("open pit mask of {side} has pits beyond the row")]
    OpenOutOfRange { side: Side },
    #[error("{side}'s reserve is {got} counters; these rules have {want} in all (R1)")]
    Reserve { side: Side, got: u32, want: u32 },
    /// Summed in 64 bits: reserves near `u32::MAX` must not wrap around to the board's total.
    #[error("counters on board plus reserves are {got}; these rules have {want} (R1)")]
    Counters { got: u64, want: u32 },
}

impl Position {
    /// The opening position of round 1 (R1): every pit open and holding S counters.
    pub fn opening(rules: Ruleset, starter: Side) -> Position {
        let s = rules.seeds_per_pit as u32;
        let p = rules.pits_per_row as u32;
        Position::round_start(rules, BySide::splat(p * s), starter).0
    }

    /// The position at the start of a round (R12) from each side's holdings, and the counters
    /// each side keeps off the board. Each side fills as many pits as it can from its right end.
    pub fn round_start(
        rules: Ruleset,
        holdings: BySide<u32>,
        starter: Side,
    ) -> (Position, BySide<u32>) {
        let p = rules.pits_per_row as usize;
        let s = rules.seeds_per_pit as u32;
        let mut board = [0u8; SLOTS];
        let mut open = BySide::splat(PitSet::EMPTY);
        let mut kept = BySide::splat(0);
        let row = (1u16 << p) - 1;
        for side in Side::ALL {
            let filled = ((holdings[side] / s) as usize).min(p);
            // The `filled` pits at the right end of the row: local pits p - filled .. p.
            let set = PitSet(row & !((1u16 << (p - filled)) - 1));
            open[side] = set;
            // S counters in each open pit, eight pits at a time (a row is at most nine pits;
            // South's words reach into North's row, which is written after them).
            let base = side.index() * p;
            let fill = |bits: u16| SPREAD[bits as usize & 0xff].wrapping_mul(s as u64);
            board[base..base + 8].copy_from_slice(&fill(set.0).to_le_bytes());
            board[base + 8] = ((set.0 >> 8) as u8 & 1) * s as u8;
            kept[side] = holdings[side] - filled as u32 * s;
        }
        let pos = Position {
            rules,
            board,
            next: next_table(&rules, open),
            reserve: kept,
            open,
            turn: starter,
        };
        (pos, kept)
    }

    /// Validates a [`Setup`] (R1, R12).
    pub fn from_setup(setup: Setup) -> Result<Position, SetupError> {
        let rules = setup.rules;
        let p = rules.pits_per_row as usize;
        if setup.board.len() != 2 * p {
            return Err(SetupError::BoardSize { got: setup.board.len(), want: 2 * p });
        }
        for side in Side::ALL {
            let mask = setup.open[side].0;
            if mask >> p != 0 {
                return Err(SetupError::OpenOutOfRange { side });
            }
            if mask == 0 {
                return Err(SetupError::NoOpenPit { side });
            }
            // Open pits are a run ending at the right end: mask = ones from some k up to p-1.
            let k = mask.trailing_zeros() as usize;
            if mask != ((1u16 << p) - 1) & !((1u16 << k) - 1) {
                return Err(SetupError::OpenNotAtRightEnd { side });
            }
        }
        let mut board = [0u8; SLOTS];
        for (g, &n) in setup.board.iter().enumerate() {
            let side = Side::from_index(g / p);
            if !setup.open[side].contains(Pit::new_unchecked(g % p)) && n != 0 {
                return Err(SetupError::ClosedPitNotEmpty { pit: g, n });
            }
            board[g] = n;
        }
        let want = rules.total_counters();
        if let Some(side) = Side::ALL.into_iter().find(|&side| setup.reserve[side] > want) {
            return Err(SetupError::Reserve { side, got: setup.reserve[side], want });
        }
        let got = board.iter().map(|&n| n as u64).sum::<u64>()
            + setup.reserve[Side::South] as u64
            + setup.reserve[Side::North] as u64;
        if got != want as u64 {
            return Err(SetupError::Counters { got, want: rules.total_counters() });
        }
        Ok(Position {
            rules,
            board,
            next: next_table(&rules, setup.open),
            reserve: setup.reserve,
            open: setup.open,
            turn: setup.turn,
        })
    }

    /// The same round (rules, open pits, reserves) with another board and side to move: exact
    /// analysis (`crate::exact`) visits boards by index and needs no validation per board.
    /// `board` holds the 2P counts in global order, 0 on closed pits (checked in debug builds).
    pub fn with_board(&self, board: &[u8], turn: Side) -> Position {
        debug_assert_eq!(board.len(), self.rules.pits());
        let mut next = *self;
        next.board = [0; SLOTS];
        next.board[..board.len()].copy_from_slice(board);
        debug_assert!(board.iter().enumerate().all(|(g, &n)| n == 0
            || self.open[Side::from_index(g / self.rules.pits_per_row as usize)]
                .contains(Pit::new_unchecked(g % self.rules.pits_per_row as usize))));
        next.turn = turn;
        next
    }

    pub fn to_setup(&self) -> Setup {
        Setup {
            rules: self.rules,
            board: self.board().to_vec(),
            open: self.open,
            reserve: self.reserve,
            turn: self.turn,
        }
    }

    #[inline]
    pub fn rules(&self) -> &Ruleset {
        &self.rules
    }
    #[inline]
    pub fn turn(&self) -> Side {
        self.turn
    }
    /// The 2P pit counts in global order (closed pits hold 0).
    #[inline]
    pub fn board(&self) -> &[u8] {
        &self.board[..self.rules.pits()]
    }
    /// The board's first 24 slots as little-endian words: the 2P <= 18 pit counts in global
    /// order, then zeros (no move writes past the board). An exact key of the board in three
    /// loads, for the repetition tally of `sim::quality`.
    #[inline(always)]
    pub fn board_words(&self) -> [u64; 3] {
        debug_assert!(self.board[self.rules.pits()..24].iter().all(|&n| n == 0));
        let word = |i: usize| {
            u64::from_le_bytes(self.board[8 * i..8 * i + 8].try_into().expect("eight bytes"))
        };
        [word(0), word(1), word(2)]
    }
    /// Counters in a local pit of a side.
    #[inline]
    pub fn count(&self, side: Side, pit: Pit) -> u8 {
        self.board[pit.global(side, self.rules.pits_per_row)]
    }
    #[inline]
    pub fn reserve(&self) -> BySide<u32> {
        self.reserve
    }
    #[inline]
    pub fn open(&self) -> BySide<PitSet> {
        self.open
    }
    /// Counters on the board.
    pub fn on_board(&self) -> u32 {
        self.board.iter().map(|&n| n as u32).sum()
    }
    /// Open pits of the side to move that hold counters (R4): the moves before the R9 check.
    #[inline]
    pub fn candidates(&self) -> PitSet {
        let p = self.rules.pits_per_row as usize;
        let base = self.turn.index() * p;
        // Eight pits at once: a byte's high bit is set when the byte is non-zero, and one
        // multiplication gathers the eight high bits (base + 8 <= 17, inside the board).
        let x = u64::from_le_bytes(self.board[base..base + 8].try_into().expect("eight bytes"));
        const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
        let nonzero = (((x & LOW7) + LOW7) | x) & !LOW7;
        let mut bits = ((nonzero >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u16;
        bits |= ((self.board[base + 8] != 0) as u16) << 8;
        // Closed pits hold nothing (R12), so non-empty implies open.
        PitSet(bits & ((1u16 << p) - 1))
    }

    /// The legal moves (R4, R9): the candidates, less the endless ones under `endless = forbid`.
    pub fn legal_moves(&self) -> PitSet {
        let mut set = PitSet::EMPTY;
        for pit in self.candidates().iter().filter(|&pit| self.is_legal_candidate(pit)) {
            set.insert(pit);
        }
        set
    }

    /// Whether a candidate (an open, non-empty pit of the side to move) is legal: only an
    /// endless move under `endless = forbid` is not (R9), so only then is the move simulated.
    fn is_legal_candidate(&self, pit: Pit) -> bool {
        self.rules.endless != Endless::Forbid
            || self.first_lap_ends(pit)
            || !self.after(pit).1.endless
    }

    /// Whether the move from candidate `pit` surely ends after its first lap, decided without
    /// sowing: a lap of n counters that does not come round to the pit after its last one
    /// (n + 1 <= open pits) leaves that pit as it was (or empty, if it is the lap's own start),
    /// and if it is empty the move ends there (R7, R8), so it is not endless (R9).
    #[inline]
    pub fn first_lap_ends(&self, pit: Pit) -> bool {
        let start = pit.global(self.turn, self.rules.pits_per_row);
        let n = self.board[start & SLOT] as usize;
        let open = self.open[Side::South].len() + self.open[Side::North].len();
        if n + 1 > open {
            return false;
        }
        let mut at = start;
        for _ in 0..n {
            at = self.next[at & SLOT] as usize;
        }
        let after = self.next[at & SLOT] as usize;
        after == start || self.board[after & SLOT] == 0
    }

    /// Each legal move with the position after it and what it did, one simulation per
    /// candidate (the search players and perft walk these).
    #[inline]
    pub fn legal_children(&self) -> impl Iterator<Item = (Pit, Position, MoveSummary)> + '_ {
        self.candidates().iter().filter_map(move |pit| {
            let mut child = *self;
            child.play_if_legal_observed(pit, &mut ()).map(|summary| (pit, child, summary))
        })
    }

    /// Whether the side to move has a legal move (R10). Stops at the first one found.
    pub fn has_legal_move(&self) -> bool {
        let candidates = self.candidates();
        if self.rules.endless != Endless::Forbid {
            return !candidates.is_empty();
        }
        // A candidate that surely ends after one lap answers without any simulation.
        candidates.iter().any(|pit| self.first_lap_ends(pit))
            || candidates.iter().any(|pit| !self.after(pit).1.endless)
    }

    /// The position after a move and what it did, leaving `self` unchanged (no legality check).
    #[inline]
    pub fn after(&self, pit: Pit) -> (Position, MoveSummary) {
        let mut next = *self;
        let summary = next.play_unchecked(pit);
        (next, summary)
    }

    /// Why `pit` is not a legal move, or None if it is.
    pub fn check(&self, pit: usize) -> Option<IllegalReason> {
        let Some(p) = Pit::new(pit, self.rules.pits_per_row) else {
            return Some(IllegalReason::NoSuchPit);
        };
        if !self.open[self.turn].contains(p) {
            return Some(IllegalReason::Closed);
        }
        if self.count(self.turn, p) == 0 {
            return Some(IllegalReason::Empty);
        }
        if !self.is_legal_candidate(p) {
            return Some(IllegalReason::Endless);
        }
        None
    }

    /// Plays a local pit after checking that it is legal; on error the position is unchanged.
    ///
    /// ```
    /// use rajapasu_core::engine::{BySide, Position, Ruleset, Side};
    ///
    /// // The worked example of docs/rules.md: South opens with its local pit 0 (R3).
    /// let mut position = Position::opening(Ruleset::default(), Side::South);
    /// let summary = position.play(0).unwrap();
    /// assert_eq!(summary.laps, 12); // the first lap and 11 relays (R7)
    /// assert_eq!(position.reserve(), BySide::new(15, 4)); // fours (R6) and a pussa (R8)
    /// assert_eq!(position.board(), [3, 1, 0, 0, 0, 14, 0, 14, 2, 14, 14, 1, 14, 2]);
    /// assert_eq!(position.turn(), Side::North);
    ///
    /// // North has no local pit 9: an error, and the position stays as it was.
    /// let before = position;
    /// assert!(position.play(9).is_err());
    /// assert_eq!(position, before);
    /// ```
    pub fn play(&mut self, pit: usize) -> Result<MoveSummary, PlayError> {
        self.play_observed(pit, &mut ())
    }

    /// [`Position::play`] with an observer of laps and captures.
    pub fn play_observed<O: MoveObserver>(
        &mut self,
        pit: usize,
        obs: &mut O,
    ) -> Result<MoveSummary, PlayError> {
        if let Some(reason) = self.check(pit) {
            return Err(PlayError { side: self.turn, pit, reason, legal: self.legal_moves() });
        }
        Ok(self.play_unchecked_observed(Pit::new_unchecked(pit), obs))
    }

    /// Plays a move without checking it. `pit` must be an open, non-empty pit of the side to
    /// move; an endless move stops at the repeat (R9) whatever the `endless` switch says.
    #[inline]
    pub fn play_unchecked(&mut self, pit: Pit) -> MoveSummary {
        self.play_unchecked_observed(pit, &mut ())
    }

    /// The move rules: R4 (lift), R5 (sow), R6 (fours), R7 (relay), R8 (pussa), R9 (endless).
    ///
    /// R9 costs nothing for a move of at most [`UNCHECKED_LAPS`] laps: a move whose lap start
    /// repeats never ends, so one that ends is not endless. A longer move (rare) is played
    /// again from the start with every lap start remembered: it either ends, or stops at its
    /// first repeated lap start, exactly.
    #[inline(always)]
    pub fn play_unchecked_observed<O: MoveObserver>(
        &mut self,
        pit: Pit,
        obs: &mut O,
    ) -> MoveSummary {
        self.play_inner(pit, obs, false).expect("an endless move stops at the repeat")
    }

    /// Plays `pit`, an open non-empty pit of the side to move, if it is legal: under
    /// `endless = forbid` an endless move (R9) leaves the position unchanged and gives None.
    /// Cheaper than checking first, since the move is simulated once.
    #[inline(always)]
    pub fn play_if_legal_observed<O: MoveObserver>(
        &mut self,
        pit: Pit,
        obs: &mut O,
    ) -> Option<MoveSummary> {
        self.play_inner(pit, obs, self.rules.endless == Endless::Forbid)
    }

    #[inline(always)]
    fn play_inner<O: MoveObserver>(
        &mut self,
        pit: Pit,
        obs: &mut O,
        refuse_endless: bool,
    ) -> Option<MoveSummary> {
        let (board, reserve) = (self.board, self.reserve);
        let mut summary = MoveSummary::default();
        if let Sowing::Stopped = self.sow(pit, obs, &mut LapLimit::default(), &mut summary) {
            (self.board, self.reserve) = (board, reserve);
            summary = self.play_long_move(pit, obs);
            if summary.endless && refuse_endless {
                (self.board, self.reserve) = (board, reserve);
                return None;
            }
        }
        self.turn = self.turn.other();
        Some(summary)
    }

    /// The exact pass for a long move (R9): it ends, or stops at its first repeated lap start.
    #[cold]
    #[inline(never)]
    fn play_long_move<O: MoveObserver>(&mut self, pit: Pit, obs: &mut O) -> MoveSummary {
        let mut summary = MoveSummary::default();
        summary.endless =
            matches!(self.sow(pit, obs, &mut AllStarts::default(), &mut summary), Sowing::Stopped);
        summary
    }

    /// Sows the move from `pit` until it ends (R7, R8) or `repeats` stops it before a lap.
    #[inline(always)]
    fn sow<O: MoveObserver, R: LapStarts>(
        &mut self,
        pit: Pit,
        obs: &mut O,
        repeats: &mut R,
        summary: &mut MoveSummary,
    ) -> Sowing {
        let rules = self.rules;
        let p = rules.pits_per_row as usize;
        let mover = self.turn;
        let mut start = pit.global(mover, p as u8);
        obs.begin();
        debug_assert!(self.board[start] > 0, "play_unchecked on an empty pit");
        loop {
            // R9: the position a lap starts from, before lifting.
            if repeats.stop(&self.board, start as u8) {
                return Sowing::Stopped;
            }
            // R4 / R7: lift the whole pit.
            let mut hand = self.board[start];
            self.board[start] = 0;
            obs.lap(start as u8, hand);
            summary.laps += 1;
            summary.sown += hand as u32;
            let mut at = start;
            while hand > 0 {
                // R5: next open pit; the lap's emptied pit is skipped only with skip_origin.
                at = self.next[at & SLOT] as usize & SLOT;
                if rules.skip_origin && at == start {
                    at = self.next[at] as usize & SLOT;
                }
                self.board[at] += 1;
                hand -= 1;
                if self.board[at] == 4 {
                    // R6: the row's owner takes a four; the last counter follows `final_four`.
                    let owner = Side::from_index((at >= p) as usize);
                    let taker = if hand > 0 {
                        Some(owner)
                    } else {
                        match rules.final_four {
                            FinalFour::Owner => Some(owner),
                            FinalFour::Sower => Some(mover),
                            FinalFour::Stays => None,
                        }
                    };
                    if let Some(by) = taker {
                        self.board[at] = 0;
                        self.reserve[by] += 4;
                        summary.fours[by] += 4;
                        if O::DETAILS {
                            obs.capture(Capture {
                                kind: CaptureKind::Four,
                                by,
                                pit: at as u8,
                                n: 4,
                            });
                        }
                    }
                }
            }
            // R7: relay from the next open pit if it holds counters.
            let next = self.next[at & SLOT] as usize & SLOT;
            if self.board[next] != 0 {
                start = next;
                continue;
            }
            // R8: pussa from the open pit beyond the empty one (repeated with pussa_chain).
            let mut empty = next;
            loop {
                let beyond = self.next[empty] as usize;
                let n = self.board[beyond];
                if n == 0 {
                    break;
                }
                self.board[beyond] = 0;
                self.reserve[mover] += n as u32;
                summary.pussa += n as u32;
                obs.capture(Capture { kind: CaptureKind::Pussa, by: mover, pit: beyond as u8, n });
                if !rules.pussa_chain {
                    break;
                }
                empty = self.next[beyond] as usize;
                if self.board[empty] != 0 {
                    break;
                }
            }
            return Sowing::Done;
        }
    }

    /// R10: the side not to move collects the remainder; returns (collector, remainder).
    /// Only meaningful when the side to move has no legal move.
    pub fn collect_remainder(&mut self) -> (Side, u32) {
        let collector = self.turn.other();
        let remainder = self.on_board();
        self.board = [0; SLOTS];
        self.reserve[collector] += remainder;
        (collector, remainder)
    }
}

/// next[p] = first open pit after p (R2 order, closed pits skipped, R12), in one backward pass
/// over a mask of the open global pits (no division: this runs at every round's start).
fn next_table(rules: &Ruleset, open: BySide<PitSet>) -> [u8; SLOTS] {
    let p = rules.pits_per_row as usize;
    // Open pits are a run at each row's right end (R12; `from_setup` checks it), so the table
    // is one of a few hundred, made at compile time.
    let closed = open.map(|set| if set.is_empty() { p } else { set.0.trailing_zeros() as usize });
    let row = (1u16 << p) - 1;
    if open[Side::South].0 == row & !((1 << closed[Side::South]) - 1)
        && open[Side::North].0 == row & !((1 << closed[Side::North]) - 1)
    {
        return NEXT_TABLES[p][closed[Side::South]][closed[Side::North]];
    }
    next_table_of(p, open[Side::South].0 as u32 | (open[Side::North].0 as u32) << p)
}

/// NEXT_TABLES[p][c][d]: the next table of rows of p pits, South's first c pits closed and
/// North's first d.
static NEXT_TABLES: [[[[u8; SLOTS]; MAX_PITS_PER_ROW + 1]; MAX_PITS_PER_ROW + 1];
    MAX_PITS_PER_ROW + 1] = {
    let mut tables =
        [[[[0u8; SLOTS]; MAX_PITS_PER_ROW + 1]; MAX_PITS_PER_ROW + 1]; MAX_PITS_PER_ROW + 1];
    let mut p = 1;
    while p <= MAX_PITS_PER_ROW {
        let row = (1u32 << p) - 1;
        let mut c = 0;
        while c <= p {
            let mut d = 0;
            while d <= p {
                let south = row & !((1 << c) - 1);
                let north = row & !((1 << d) - 1);
                tables[p][c][d] = next_table_of(p, south | north << p);
                d += 1;
            }
            c += 1;
        }
        p += 1;
    }
    tables
};

/// The next table of rows of `p` pits whose open global pits are the bits of `mask`.
const fn next_table_of(p: usize, mask: u32) -> [u8; SLOTS] {
    let mut next = [0u8; SLOTS];
    // After the last pit comes the first open pit of the board (wrapping round).
    let mut following = mask.trailing_zeros() as u8;
    let mut g = 2 * p;
    while g > 0 {
        g -= 1;
        next[g] = following;
        if mask >> g & 1 != 0 {
            following = g as u8;
        }
    }
    next
}

/// SPREAD[bits]: bit i of `bits` as the value 1 in byte i (a row's open pits as counts of one).
static SPREAD: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut bits = 0;
    while bits < 256 {
        let mut i = 0;
        while i < 8 {
            if bits >> i & 1 != 0 {
                table[bits] |= 1 << (8 * i);
            }
            i += 1;
        }
        bits += 1;
    }
    table
};

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Position")
            .field("board", &self.board())
            .field("open", &self.open)
            .field("reserve", &self.reserve)
            .field("turn", &self.turn)
            .finish()
    }
}

impl fmt::Display for Position {
    /// North's row on top, right to left, as seen from South's side of the board.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.rules.pits_per_row as usize;
        let cell = |side: Side, local: usize| {
            if self.open[side].contains(Pit::new_unchecked(local)) {
                format!("{:>3}", self.board[side.index() * p + local])
            } else {
                "  x".to_string()
            }
        };
        let north: Vec<String> = (0..p).rev().map(|l| cell(Side::North, l)).collect();
        let south: Vec<String> = (0..p).map(|l| cell(Side::South, l)).collect();
        writeln!(f, "north {} | reserve {}", north.join(""), self.reserve[Side::North])?;
        writeln!(f, "south {} | reserve {}", south.join(""), self.reserve[Side::South])?;
        write!(f, "{} to move", self.turn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tables made at compile time, and the boards filled eight pits at a time, against
    /// the plain definitions, for every row size and every number of open pits of each side.
    #[test]
    fn round_starts_match_their_plain_definition() {
        for p in 2..=MAX_PITS_PER_ROW as u8 {
            for s in [1u8, 4, 7, 12] {
                let rules = Ruleset { pits_per_row: p, seeds_per_pit: s, ..Ruleset::default() };
                for south in 0..=p as u32 {
                    for north in 0..=p as u32 {
                        let holdings = BySide::new(
                            south * s as u32 + (south % 3).min(s as u32 - 1),
                            north * s as u32,
                        );
                        let (pos, kept) = Position::round_start(rules, holdings, Side::North);
                        let (p, open) = (p as usize, BySide::new(south as usize, north as usize));
                        let mut board = [0u8; SLOTS];
                        for side in Side::ALL {
                            for local in p - open[side]..p {
                                board[side.index() * p + local] = s;
                            }
                        }
                        assert_eq!(pos.board, board, "p {p}, s {s}, open {open:?}");
                        assert_eq!(kept, BySide::new((south % 3).min(s as u32 - 1), 0));
                        // next[g]: the first open pit after g, wrapping round (R2, R5, R12).
                        let is_open = |g: usize| g % p >= p - open[Side::from_index(g / p)];
                        for g in 0..2 * p {
                            let want = (1..=2 * p)
                                .map(|k| (g + k) % (2 * p))
                                .find(|&h| is_open(h))
                                .map_or(32, |h| h as u8);
                            assert_eq!(pos.next[g], want, "p {p}, open {open:?}, pit {g}");
                        }
                        assert!(pos.next[2 * p..].iter().all(|&n| n == 0));
                    }
                }
            }
        }
    }
}
