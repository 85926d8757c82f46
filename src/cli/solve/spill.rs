//! `rajapasu solve --spill`: a round start solved (R15) with its levels on disk (the job:
//! `app::solve::spill`); `--count-only` stops after the enumeration, the figures of
//! docs/performance.md.

use super::args::Args;
use super::common::{human_bytes, SolveBar};
use crate::app::solve::round::outcome;
use crate::app::solve::spill::{spill_json, SpillRequest, SpillSolved, Starters};
use crate::cli::output::Output;
use crate::cli::CliError;
use crate::engine::{BySide, Ruleset, Side};
use crate::exact::SpillError;
use crate::process::peak_rss;
use crate::size::Size;

fn spill_error(e: SpillError) -> CliError {
    CliError::of(&e, e.describe(&crate::cli::setting))
}

/// The request of the flags, for the round start with `open` pits (checked).
fn request(args: &Args, rules: Ruleset, open: BySide<u8>) -> Result<SpillRequest, CliError> {
    let starters = match args.starter.as_str() {
        "both" => Starters::Both,
        s => Starters::One(s.parse().map_err(CliError::usage)?),
    };
    Ok(SpillRequest {
        rules,
        open: Some(open),
        starters,
        max_memory: args.max_memory.bytes(),
        max_disk: args.max_disk.map(Size::bytes),
        max_levels: args.max_levels,
        count_only: args.count_only,
        tables: crate::cli::tables_dir(args.tables.as_deref())?,
    })
}

pub(super) fn run(args: &Args, rules: Ruleset, open: BySide<u8>) -> Result<(), CliError> {
    let job = request(args, rules, open)?.validate()?;
    let bar = SolveBar::new(
        &format!(
            "solve --spill {}x{} open {},{}",
            rules.pits_per_row,
            rules.seeds_per_pit,
            open[Side::South],
            open[Side::North]
        ),
        args.quiet || args.json,
    );
    let solved = crate::app::solve::spill::run(&job, &mut |p| bar.update(p));
    bar.bar.finish_and_clear();
    let solved = solved.map_err(spill_error)?;
    let rss = peak_rss();
    let mut out = Output::lines();
    if args.json {
        out.line(format_args!("{}", spill_json(&rules, &solved, rss)))?;
    } else {
        print_text(&mut out, &solved, rss)?;
    }
    out.finish()
}

/// The starts' values, the figures by level (highest first) and the totals.
fn print_text(out: &mut Output, solved: &SpillSolved, rss: Option<u64>) -> Result<(), CliError> {
    for s in &solved.starts {
        out.line(format_args!(
            "{} starts: value {} ({}), best moves: {}",
            s.starter,
            s.value,
            outcome(s.value).replace('_', " "),
            if s.best_moves.is_empty() {
                "none (no legal move)".to_string()
            } else {
                s.best_moves.to_string()
            }
        ))?;
    }
    out.line(format_args!("level positions(S,N) quiet_moves exits file_bytes bytes/position peak_memory enumerate_s solve_s"))?;
    for f in solved.figures.iter().rev() {
        out.line(format_args!(
            "{} {},{} {} {} {} {:.2} {} {:.1} {:.1}",
            f.level,
            f.positions[0],
            f.positions[1],
            f.quiet_moves,
            f.exits,
            f.positions_bytes + f.values_bytes,
            (f.positions_bytes + f.values_bytes) as f64 / f.count().max(1) as f64,
            f.enumerate_peak_bytes.max(f.solve_peak_bytes),
            f.enumerate_seconds,
            f.solve_seconds
        ))?;
    }
    let (positions, quiet, exits) = solved.totals();
    out.line(format_args!(
        "positions: {positions}, moves {} ({quiet} quiet, {exits} exits and ends)\ntime: {:.1} s this run\n\
         disk: {} in {}\nmemory: solver peak {} (this run), process peak {}",
        quiet + exits,
        solved.seconds,
        human_bytes(solved.disk_bytes),
        solved.dir.display(),
        human_bytes(solved.peak_bytes),
        rss.map_or("unknown".to_string(), human_bytes),
    ))
}
