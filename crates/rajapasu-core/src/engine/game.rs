//! A match: rounds (R10, R11, R12), the next starter (R13) and the match's end (R14).

use super::{
    BySide, MoveObserver, MoveSummary, NextStarter, Pit, PitSet, PlayError, Position, Ruleset, Side,
};

/// How a match ended (R14).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The other player could not open a pit at the start of a round.
    Won(Side),
    /// `max_rounds` rounds were played without a winner; never counted as a win.
    Unfinished,
}

impl Outcome {
    pub fn winner(self) -> Option<Side> {
        match self {
            Outcome::Won(side) => Some(side),
            Outcome::Unfinished => None,
        }
    }
}

/// The start of a round (R12).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundStart {
    pub round: u32,
    pub starter: Side,
    /// Open pits per side.
    pub open: BySide<u8>,
    /// Counters each side keeps off the board this round.
    pub kept: BySide<u32>,
    pub position: Position,
}

/// The end of a round (R10, R11).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundEnd {
    pub round: u32,
    pub collector: Side,
    pub remainder: u32,
    /// Captured in the round by each side, remainder included.
    pub captured: BySide<u32>,
    /// Kept plus captured: each side's holdings for the next round.
    pub holdings: BySide<u32>,
    /// The side that captured more, None on a tie (R11).
    pub winner: Option<Side>,
    /// Who starts the next round (R13), if the match goes on.
    pub next_starter: Side,
    /// Set when this round ended the match (R14).
    pub outcome: Option<Outcome>,
}

/// A match in progress or over.
///
/// A whole match between two random players, each drawing from its seat's own stream; the same
/// seed plays the same match:
///
/// ```
/// use rajapasu_core::agents::{seat_rng, Agent, AgentSpec};
/// use rajapasu_core::engine::{Game, Outcome, Ruleset, Side};
///
/// fn play(seed: u64) -> (Outcome, u32, u32) {
///     let player = |side| Agent::new(AgentSpec::Random, seat_rng(seed, 0, side));
///     let mut players = [player(Side::South), player(Side::North)];
///     let mut game = Game::new(Ruleset::default(), Side::South);
///     while !game.is_over() {
///         let mover = game.position().turn();
///         if players[mover.index()].play(&mut game, &mut ()).unwrap().is_none() {
///             game.end_round(); // no legal move: R10 to R14 end the round, perhaps the match
///         }
///     }
///     (game.outcome().unwrap(), game.round(), game.ply())
/// }
///
/// let (outcome, rounds, moves) = play(7);
/// assert!(outcome.winner().is_some() && rounds >= 2 && moves > rounds);
/// assert_eq!(play(7), (outcome, rounds, moves));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Game {
    rules: Ruleset,
    first: Side,
    position: Position,
    round_start: RoundStart,
    /// Moves played in the match so far.
    ply: u32,
    outcome: Option<Outcome>,
    holdings: BySide<u32>,
}

impl Game {
    /// A new match; `first` starts round 1 (R13).
    pub fn new(rules: Ruleset, first: Side) -> Game {
        let total = rules.total_counters() / 2;
        let mut game = Game {
            rules,
            first,
            position: Position::opening(rules, first),
            round_start: RoundStart {
                round: 0,
                starter: first,
                open: BySide::splat(0),
                kept: BySide::splat(0),
                position: Position::opening(rules, first),
            },
            ply: 0,
            outcome: None,
            holdings: BySide::splat(total),
        };
        game.start_round(1, first);
        game
    }

    /// A match set up at a round's start from each side's holdings (R12), `starter` to move; the
    /// rounds are counted from it (round 1). The caller has checked the holdings (they sum to the
    /// board's counters and each side can open a pit: `crate::exact::check_holdings`).
    pub fn from_round_start(rules: Ruleset, holdings: BySide<u32>, starter: Side) -> Game {
        let mut game = Game::new(rules, starter);
        game.holdings = holdings;
        game.start_round(1, starter);
        game
    }

    /// A match set up inside a round (a validated [`Position`], its side to move starting), the
    /// rounds counted from it (round 1). What each side captured earlier in the round is not
    /// known, so the round's captures (R11) are counted from here: the reserves are taken as
    /// kept.
    pub fn from_position(position: Position) -> Game {
        let rules = *position.rules();
        let p = rules.pits_per_row as usize;
        let mut holdings = position.reserve();
        for (g, &n) in position.board().iter().enumerate() {
            holdings[Side::from_index(g / p)] += n as u32;
        }
        let open = position.open().map(|set| set.len() as u8);
        let round_start = RoundStart {
            round: 1,
            starter: position.turn(),
            open,
            kept: position.reserve(),
            position,
        };
        Game {
            rules,
            first: position.turn(),
            position,
            round_start,
            ply: 0,
            outcome: None,
            holdings,
        }
    }

    fn start_round(&mut self, round: u32, starter: Side) {
        let (position, kept) = Position::round_start(self.rules, self.holdings, starter);
        let open = position.open().map(|set| set.len() as u8);
        self.position = position;
        self.round_start = RoundStart { round, starter, open, kept, position };
    }

