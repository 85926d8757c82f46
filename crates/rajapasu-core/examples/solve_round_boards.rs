//! A benchmark: solves round 1 (R15) of the boards named in $RAJAPASU_SOLVE_BOARDS
//! ("P,S[,switch=value...];...", every pit open, South starting) in memory, and prints each
//! board's value, positions, time by step, memory and move counts to standard error. The same
//! solve as `rajapasu solve --json`, without the command line or the tables directory.
//!
//! ```text
//! RAJAPASU_SOLVE_BOARDS="7,2;5,5;7,7" cargo run --release -p rajapasu-core --example solve_round_boards
//! ```

use std::process::ExitCode;
use std::time::Instant;

use rajapasu_core::engine::{BySide, Side};
use rajapasu_core::exact::{round_start, Solution, SolveOptions};

mod common;

use common::{board_list, peak_rss};

fn main() -> ExitCode {
    let Ok(boards) = std::env::var("RAJAPASU_SOLVE_BOARDS") else {
        return usage("RAJAPASU_SOLVE_BOARDS is not set");
    };
    let parsed = match board_list(&boards) {
        Ok(parsed) => parsed,
        Err(e) => return usage(&e),
    };
    for (board, r) in parsed {
        let p = r.pits_per_row;
        let root = round_start(r, BySide::new(p, p), Side::South);
        let start = Instant::now();
        let opts =
            SolveOptions { max_memory: 8 << 30, keep_layers: false, ..SolveOptions::default() };
        let sol = match Solution::solve(&[root], opts, &mut |_| {}) {
            Ok(sol) => sol,
            Err(e) => {
                eprintln!("{board}: {e} after {:.1} s", start.elapsed().as_secs_f64());
                return ExitCode::FAILURE;
            }
        };
        let st = sol.stats();
        eprintln!(
            "{board}: value {:?} best {} positions {} enumerate {:.2} s solve {:.2} s \
             {:.0} positions/s tables {:.2} B/position accounted peak {:.1} MB {} quiet {} exits {}",
            sol.value(&root),
            sol.best_moves(&root),
            st.positions,
            st.enumerate_seconds,
            st.solve_seconds,
            st.positions_per_second(),
            st.bytes_per_position(),
            st.peak_bytes as f64 / 1e6,
            peak_rss(),
            st.quiet_moves,
            st.exits
        );
    }
    ExitCode::SUCCESS
}

fn usage(e: &str) -> ExitCode {
    eprintln!("error: {e}; set RAJAPASU_SOLVE_BOARDS to boards \"P,S[,switch=value...];...\"");
    ExitCode::from(2)
}
