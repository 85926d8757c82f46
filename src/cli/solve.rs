//! `rajapasu solve`: the exact perfect-play value of a round's start (docs/rules.md R15), its best
//! opening moves and the reachable positions; `--all-starts` for every open-pit configuration
//! and starter (a table and a heat map); `--match` for match states (R17); `--study` for the
//! perfect_play study. The jobs themselves: `app::solve`, `app::starts`, `app::perfect_match`,
//! `app::match_states`, `app::solve_spill`, `app::solve_study`.

mod args;
mod common;
mod match_solve;
mod round;
mod spill;
mod study;

pub use args::Args;

use super::CliError;

pub fn run(args: Args) -> Result<(), CliError> {
    let rules = args.rules.ruleset()?;
    let opts = common::options(&args)?;
    if args.study {
        return study::run(&args, rules, opts);
    }
    if args.all_starts {
        return round::all_starts(&args, rules, opts);
    }
    if args.perfect_match {
        return round::perfect_matches(&args, rules, opts);
    }
    if args.match_ {
        return match_solve::run(&args, rules, opts);
    }
    round::run(&args, rules, opts)
}
