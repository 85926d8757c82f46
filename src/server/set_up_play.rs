//! The perfect players from a set-up position that its round's start does not reach (a
//! position typed in rather than played to): their tables hold the positions a round's start
//! reaches, so `perfect:round` solves the round from the position itself (the exact layer's
//! [`round_solution`]), and `perfect:match`, whose match values (R17) exist only for those
//! positions, says plainly that it cannot play there and why.

use super::error::ApiError;
use super::state::App;
use crate::agents::{AgentSpec, PlayerError};
use crate::engine::Game;
use crate::exact::{round_solution, PerfectError, PerfectKind, TieBreak};

/// What `spec` plays in the set-up `game` after its tables failed it with `e`; None when `e`
/// is not about the position being out of the tables' reach.
pub fn set_up_move(
    app: &App,
    spec: &AgentSpec,
    game: &Game,
    e: &PlayerError,
) -> Option<Result<Option<usize>, ApiError>> {
    let (AgentSpec::Perfect(kind), PlayerError::Perfect(error)) = (spec, e) else { return None };
    let unreached = match error {
        PerfectError::Stored { .. } => true,
        PerfectError::Table { error, .. } => error.contains("not reachable"),
        PerfectError::NoContext => false,
    };
    if !unreached {
        return None;
    }
    Some(match kind {
        PerfectKind::Round => {
            let pos = game.position();
            round_solution(pos, app.store().settings().solve, &mut |_| ())
                .map(|solution| solution.choose(pos, TieBreak::Lowest).map(|pit| pit.index()))
                .map_err(|e| {
                    ApiError::bad(
                        "player",
                        format!(
                            "perfect:round cannot solve the round from this set-up position: {e}"
                        ),
                    )
                })
        }
        PerfectKind::Match => Err(ApiError::bad("player", PERFECT_MATCH_CANNOT)),
    })
}

/// Why `perfect:match` does not play from a set-up position its round's start does not reach.
pub const PERFECT_MATCH_CANNOT: &str = "perfect:match cannot play from this set-up position: no game reaches it from its round's start \
    (R12), and match values (R17) are known only for positions a round's start reaches; perfect:round plays it (it solves the round \
    from the position itself), or choose another player";
