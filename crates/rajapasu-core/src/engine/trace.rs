//! The trace format of docs/rules.md ("Golden traces") and `replay`, which produces it.

use serde::Serialize;

use super::{
    BySide, Capture, CaptureKind, Game, GameError, MoveObserver, RoundEnd, RoundStart, Ruleset,
    Side,
};

/// One line of a trace.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TraceEvent {
    Header {
        rules: Ruleset,
        rules_hash: String,
        first: Side,
    },
    RoundStart {
        round: u32,
        starter: Side,
        open: BySide<u8>,
        reserve: BySide<u32>,
        board: Vec<u8>,
    },
    Move {
        round: u32,
        ply: u32,
        player: Side,
        pit: usize,
        laps: Vec<u32>,
        captures: Vec<TraceCapture>,
        endless: bool,
        board: Vec<u8>,
        reserve: BySide<u32>,
    },
    RoundEnd {
        round: u32,
        collector: Side,
        remainder: u32,
        captured: BySide<u32>,
        holdings: BySide<u32>,
    },
    MatchEnd {
        winner: Option<Side>,
        rounds: u32,
        holdings: BySide<u32>,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceCapture {
    pub kind: &'static str,
    pub by: Side,
    pub pit: u8,
    pub n: u8,
}

impl TraceEvent {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("trace events always serialize")
    }

    pub fn round_start(start: &RoundStart) -> TraceEvent {
        TraceEvent::RoundStart {
            round: start.round,
            starter: start.starter,
            open: start.open,
            reserve: start.kept,
            board: start.position.board().to_vec(),
        }
    }

    pub fn round_end(end: &RoundEnd) -> TraceEvent {
        TraceEvent::RoundEnd {
            round: end.round,
            collector: end.collector,
            remainder: end.remainder,
            captured: end.captured,
            holdings: end.holdings,
        }
    }
}

/// Collects a move's laps and captures for its trace line.
#[derive(Default)]
pub struct TraceObserver {
    pub laps: Vec<u32>,
    pub captures: Vec<TraceCapture>,
}

impl MoveObserver for TraceObserver {
    fn begin(&mut self) {
        self.laps.clear();
        self.captures.clear();
    }
    fn lap(&mut self, _start: u8, sown: u8) {
        self.laps.push(sown as u32);
    }
    fn capture(&mut self, c: Capture) {
        let kind = match c.kind {
            CaptureKind::Four => "four",
            CaptureKind::Pussa => "pussa",
        };
        self.captures.push(TraceCapture { kind, by: c.by, pit: c.pit, n: c.n });
    }
}

/// A move of `replay` that could not be played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("ply {ply}: {error}")]
pub struct ReplayError {
    /// 1-based ply of the offending move in the match.
    pub ply: u32,
    pub error: GameError,
}

/// Plays `moves` (local pits) from the start of a match and hands every trace event to `emit`
/// as it happens: the header, round starts, moves, round ends and the match's end. Stops at the
/// first illegal move (the events before it have been emitted) or when the moves run out.
pub fn replay(
    rules: Ruleset,
    first: Side,
    moves: &[usize],
    mut emit: impl FnMut(TraceEvent),
) -> Result<Game, ReplayError> {
    replay_observed(rules, first, moves, &mut (), |event, _| emit(event))
}

/// [`replay`] with one more observer of every move played (e.g. the lap starts, which the trace
/// does not keep): `emit` gets each event with the observer, which has just seen the move of a
/// `Move` event.
pub fn replay_observed<O: MoveObserver>(
    rules: Ruleset,
    first: Side,
    moves: &[usize],
    observer: &mut O,
    emit: impl FnMut(TraceEvent, &O),
) -> Result<Game, ReplayError> {
    replay_from(Game::new(rules, first), moves, observer, emit)
}

/// [`replay_observed`] from a match already begun, such as one set up at a round's start or
/// inside a round ([`Game::from_round_start`], [`Game::from_position`]): its header names the
/// side to move as `first`, and its first round starts at its position. The plies count from it.
pub fn replay_from<O: MoveObserver>(
    mut game: Game,
    moves: &[usize],
    observer: &mut O,
    mut emit: impl FnMut(TraceEvent, &O),
) -> Result<Game, ReplayError> {
    let (rules, first) = (*game.rules(), game.first());
    emit(TraceEvent::Header { rules, rules_hash: rules.hash(), first }, observer);
    emit(TraceEvent::round_start(game.round_start()), observer);
    settle(&mut game, &mut emit, observer);
    for &pit in moves {
        let ply = game.ply() + 1;
        let round = game.round();
        let player = game.position().turn();
        let mut obs = (TraceObserver::default(), &mut *observer);
        let summary = game
            .play_checked_observed(pit, &mut obs)
            .map_err(|error| ReplayError { ply, error })?;
        let (trace, _) = obs;
        let pos = game.position();
        emit(
            TraceEvent::Move {
                round,
                ply,
                player,
                pit,
                laps: trace.laps,
                captures: trace.captures,
                endless: summary.endless,
                board: pos.board().to_vec(),
                reserve: pos.reserve(),
            },
            observer,
        );
        settle(&mut game, &mut emit, observer);
    }
    Ok(game)
}

/// Ends rounds while the side to move has no legal move (R10), emitting what follows each end:
/// the next round's start, or the match's end (R14).
fn settle<O>(game: &mut Game, emit: &mut impl FnMut(TraceEvent, &O), observer: &O) {
    while let Some(end) = game.settle() {
        emit(TraceEvent::round_end(&end), observer);
        match end.outcome {
            Some(outcome) => {
                emit(
                    TraceEvent::MatchEnd {
                        winner: outcome.winner(),
                        rounds: end.round,
                        holdings: end.holdings,
                    },
                    observer,
                );
                return;
            }
            None => emit(TraceEvent::round_start(game.round_start()), observer),
        }
    }
}
