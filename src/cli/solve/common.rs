//! What the modes of `rajapasu solve` share: the solver's options from the flags, progress
//! bars, errors as the command line reports them, and how numbers are written.

use indicatif::ProgressBar;

use super::args::Args;
use crate::app::solve::round::Solved;
use crate::cli::CliError;
use crate::engine::{BySide, Ruleset, Side};
use crate::exact::{MatchError, MatchProgress, Progress, SolveError, SolveOptions, SpillOptions};
use crate::io::Formats;
use crate::size::Size;

/// Maps a solver error: a board too large for the allowance is bad input (exit 2), the
/// allowance named by its flag.
pub(super) fn solve_error(e: SolveError) -> CliError {
    CliError::of(&e, e.describe(&crate::cli::setting))
}

/// [`solve_error`] for a mode that `--spill` can solve instead, which is offered.
pub(super) fn spillable_solve_error(e: SolveError) -> CliError {
    CliError::of(&e, e.describe(&crate::cli::solve_setting))
}

/// A progress bar of a solve on stderr when it is a terminal.
pub(super) struct SolveBar {
    pub(super) bar: ProgressBar,
    total_known: std::cell::Cell<bool>,
}

impl SolveBar {
    pub(super) fn new(label: &str, quiet: bool) -> SolveBar {
        SolveBar {
            bar: crate::cli::progress::positions_bar(label, quiet),
            total_known: std::cell::Cell::new(false),
        }
    }

    pub(super) fn update(&self, p: Progress) {
        if p.total > 0 && !self.total_known.replace(true) {
            self.bar.set_style(crate::cli::progress::positions_style(true));
            self.bar.set_length(p.total);
        }
        self.bar.set_position(p.done);
        self.bar.set_message(format!("{} level {} (counters on the board)", p.phase, p.level));
    }
}

/// A progress bar of a match table's solve on stderr when it is a terminal.
pub(super) struct MatchBar {
    pub(super) bar: ProgressBar,
    total_known: std::cell::Cell<bool>,
}

impl MatchBar {
    pub(super) fn new(rules: &Ruleset, quiet: bool) -> MatchBar {
        let label = format!("solve --match {}x{}", rules.pits_per_row, rules.seeds_per_pit);
        MatchBar {
            bar: crate::cli::progress::positions_bar(&label, quiet),
            total_known: std::cell::Cell::new(false),
        }
    }

    pub(super) fn update(&self, p: MatchProgress) {
        if !self.total_known.replace(true) {
            self.bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{prefix} [{elapsed_precise}] {wide_bar} {pos}/{len} round graphs, {msg}",
                )
                .expect("valid template"),
            );
        }
        self.bar.set_length(p.total);
        self.bar.set_position(p.done);
        self.bar.set_message(if p.phase == "enumerating" {
            let level =
                p.level.map_or(String::new(), |n| format!(", level {n} (counters on the board)"));
            format!("enumerating open pits {},{}{level}", p.open.0, p.open.1)
        } else {
            format!("states won within {} rounds, open pits {},{}", p.round, p.open.0, p.open.1)
        });
    }
}

/// The progress bar's label of a solve of the round start with `open` pits.
pub(super) fn start_label(rules: &Ruleset, open: BySide<u8>) -> String {
    format!(
        "solve {}x{} open {},{}",
        rules.pits_per_row,
        rules.seeds_per_pit,
        open[Side::South],
        open[Side::North]
    )
}

/// Solves the round start (`open`, `starter`) with a progress bar.
pub(super) fn solve_start(
    rules: Ruleset,
    open: BySide<u8>,
    starter: Side,
    opts: SolveOptions,
    quiet: bool,
) -> Result<Solved, SolveError> {
    let bar = SolveBar::new(&start_label(&rules, open), quiet);
    let solved =
        crate::app::solve::round::solve_start(rules, open, starter, opts, &mut |p| bar.update(p));
    bar.bar.finish_and_clear();
    solved
}

/// A match table's error: a board too large or a tables directory that is not the solver's
/// is bad input (exit 2), a failure while working exits 1.
/// `--spill` is offered unless the solve was spilled already.
pub(super) fn match_error(e: MatchError, spilled: bool) -> CliError {
    match_error_named(e, if spilled { &crate::cli::setting } else { &crate::cli::solve_setting })
}

/// [`match_error`], its settings named by `name` (`solve --study` offers no `--spill`).
pub(super) fn match_error_named(e: MatchError, name: crate::exact::Naming) -> CliError {
    CliError::of(&e, e.describe(name))
}

/// The bounds of `--spill` (`--max-memory`, `--max-disk`, `--max-levels`), checked.
pub(super) fn spill_options(args: &Args) -> Result<SpillOptions, CliError> {
    let max_disk = args.max_disk.map(Size::bytes);
    Ok(crate::app::solve::spill::spill_options(args.max_memory.bytes(), max_disk, args.max_levels)?)
}

pub(super) fn options(args: &Args) -> SolveOptions {
    SolveOptions {
        max_memory: args.max_memory.bytes(),
        keep_layers: false,
        max_positions: args.max_positions.unwrap_or(u64::MAX),
    }
}

pub(super) fn formats(args: &Args) -> Result<Formats, CliError> {
    args.format.parse::<Formats>().map_err(|e| CliError::usage(format!("--format: {e}")))
}

pub(super) use crate::app::solve::round::other_rules;

/// 1536 as "1.5 KiB".
pub(super) fn human_bytes(b: u64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < units.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{v:.1} {}", units[u])
    }
}
