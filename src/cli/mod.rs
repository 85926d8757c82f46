//! The command line: parsing into validated configurations, and errors mapped to exit codes in
//! one place. One file per subcommand.

mod analyse;
mod bench;
mod check_record;
mod dataset_errors;
mod metrics;
pub(crate) mod output;
mod perft;
mod plot;
pub(crate) mod progress;
mod replay;
mod run;
pub(crate) mod schema;
#[cfg(feature = "cli")]
mod serve;
mod show;
mod simulate;
mod solve;
mod summarize;
mod tournament;
mod verify;

use std::io::Write;

use clap::{Parser, Subcommand};

pub use dataset_errors::{study_error, Destination};

use crate::engine::Ruleset;

/// rajapasu: a research simulator for the mancala game Raja Pasu.
#[derive(Parser, Debug)]
#[command(name = "rajapasu", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Replay moves from the start of a match and print its trace as JSON Lines.
    Replay(replay::Args),
    /// Count legal move sequences inside round 1 (perft), depth 1..D.
    Perft(perft::Args),
    /// Measure the engine: random full matches per second on one thread, nothing recorded.
    Bench(bench::Args),
    /// Play seeded matches in parallel and write a dataset (Parquet and/or CSV).
    Simulate(simulate::Args),
    /// Summarize a dataset, or a study's directory of datasets.
    Summarize(summarize::Args),
    Metrics(metrics::Args),
    /// Draw the charts of a dataset or study as PNG and SVG.
    Plot(plot::Args),
    /// Run a study from an experiment file: datasets, summary and charts.
    Run(run::Args),
    /// Print the tables and columns of a dataset, with types and meanings.
    Schema(schema::Args),
    /// Write a match as a self-contained HTML page to watch it lap by lap (or one state as SVG).
    Show(show::Args),
    /// Check a dataset (or a study's datasets) file by file against its progress markers.
    Verify(verify::Args),
    /// Run a round robin from a tournament file and rate the players (Bradley-Terry, Elo scale).
    Tournament(tournament::Args),
    /// Solve a round exactly (R15): perfect-play value, best opening moves, reachable positions.
    Solve(solve::Args),
    /// Analyse one position: every legal move's exact round value (R15) and match value (R17).
    Analyse(analyse::Args),
    /// Check a recorded game (or a bare move list) against every reading of the rules.
    CheckRecord(check_record::Args),
    /// Serve the explorer page and its JSON API on this machine (docs/serve.md).
    #[cfg(feature = "cli")]
    Serve(serve::Args),
}

/// A failure, with the exit code it maps to.
#[derive(Debug)]
pub enum CliError {
    /// Bad input: arguments, rules, players, moves, files that are not what they should be (exit 2).
    Usage(String),
    /// Something failed while working (exit 1).
    Failed(String),
    /// The reader of our output went away (`| head`): not an error (exit 0).
    BrokenPipe,
}

impl CliError {
    pub fn usage(msg: impl std::fmt::Display) -> CliError {
        CliError::Usage(msg.to_string())
    }
    pub fn failed(msg: impl std::fmt::Display) -> CliError {
        CliError::Failed(msg.to_string())
    }
}

/// A dataset's error, worded for `simulate --out` where a destination matters
/// ([`dataset_errors::dataset_error`] words it for a study's datasets).
impl From<crate::io::DatasetError> for CliError {
    fn from(e: crate::io::DatasetError) -> CliError {
        dataset_errors::dataset_error(e, &Destination::Out)
    }
}

impl From<crate::io::lock::LockError> for CliError {
    fn from(e: crate::io::lock::LockError) -> CliError {
        crate::io::DatasetError::Lock(e).into()
    }
}

