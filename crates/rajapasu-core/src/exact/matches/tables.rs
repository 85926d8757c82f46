//! Match tables on disk (R17): `DIR/match-<rules hash>.json`, the rounds loop's checkpoint
//! ([`MatchCheckpoint`]), complete once the loop has finished. `rajapasu solve --match` and the
//! perfect players read a complete table, or compute it (continuing an interrupted solve) and
//! save it there. DIR is the one a front end gives, else `$RAJAPASU_TABLES`, else
//! `$XDG_CACHE_HOME/rajapasu/tables`, else `$HOME/.cache/rajapasu/tables`.
//!
//! A table file is untrusted input: it is read only up to [`MAX_TABLE_BYTES`] and checked
//! before use: its `sha256` (the digest of its values, [`MatchCheckpoint::digest`]), required,
//! its rules, sizes and invariants (see `table_check`). A table written before digests existed
//! is refused until [`stamp_checkpoint`] (`rajapasu verify --stamp-digests DIR`) has checked it
//! and written its digest.
//! Writes go to a temporary name (`.NAME.tmp-RANDOM.EXT`) renamed when complete; such names left
//! by a killed writer are removed at the next use of the directory
//! ([`remove_stale_temporaries`]).

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::engine::Ruleset;
use crate::exact::files::temporaries::remove_stale_temporaries;
use crate::exact::matches::match_solver::{MatchCheckpoint, MatchError, MatchProgress, MatchTable};
use crate::exact::round::solver::SolveOptions;
use crate::exact::round::spill::SpillOptions;
use crate::exact::setting::{Naming, Setting};
use crate::files;

/// The environment variable naming the default tables directory.
pub const TABLES_ENV: &str = "RAJAPASU_TABLES";

/// The largest table file read (a table of 127 counters is about 60 KB of JSON).
pub const MAX_TABLE_BYTES: u64 = 8 << 20;

/// No tables directory was given, and none of the variables that name the default one is set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoTablesDir;

impl NoTablesDir {
    /// The message, the tables directory named by `name` (what to give instead).
    pub fn describe(&self, name: Naming) -> String {
        format!(
            "no directory for the match tables: {TABLES_ENV}, XDG_CACHE_HOME and HOME are all unset; set one of them or pass {}",
            name(Setting::Tables)
        )
    }
}

impl std::fmt::Display for NoTablesDir {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe(&Setting::default_name))
    }
}

impl std::error::Error for NoTablesDir {}

/// The default directory of match tables (see the module's documentation); an error when none
/// of the variables is set (never a directory chosen silently, such as one under the current
/// directory).
pub fn default_tables_dir() -> Result<PathBuf, NoTablesDir> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(dir) = var(TABLES_ENV) {
        return Ok(dir);
    }
    if let Some(cache) = var("XDG_CACHE_HOME") {
        return Ok(cache.join("rajapasu").join("tables"));
    }
    var("HOME").map(|home| home.join(".cache").join("rajapasu").join("tables")).ok_or(NoTablesDir)
}

/// The tables directory a front end was given, else the default one ([`default_tables_dir`]).
pub fn tables_dir(given: Option<&Path>) -> Result<PathBuf, NoTablesDir> {
    match given {
        Some(dir) => Ok(dir.to_path_buf()),
        None => default_tables_dir(),
    }
}

/// The table file of `rules` in `dir`.
pub fn table_path(dir: &Path, rules: &Ruleset) -> PathBuf {
    dir.join(format!("match-{}.json", rules.hash()))
}

/// Whether `dir` holds a file where the table of `rules` goes (not read or checked: a cheap
/// look before deciding to ask for the table).
pub fn table_stored(dir: &Path, rules: &Ruleset) -> bool {
    table_path(dir, rules).is_file()
}

/// The digest a table file carries beside its values.
#[derive(serde::Deserialize)]
struct Stamp {
    sha256: Option<String>,
}

/// Reads a table file; None if there is none. Only a regular file is read, at most
/// [`MAX_TABLE_BYTES`] of it (a FIFO named like a table is an error, not a wait); its digest and
/// invariants are checked, an error naming the file and the first state that breaks one.
pub fn read_checkpoint(path: &Path) -> Result<Option<MatchCheckpoint>, MatchError> {
    let Some((cp, recorded)) = read_unchecked(path)? else { return Ok(None) };
    let invalid = |why: String| invalid_table(path, why);
    let Some(recorded) = recorded else {
        return Err(MatchError::Invalid(format!(
            "{}: the match table carries no sha256 (it was written before tables carried one, or the digest was removed); \
             `rajapasu verify --stamp-digests {}` checks it and writes its digest, or delete it to solve again",
            path.display(),
            path.parent().map_or(".".into(), |d| d.display().to_string())
        )));
    };
    let digest = cp.digest();
    if recorded != digest {
        return Err(invalid(format!("its values do not match its sha256 (recorded {recorded}, the values give {digest}): it was changed")));
    }
    cp.check_invariants().map_err(|e| invalid(format!("not a possible match table: {e}")))?;
    Ok(Some(cp))
}

fn invalid_table(path: &Path, why: String) -> MatchError {
    MatchError::Invalid(format!("{}: {why}; delete it to solve again", path.display()))
}

