//! A benchmark: solves the match of the one board named in $RAJAPASU_SOLVE_BOARDS
//! ("P,S[,switch=value...]") with its rounds on disk in $RAJAPASU_SPILL_DIR, within
//! $RAJAPASU_MAX_MEMORY bytes, and prints its value, time, peak memory and disk to standard error.
//!
//! ```text
//! RAJAPASU_SOLVE_BOARDS=3,2 RAJAPASU_SPILL_DIR=D RAJAPASU_MAX_MEMORY=536870912 \
//!   cargo run --release -p rajapasu-core --example solve_match_spilled
//! ```

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use rajapasu_core::engine::Side;
use rajapasu_core::exact::{MatchTable, SpillOptions};

mod common;

use common::{board_rules, peak_rss};

fn main() -> ExitCode {
    let (dir, max_memory, board) = match read_env() {
        Ok(found) => found,
        Err(e) => {
            eprintln!(
                "error: {e}; set RAJAPASU_SPILL_DIR to a directory, RAJAPASU_MAX_MEMORY to a number of bytes \
                 and RAJAPASU_SOLVE_BOARDS to one board \"P,S[,switch=value...]\""
            );
            return ExitCode::from(2);
        }
    };
    let r = match board_rules(&board) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let t0 = Instant::now();
    let opts = SpillOptions { max_memory, max_disk: u64::MAX, max_levels: None };
    let solved = MatchTable::solve_spilled(
        r,
        opts,
        &dir,
        None,
        None,
        &mut |p| {
            eprintln!(
                "  {} {} graph {}/{} open {:?} at {:.1}s",
                p.phase,
                p.round,
                p.done,
                p.total,
                p.open,
                t0.elapsed().as_secs_f64()
            )
        },
        &mut |_| {},
    );
    let t = match solved {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{board}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let v = t.match_value(Side::South);
    eprintln!(
        "{board}: {} {:?} best {} {:.1}s {} disk {} digest {} {:?}",
        v.value,
        v.rounds,
        v.best_moves,
        t0.elapsed().as_secs_f64(),
        peak_rss(),
        walk_bytes(&dir),
        t.digest(),
        t.stats()
    );
    ExitCode::SUCCESS
}

fn read_env() -> Result<(PathBuf, u64, String), String> {
    let env = |name: &str| std::env::var(name).map_err(|_| format!("{name} is not set"));
    let dir = PathBuf::from(env("RAJAPASU_SPILL_DIR")?);
    let memory = env("RAJAPASU_MAX_MEMORY")?;
    let max_memory = memory
        .parse()
        .map_err(|_| format!("RAJAPASU_MAX_MEMORY {memory:?} is not a number of bytes"))?;
    Ok((dir, max_memory, env("RAJAPASU_SOLVE_BOARDS")?))
}

/// The bytes of the files under `dir` (0 for what cannot be read).
fn walk_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => walk_bytes(&e.path()),
            _ => e.metadata().map_or(0, |m| m.len()),
        })
        .sum()
}
