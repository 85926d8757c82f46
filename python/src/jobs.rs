//! The application's jobs from Python: simulate into a dataset (with Python callables as
//! players), read a dataset's parts, solve a round or a match; errors worded by keyword argument.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use rajapasu::agents::host::{self, HostPlayer};
use rajapasu::agents::AgentSpec;
use rajapasu::app::simulate::{SimulateError, SimulateRequest};
use rajapasu::app::solve::match_value::MatchRequest;
use rajapasu::app::solve::round::RoundRequest;
use rajapasu::app::BadInput;
use rajapasu::engine::{BySide, Position};
use rajapasu::exact::Setting;
use rajapasu::io::dataset::Wording;
use rajapasu::io::lock::LockError;
use rajapasu::io::{Dataset, DatasetError, Formats};
use rajapasu::sim::{Detail, FirstPolicy, Shard};

use rajapasu::engine::Rng;

use crate::{
    field_error, parse_side, ruleset_from, usage, PyPosition, PyRng, RajapasuError, UsageError,
};

/// How a refusal to write into `out` reads from Python.
fn out_wording() -> Wording {
    Wording {
        subject: "out".into(),
        elsewhere: "choose another out".into(),
        instead_of_foreign: "choose an empty or new directory".into(),
        resume: "pass resume=True to continue it".into(),
        play_shards: |count| format!("play shard=\"K/{count}\""),
    }
}

/// A dataset's error with what to do about it in keyword arguments: bad input raises
/// UsageError, a failure while working RajapasuError.
fn dataset_error(e: DatasetError) -> PyErr {
    let message = match &e {
        DatasetError::Refused { dir, refusal } => refusal.describe(dir, &out_wording()),
        DatasetError::Lock(LockError::Held { .. }) => {
            format!("{e} (a stopped run continues with resume=True)")
        }
        DatasetError::NoManifest { .. } => format!("{e} (simulate_to(out, ...) makes one)"),
        DatasetError::Incomplete { path, shard, status, writer: None } => {
            format!("{}: shard {shard} is incomplete (status {status}); finish it with resume=True first", path.display())
        }
        DatasetError::MissingShards { dir, missing, count } => format!(
            "{}: shards {} of {count} are missing; run them (shard=\"K/{count}\") first",
            dir.display(),
            missing.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
        ),
        DatasetError::Damaged { .. } => {
            format!("{e}\n(resume=True with the run's arguments plays missing, truncated or altered batches again; remove extra files)")
        }
        _ => e.to_string(),
    };
    if e.is_bad_input() {
        UsageError::new_err(message)
    } else {
        RajapasuError::new_err(message)
    }
}

fn simulate_error(e: SimulateError) -> PyErr {
    match e {
        SimulateError::Dataset(e) => dataset_error(e),
        SimulateError::Match(_) => RajapasuError::new_err(e.to_string()),
    }
}

/// A Python callable playing through the engine's host-player hook.
struct PyPlayer {
    callable: Py<PyAny>,
    /// The first exception a call raised, re-raised after the run as its cause.
    error: Mutex<Option<PyErr>>,
}

impl HostPlayer for PyPlayer {
    fn choose(
        &self,
        pos: &Position,
        _round: Option<u32>,
        _ply: Option<u32>,
        rng: &mut Rng,
    ) -> Result<i64, String> {
        Python::attach(|py| {
            let taken = std::mem::replace(rng, Rng::from_seed(0));
            let result = (|| -> PyResult<(i64, Rng)> {
                let position = Py::new(py, PyPosition::new(*pos))?;
                let stream = Py::new(py, PyRng { inner: taken.clone() })?;
                let answer = self.callable.bind(py).call1((position, stream.clone_ref(py)))?;
                let pit = answer.extract::<i64>()?;
                let back = stream.borrow(py).inner.clone();
                Ok((pit, back))
            })();
            match result {
                Ok((pit, back)) => {
                    *rng = back;
                    Ok(pit)
                }
                Err(e) => {
                    *rng = taken;
                    let message = e.to_string();
                    let mut slot = self.error.lock().unwrap_or_else(|p| p.into_inner());
                    slot.get_or_insert(e);
                    Err(format!("the callable raised {message}"))
                }
            }
        })
    }
}

