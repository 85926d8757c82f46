//! Match tables on disk (R17): `DIR/match-<rules hash>.json`, the rounds loop's checkpoint
//! ([`MatchCheckpoint`]), complete once the loop has finished. `rajapasu solve --match` and the
//! perfect players read a complete table, or compute it (continuing an interrupted solve) and
//! save it there. DIR is `--tables DIR`, else `$RAJAPASU_TABLES`, else
//! `$XDG_CACHE_HOME/rajapasu/tables`, else `$HOME/.cache/rajapasu/tables`.
//!
//! A table file is untrusted input: it is read only up to [`MAX_TABLE_BYTES`] and checked
//! (rules, sizes, values) before use; writes go to a temporary name renamed when complete.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::match_solver::{MatchCheckpoint, MatchError, MatchProgress, MatchTable};
use super::solver::SolveOptions;
use crate::engine::Ruleset;
use crate::files;

/// The environment variable naming the default tables directory.
pub const TABLES_ENV: &str = "RAJAPASU_TABLES";

/// The largest table file read (a table of 127 counters is about 60 KB of JSON).
pub const MAX_TABLE_BYTES: u64 = 8 << 20;

/// The default directory of match tables (see the module's documentation).
pub fn default_tables_dir() -> PathBuf {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(dir) = var(TABLES_ENV) {
        return dir;
    }
    if let Some(cache) = var("XDG_CACHE_HOME") {
        return cache.join("rajapasu").join("tables");
    }
    match var("HOME") {
        Some(home) => home.join(".cache").join("rajapasu").join("tables"),
        None => PathBuf::from(".rajapasu-tables"),
    }
}

/// The table file of `rules` in `dir`.
pub fn table_path(dir: &Path, rules: &Ruleset) -> PathBuf {
    dir.join(format!("match-{}.json", rules.hash()))
}

/// Reads a table file; None if there is none. Only a regular file is read, at most
/// [`MAX_TABLE_BYTES`] of it (a FIFO named like a table is an error, not a wait).
pub fn read_checkpoint(path: &Path) -> Result<Option<MatchCheckpoint>, MatchError> {
    let text = match files::read_regular_file(path, MAX_TABLE_BYTES) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(MatchError::Io(format!("{}: cannot read the match table: {e}", path.display()))),
    };
    let cp: MatchCheckpoint = serde_json::from_str(&text)
        .map_err(|e| MatchError::Io(format!("{}: not a match table ({e}); delete it to solve again", path.display())))?;
    Ok(Some(cp))
}

/// Writes a table file atomically (a temporary name, synced, then renamed).
pub fn write_checkpoint(path: &Path, cp: &MatchCheckpoint) -> Result<(), MatchError> {
    let io = |what: &str, e: std::io::Error| MatchError::Io(format!("{}: cannot {what} the match table: {e}", path.display()));
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| io("create the directory of", e))?;
    }
    let mut text = serde_json::to_string(cp).expect("a checkpoint serializes");
    text.push('\n');
    files::write_atomically(path, |f| f.write_all(text.as_bytes())).map_err(|e| io("write", e))
}

/// The match table of `rules` from `dir`, or solved (continuing a checkpoint found there) and
/// saved there, with a checkpoint after each iteration.
pub fn load_or_solve(
    rules: Ruleset,
    dir: &Path,
    opts: SolveOptions,
    max_iterations: Option<u32>,
    progress: &mut dyn FnMut(MatchProgress),
) -> Result<(MatchTable, bool), MatchError> {
    let path = table_path(dir, &rules);
    let resume = read_checkpoint(&path)?;
    if let Some(cp) = &resume {
        if cp.complete {
            let cp = resume.expect("checked");
            cp.check(&rules)?;
            return Ok((MatchTable::from_checkpoint(cp)?, true));
        }
    }
    let mut saved: Result<(), MatchError> = Ok(());
    let table = MatchTable::solve(rules, opts, resume, max_iterations, progress, &mut |cp| {
        if saved.is_ok() {
            saved = write_checkpoint(&path, cp);
        }
    });
    saved?;
    Ok((table?, false))
}
