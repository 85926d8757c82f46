//! A benchmark: solves the matches of the boards named in $RAJAPASU_SOLVE_BOARDS
//! ("P,S[,switch=value...];...") into the tables directory $RAJAPASU_TABLES, in memory, and
//! prints each board's value, time and peak memory to standard error.
//!
//! ```text
//! RAJAPASU_SOLVE_BOARDS=3,2 RAJAPASU_TABLES=T cargo run --release -p rajapasu-core --example solve_match_boards
//! ```

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use rajapasu_core::engine::Side;
use rajapasu_core::exact::{load_or_solve, SolveOptions};

mod common;

use common::{board_list, peak_rss};

fn main() -> ExitCode {
    let (dir, boards) = match (env("RAJAPASU_TABLES"), env("RAJAPASU_SOLVE_BOARDS")) {
        (Ok(dir), Ok(boards)) => (PathBuf::from(dir), boards),
        (Err(e), _) | (_, Err(e)) => return usage(&e),
    };
    let parsed = match board_list(&boards) {
        Ok(parsed) => parsed,
        Err(e) => return usage(&e),
    };
    for (board, r) in parsed {
        let t0 = Instant::now();
        let opts = SolveOptions { max_memory: 8 << 30, ..SolveOptions::default() };
        let solved = load_or_solve(r, &dir, opts, None, &mut |p| {
            eprintln!(
                "  {} round {} graph {}/{} open {:?} at {:.1}s",
                p.phase,
                p.round,
                p.done,
                p.total,
                p.open,
                t0.elapsed().as_secs_f64()
            )
        });
        let (t, cached) = match solved {
            Ok(solved) => solved,
            Err(e) => {
                eprintln!("{board}: {e}");
                return ExitCode::FAILURE;
            }
        };
        let v = t.match_value(Side::South);
        eprintln!(
            "{board}: {} {:?} best {} cached {cached} {:.1}s {} {:?}",
            v.value,
            v.rounds,
            v.best_moves,
            t0.elapsed().as_secs_f64(),
            peak_rss(),
            t.stats()
        );
    }
    ExitCode::SUCCESS
}

fn env(name: &str) -> Result<String, String> {
    std::env::var(name).map_err(|_| format!("{name} is not set"))
}

fn usage(e: &str) -> ExitCode {
    eprintln!("error: {e}; set RAJAPASU_TABLES to a directory and RAJAPASU_SOLVE_BOARDS to boards \"P,S[,switch=value...];...\"");
    ExitCode::from(2)
}
