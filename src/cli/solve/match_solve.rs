//! `rajapasu solve --match`: the perfect-match value of a match state (R17), its rounds and
//! best opening moves; `--all-states --out DIR` for every match state of a board (the
//! `match_states` table and the match-equity chart). The table of every state is solved once
//! and kept in the tables directory (`--tables DIR`, see `exact::default_tables_dir`), where
//! an interrupted solve continues from its checkpoint.

use super::args::Args;
use super::common::{formats, human_bytes, match_error, other_rules, spill_options, MatchBar};
use crate::app::solve::all_states::{match_states_json, MatchStatesError, MatchStatesRequest};
use crate::app::solve::match_value::{match_solved_json, solve_match, MatchRequest};
use crate::cli::output::Output;
use crate::cli::CliError;
use crate::engine::{BySide, Ruleset, Side};
use crate::exact::{open_pits, ExactStore, MatchProgress, SolveOptions, StoreSettings};
use crate::process::peak_rss;

use super::args::Mode;

/// Parses `--holdings S,N` (checked against the board by the request).
fn parse_holdings(text: &str, rules: &Ruleset) -> Result<BySide<u32>, CliError> {
    let total = rules.total_counters();
    let bad = |why: String| CliError::usage(format!("--holdings {text}: {why}"));
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let [south, north] = parts.as_slice() else {
        return Err(bad(format!(
            "expected S,N, the holdings of South and North, summing to {total}"
        )));
    };
    let num =
        |x: &str| x.parse::<u32>().map_err(|_| bad(format!("'{x}' is not a number of counters")));
    Ok(BySide::new(num(south)?, num(north)?))
}

/// The store of this command's match table: solved with its round graphs on disk under
/// `--spill`, within `--max-memory`, `--max-disk` and `--max-levels`.
fn match_store(args: &Args, opts: SolveOptions) -> Result<ExactStore, CliError> {
    let spill = args.spill.then(|| spill_options(args)).transpose()?;
    let tables = crate::cli::tables_dir(args.tables.as_deref())?;
    Ok(ExactStore::new(StoreSettings { tables, solve: opts, spill, ..StoreSettings::default() }))
}

/// Runs `solve` with a progress bar of a match table's solve on stderr when it is a terminal;
/// `report` is its progress callback.
fn with_bar<T>(
    rules: &Ruleset,
    quiet: bool,
    solve: impl FnOnce(&mut dyn FnMut(MatchProgress)) -> T,
) -> T {
    let bar = MatchBar::new(rules, quiet);
    let result = solve(&mut |p| bar.update(p));
    bar.bar.finish_and_clear();
    result
}

