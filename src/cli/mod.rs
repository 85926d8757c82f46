//! The command line: parsing into validated configurations, and errors mapped to exit codes in
//! one place. One file per subcommand.

mod analyse;
mod bench;
mod check_record;
mod dataset_errors;
mod error;
mod flags;
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
mod solve_cluster;
mod summarize;
mod tournament;
mod verify;

use std::io::Write;

use clap::{Parser, Subcommand};

pub use dataset_errors::study_error;
pub(crate) use error::stdout_error;
pub use error::CliError;
pub use flags::RuleArgs;
pub(crate) use flags::{
    command_line, field_error, flag, given_field_error, setting, solve_setting, tables_dir,
};

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
    /// Measure a dataset's or study's games by Ludii-style metrics (drama, lead changes, ...).
    Metrics(metrics::Args),
    /// Draw the charts of a dataset or study as PNG and SVG.
    Plot(plot::Args),
    /// Run a study from an experiment file: datasets, summary and charts.
    Run(run::Args),
    /// Print the tables and columns of a dataset, with types and meanings.
    Schema(schema::Args),
    /// Write a match as a self-contained HTML page to watch it lap by lap (or one state as SVG).
    Show(show::Args),
    /// Check a dataset (or a study's datasets) file by file, or a tables directory's match tables.
    Verify(verify::Args),
    /// Run a round robin from a tournament file and rate the players (Bradley-Terry, Elo scale).
    Tournament(tournament::Args),
    /// Solve exactly: a round (R15) or, with --match, the match (R17); values and best moves.
    Solve(solve::Args),
    /// Solve the match table (R17) as steps of tasks over a shared directory (a Slurm cluster).
    SolveCluster(solve_cluster::Args),
    /// Analyse one position: every legal move's exact round value (R15) and match value (R17).
    Analyse(analyse::Args),
    /// Check a recorded game (or a bare move list) against every reading of the rules.
    CheckRecord(check_record::Args),
    /// Serve the explorer page and its JSON API on this machine (docs/serve.md).
    #[cfg(feature = "cli")]
    Serve(serve::Args),
}

/// How a command's memory comes and goes, for the allocator settings the binary chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryUse {
    /// Bounded by `--max-memory` (solve, analyse, serve): large tables freed and others of other
    /// sizes built, so freed memory must go back to the system at once to stay within the bound.
    Bounded,
    /// Buffers freed and allocated again within seconds, cheaper kept than handed back and
    /// faulted in again: a run's batches, and the levels' arrays of one round start solved in
    /// memory (`solve` without `--spill`, a match or a study; what it allocates stays within
    /// `--max-memory`, its resident set somewhat above).
    Reused,
}

impl Command {
    /// How this command uses memory.
    pub fn memory_use(&self) -> MemoryUse {
        match self {
            Command::Solve(a) if solve::one_round_in_memory(a) => MemoryUse::Reused,
            Command::Solve(_) | Command::SolveCluster(_) | Command::Analyse(_) => {
                MemoryUse::Bounded
            }
            #[cfg(feature = "cli")]
            Command::Serve(_) => MemoryUse::Bounded,
            _ => MemoryUse::Reused,
        }
    }
}

/// Runs the command line; returns the process exit code. `before_work` gets the parsed
/// command's memory use before its work starts, on the only thread (the binary sets its
/// allocator's options there); it is not called when the arguments are not a command.
pub fn main(before_work: impl FnOnce(MemoryUse)) -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    before_work(cli.command.memory_use());
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
        Command::SolveCluster(a) => solve_cluster::run(a),
        Command::Analyse(a) => analyse::run(a),
        Command::CheckRecord(a) => check_record::run(a),
        #[cfg(feature = "cli")]
        Command::Serve(a) => serve::run_command(a),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            if let Some(msg) = e.message() {
                let _ = writeln!(std::io::stderr(), "error: {msg}");
            }
            e.exit_code()
        }
    }
}