/// A table file's values and recorded digest, parsed but not checked; None if there is none.
fn read_unchecked(path: &Path) -> Result<Option<(MatchCheckpoint, Option<String>)>, MatchError> {
    let text = match files::read_regular_file(path, MAX_TABLE_BYTES) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(MatchError::Io(format!(
                "{}: cannot read the match table: {e}",
                path.display()
            )))
        }
    };
    let not_a_table =
        |e: serde_json::Error| invalid_table(path, format!("not a match table ({e})"));
    let cp: MatchCheckpoint = serde_json::from_str(&text).map_err(not_a_table)?;
    let stamp: Stamp = serde_json::from_str(&text).map_err(not_a_table)?;
    Ok(Some((cp, stamp.sha256)))
}

/// What [`stamp_checkpoint`] did to a table file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stamped {
    /// It carried its digest already, and the digest and invariants hold.
    Checked,
    /// It carried none: its invariants hold, and its digest is now written.
    Stamped,
}

/// Checks a table file as [`read_checkpoint`] does, except that a table without a digest (one
/// written before tables carried one) is accepted when its invariants hold, and then rewritten
/// with its digest. A file that is not there is an error.
pub fn stamp_checkpoint(path: &Path) -> Result<Stamped, MatchError> {
    let Some((cp, recorded)) = read_unchecked(path)? else {
        return Err(MatchError::Io(format!("{}: no such match table", path.display())));
    };
    if recorded.is_some() {
        return read_checkpoint(path).map(|_| Stamped::Checked);
    }
    cp.check_invariants()
        .map_err(|e| invalid_table(path, format!("not a possible match table: {e}")))?;
    write_checkpoint(path, &cp)?;
    Ok(Stamped::Stamped)
}

/// Writes a table file atomically (a temporary name, synced, then renamed), with its digest.
pub fn write_checkpoint(path: &Path, cp: &MatchCheckpoint) -> Result<(), MatchError> {
    let io = |what: &str, e: std::io::Error| {
        MatchError::Io(format!("{}: cannot {what} the match table: {e}", path.display()))
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| io("create the directory of", e))?;
    }
    let mut text = serde_json::to_string(cp).expect("a checkpoint serializes");
    // The digest goes last, after the fields it covers.
    text.pop();
    text.push_str(&format!(",\"sha256\":\"{}\"}}\n", cp.digest()));
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
    load_or(rules, dir, true, |resume, checkpoint| {
        MatchTable::solve(rules, opts, resume, max_iterations, progress, checkpoint)
    })
}

/// [`load_or_solve`], the solve stopped once `watch` breaks ([`MatchTable::solve_watched`]):
/// nothing is written then. Only the complete table is written, never a checkpoint of an
/// unfinished solve, so a solve cancelled or beyond its memory leaves the directory as it was.
pub fn load_or_solve_watched(
    rules: Ruleset,
    dir: &Path,
    opts: SolveOptions,
    watch: &mut crate::exact::matches::match_solver::MatchWatch,
) -> Result<(MatchTable, bool), MatchError> {
    load_or(rules, dir, false, |resume, checkpoint| {
        MatchTable::solve_watched(rules, opts, resume, None, watch, checkpoint)
    })
}

/// [`load_or_solve`] with the round graphs on disk ([`MatchTable::solve_spilled`]), in
/// [`match_spill_dir`]: continued from what is there, and removed once the table is saved (the
/// table holds every value the match needs) or found complete.
pub fn load_or_solve_spilled(
    rules: Ruleset,
    dir: &Path,
    opts: SpillOptions,
    max_iterations: Option<u32>,
    progress: &mut dyn FnMut(MatchProgress),
) -> Result<(MatchTable, bool), MatchError> {
    let work = match_spill_dir(dir, &rules);
    let (table, found) = load_or(rules, dir, true, |resume, checkpoint| {
        MatchTable::solve_spilled(rules, opts, &work, resume, max_iterations, progress, checkpoint)
    })?;
    // Also when the table was found: a solve killed after saving it leaves them. Best effort:
    // what cannot be removed only takes room.
    if work.exists() {
        let _ = std::fs::remove_dir_all(&work);
    }
    Ok((table, found))
}

/// The directory of the round graphs of a spilled solve of the match table of `rules` in the
/// tables directory `dir`.
pub fn match_spill_dir(dir: &Path, rules: &Ruleset) -> PathBuf {
    dir.join("matches").join(rules.hash())
}

type Checkpoints<'a> = &'a mut dyn FnMut(&MatchCheckpoint);

/// The table of `rules` read from `dir` if complete there, else `solve`d from the checkpoint
/// found there (if any), saving each checkpoint it gives.
fn load_or(
    rules: Ruleset,
    dir: &Path,
    partial: bool,
    solve: impl FnOnce(Option<MatchCheckpoint>, Checkpoints) -> Result<MatchTable, MatchError>,
) -> Result<(MatchTable, bool), MatchError> {
    remove_stale_temporaries(dir);
    let path = table_path(dir, &rules);
    let resume = read_checkpoint(&path)?;
    if resume.as_ref().is_some_and(|cp| cp.rules != rules) {
        return Err(MatchError::Invalid(format!(
            "{}: a match table of other rules than its name says; delete it to solve again",
            path.display()
        )));
    }
    if let Some(cp) = resume.as_ref().filter(|cp| cp.complete) {
        cp.check(&rules)?;
        let cp = resume.expect("checked");
        return Ok((MatchTable::from_checkpoint(cp)?, true));
    }
    let mut saved: Result<(), MatchError> = Ok(());
    let table = solve(resume, &mut |cp| {
        if saved.is_ok() && (partial || cp.complete) {
            saved = write_checkpoint(&path, cp);
        }
    });
    saved?;
    Ok((table?, false))
}
