//! `rajapasu solve` of rounds (R15): one round start, `--all-starts` (the `starts` table and its
//! heat map) and `--perfect-match` (a match of perfectly played rounds).

use super::args::Args;
use super::common::{
    formats, human_bytes, other_rules, solve_error, solve_start, spillable_solve_error,
    start_label, SolveBar,
};
use crate::app::solve::all_starts::{starts_json, StartsError, StartsEvent, StartsRequest};
use crate::app::solve::perfect_match::{describe_chain, matches_json, play_spilled};
use crate::app::solve::round::{outcome, round_open, solved_json};
use crate::app::solve::spill::spill_options;
use crate::cli::output::Output;
use crate::cli::CliError;
use crate::engine::{BySide, Ruleset, Side};
use crate::exact::{PerfectMatch, SolveOptions};
use crate::process::peak_rss;
use crate::size::Size;

use super::args::Mode;

/// Parses `--open S,N` (checked against the board by the request).
fn parse_pair(text: &str, rules: &Ruleset) -> Result<BySide<u8>, CliError> {
    let p = rules.pits_per_row;
    let bad = |why: String| CliError::usage(format!("--open {text}: {why}"));
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let [s, n] = parts.as_slice() else {
        return Err(bad(format!("expected S,N, the open pits of South and North, each 1..={p}")));
    };
    let num = |x: &str| {
        x.parse::<u8>().map_err(|_| {
            bad(format!("'{x}' is not a number of pits; each side opens 1..={p} pits"))
        })
    };
    Ok(BySide::new(num(s)?, num(n)?))
}

/// One round start: in memory, or with its levels on disk (`mode` [`Mode::Spill`]).
pub(super) fn run(
    args: &Args,
    rules: Ruleset,
    opts: SolveOptions,
    mode: Mode,
) -> Result<(), CliError> {
    let open = args.open.as_deref().map(|text| parse_pair(text, &rules)).transpose()?;
    let open = round_open(&rules, open)
        .map_err(|e| crate::cli::given_field_error(e, args.open.as_deref().unwrap_or_default()))?;
    if mode == Mode::Spill {
        return super::spill::run(args, rules, open);
    }
    let starter: Side = args
        .starter
        .parse()
        .map_err(|_| CliError::usage("--starter both needs --spill; otherwise south or north"))?;
    let p = rules.pits_per_row;
    let solved = solve_start(rules, open, starter, opts, args.quiet || args.json)
        .map_err(spillable_solve_error)?;
    let st = &solved.stats;
    let best: Vec<usize> = solved.best_moves.iter().map(|p| p.index()).collect();
    let rss = peak_rss();
    let mut out = Output::lines();
    if args.json {
        let v = solved_json(&rules, &solved, rss);
        out.line(format_args!("{v}"))?;
        return out.finish();
    }
    let text = format!(
        "rules: {} (besides the board)\nround start: {} pits a row, {} counters a pit; open pits south {} north {}; {} to move\n\
         value: {} for {} ({})\nbest moves: {}\npositions: {}\n\
         time: {:.3} s (enumerate {:.3} s, solve {:.3} s), {:.0} positions/s\n\
         memory: tables {} ({:.2} bytes/position), solver peak {}, process peak {}\n",
        other_rules(&rules),
        p,
        rules.seeds_per_pit,
        open[Side::South],
        open[Side::North],
        starter,
        solved.value,
        starter,
        outcome(solved.value).replace('_', " "),
        if best.is_empty() { "none (no legal move)".to_string() } else { solved.best_moves.to_string() },
        st.positions,
        st.seconds(),
        st.enumerate_seconds,
        st.solve_seconds,
        st.positions_per_second(),
        human_bytes(st.table_bytes),
        st.bytes_per_position(),
        human_bytes(st.peak_bytes),
        rss.map_or("unknown".to_string(), human_bytes),
    );
    out.text(&text)?;
    out.finish()
}