/// The Python callables of a run as its `python:NAME` players (and each, to find what it raised).
fn host_players(
    players: Option<&Bound<'_, PyDict>>,
) -> PyResult<(host::HostPlayers, Vec<Arc<PyPlayer>>)> {
    let (mut hosts, mut out) = (host::HostPlayers::default(), Vec::new());
    if let Some(d) = players {
        for (name, callable) in d.iter() {
            let name: String = name.extract()?;
            if !callable.is_callable() {
                return Err(usage(format!("player '{name}' is not callable: a Python player is a function (position, rng) -> pit")));
            }
            let player =
                Arc::new(PyPlayer { callable: callable.unbind(), error: Mutex::new(None) });
            hosts.add(&name, player.clone()).map_err(usage)?;
            out.push(player);
        }
    }
    Ok((hosts, out))
}

fn parse_spec(text: &str, seat: &str) -> PyResult<AgentSpec> {
    text.parse::<AgentSpec>().map_err(|e| usage(format!("{seat}: {e}")))
}

/// Runs the job `rajapasu simulate` runs (validation, batches, dataset writer, manifest) into
/// `out`; Python callables in `players` play as `python:NAME`. Returns the manifest as JSON.
#[pyfunction]
#[pyo3(signature = (out, matches, seed=1, south="random", north="random", first="alternate", detail="round", rules=None, threads=0, batch_size=None, format="parquet", shard="1/1", resume=false, players=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn simulate_to(
    py: Python<'_>,
    out: PathBuf,
    matches: u64,
    seed: u64,
    south: &str,
    north: &str,
    first: &str,
    detail: &str,
    rules: Option<&Bound<'_, PyDict>>,
    threads: usize,
    batch_size: Option<u64>,
    format: &str,
    shard: &str,
    resume: bool,
    players: Option<&Bound<'_, PyDict>>,
) -> PyResult<String> {
    let rules = ruleset_from(rules)?;
    let detail: Detail = detail.parse().map_err(|e| usage(format!("detail: {e}")))?;
    let first: FirstPolicy = first.parse().map_err(|e| usage(format!("first: {e}")))?;
    let format: Formats = format.parse().map_err(|e| usage(format!("format: {e}")))?;
    let shard: Shard = shard.parse().map_err(|e| usage(format!("shard: {e}")))?;
    let request = SimulateRequest {
        rules,
        south: parse_spec(south, "south")?,
        north: parse_spec(north, "north")?,
        first,
        seed,
        matches,
        detail,
        batch_size,
        shard,
        out,
        format,
        threads,
        resume,
    };
    let sim = request.validate().map_err(field_error)?;
    let (hosts, registered) = host_players(players)?;
    let resources = rajapasu::agents::Resources { hosts, ..rajapasu::agents::Resources::default() };
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let result = py.detach(|| rajapasu::app::simulate::run(&sim, &resources, &command, &|_| {}));
    let raised: Option<PyErr> =
        registered.iter().find_map(|p| p.error.lock().unwrap_or_else(|e| e.into_inner()).take());
    drop(registered);
    match result {
        Ok(done) => {
            serde_json::to_string(&done.manifest).map_err(|e| RajapasuError::new_err(e.to_string()))
        }
        Err(e) => {
            let err = simulate_error(e);
            if let Some(cause) = raised {
                err.set_cause(py, Some(cause));
            }
            Err(err)
        }
    }
}

/// Opens and verifies a dataset as `rajapasu verify` does; returns (manifest JSON, format,
/// {table: [part files in batch order]}).
#[pyfunction]
pub(crate) fn dataset_parts<'py>(
    py: Python<'py>,
    dir: PathBuf,
) -> PyResult<(String, String, Bound<'py, PyDict>)> {
    let dataset = Dataset::open(&dir).map_err(|e| usage(e.to_string()))?;
    let parts = PyDict::new(py);
    for table in dataset.detail().tables() {
        let files = dataset.parts(table).map_err(|e| usage(e.to_string()))?;
        parts.set_item(table, PyList::new(py, files)?)?;
    }
    let m = dataset.manifest();
    let format = if m.format == Formats::Csv { "csv" } else { "parquet" };
    let manifest = serde_json::to_string(m).map_err(|e| RajapasuError::new_err(e.to_string()))?;
    Ok((manifest, format.to_string(), parts))
}

/// A solver's setting as Python names it in a message: its keyword argument (the tables
/// directory as what to pass).
fn keyword(setting: Setting) -> String {
    match setting {
        Setting::Tables => "tables=DIR".to_string(),
        Setting::Spill => String::new(),
        s => s.field().to_string(),
    }
}

