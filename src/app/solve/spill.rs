//! The spilled round solve (`solve --spill`): a round start solved (R15) with its levels as
//! files in the tables directory, so that memory is bounded by the largest level rather than
//! by the round (docs/guide/solve.md); a rerun continues from the finished levels. Counting
//! only stops after the enumeration: the size of the round by level.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::json;

use crate::engine::{BySide, PitSet, Ruleset, Side};
use crate::exact::{round_start, LevelFigures, Progress, SpillError, SpillOptions, SpilledRound};

use super::round::{outcome, round_open};
use crate::app::FieldError;

/// Who starts the rounds solved together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Starters {
    One(Side),
    /// Both starters at once, as the match solver needs the round.
    Both,
}

impl Starters {
    pub fn sides(self) -> Vec<Side> {
        match self {
            Starters::One(side) => vec![side],
            Starters::Both => Side::ALL.to_vec(),
        }
    }
}

/// A round start to solve with its levels on disk, before it is checked.
#[derive(Clone, Debug)]
pub struct SpillRequest {
    pub rules: Ruleset,
    /// Open pits of South and North (R12); None: every pit open (round 1).
    pub open: Option<BySide<u8>>,
    pub starters: Starters,
    /// The most bytes of working memory.
    pub max_memory: u64,
    /// The most bytes the level files may take; None: no limit.
    pub max_disk: Option<u64>,
    /// Stop after finishing this many levels in this run (at least 1); None: no limit.
    pub max_levels: Option<u32>,
    /// Only enumerate (the counting pass): positions, moves and bytes by level.
    pub count_only: bool,
    /// The tables directory; the level files go under its `rounds/`.
    pub tables: PathBuf,
}

impl SpillRequest {
    /// The solve to run, or the first field that is not what it should be (`open`,
    /// `max_memory`, `max_disk`, `max_levels`).
    pub fn validate(&self) -> Result<SpillJob, FieldError> {
        let open = round_open(&self.rules, self.open)?;
        let opts = spill_options(self.max_memory, self.max_disk, self.max_levels)?;
        let starters = self.starters.sides();
        let dir = spill_dir(&self.tables, &self.rules, open, &starters);
        Ok(SpillJob { rules: self.rules, open, starters, opts, count_only: self.count_only, dir })
    }
}

/// A round start to solve with its levels on disk, checked: what [`run`] solves.
#[derive(Clone, Debug)]
pub struct SpillJob {
    pub rules: Ruleset,
    pub open: BySide<u8>,
    pub starters: Vec<Side>,
    pub opts: SpillOptions,
    /// Only enumerate (the counting pass).
    pub count_only: bool,
    /// The directory of the round's level files.
    pub dir: PathBuf,
}

/// The bounds of a solve with its levels on disk (a round's, or a match's round graphs), or the
/// first that is not what it should be (`max_memory`, `max_disk`, `max_levels`). None: no bound.
pub fn spill_options(
    max_memory: u64,
    max_disk: Option<u64>,
    max_levels: Option<u32>,
) -> Result<SpillOptions, FieldError> {
    if max_memory == 0 {
        return Err(FieldError::new("max_memory", "0 bytes: a solve needs some memory"));
    }
    if max_disk == Some(0) {
        return Err(FieldError::new(
            "max_disk",
            "0 bytes: the level files need some disk (or none: no limit)",
        ));
    }
    if max_levels == Some(0) {
        return Err(FieldError::new(
            "max_levels",
            "0: a run finishes at least 1 level (or none: no limit)",
        ));
    }
    Ok(SpillOptions { max_memory, max_disk: max_disk.unwrap_or(u64::MAX), max_levels })
}

/// The directory of a round's level files within the tables directory.
pub fn spill_dir(tables: &Path, rules: &Ruleset, open: BySide<u8>, starters: &[Side]) -> PathBuf {
    let who: Vec<String> = starters.iter().map(|s| s.to_string()).collect();
    tables.join("rounds").join(format!(
        "{}-{}x{}-{}",
        rules.hash(),
        open[Side::South],
        open[Side::North],
        who.join("+")
    ))
}

/// The value of one solved start.
pub struct SpillStart {
    pub starter: Side,
    pub value: i32,
    pub best_moves: PitSet,
}

/// A round solved (or only enumerated) with its levels on disk.
pub struct SpillSolved {
    pub open: BySide<u8>,
    pub starters: Vec<Side>,
    /// The values of the starts; empty when only counted.
    pub starts: Vec<SpillStart>,
    /// The figures of every level, by level.
    pub figures: Vec<LevelFigures>,
    pub dir: PathBuf,
    pub disk_bytes: u64,
    /// The solver's peak working memory in this run.
    pub peak_bytes: u64,
    /// This run's time.
    pub seconds: f64,
}

impl SpillSolved {
    /// Positions, quiet moves and exits (captures and round ends) of all levels.
    pub fn totals(&self) -> (u64, u64, u64) {
        let sum = |f: &dyn Fn(&LevelFigures) -> u64| self.figures.iter().map(f).sum();
        (sum(&LevelFigures::count), sum(&|f| f.quiet_moves), sum(&|f| f.exits))
    }
}

