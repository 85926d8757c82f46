//! `rajapasu solve --study --out DIR`: the perfect_play study (the job: `app::solve::perfect_play`),
//! each board printed as a table row as it is done.

use std::ops::ControlFlow;

use super::args::Args;
use super::common::{formats, human_bytes, match_error_named, start_label, MatchBar, SolveBar};
use crate::app::solve::perfect_play::{
    BoardRow, FrontierRow, PerfectPlayError, PerfectPlayEvent, PerfectPlayRequest, PerfectPlayStudy,
};
use crate::app::FieldError;
use crate::cli::output::Output;
use crate::cli::CliError;
use crate::engine::{BySide, Ruleset};
use crate::exact::{ExactStore, SolveOptions, StoreSettings};
use crate::process::peak_rss;

fn study_error(e: PerfectPlayError) -> CliError {
    match e {
        PerfectPlayError::Field(e) => field_error(e),
        PerfectPlayError::Match(e) => match_error_named(e, &crate::cli::setting),
        e => CliError::of(&e, &e),
    }
}

/// A bad request as `--FLAG: message`.
fn field_error(e: FieldError) -> CliError {
    CliError::usage(format!("{}: {}", crate::cli::flags::flag(e.field), e.message))
}

/// The study of the flags, checked.
fn study(args: &Args, rules: Ruleset, opts: SolveOptions) -> Result<PerfectPlayStudy, CliError> {
    let request = PerfectPlayRequest {
        rules,
        max_pits_per_row: args.study_pits,
        max_seeds_per_pit: args.study_seeds,
        max_memory: opts.max_memory,
        max_positions: args.max_positions,
        matches: args.matches,
        seed: args.seed,
        out: args.out.clone().expect("clap requires --out"),
        format: formats(args)?,
        command: crate::cli::command_line(),
        tables_source: "the tables directory (--tables)".to_string(),
    };
    request.validate().map_err(field_error)
}

pub(super) fn run(args: &Args, rules: Ruleset, opts: SolveOptions) -> Result<(), CliError> {
    let study = study(args, rules, opts)?;
    // Without a tables directory the study goes on without match values.
    let store = crate::exact::tables_dir(args.tables.as_deref()).ok().map(|tables| {
        ExactStore::new(StoreSettings {
            tables,
            solve: study.request().solve_options(),
            ..StoreSettings::default()
        })
    });
    let mut out = Output::progress();
    let (mut printed, mut round_bar, mut match_bar) = (Ok(()), None::<SolveBar>, None::<MatchBar>);
    let done = crate::app::solve::perfect_play::run(&study, store.as_ref(), &mut |event| {
        match event {
            PerfectPlayEvent::Started => printed = header(&mut out),
            PerfectPlayEvent::Solving(r) => {
                round_bar =
                    Some(SolveBar::new(&start_label(&r, BySide::splat(r.pits_per_row)), args.quiet))
            }
            PerfectPlayEvent::Progress(p) => round_bar.iter().for_each(|b| b.update(p)),
            PerfectPlayEvent::Solved => {
                round_bar.take().iter().for_each(|b| b.bar.finish_and_clear())
            }
            PerfectPlayEvent::MatchTable(r) => match_bar = Some(MatchBar::new(&r, args.quiet)),
            PerfectPlayEvent::MatchProgress(p) => match_bar.iter().for_each(|b| b.update(p)),
            PerfectPlayEvent::Board { row, frontier } => {
                match_bar.take().iter().for_each(|b| b.bar.finish_and_clear());
                printed = out.line(board_line(row, frontier));
            }
        }
        if printed.is_ok() {
            ControlFlow::Continue(())
        } else {
            ControlFlow::Break(())
        }
    });
    round_bar.iter().for_each(|b| b.bar.finish_and_clear());
    match_bar.iter().for_each(|b| b.bar.finish_and_clear());
    printed?;
    let done = done.map_err(study_error)?;
    out.line(format_args!(
        "\n{} of {} boards solved in {:.1} s (process peak memory {}); wrote:",
        done.boards_solved(),
        done.rows.len(),
        done.seconds,
        peak_rss().map_or("unknown".into(), human_bytes)
    ))?;
    for w in &done.written {
        out.line(format_args!("  {}", w.display()))?;
    }
    out.finish()
}

fn header(out: &mut Output) -> Result<(), CliError> {
    out.line("| board | counters | perfect-play value | outcome | best moves | positions | random play: starter wins round 1 | match (lowest / highest) | perfect match | seconds |")?;
    out.line("|---|---|---|---|---|---|---|---|---|---|")
}

/// A board's row of the table printed as the study goes.
fn board_line(row: &BoardRow, frontier: Option<&FrontierRow>) -> String {
    let cell = |v: Option<String>| v.unwrap_or_else(|| "-".into());
    let chain = |c: Option<(&str, u32)>| {
        cell(c.map(|(outcome, rounds)| format!("{outcome} ({rounds} rounds)")))
    };
    let perfect_match = row.match_value.map(|v| {
        format!("{v}{}", row.match_rounds.map_or(String::new(), |k| format!(" ({k} rounds)")))
    });
    format!(
        "| {}x{} | {} | {} | {} | {} | {} | {:.1}% ({:.1}..{:.1}) | {} / {} | {} | {} |",
        row.pits_per_row,
        row.seeds_per_pit,
        row.counters,
        row.value.map_or("beyond limit".into(), |v| format!("{v:+}")),
        cell(row.outcome.map(|o| o.replace('_', " "))),
        cell(row.best_moves.clone()),
        cell(row.positions.map(|n| n.to_string())),
        100.0 * row.random_round1_starter_win_rate,
        100.0 * row.random_ci_low,
        100.0 * row.random_ci_high,
        chain(row.match_lowest.zip(row.match_lowest_rounds)),
        chain(row.match_highest.zip(row.match_highest_rounds)),
        cell(perfect_match),
        cell(frontier.map(|f| format!("{:.2}", f.seconds))),
    )
}
