//! Why a player could not decide: the failures of the kinds of player that can fail, each
//! defined beside its player. What the simulator adds (a recorded move that cannot be played,
//! an analysis watching the match) is the simulator's own ([`crate::sim::MoveError`]).

use super::external::ExternalError;
use super::host::HostError;
use crate::exact::PerfectError;

/// Why a player could not decide.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlayerError {
    /// An external program (docs/external-players.md) that failed or played an illegal pit.
    #[error(transparent)]
    External(#[from] ExternalError),
    /// A perfect player whose tables cannot be had (a board too large, an unreadable table file).
    #[error(transparent)]
    Perfect(#[from] PerfectError),
    /// A host player (`python:NAME`) that failed or played an illegal pit.
    #[error(transparent)]
    Host(#[from] HostError),
}
