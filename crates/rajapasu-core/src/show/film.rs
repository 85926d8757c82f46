//! A match as the replay page needs it: every round's start and end, and every move with its
//! laps (start pit and counters sown, R7) and its captures in the order they happen (R6, R8),
//! recorded from the engine's own replay ([`crate::engine::trace::replay_observed`]).

use crate::engine::trace::{replay_from, ReplayError, TraceEvent};
use crate::engine::{BySide, Capture, CaptureKind, Game, MoveObserver, Pit, PitSet, Ruleset, Side};

/// Where captured counters come from, as the capture-sources chart names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// R8: taken by the mover beyond the empty pit at the end of a move.
    Pussa,
    /// R6: a four taken by the mover during its own move.
    OwnFour,
    /// R6: a four taken by the opponent during the mover's move (a gift of the mover).
    GiftedFour,
    /// R10: the counters left on the board when a round ends, taken by the collector.
    Remainder,
}

impl Source {
    pub const ALL: [Source; 4] =
        [Source::Pussa, Source::OwnFour, Source::GiftedFour, Source::Remainder];

    /// The name used by the charts and the summary.
    pub const fn name(self) -> &'static str {
        match self {
            Source::Pussa => "pussa",
            Source::OwnFour => "own fours",
            Source::GiftedFour => "gifted fours",
            Source::Remainder => "remainder",
        }
    }

    /// The colour of the source in the charts (the capture-sources chart's palette).
    pub const fn colour(self) -> [u8; 3] {
        SOURCE_COLOURS[self as usize]
    }

    /// Short name for CSS classes and the page's data.
    pub const fn key(self) -> &'static str {
        match self {
            Source::Pussa => "pussa",
            Source::OwnFour => "own",
            Source::GiftedFour => "gifted",
            Source::Remainder => "remainder",
        }
    }

    /// The source of a capture made during `mover`'s move.
    pub fn of(capture: &Capture, mover: Side) -> Source {
        match capture.kind {
            CaptureKind::Pussa => Source::Pussa,
            CaptureKind::Four if capture.by == mover => Source::OwnFour,
            CaptureKind::Four => Source::GiftedFour,
        }
    }
}

/// Pussa, own fours, gifted fours, remainder: the colours of the capture-sources chart
/// (`plot`), which checks that it draws with these.
pub const SOURCE_COLOURS: [[u8; 3]; 4] =
    [[0, 114, 178], [0, 158, 115], [230, 159, 0], [190, 190, 190]];

/// One lap of a move (R7): the global pit it lifts and the counters it sows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lap {
    pub start: u8,
    pub sown: u8,
}

/// One capture of a move, with the lap it happened in (1-based; a pussa belongs to the last lap).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveCapture {
    pub lap: u32,
    pub source: Source,
    pub by: Side,
    /// Global pit (R2).
    pub pit: u8,
    pub n: u8,
}

/// A move as played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilmMove {
    pub round: u32,
    /// 1-based, counted from the match's start.
    pub ply: u32,
    pub mover: Side,
    /// Local pit (R3).
    pub pit: u8,
    pub endless: bool,
    pub laps: Vec<Lap>,
    pub captures: Vec<MoveCapture>,
    /// The board and reserves after the move (before any round end).
    pub board: Vec<u8>,
    pub reserve: BySide<u32>,
}

/// How a round ended (R10, R11).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundOver {
    pub collector: Side,
    pub remainder: u32,
    /// Captured in the round, remainder included.
    pub captured: BySide<u32>,
    /// Holdings for the next round.
    pub holdings: BySide<u32>,
}

/// A round: how it started (R12) and, unless the moves stop inside it, how it ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilmRound {
    pub round: u32,
    pub starter: Side,
    /// Open pits per side: each side's rightmost ones (R12).
    pub open: BySide<u8>,
    /// Counters each side keeps off the board.
    pub kept: BySide<u32>,
    pub board: Vec<u8>,
    /// Moves played before this round.
    pub plies_before: u32,
    /// Moves of this round.
    pub moves: u32,
    pub over: Option<RoundOver>,
}

/// The match's end (R14).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatchOver {
    /// None: unfinished after `max_rounds` rounds.
    pub winner: Option<Side>,
    pub rounds: u32,
    pub holdings: BySide<u32>,
}

/// A match, or its beginning when the moves stop before its end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Film {
    pub rules: Ruleset,
    pub first: Side,
    pub rounds: Vec<FilmRound>,
    pub moves: Vec<FilmMove>,
    pub over: Option<MatchOver>,
}

/// Records each move's lap starts and captures with their lap, which the trace does not keep.
#[derive(Default)]
struct LapRecorder {
    laps: Vec<Lap>,
    captures: Vec<(u32, Capture)>,
}

impl MoveObserver for LapRecorder {
    fn begin(&mut self) {
        self.laps.clear();
        self.captures.clear();
    }
    fn lap(&mut self, start: u8, sown: u8) {
        self.laps.push(Lap { start, sown });
    }
    fn capture(&mut self, capture: Capture) {
        self.captures.push((self.laps.len() as u32, capture));
    }
}

