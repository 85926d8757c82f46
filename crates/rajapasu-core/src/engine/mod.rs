//! The rules engine (docs/rules.md R1-R14). Depends on no I/O, plotting or CLI crate.

mod game;
mod moves;
mod perft;
mod pit;
mod position;
mod rng;
mod rules;
mod side;
mod switches;
pub mod trace;

pub use game::{Game, GameError, Outcome, RoundEnd, RoundStart};
pub use moves::{Capture, CaptureKind, IllegalReason, MoveObserver, MoveSummary, PlayError};
pub use perft::{perft, perft_divide};
pub use pit::{Pit, PitSet, MAX_PITS, MAX_PITS_PER_ROW};
pub use position::{Position, Setup, SetupError, UNCHECKED_LAPS};
pub use rng::{Rng, GENERATOR};
pub use rules::{
    short_hash, Endless, FinalFour, NextStarter, RuleError, Ruleset, MAX_ROUNDS_LIMIT, SWITCHES,
};
pub use side::{BySide, Side};
pub use switches::{switch_doc, SwitchDoc, SwitchPart, SwitchValues, SWITCH_DOCS};

#[cfg(test)]
mod tests;