/// One match state, or every state of the board (`mode` [`Mode::AllStates`]).
pub(super) fn run(
    args: &Args,
    rules: Ruleset,
    opts: SolveOptions,
    mode: Mode,
) -> Result<(), CliError> {
    let holdings = args.holdings.as_deref().map(|text| parse_holdings(text, &rules)).transpose()?;
    let starter: Side = args.starter.parse().map_err(CliError::usage)?;
    let request = MatchRequest { rules, holdings, starter, max_iterations: args.max_iterations };
    let job = request.validate().map_err(|e| {
        crate::cli::given_field_error(e, args.holdings.as_deref().unwrap_or_default())
    })?;
    if mode == Mode::AllStates {
        return all_states(args, rules, opts);
    }
    let holdings = job.state.holdings;
    let store = match_store(args, opts)?;
    let solved =
        with_bar(&rules, args.quiet || args.json, |report| solve_match(&store, &job, report))
            .map_err(|e| match_error(e, args.spill))?;
    let mut out = Output::lines();
    if args.json {
        out.line(format_args!("{}", match_solved_json(&rules, &solved, peak_rss())))?;
        return out.finish();
    }
    let (v, st, path, cached) = (&solved.value, &solved.stats, &solved.table, solved.cached);
    let best: Vec<usize> = v.best_moves.iter().map(|p| p.index()).collect();
    let open = open_pits(&rules, holdings[Side::South]);
    let rounds = match v.rounds {
        Some(k) => format!(" in {k} round{}", if k == 1 { "" } else { "s" }),
        None => String::new(),
    };
    let text = format!(
        "rules: {} (besides the board)\nmatch state: {} pits a row, {} counters a pit; holdings south {} north {} (open pits {},{}); {} starts\n\
         match value: {} for {}{} (R17)\nbest moves: {}\n\
         table: {} ({})\n",
        other_rules(&rules),
        rules.pits_per_row,
        rules.seeds_per_pit,
        holdings[Side::South],
        holdings[Side::North],
        open[Side::South],
        open[Side::North],
        starter,
        v.value,
        starter,
        rounds,
        if best.is_empty() { "none (no legal move)".to_string() } else { v.best_moves.to_string() },
        path.display(),
        if cached { "read from disk".to_string() } else { format!("solved in {:.2} s", solved.seconds) },
    );
    out.text(&text)?;
    if !cached {
        // Spilled, the graphs were files (removed now), and the peak is one level's.
        let graphs = if args.spill { "graphs on disk" } else { "memory: graphs" };
        out.line(format_args!("solve: {} round graphs, {} round positions, {} match positions, {} iterations; {:.0} match positions/s; {graphs} {}, peak {} ({:.1} bytes/round position), process peak {}",
            st.graphs,
            st.positions,
            st.match_positions,
            st.iterations,
            st.positions_per_second(),
            human_bytes(st.graph_bytes),
            human_bytes(st.peak_bytes),
            st.bytes_per_position(),
            peak_rss().map_or("unknown".to_string(), human_bytes),
        ))?;
    }
    out.finish()
}

/// `--all-states`: every match state into `--out` (the job: `app::solve::all_states`).
fn all_states(args: &Args, rules: Ruleset, opts: SolveOptions) -> Result<(), CliError> {
    let out_dir = args.out.clone().expect("clap requires --out");
    let request = MatchStatesRequest {
        rules,
        max_iterations: args.max_iterations,
        out: out_dir,
        format: formats(args)?,
        command: crate::cli::command_line(),
    };
    let store = match_store(args, opts)?;
    let solved = with_bar(&rules, args.quiet, |report| {
        crate::app::solve::all_states::run(&store, &request, report)
    })
    .map_err(|e| match e {
        MatchStatesError::Field(e) => crate::cli::field_error(e),
        MatchStatesError::Match(e) => match_error(e, args.spill),
        e @ MatchStatesError::Failed(_) => CliError::of(&e, &e),
    })?;
    let mut out = Output::lines();
    if args.json {
        out.line(format_args!("{}", match_states_json(&rules, &solved)))?;
        return out.finish();
    }
    let first = &solved.first;
    out.line(format_args!(
        "{} match states solved ({}); the match: {} for the first player{}; wrote:",
        solved.table.states().len(),
        if solved.cached {
            "table read from disk".to_string()
        } else {
            format!("{:.2} s", solved.seconds)
        },
        first.value,
        first.rounds.map_or(String::new(), |k| format!(" in {k} rounds"))
    ))?;
    for w in &solved.written {
        out.line(format_args!("  {}", w.display()))?;
    }
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holdings_are_parsed_and_checked_against_the_board() {
        let r = Ruleset { pits_per_row: 3, seeds_per_pit: 2, ..Ruleset::default() };
        assert_eq!(parse_holdings("5, 7", &r).unwrap(), BySide::new(5, 7));
        for (bad, why) in [("5", "expected S,N"), ("a,7", "'a' is not")] {
            let Err(CliError::Usage(e)) = parse_holdings(bad, &r) else {
                panic!("{bad}: not a usage error")
            };
            assert!(e.contains(why) && e.starts_with(&format!("--holdings {bad}: ")), "{bad}: {e}");
        }
        let request = MatchRequest {
            rules: r,
            holdings: Some(BySide::new(5, 6)),
            starter: Side::South,
            max_iterations: None,
        };
        let CliError::Usage(e) =
            crate::cli::given_field_error(request.validate().unwrap_err(), "5,6")
        else {
            panic!()
        };
        assert!(e.starts_with("--holdings 5,6: the holdings sum to 11"), "{e}");
    }
}
