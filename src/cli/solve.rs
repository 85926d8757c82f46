//! `rajapasu solve`: the exact perfect-play value of a round's start (docs/rules.md R15), its best
//! opening moves and the reachable positions; `--all-starts` for every open-pit configuration
//! and starter (a table and a heat map); `--match` for match states (R17); `--study` for the
//! perfect_play study, each mode resolved once from the flags (`args::Mode`). The jobs
//! themselves: `app::solve`.

mod args;
mod common;
mod match_solve;
mod round;
mod spill;
mod study;

pub use args::Args;
use args::Mode;

use super::CliError;

/// Whether the command solves one round start in memory (no `--spill`, match or study): the
/// binary keeps that solve's freed pages (src/main.rs).
pub(super) fn one_round_in_memory(args: &Args) -> bool {
    args.mode() == Mode::Round
}

pub fn run(args: Args) -> Result<(), CliError> {
    let rules = args.rules.ruleset()?;
    let opts = common::options(&args);
    match args.mode() {
        Mode::Study => study::run(&args, rules, opts),
        Mode::AllStarts => round::all_starts(&args, rules, opts),
        Mode::PerfectMatch => round::perfect_matches(&args, rules, opts),
        mode @ (Mode::Match | Mode::AllStates) => match_solve::run(&args, rules, opts, mode),
        mode @ (Mode::Round | Mode::Spill) => round::run(&args, rules, opts, mode),
    }
}