/// Solves (or enumerates) the round start of `job`, telling `progress` as it goes; an error
/// that [`crate::app::BadInput::is_bad_input`] is a board or a disk allowance too small, or a
/// directory that is not this solve's.
pub fn run(job: &SpillJob, progress: &mut dyn FnMut(Progress)) -> Result<SpillSolved, SpillError> {
    let (rules, open, starters, opts, dir) =
        (job.rules, job.open, job.starters.clone(), job.opts, &job.dir);
    let roots: Vec<_> = starters.iter().map(|&s| round_start(rules, open, s)).collect();
    let started = Instant::now();
    let round = if job.count_only {
        SpilledRound::enumerate(&roots, dir, opts, progress)?
    } else {
        SpilledRound::solve(&roots, dir, opts, progress)?
    };
    let seconds = started.elapsed().as_secs_f64();
    let starts = if job.count_only {
        Vec::new()
    } else {
        // The level files are untrusted: a root or a child they lack, or values that contradict
        // each other, are an error naming the file.
        let start = |r: &crate::engine::Position| -> Result<SpillStart, SpillError> {
            let value = round.reached_value(r)?;
            Ok(SpillStart {
                starter: r.turn(),
                value,
                best_moves: round.moves_achieving(r, value)?,
            })
        };
        roots.iter().map(start).collect::<Result<_, _>>()?
    };
    Ok(SpillSolved {
        open,
        starters,
        starts,
        figures: round.figures().to_vec(),
        dir: round.dir().to_path_buf(),
        disk_bytes: round.disk_bytes(),
        peak_bytes: round.peak_bytes(),
        seconds,
    })
}

/// The JSON answer of a spilled solve (`solve --spill --json`).
pub fn spill_json(rules: &Ruleset, solved: &SpillSolved, rss: Option<u64>) -> serde_json::Value {
    let (positions, quiet, exits) = solved.totals();
    let open = solved.open;
    let starts: Vec<serde_json::Value> = solved
        .starts
        .iter()
        .map(|s| {
            let best: Vec<usize> = s.best_moves.iter().map(|p| p.index()).collect();
            json!({ "starter": s.starter, "value": s.value, "outcome": outcome(s.value), "best_moves": best })
        })
        .collect();
    let mut v = json!({
        "rules": rules,
        "rules_hash": rules.hash(),
        "pits_per_row": rules.pits_per_row,
        "seeds_per_pit": rules.seeds_per_pit,
        "open": [open[Side::South], open[Side::North]],
        "starters": solved.starters,
        "directory": solved.dir,
        "positions": positions,
        "level_positions": solved.figures.iter().map(LevelFigures::count).collect::<Vec<u64>>(),
        "quiet_moves": quiet,
        "exits": exits,
        "seconds": solved.seconds,
        "disk_bytes": solved.disk_bytes,
        "peak_bytes": solved.peak_bytes,
        "peak_rss_bytes": rss,
        "levels": solved.figures,
    });
    if let [only] = starts.as_slice() {
        for key in ["value", "outcome", "best_moves", "starter"] {
            v[key] = only[key].clone();
        }
    }
    if !starts.is_empty() {
        v["starts"] = json!(starts);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(tables: &Path) -> SpillRequest {
        SpillRequest {
            rules: crate::app::solve::board(3, 2),
            open: None,
            starters: Starters::Both,
            max_memory: 1 << 26,
            max_disk: None,
            max_levels: None,
            count_only: false,
            tables: tables.to_path_buf(),
        }
    }

    #[test]
    fn a_bad_spill_request_names_its_field() {
        let good = request(Path::new("unused"));
        for (bad, field) in [
            (SpillRequest { open: Some(BySide::new(0, 2)), ..good.clone() }, "open"),
            (SpillRequest { max_memory: 0, ..good.clone() }, "max_memory"),
            (SpillRequest { max_disk: Some(0), ..good.clone() }, "max_disk"),
            (SpillRequest { max_levels: Some(0), ..good.clone() }, "max_levels"),
        ] {
            let e = bad.validate().unwrap_err();
            assert_eq!(e.field, field, "{e}");
            assert!(!e.message.contains("--"), "{e}");
        }
    }

    /// The spilled values are the in-memory solver's, for both starters at once.
    #[test]
    fn a_spilled_solve_gives_the_in_memory_values() {
        let dir = tempfile::tempdir().unwrap();
        let request = request(dir.path());
        let solved = run(&request.validate().unwrap(), &mut |_| {}).unwrap();
        assert!(solved.dir.starts_with(dir.path().join("rounds")) && solved.disk_bytes > 0);
        assert_eq!(solved.starts.len(), 2);
        for s in &solved.starts {
            let memory = super::super::round::solve_start(
                request.rules,
                BySide::splat(3),
                s.starter,
                Default::default(),
                &mut |_| {},
            )
            .unwrap();
            assert_eq!((s.value, s.best_moves), (memory.value, memory.best_moves), "{}", s.starter);
        }
        let json = spill_json(&request.rules, &solved, None);
        assert_eq!(json["positions"].as_u64(), Some(solved.totals().0));
        assert!(json.get("value").is_none() && json["starts"].as_array().unwrap().len() == 2);
    }

    /// A disk allowance too small is bad input, its message naming the field.
    #[test]
    fn a_disk_allowance_too_small_names_max_disk() {
        let dir = tempfile::tempdir().unwrap();
        let job = SpillRequest { max_disk: Some(100), ..request(dir.path()) }.validate().unwrap();
        let Err(e) = run(&job, &mut |_| {}) else {
            panic!("a disk allowance of 100 bytes is enough")
        };
        assert!(
            crate::app::BadInput::is_bad_input(&e)
                && e.to_string().contains("(max_disk 100 bytes)"),
            "{e}"
        );
        assert!(
            e.describe(&|s| format!("--{}", s.field())).contains("(--max_disk 100 bytes)"),
            "{e}"
        );
    }
}