/// [`keyword`] for `solve_match` in memory, which `spill=True` can solve with its round graphs
/// on disk instead.
fn match_keyword(setting: Setting) -> String {
    match setting {
        Setting::Spill => "spill=True".to_string(),
        s => keyword(s),
    }
}

/// Solves a round start exactly (R15) as `rajapasu solve --json` does; returns its JSON.
#[pyfunction]
#[pyo3(signature = (open=None, starter="south", max_memory="4G", max_positions=None, rules=None))]
pub(crate) fn solve_json(
    py: Python<'_>,
    open: Option<(u8, u8)>,
    starter: &str,
    max_memory: &str,
    max_positions: Option<u64>,
    rules: Option<&Bound<'_, PyDict>>,
) -> PyResult<String> {
    use rajapasu::app::solve::round::solved_json;
    use rajapasu::process::peak_rss;
    use rajapasu::size::parse_size;
    let rules = ruleset_from(rules)?;
    let starter = parse_side(starter, "starter")?;
    let request = RoundRequest { rules, open: open.map(|(s, n)| BySide::new(s, n)), starter };
    let start = request.validate().map_err(field_error)?;
    let max_memory = parse_size(max_memory).map_err(|e| usage(format!("max_memory: {e}")))?;
    let opts = rajapasu::exact::SolveOptions {
        max_memory,
        keep_layers: false,
        max_positions: max_positions.unwrap_or(u64::MAX),
    };
    let solved =
        py.detach(|| start.solve(opts, &mut |_| {})).map_err(|e| usage(e.describe(&keyword)))?;
    Ok(solved_json(&rules, &solved, peak_rss()).to_string())
}

/// Solves a match state exactly (R17) as `rajapasu solve --match --json` does; returns its
/// JSON. `holdings` (South, North) default to the match's start, P x S each.
#[pyfunction]
#[pyo3(signature = (holdings=None, starter="south", tables=None, max_memory="4G", max_positions=None, max_iterations=None, rules=None, spill=false, max_disk=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn solve_match_json(
    py: Python<'_>,
    holdings: Option<(u32, u32)>,
    starter: &str,
    tables: Option<PathBuf>,
    max_memory: &str,
    max_positions: Option<u64>,
    max_iterations: Option<u32>,
    rules: Option<&Bound<'_, PyDict>>,
    spill: bool,
    max_disk: Option<&str>,
) -> PyResult<String> {
    use rajapasu::app::solve::match_value::{match_solved_json, solve_match};
    use rajapasu::exact::{ExactStore, StoreSettings};
    use rajapasu::process::peak_rss;
    use rajapasu::size::parse_size;
    let rules = ruleset_from(rules)?;
    let starter = parse_side(starter, "starter")?;
    let request = MatchRequest {
        rules,
        holdings: holdings.map(|(s, n)| BySide::new(s, n)),
        starter,
        max_iterations,
    };
    let job = request.validate().map_err(field_error)?;
    let max_memory = parse_size(max_memory).map_err(|e| usage(format!("max_memory: {e}")))?;
    let max_disk =
        max_disk.map(parse_size).transpose().map_err(|e| usage(format!("max_disk: {e}")))?;
    if max_disk.is_some() && !spill {
        return Err(usage(
            "max_disk bounds the round graphs on disk: pass spill=True with it".to_string(),
        ));
    }
    let spill = spill
        .then(|| rajapasu::app::solve::spill::spill_options(max_memory, max_disk, None))
        .transpose()
        .map_err(field_error)?;
    let opts = rajapasu::exact::SolveOptions {
        max_memory,
        keep_layers: false,
        max_positions: max_positions.unwrap_or(u64::MAX),
    };
    let tables =
        rajapasu::exact::tables_dir(tables.as_deref()).map_err(|e| usage(e.describe(&keyword)))?;
    let name: rajapasu::exact::Naming = if spill.is_some() { &keyword } else { &match_keyword };
    let store =
        ExactStore::new(StoreSettings { tables, solve: opts, spill, ..StoreSettings::default() });
    let solved = py.detach(|| solve_match(&store, &job, &mut |_| {})).map_err(|e| match e {
        e if e.is_bad_input() => usage(e.describe(name)),
        e => RajapasuError::new_err(e.describe(name)),
    })?;
    Ok(match_solved_json(&rules, &solved, peak_rss()).to_string())
}