impl Film {
    /// Replays `moves` (local pits) from the start of a match, as `replay` does: an illegal move
    /// is the same error.
    pub fn replay(rules: Ruleset, first: Side, moves: &[usize]) -> Result<Film, ReplayError> {
        Film::replay_from(Game::new(rules, first), moves)
    }

    /// Replays `moves` from a match already begun (set up at a round's start or inside a round,
    /// see [`replay_from`]).
    pub fn replay_from(game: Game, moves: &[usize]) -> Result<Film, ReplayError> {
        let (rules, first) = (*game.rules(), game.first());
        let mut film = Film { rules, first, rounds: Vec::new(), moves: Vec::new(), over: None };
        let mut recorder = LapRecorder::default();
        replay_from(game, moves, &mut recorder, |event, recorder| film.record(event, recorder))?;
        Ok(film)
    }

    fn record(&mut self, event: TraceEvent, recorder: &LapRecorder) {
        match event {
            TraceEvent::Header { .. } => {}
            TraceEvent::RoundStart { round, starter, open, reserve, board } => {
                self.rounds.push(FilmRound {
                    round,
                    starter,
                    open,
                    kept: reserve,
                    board,
                    plies_before: self.moves.len() as u32,
                    moves: 0,
                    over: None,
                })
            }
            TraceEvent::Move { round, ply, player, pit, endless, board, reserve, .. } => {
                let captures = recorder
                    .captures
                    .iter()
                    .map(|&(lap, c)| MoveCapture {
                        lap,
                        source: Source::of(&c, player),
                        by: c.by,
                        pit: c.pit,
                        n: c.n,
                    })
                    .collect();
                self.moves.push(FilmMove {
                    round,
                    ply,
                    mover: player,
                    pit: pit as u8,
                    endless,
                    laps: recorder.laps.clone(),
                    captures,
                    board,
                    reserve,
                });
                self.current_round().moves += 1;
            }
            TraceEvent::RoundEnd { collector, remainder, captured, holdings, .. } => {
                self.current_round().over =
                    Some(RoundOver { collector, remainder, captured, holdings });
            }
            TraceEvent::MatchEnd { winner, rounds, holdings } => {
                self.over = Some(MatchOver { winner, rounds, holdings })
            }
        }
    }

    fn current_round(&mut self) -> &mut FilmRound {
        self.rounds.last_mut().expect("a round starts before its moves")
    }

    /// Moves played.
    pub fn plies(&self) -> u32 {
        self.moves.len() as u32
    }

    /// The round that ply `ply` was played in (ply 0: round 1).
    pub fn round_of(&self, ply: u32) -> &FilmRound {
        let round = match ply {
            0 => 1,
            _ => self.moves[ply as usize - 1].round,
        };
        &self.rounds[round as usize - 1]
    }

    /// The state after ply `ply` (0: the match's start), before any round end it causes.
    pub fn state_after(&self, ply: u32) -> Option<BoardState> {
        if ply > self.plies() {
            return None;
        }
        let round = self.round_of(ply);
        let p = self.rules.pits_per_row;
        let open = round.open.map(|n| PitSet(((1u16 << p) - 1) & !((1u16 << (p - n)) - 1)));
        let (board, reserve, last_move) = match ply {
            0 => (round.board.clone(), round.kept, None),
            _ => {
                let m = &self.moves[ply as usize - 1];
                (m.board.clone(), m.reserve, Some(m))
            }
        };
        let mut highlights = Vec::new();
        if let Some(m) = last_move {
            highlights.extend(
                m.captures.iter().filter(|c| c.source == Source::Pussa).map(|c| (c.pit, c.source)),
            );
        }
        let caption = match last_move {
            None => format!("Round 1, ply 0: the start of the match, {} to move", self.first),
            Some(m) => format!(
                "Round {}, after ply {}: {} played local pit {} (pit {}), {} lap{}{}",
                m.round,
                m.ply,
                m.mover,
                m.pit,
                Pit::new_unchecked(m.pit as usize).global(m.mover, p),
                m.laps.len(),
                if m.laps.len() == 1 { "" } else { "s" },
                if m.endless { ", endless (R9)" } else { "" }
            ),
        };
        Some(BoardState { rules: self.rules, board, open, reserve, highlights, caption })
    }
}

/// One state of the board, as drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardState {
    pub rules: Ruleset,
    /// 2P counts in global pit order (R2); closed pits hold 0.
    pub board: Vec<u8>,
    /// Open local pits per side (R12).
    pub open: BySide<PitSet>,
    pub reserve: BySide<u32>,
    /// Pits to mark with the colour of a capture source.
    pub highlights: Vec<(u8, Source)>,
    pub caption: String,
}

impl BoardState {
    /// Whether global pit `g` is open this round.
    pub fn is_open(&self, g: usize) -> bool {
        let p = self.rules.pits_per_row as usize;
        self.open[Side::from_index(g / p)].contains(Pit::new_unchecked(g % p))
    }
}
