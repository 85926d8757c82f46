//! Why a match stopped before its end: a move that could not be played, and where.

use crate::agents::PlayerError;
use crate::engine::Side;

/// Why the move of a match could not be played: its player could not decide, a recorded move
/// cannot be played again, or an analysis that watches the match failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    #[error(transparent)]
    Player(#[from] PlayerError),
    /// A move that is not a player's: a recorded move that cannot be played again
    /// ([`super::replay_match`]).
    #[error("{0}")]
    Recorded(String),
    /// An analysis that watches the match ([`super::play_match_observed`]) failed at a position.
    #[error("{0}")]
    Observer(String),
}

/// A move that could not be played, with where it happened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("match {match_index}, ply {ply} ({side} to move): {error}")]
pub struct MatchError {
    pub match_index: u64,
    /// The number of the move that was to be played, from the match's start.
    pub ply: u32,
    pub side: Side,
    pub error: MoveError,
}
