//! The game a request names: where it begins (a match's start, or a position set up at a
//! round's start or inside a round) and the moves played from there. A set-up is validated at
//! the core's boundaries ([`check_holdings`], [`Position::from_setup`]), and every error names
//! the field at fault.

use crate::app::FieldError;
use crate::engine::trace::{replay_from, ReplayError, TraceEvent};
use crate::engine::{BySide, Game, Pit, PitSet, Position, Ruleset, Setup, SetupError, Side};
use crate::exact::check_holdings;
use crate::show::Film;

/// Where a game begins.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// A match's start, `first` starting round 1.
    Match { first: Side },
    /// A round's start from each side's holdings (R12), `starter` to move.
    RoundStart { holdings: BySide<u32>, starter: Side },
    /// A position inside a round: 2P pits in global order (None: closed, R12), each side's
    /// counters off the board, the side to move.
    Board { pits: Vec<Option<u8>>, reserve: BySide<u32>, to_move: Side },
}

impl Start {
    /// Whether the game is set up rather than begun at a match's start (its rounds and plies
    /// are then counted from the set-up).
    pub fn is_set_up(&self) -> bool {
        !matches!(self, Start::Match { .. })
    }

    /// The game at its start, validated (fields `holdings` and `position`).
    pub fn begin(&self, rules: Ruleset) -> Result<Game, FieldError> {
        match self {
            Start::Match { first } => Ok(Game::new(rules, *first)),
            Start::RoundStart { holdings, starter } => {
                check_holdings(*holdings, &rules).map_err(|e| FieldError::new("holdings", e))?;
                Ok(Game::from_round_start(rules, *holdings, *starter))
            }
            Start::Board { pits, reserve, to_move } => {
                board_position(rules, pits, *reserve, *to_move).map(Game::from_position)
            }
        }
    }
}

/// A position inside a round from its pits (global order, None: closed), reserves and side to
/// move, validated (field `position`).
pub fn board_position(
    rules: Ruleset,
    pits: &[Option<u8>],
    reserve: BySide<u32>,
    to_move: Side,
) -> Result<Position, FieldError> {
    let p = rules.pits_per_row as usize;
    if pits.len() != 2 * p {
        return Err(FieldError::new(
            "position",
            format!(
                "{} pits given; this board has {} (2 x pits_per_row, global order)",
                pits.len(),
                2 * p
            ),
        ));
    }
    let mut open = BySide::splat(PitSet::EMPTY);
    for (g, n) in pits.iter().enumerate() {
        if n.is_some() {
            open[Side::from_index(g / p)].insert(Pit::new_unchecked(g % p));
        }
    }
    let board = pits.iter().map(|n| n.unwrap_or(0)).collect();
    Position::from_setup(Setup { rules, board, open, reserve, turn: to_move }).map_err(
        |e| match e {
            SetupError::Reserve { .. } => FieldError::new("reserve", e),
            e => FieldError::new("position", e),
        },
    )
}

/// A game: its rules, its start and the moves (local pits) played from there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSpec {
    pub rules: Ruleset,
    pub start: Start,
    pub moves: Vec<usize>,
}

impl GameSpec {
    fn moves_error(&self, e: ReplayError) -> FieldError {
        let pit = self.moves[e.ply as usize - 1];
        FieldError::new(
            "moves",
            format!("move {} (pit {pit}) cannot be played: {}", e.ply, e.error),
        )
    }

    /// The game after its moves, rounds ended where the side to move has none (R10).
    pub fn game(&self) -> Result<Game, FieldError> {
        self.walk(|_, _| Ok::<(), FieldError>(()))
    }

    /// [`GameSpec::game`], handing `before` the game before each move with the move's index
    /// (its error, of any type a [`FieldError`] converts into, stops the walk and is returned).
    pub fn walk<E: From<FieldError>>(
        &self,
        mut before: impl FnMut(&Game, usize) -> Result<(), E>,
    ) -> Result<Game, E> {
        let mut game = self.start.begin(self.rules)?;
        while game.settle().is_some() {}
        for (i, &pit) in self.moves.iter().enumerate() {
            before(&game, i)?;
            let ply = game.ply() + 1;
            game.play_checked_observed(pit, &mut ())
                .map_err(|error| self.moves_error(ReplayError { ply, error }))?;
            while game.settle().is_some() {}
        }
        Ok(game)
    }

    /// The game after its moves, each event of its trace (the JSON lines of `replay`) handed to
    /// `emit` as it happens.
    pub fn trace(&self, mut emit: impl FnMut(TraceEvent)) -> Result<Game, FieldError> {
        let game = self.start.begin(self.rules)?;
        replay_from(game, &self.moves, &mut (), |event, _| emit(event))
            .map_err(|e| self.moves_error(e))
    }

    /// The game as the replay page of `show` draws it.
    pub fn film(&self) -> Result<Film, FieldError> {
        Film::replay_from(self.start.begin(self.rules)?, &self.moves)
            .map_err(|e| self.moves_error(e))
    }
}
