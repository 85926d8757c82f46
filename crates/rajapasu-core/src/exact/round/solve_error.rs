//! What every solver of rounds shares with its callers: why a solve failed, what it is doing,
//! and the watch that hears it and may stop it.

use std::ops::ControlFlow;

use crate::exact::setting::{Naming, Setting};

/// The most counters a solvable board may hold: values are stored in one signed byte.
pub const MAX_COUNTERS: u32 = 127;

/// Why a solve failed. The limits' messages name the setting through a [`Naming`]
/// ([`SolveError::describe`]); `Display` names it by its field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SolveError {
    MemoryLimit {
        limit: u64,
        needed: u64,
        positions: u64,
        counters: u32,
        phase: &'static str,
    },
    PositionLimit {
        limit: u64,
    },
    TooManyCounters {
        counters: u32,
    },
    MixedRoots,
    /// The solver numbers a level's boards in 63 bits (8x7, 9x5, 9x6 and 9x7 boards with every
    /// pit open do not fit; their reachable positions would exceed any memory anyway).
    TooManyArrangements {
        pits: usize,
        counters: u32,
    },
    /// The solver names things in 32 bits: `count` of `what` are more than it can name
    /// (`limit`). `what` is the nodes or moves of a round graph of the match solver ("nodes",
    /// "moves"), or the positions of a level of the enumeration ("positions of level 57").
    IndexLimit {
        what: String,
        count: u64,
        limit: u64,
    },
    /// Whoever watched the solve stopped it ([`Solution::solve_watched`]).
    Cancelled,
}

impl SolveError {
    /// The one memory check of every solve: `Err(MemoryLimit)` when the `needed` bytes exceed
    /// `limit`, naming the positions, the level (`counters`) and the step (`phase`) reached.
    pub(crate) fn within_memory(
        limit: u64,
        needed: u64,
        positions: u64,
        counters: u32,
        phase: &'static str,
    ) -> Result<(), SolveError> {
        if needed > limit {
            return Err(SolveError::MemoryLimit { limit, needed, positions, counters, phase });
        }
        Ok(())
    }

    /// The setting whose limit the solve met, if it met one.
    pub fn setting(&self) -> Option<Setting> {
        match self {
            SolveError::MemoryLimit { .. } => Some(Setting::MaxMemory),
            SolveError::PositionLimit { .. } => Some(Setting::MaxPositions),
            _ => None,
        }
    }

    /// The message, the setting at fault named by `name`.
    pub fn describe(&self, name: Naming) -> String {
        match self {
            SolveError::MemoryLimit { limit, needed, positions, counters, phase } => format!(
                "the board needs more than the allowed memory ({limit} bytes, {}): {positions} positions found so far, \
                 {counters} counters on the board at the level being {phase} and {needed} bytes in use; \
                 {}",
                name(Setting::MaxMemory),
                way_out(name)
            ),
            SolveError::PositionLimit { limit } => format!(
                "the board has more than {limit} reachable positions ({}); allow more or solve a smaller board",
                name(Setting::MaxPositions)
            ),
            SolveError::TooManyCounters { counters } => {
                format!("the board holds {counters} counters; the solver handles at most {MAX_COUNTERS} (values are stored in one byte)")
            }
            SolveError::MixedRoots => "the roots of one solve must share rules and open pits (R12)".to_string(),
            SolveError::TooManyArrangements { pits, counters } => format!(
                "a board of {pits} open pits and {counters} counters has more than 2^63 arrangements, more than the solver can number; \
                 solve a smaller board (fewer pits a row, counters a pit or open pits)"
            ),
            SolveError::IndexLimit { what, count, limit } => format!(
                "the solve would name {count} {what}, more than the {limit} its 32-bit indices can name; \
                 solve a smaller board (fewer pits a row, counters a pit or open pits)"
            ),
            SolveError::Cancelled => "the solve was cancelled".to_string(),
        }
    }
}

impl std::fmt::Display for SolveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe(&Setting::default_name))
    }
}

impl std::error::Error for SolveError {}

/// What a solve beyond its memory can do instead: the spilled solve where the front end offers it.
fn way_out(name: Naming) -> String {
    match name(Setting::Spill) {
        spill if spill.is_empty() => "allow more memory or solve a smaller board".to_string(),
        spill => format!("allow more memory, solve it with its levels on disk ({spill}), or solve a smaller board"),
    }
}

/// Hears a solve's progress; [`ControlFlow::Break`] stops it ([`SolveError::Cancelled`]).
pub type Watch<'a> = dyn FnMut(Progress) -> ControlFlow<()> + 'a;
/// A [`Watch`] that work spread over threads can share.
pub type SendWatch<'a> = dyn FnMut(Progress) -> ControlFlow<()> + Send + 'a;

/// What a solve is doing, for a progress display.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// "enumerating" (positions found so far, total unknown) or "solving" (positions solved of
    /// `total`).
    pub phase: &'static str,
    /// Counters on the board at the level being worked on.
    pub level: u32,
    pub done: u64,
    /// Positions to solve (0 while enumerating).
    pub total: u64,
}

#[cfg(test)]
mod tests {
    use super::SolveError;

    #[test]
    fn a_level_past_32_bits_names_the_level_the_count_and_the_limit() {
        let limit = u32::MAX as u64 + 1;
        let e = SolveError::IndexLimit {
            what: "positions of level 57".to_string(),
            count: limit + 64,
            limit,
        };
        let text = e.to_string();
        let want = format!("{} positions of level 57, more than the {limit}", limit + 64);
        assert!(text.contains(&want) && text.contains("smaller board"), "{text}");
    }
}