/// A run that stopped: the dataset's error, or a player that could not decide (exit 1; the
/// failed batch was not written, and `--resume` continues the run).
impl From<crate::sim::RunError<crate::io::DatasetError>> for CliError {
    fn from(e: crate::sim::RunError<crate::io::DatasetError>) -> CliError {
        match e {
            crate::sim::RunError::Sink(e) => e.into(),
            crate::sim::RunError::Match(e) => CliError::Failed(format!("{e}; nothing of its batch was written")),
        }
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> CliError {
        CliError::Failed(e.to_string())
    }
}

/// A request's field as the command line names it: its flag, and what follows the flag in a
/// message about it (the one place where the application layer's fields become flags).
const FLAGS: [(&str, &str, &str); 13] = [
    ("matches", "--matches", " "),
    ("batch_size", "--batch-size", " "),
    ("threads", "--threads", ": "),
    ("rules", "--rule", ": "),
    ("open", "--open", ": "),
    ("holdings", "--holdings", ": "),
    ("starter", "--starter", ": "),
    ("max_memory", "--max-memory", ": "),
    ("max_iterations", "--max-iterations", ": "),
    ("format", "--format", ": "),
    ("out_root", "--out-root", ": "),
    ("resamples", "--resamples", ": "),
    ("max_positions", "--max-positions", ": "),
];

/// The command line's flag for a request's field (the field itself if it has none).
pub(crate) fn flag(field: &str) -> &str {
    FLAGS.iter().find(|(f, _, _)| *f == field).map_or(field, |(_, flag, _)| flag)
}

/// A bad request as the command line reports it: the flag in place of the field (exit 2).
pub(crate) fn field_error(e: crate::app::FieldError) -> CliError {
    let separator = FLAGS.iter().find(|(f, _, _)| *f == e.field).map_or(": ", |(_, _, sep)| sep);
    CliError::Usage(format!("{}{separator}{}", flag(e.field), e.message))
}

/// A bad request about a value the user typed as `given` (e.g. `--open 4,1: ...`).
pub(crate) fn given_field_error(e: crate::app::FieldError, given: &str) -> CliError {
    CliError::Usage(format!("{} {given}: {}", flag(e.field), e.message))
}

/// The `--rule name=value` options shared by the subcommands that play.
#[derive(clap::Args, Debug)]
pub struct RuleArgs {
    /// A rule switch, name=value (repeatable), e.g. --rule final_four=stays (see docs/rules.md).
    #[arg(long = "rule", value_name = "NAME=VALUE")]
    rules: Vec<String>,
}

impl RuleArgs {
    /// The ruleset: the switches given on top of the default ones.
    pub fn ruleset(&self) -> Result<Ruleset, CliError> {
        check_distinct_rules(&self.rules).map_err(|e| CliError::usage(format!("--rule: {e}")))?;
        Ruleset::from_assignments(self.rules.iter().map(String::as_str)).map_err(|e| CliError::usage(format!("--rule: {e}")))
    }
}

/// A switch given twice is an error (the last one would silently win).
fn check_distinct_rules(assignments: &[String]) -> Result<(), String> {
    let name = |a: &str| a.split_once('=').map_or(a, |(n, _)| n).trim().to_string();
    for (i, a) in assignments.iter().enumerate() {
        if let Some(earlier) = assignments[..i].iter().find(|b| name(b) == name(a)) {
            return Err(format!("switch `{}` is given twice ({earlier} and {a}); give each switch at most once", name(a)));
        }
    }
    Ok(())
}

/// Runs the command line; returns the process exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    let result = match cli.command {
        Command::Replay(a) => replay::run(a),
        Command::Perft(a) => perft::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Simulate(a) => simulate::run(a),
        Command::Summarize(a) => summarize::run(a),
        Command::Metrics(a) => metrics::run(a),
        Command::Plot(a) => plot::run(a),
        Command::Run(a) => run::run(a),
        Command::Schema(a) => schema::run(a),
        Command::Show(a) => show::run(a),
        Command::Verify(a) => verify::run(a),
        Command::Tournament(a) => tournament::run(a),
        Command::Solve(a) => solve::run(a),
        Command::Analyse(a) => analyse::run(a),
        Command::CheckRecord(a) => check_record::run(a),
        #[cfg(feature = "cli")]
        Command::Serve(a) => serve::run_command(a),
    };
    match result {
        Ok(()) => 0,
        Err(CliError::Usage(msg)) => {
            let _ = writeln!(std::io::stderr(), "error: {msg}");
            2
        }
        Err(CliError::BrokenPipe) => 0,
        Err(CliError::Failed(msg)) => {
            let _ = writeln!(std::io::stderr(), "error: {msg}");
            1
        }
    }
}

/// An error writing to stdout; a closed pipe (`| head`) ends the output quietly.
pub(crate) fn stdout_error(e: std::io::Error) -> CliError {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        CliError::BrokenPipe
    } else {
        CliError::Failed(format!("cannot write to stdout: {e}"))
    }
}

/// The command line as typed, for manifests.
pub(crate) fn command_line() -> String {
    std::env::args().collect::<Vec<_>>().join(" ")
}