    #[inline]
    pub fn rules(&self) -> &Ruleset {
        &self.rules
    }
    #[inline]
    pub fn first(&self) -> Side {
        self.first
    }
    #[inline]
    pub fn position(&self) -> &Position {
        &self.position
    }
    /// The current round's start (the last round's, once the match is over).
    #[inline]
    pub fn round_start(&self) -> &RoundStart {
        &self.round_start
    }
    #[inline]
    pub fn round(&self) -> u32 {
        self.round_start.round
    }
    #[inline]
    pub fn ply(&self) -> u32 {
        self.ply
    }
    #[inline]
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }
    #[inline]
    pub fn is_over(&self) -> bool {
        self.outcome.is_some()
    }
    /// Holdings at the start of the current round, or at the match's end.
    pub fn holdings(&self) -> BySide<u32> {
        self.holdings
    }

    /// Plays a move without checking it (see [`Position::play_unchecked`]). Does not end the
    /// round: call [`Game::settle`] or, when the mover is known to have no legal move,
    /// [`Game::end_round`].
    #[inline]
    pub fn play_unchecked_observed<O: MoveObserver>(
        &mut self,
        pit: Pit,
        obs: &mut O,
    ) -> MoveSummary {
        debug_assert!(!self.is_over());
        self.ply += 1;
        self.position.play_unchecked_observed(pit, obs)
    }

    /// Lets a player play one move directly on the position (None: it has no legal move, and
    /// the position must be left as it was).
    #[inline]
    pub fn play_in_place<T>(&mut self, f: impl FnOnce(&mut Position) -> Option<T>) -> Option<T> {
        let played = f(&mut self.position);
        self.ply += played.is_some() as u32;
        played
    }

    /// Plays a move after checking it, without ending the round (see [`Game::settle`]).
    pub fn play_checked_observed<O: MoveObserver>(
        &mut self,
        pit: usize,
        obs: &mut O,
    ) -> Result<MoveSummary, GameError> {
        if let Some(outcome) = self.outcome {
            return Err(GameError::Over(outcome));
        }
        let summary = self.position.play_observed(pit, obs).map_err(GameError::Illegal)?;
        self.ply += 1;
        Ok(summary)
    }

    /// Plays a move after checking it, then ends the round if the next player has no legal move.
    pub fn play_observed<O: MoveObserver>(
        &mut self,
        pit: usize,
        obs: &mut O,
    ) -> Result<(MoveSummary, Option<RoundEnd>), GameError> {
        let summary = self.play_checked_observed(pit, obs)?;
        Ok((summary, self.settle()))
    }

    pub fn play(&mut self, pit: usize) -> Result<(MoveSummary, Option<RoundEnd>), GameError> {
        self.play_observed(pit, &mut ())
    }

    /// Ends the round if the side to move has no legal move (R10).
    pub fn settle(&mut self) -> Option<RoundEnd> {
        if self.is_over() || self.position.has_legal_move() {
            None
        } else {
            Some(self.end_round())
        }
    }

    /// Ends the round: the side to move has no legal move (the caller has established it).
    /// R10 remainder, R11 winner, R13 next starter, R14 match end or the next round (R12).
    pub fn end_round(&mut self) -> RoundEnd {
        let (collector, remainder) = self.position.collect_remainder();
        let holdings = self.position.reserve();
        let kept = self.round_start.kept;
        let captured = BySide::new(
            holdings[Side::South] - kept[Side::South],
            holdings[Side::North] - kept[Side::North],
        );
        let winner = match captured[Side::South].cmp(&captured[Side::North]) {
            std::cmp::Ordering::Greater => Some(Side::South),
            std::cmp::Ordering::Less => Some(Side::North),
            std::cmp::Ordering::Equal => None,
        };
        let next_starter = match self.rules.next_starter {
            NextStarter::Collector => collector,
            NextStarter::RoundWinner => winner.unwrap_or(self.round_start.starter),
        };
        self.holdings = holdings;
        let round = self.round_start.round;
        let seeds = self.rules.seeds_per_pit as u32;
        // R14: a player who cannot open a pit loses; otherwise the round limit makes it unfinished.
        let outcome = if holdings[Side::South] < seeds {
            Some(Outcome::Won(Side::North))
        } else if holdings[Side::North] < seeds {
            Some(Outcome::Won(Side::South))
        } else if round >= self.rules.max_rounds {
            Some(Outcome::Unfinished)
        } else {
            None
        };
        self.outcome = outcome;
        if outcome.is_none() {
            self.start_round(round + 1, next_starter);
        }
        RoundEnd { round, collector, remainder, captured, holdings, winner, next_starter, outcome }
    }

    /// The legal moves of the side to move (empty once the match is over).
    pub fn legal_moves(&self) -> PitSet {
        if self.is_over() {
            PitSet::EMPTY
        } else {
            self.position.legal_moves()
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    #[error("{0}")]
    Illegal(PlayError),
    #[error("the match is over ({})", match .0 { Outcome::Won(s) => format!("{s} won"), Outcome::Unfinished => "unfinished".into() })]
    Over(Outcome),
}