/// `--perfect-match`: both tie-breaks' matches, each printed as it is played (the job:
/// `app::solve::perfect_match`); with `--spill` the rounds on disk, printed once both are played.
pub(super) fn perfect_matches(
    args: &Args,
    rules: Ruleset,
    opts: SolveOptions,
) -> Result<(), CliError> {
    let first: Side = args.starter.parse().map_err(CliError::usage)?;
    let mut out = Output::lines();
    let mut all = Vec::new();
    if args.spill {
        let tables = crate::cli::tables_dir(args.tables.as_deref())?;
        let spill_opts =
            spill_options(args.max_memory.bytes(), args.max_disk.map(Size::bytes), None)?;
        let bar = SolveBar::new(
            &format!(
                "solve --perfect-match --spill {}x{}",
                rules.pits_per_row, rules.seeds_per_pit
            ),
            args.quiet || args.json,
        );
        let played = play_spilled(rules, first, spill_opts, &tables, &mut |_, p| bar.update(p));
        bar.bar.finish_and_clear();
        for m in played.map_err(|e| CliError::of(&e, e.describe(&crate::cli::setting)))? {
            print_match(args, &mut out, &m, first)?;
            all.push(m);
        }
    } else {
        for m in crate::app::solve::perfect_match::play(rules, first, opts) {
            let m = m.map_err(solve_error)?;
            print_match(args, &mut out, &m, first)?;
            all.push(m);
        }
    }
    if args.json {
        out.line(format_args!("{}", matches_json(&rules, &all)))?;
    } else {
        let same = all[0].outcome.label(first) == all[1].outcome.label(first);
        out.line(format_args!(
            "the tie-break {} the outcome",
            if same { "does not change" } else { "changes" }
        ))?;
    }
    out.finish()
}

/// One match's rounds and outcome as text (nothing with `--json`: the matches come at the end).
fn print_match(
    args: &Args,
    out: &mut Output,
    m: &PerfectMatch,
    first: Side,
) -> Result<(), CliError> {
    if args.json {
        return Ok(());
    }
    out.line(format_args!(
        "ties broken by the {} local pit; {first} starts round 1",
        m.tie.name()
    ))?;
    out.line(format_args!("round starter open(S,N) holdings(S,N) value captured(S,N) moves"))?;
    for r in &m.rounds {
        out.line(format_args!(
            "{} {} {},{} {},{} {:+} {},{} {}",
            r.round,
            r.starter,
            r.open[Side::South],
            r.open[Side::North],
            r.holdings[Side::South],
            r.holdings[Side::North],
            r.value,
            r.captured[Side::South],
            r.captured[Side::North],
            r.moves
        ))?;
    }
    out.line(format_args!("outcome: {}\n", describe_chain(m.outcome, first)))
}

/// `--all-starts`: every start solved (the job: `app::solve::all_starts`), each printed as it is solved.
pub(super) fn all_starts(args: &Args, rules: Ruleset, opts: SolveOptions) -> Result<(), CliError> {
    let out_dir = args.out.clone().expect("clap requires --out");
    let request = StartsRequest {
        rules,
        opts,
        out: out_dir,
        format: formats(args)?,
        command: crate::cli::command_line(),
    };
    let mut out = Output::progress();
    let mut bar: Option<SolveBar> = None;
    // The header comes once the board is known to be within the solver's limits.
    let mut printed = if args.json { Ok(()) } else { Err(None) };
    let done = crate::app::solve::all_starts::run(&request, &mut |event| match event {
        StartsEvent::Solving { open, starter: _ } => {
            if let Err(None) = printed {
                printed = out
                    .line(
                        "south_open north_open starter value outcome best_moves positions seconds",
                    )
                    .map_err(Some);
            }
            bar = Some(SolveBar::new(&start_label(&rules, open), args.quiet));
        }
        StartsEvent::Progress(p) => bar.iter().for_each(|b| b.update(p)),
        StartsEvent::Solved(solved) => {
            bar.take().iter().for_each(|b| b.bar.finish_and_clear());
            if !args.json && printed.is_ok() {
                printed = out
                    .line(format_args!(
                        "{} {} {} {} {} {} {} {:.3}",
                        solved.open[Side::South],
                        solved.open[Side::North],
                        solved.starter,
                        solved.value,
                        outcome(solved.value),
                        if solved.best_moves.is_empty() {
                            "-".into()
                        } else {
                            solved.best_moves.to_string()
                        },
                        solved.stats.positions,
                        solved.stats.seconds()
                    ))
                    .map_err(Some);
            }
        }
    });
    bar.take().iter().for_each(|b| b.bar.finish_and_clear());
    if let Err(Some(e)) = printed {
        return Err(e);
    }
    let done = done.map_err(|e| match e {
        StartsError::Solve(e) => solve_error(e),
        e @ StartsError::Failed(_) => CliError::of(&e, &e),
    })?;
    if args.json {
        out.line(format_args!("{}", starts_json(&rules, &done)))?;
    } else {
        out.line(format_args!(
            "{} round starts solved in {:.2} s; wrote:",
            done.rows.len(),
            done.seconds
        ))?;
        for w in &done.written {
            out.line(format_args!("  {}", w.display()))?;
        }
    }
    out.finish()
}
