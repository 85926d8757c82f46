//! The native part of the `rajapasu` Python package: the engine's positions and matches, the
//! simulator (the application layer's job that `rajapasu simulate` runs too), dataset checks
//! and the exact solver. A front end like the command line: keyword arguments become the
//! application layer's requests (`rajapasu::app`), its errors name the keyword arguments. The
//! pure-Python layer (python/rajapasu/__init__.py) turns datasets into polars frames.

use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use rajapasu::app::FieldError;
use rajapasu::engine::trace::{replay, TraceObserver};
use rajapasu::engine::{
    BySide, Game, MoveSummary, Pit, PitSet, Position, Rng, RoundEnd, Ruleset, Side,
};

mod jobs;
mod player;
mod stepper;

// No global allocator of our own: mimalloc's thread-local state does not fit the static TLS
// block of a module that Python loads with dlopen ("cannot allocate memory in static TLS block").

pyo3::create_exception!(rajapasu, RajapasuError, PyException, "An error of rajapasu.");
pyo3::create_exception!(
    rajapasu,
    UsageError,
    RajapasuError,
    "Bad input (what the command line reports with exit code 2): arguments, rules, players, files."
);

fn usage(msg: impl std::fmt::Display) -> PyErr {
    UsageError::new_err(msg.to_string())
}

/// A bad request: `field: message`, the field named as the keyword argument is.
fn field_error(e: FieldError) -> PyErr {
    UsageError::new_err(e.to_string())
}

fn parse_side(text: &str, what: &str) -> PyResult<Side> {
    text.parse::<Side>().map_err(|e| usage(format!("{what}: {e}")))
}

fn pair<'py>(py: Python<'py>, v: BySide<u32>) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(py, [v[Side::South], v[Side::North]])
}

/// A switch value as `Ruleset::from_assignments` takes it (NAME=VALUE).
fn switch_text(value: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(b) = value.cast::<pyo3::types::PyBool>() {
        return Ok(if b.is_true() { "true" } else { "false" }.to_string());
    }
    Ok(value.str()?.to_string())
}

/// `NAME=VALUE` assignments from a dict of switches.
fn assignments(switches: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<String>> {
    let mut out = Vec::new();
    if let Some(d) = switches {
        for (k, v) in d.iter() {
            out.push(format!("{}={}", k.str()?, switch_text(&v)?));
        }
    }
    Ok(out)
}

fn ruleset_from(switches: Option<&Bound<'_, PyDict>>) -> PyResult<Ruleset> {
    let items = assignments(switches)?;
    Ruleset::from_assignments(items.iter().map(String::as_str))
        .map_err(|e| usage(format!("rules: {e}")))
}

/// The rules of a match: the defaults of docs/rules.md with the switches given, e.g.
/// `Ruleset(pits_per_row=5, final_four="sower")`. Unknown switches and bad values raise
/// `UsageError` with the command line's message.
#[pyclass(module = "rajapasu", name = "Ruleset", frozen, eq)]
#[derive(Clone, PartialEq)]
struct PyRuleset {
    inner: Ruleset,
}

#[pymethods]
impl PyRuleset {
    #[new]
    #[pyo3(signature = (**switches))]
    fn new(switches: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        Ok(PyRuleset { inner: ruleset_from(switches)? })
    }

    /// Every switch and its value, as the trace header and manifests record them.
    fn as_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &self.inner.to_json())
    }

    /// The 12-hex-digit hash of the whole ruleset (datasets' `rules_hash`).
    #[getter]
    fn hash(&self) -> String {
        self.inner.hash()
    }

    #[getter]
    fn pits_per_row(&self) -> u8 {
        self.inner.pits_per_row
    }

    #[getter]
    fn seeds_per_pit(&self) -> u8 {
        self.inner.seeds_per_pit
    }

    /// The switches that differ from the defaults, as `NAME=VALUE`.
    fn non_default(&self) -> Vec<String> {
        self.inner.non_default()
    }

    fn __repr__(&self) -> String {
        format!("Ruleset({})", self.inner.non_default().join(", "))
    }
}

fn json_to_py<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (text,))
}

/// One capture of a move (R6, R8): `kind` "four" or "pussa", who took it, the global pit
/// (R2) it came from and how many counters.
#[pyclass(module = "rajapasu", name = "Capture", frozen, get_all, eq)]
#[derive(Clone, PartialEq)]
struct PyCapture {
    kind: &'static str,
    by: &'static str,
    pit: u8,
    n: u8,
}

#[pymethods]
impl PyCapture {
    fn __repr__(&self) -> String {
        format!("Capture(kind={:?}, by={:?}, pit={}, n={})", self.kind, self.by, self.pit, self.n)
    }
}

/// What a move did: the pit (local, R3), who moved, the counters lifted by each lap (R7),
/// the captures in order with their source pits, whether it was endless (R9), and whether the
/// round is over because the side to move now has no legal move (R10). From `Match.play`,
/// `round_end` describes the end of the round (or None).
///
/// A Move holds the position it was played from and the engine's summary of the move (a few
/// bytes, no Python objects): `laps`, `captures`, `round_over` and `round_end` are computed
/// when read (the move replayed on a copy), so `play` in a tight loop costs no lists or dicts.
#[pyclass(module = "rajapasu", name = "Move", frozen)]
struct PyMove {
    before: Position,
    pit: Pit,
    summary: MoveSummary,
    /// From `Match.play`: the round's end, if the move ended it. None from `Position.play`
    /// (`round_over` is then asked of the position after the move).
    ended: Option<Option<RoundEnd>>,
}

impl PyMove {
    /// The move played again on a copy of the position before it, details observed.
    fn observed(&self) -> TraceObserver {
        let mut obs = TraceObserver::default();
        let mut pos = self.before;
        pos.play_unchecked_observed(self.pit, &mut obs);
        obs
    }
}

#[pymethods]
impl PyMove {
    /// The local pit played (R3).
    #[getter]
    fn pit(&self) -> usize {
        self.pit.index()
    }

    /// Who moved: "south" or "north".
    #[getter]
    fn player(&self) -> &'static str {
        self.before.turn().name()
    }

    /// Counters lifted by each lap (R7), in order.
    #[getter]
    fn laps(&self) -> Vec<u32> {
        self.observed().laps
    }

    /// The captures (R6 fours, R8 pussa) in the order they happened.
    #[getter]
    fn captures(&self) -> Vec<PyCapture> {
        self.observed()
            .captures
            .into_iter()
            .map(|c| PyCapture { kind: c.kind, by: c.by.name(), pit: c.pit, n: c.n })
            .collect()
    }

    /// Counters sown over all laps.
    #[getter]
    fn sown(&self) -> u32 {
        self.summary.sown
    }

    /// The move was endless (R9): it stopped at its first repeated lap start.
    #[getter]
    fn endless(&self) -> bool {
        self.summary.endless
    }

    /// The side to move after this move has no legal move: the round is over (R10).
    #[getter]
    fn round_over(&self) -> bool {
        match self.ended {
            Some(end) => end.is_some(),
            None => !self.before.after(self.pit).0.has_legal_move(),
        }
    }

    /// From `Match.play`, when the move ended the round: a dict (round, collector, remainder,
    /// captured, holdings, winner, next_starter, match_over, match_winner); else None.
    #[getter]
    fn round_end<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.ended.flatten().map(|e| round_end_dict(py, &e)).transpose()
    }

    fn __repr__(&self) -> String {
        let obs = self.observed();
        format!(
            "Move(pit={}, player={:?}, laps={:?}, captures={}, endless={}, round_over={})",
            self.pit.index(),
            self.player(),
            obs.laps,
            obs.captures.len(),
            if self.summary.endless { "True" } else { "False" },
            if self.round_over() { "True" } else { "False" }
        )
    }
}

fn position_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A position inside a round: the board (2P counts, global pits R2), the counters kept off
/// the board, the open pits and the side to move. `Position.opening(rules)` is round 1's start.
#[pyclass(module = "rajapasu", name = "Position")]
#[derive(Clone)]
struct PyPosition {
    inner: Position,
    /// The legal moves, once asked (a loop asks `legal_moves()` and then plays one of them:
    /// that pit is known legal and is sown once, not simulated again by the check).
    legal: Option<PitSet>,
}

#[pymethods]
impl PyPosition {
    /// The start of round 1 under `rules` (default rules if None), `starter` to move.
    #[staticmethod]
    #[pyo3(signature = (rules=None, starter="south"))]
    fn opening(rules: Option<&PyRuleset>, starter: &str) -> PyResult<Self> {
        let rules = rules.map_or_else(Ruleset::default, |r| r.inner);
        Ok(PyPosition::new(Position::opening(rules, parse_side(starter, "starter")?)))
    }

    /// A position inside a round, set up: `board` the 2P pits in global order (R2; None for a
    /// closed pit, R12), `reserves` each side's counters off the board (South, North), `turn`
    /// the side to move. Refused (ValueError naming what is wrong) unless the counters sum to
    /// the rules' total (R1) and the closed pits are empty and at each row's left end (R12).
    #[staticmethod]
    #[pyo3(signature = (board, reserves, turn="south", rules=None))]
    fn setup(
        board: Vec<Option<u8>>,
        reserves: (u32, u32),
        turn: &str,
        rules: Option<&PyRuleset>,
    ) -> PyResult<Self> {
        let rules = rules.map_or_else(Ruleset::default, |r| r.inner);
        let reserve = BySide::new(reserves.0, reserves.1);
        let position = rajapasu::app::explore::game::board_position(
            rules,
            &board,
            reserve,
            parse_side(turn, "turn")?,
        )
        .map_err(field_error)?;
        Ok(PyPosition::new(position))
    }

    /// Legal local pits (0-based from the mover's left, R3) in increasing order.
    fn legal_moves(&mut self) -> Vec<usize> {
        self.legal_set().iter().map(|p| p.index()).collect()
    }

    /// The side to move's open, non-empty local pits in increasing order: the legal moves,
    /// plus those that would be endless under `endless = forbid` (R9). The built-in random
    /// player draws among these and strikes out an illegal draw.
    fn candidates(&self) -> Vec<usize> {
        self.inner.candidates().iter().map(|p| p.index()).collect()
    }

    /// Plays local pit `pit` for the side to move; an illegal pit raises ValueError naming why.
    /// The Move's details are computed when read (see Move).
    fn play(&mut self, pit: usize) -> PyResult<PyMove> {
        let before = self.inner;
        let summary = self.play_checked(pit)?;
        Ok(PyMove { before, pit: Pit::new_unchecked(pit), summary, ended: None })
    }

    /// Plays `pit` and returns only the laps sown; an illegal pit raises ValueError.
    fn play_fast(&mut self, pit: usize) -> PyResult<u32> {
        self.play_checked(pit).map(|s| s.laps)
    }

    /// Plays uniformly random legal moves with `rng` until the side to move has none (the
    /// round's end, R10) or `max_moves` were played; returns the number of moves played.
    #[pyo3(signature = (rng, max_moves=u64::MAX))]
    fn play_random(&mut self, rng: &mut PyRng, max_moves: u64) -> u64 {
        let mut n = 0;
        while n < max_moves {
            let legal = self.inner.legal_moves();
            if legal.is_empty() {
                break;
            }
            let pit = legal.nth(rng.inner.below(legal.len() as u32) as usize);
            self.inner.play_unchecked(pit);
            n += 1;
        }
        self.legal = None;
        n
    }

    /// An independent copy.
    fn clone(&self) -> Self {
        self.clone_inner()
    }

    fn __copy__(&self) -> Self {
        self.clone_inner()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.clone_inner()
    }

    /// Counters in each global pit (R2): South's pits 0..P-1 left to right, then North's.
    #[getter]
    fn board(&self) -> Vec<u32> {
        // u32, not u8: pyo3 turns a Vec<u8> into bytes.
        self.inner.board().iter().map(|&c| c as u32).collect()
    }

    /// Counters each side keeps off the board this round, (south, north).
    #[getter]
    fn reserves<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        pair(py, self.inner.reserve())
    }

    /// Open local pits of each side this round (R12), {"south": [...], "north": [...]}.
    #[getter]
    fn open<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for side in [Side::South, Side::North] {
            d.set_item(
                side.name(),
                self.inner.open()[side].iter().map(|p| p.index()).collect::<Vec<_>>(),
            )?;
        }
        Ok(d)
    }

    /// "south" or "north".
    #[getter]
    fn turn(&self) -> &'static str {
        self.inner.turn().name()
    }

    #[getter]
    fn rules(&self) -> PyRuleset {
        PyRuleset { inner: *self.inner.rules() }
    }

    /// True when the side to move has no legal move: the round is over (R10).
    #[getter]
    fn round_over(&self) -> bool {
        match self.legal {
            Some(set) => set.is_empty(),
            None => !self.inner.has_legal_move(),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "Position(turn={:?}, board={:?}, reserves={:?})",
            self.turn(),
            self.inner.board(),
            self.inner.reserve()
        )
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }
}

impl PyPosition {
    fn new(inner: Position) -> Self {
        PyPosition { inner, legal: None }
    }

    fn clone_inner(&self) -> Self {
        Clone::clone(self)
    }

    fn legal_set(&mut self) -> PitSet {
        *self.legal.get_or_insert_with(|| self.inner.legal_moves())
    }

    /// Plays `pit` if legal, simulating the move once: a pit of the legal moves asked for
    /// this position is sown at once; otherwise an open, non-empty pit is sown with the
    /// endless check (R9) on the way. An illegal pit leaves the position as it was and
    /// raises ValueError with the engine's reason.
    fn play_checked(&mut self, pit: usize) -> PyResult<MoveSummary> {
        let known = self.legal.take();
        let summary = match Pit::new(pit, self.inner.rules().pits_per_row) {
            Some(p) if known.is_some_and(|set| set.contains(p)) => {
                Some(self.inner.play_unchecked(p))
            }
            Some(p) if known.is_none() && self.inner.candidates().contains(p) => {
                self.inner.play_if_legal_observed(p, &mut ())
            }
            _ => None,
        };
        match summary {
            Some(s) => Ok(s),
            // The engine's check names the reason (and plays nothing when it finds one).
            None => {
                let checked = self.inner.play(pit);
                if checked.is_err() {
                    self.legal = known;
                }
                checked.map_err(position_error)
            }
        }
    }
}

fn round_end_dict<'py>(py: Python<'py>, end: &RoundEnd) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("round", end.round)?;
    d.set_item("collector", end.collector.name())?;
    d.set_item("remainder", end.remainder)?;
    d.set_item("captured", pair(py, end.captured)?)?;
    d.set_item("holdings", pair(py, end.holdings)?)?;
    d.set_item("winner", end.winner.map(Side::name))?;
    d.set_item("next_starter", end.next_starter.name())?;
    d.set_item("match_over", end.outcome.is_some())?;
    d.set_item("match_winner", end.outcome.and_then(|o| o.winner()).map(Side::name))?;
    Ok(d)
}

/// A match from round 1 to its end (R10-R14): rounds end by themselves when the side to move
/// has no legal move. `Match(rules=None, first="south")`.
#[pyclass(module = "rajapasu", name = "Match")]
#[derive(Clone)]
struct PyMatch {
    game: Game,
    first: Side,
    moves: Vec<usize>,
}

#[pymethods]
impl PyMatch {
    #[new]
    #[pyo3(signature = (rules=None, first="south"))]
    fn new(rules: Option<&PyRuleset>, first: &str) -> PyResult<Self> {
        let rules = rules.map_or_else(Ruleset::default, |r| r.inner);
        let first = parse_side(first, "first")?;
        let mut game = Game::new(rules, first);
        // A round 1 without a legal move ends at once (R10), as `replay` does.
        while game.settle().is_some_and(|e| e.outcome.is_none()) {}
        Ok(PyMatch { game, first, moves: Vec::new() })
    }

    fn legal_moves(&self) -> Vec<usize> {
        self.game.legal_moves().iter().map(|p| p.index()).collect()
    }

    /// Plays local pit `pit` for the side to move. The returned Move's `round_end` is a dict
    /// (round, collector, remainder, captured, holdings, winner, next_starter, match_over,
    /// match_winner) when the move ended the round; the next round then starts by itself.
    fn play(&mut self, pit: usize) -> PyResult<PyMove> {
        let before = *self.game.position();
        let summary = self.game.play_checked_observed(pit, &mut ()).map_err(position_error)?;
        self.moves.push(pit);
        // The round's end; a next round whose starter has no legal move ends at once too (R10).
        let mut first_end = None;
        while let Some(e) = self.game.settle() {
            first_end.get_or_insert(e);
            if e.outcome.is_some() {
                break;
            }
        }
        Ok(PyMove { before, pit: Pit::new_unchecked(pit), summary, ended: Some(first_end) })
    }

    /// The current position (a copy).
    #[getter]
    fn position(&self) -> PyPosition {
        PyPosition::new(*self.game.position())
    }

    #[getter]
    fn round(&self) -> u32 {
        self.game.round()
    }

    /// Moves played so far in the match.
    #[getter]
    fn ply(&self) -> u32 {
        self.game.ply()
    }

    #[getter]
    fn turn(&self) -> &'static str {
        self.game.position().turn().name()
    }

    #[getter]
    fn first(&self) -> &'static str {
        self.first.name()
    }

    #[getter]
    fn is_over(&self) -> bool {
        self.game.is_over()
    }

    /// The winner once the match is over ("south", "north"), None while it goes on or when it
    /// ended unfinished after max_rounds (R14).
    #[getter]
    fn winner(&self) -> Option<&'static str> {
        self.game.outcome().and_then(|o| o.winner()).map(Side::name)
    }

    /// Counters each side holds for the next round (kept plus captured), (south, north).
    #[getter]
    fn holdings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        pair(py, self.game.holdings())
    }

    /// The local pits played so far, in order.
    #[getter]
    fn moves(&self) -> Vec<usize> {
        self.moves.clone()
    }

    fn clone(&self) -> Self {
        Clone::clone(self)
    }

    fn __copy__(&self) -> Self {
        Clone::clone(self)
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        Clone::clone(self)
    }

    /// The match so far in the trace format of docs/rules.md (one JSON object a line, as
    /// `rajapasu replay` prints it).
    fn to_trace(&self) -> PyResult<String> {
        let mut out = String::new();
        replay(*self.game.rules(), self.first, &self.moves, |event| {
            out.push_str(&event.to_json());
            out.push('\n');
        })
        .map_err(position_error)?;
        Ok(out)
    }

    fn __repr__(&self) -> String {
        format!(
            "Match(round={}, ply={}, turn={:?}, over={})",
            self.game.round(),
            self.game.ply(),
            self.turn(),
            self.game.is_over()
        )
    }
}

/// A seat's random stream (pcg64, see docs): a Python player gets the stream of its seat, a
/// pure function of (master seed, match index, seat), so its choices are reproducible.
/// `Rng(seed)` makes a stream of its own.
#[pyclass(module = "rajapasu", name = "Rng")]
struct PyRng {
    inner: Rng,
}

#[pymethods]
impl PyRng {
    #[new]
    #[pyo3(signature = (seed=1, match_index=None, seat=None))]
    fn new(seed: u64, match_index: Option<u64>, seat: Option<&str>) -> PyResult<Self> {
        let inner = match (match_index, seat) {
            (None, None) => Rng::from_seed(seed),
            (Some(m), Some(s)) => rajapasu::agents::seat_rng(seed, m, parse_side(s, "seat")?),
            _ => {
                return Err(usage(
                    "give both match_index and seat (the seat's stream of a run), or neither",
                ))
            }
        };
        Ok(PyRng { inner })
    }

    /// Uniform integer in 0..n (n > 0), without bias.
    fn below(&mut self, n: u32) -> PyResult<u32> {
        if n == 0 {
            return Err(usage("below(n) needs n > 0"));
        }
        Ok(self.inner.below(n))
    }

    /// The next 64 random bits.
    fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }

    /// Uniform float in [0, 1) (53 random bits).
    fn random(&mut self) -> f64 {
        (self.inner.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A uniformly chosen element of a non-empty sequence.
    fn choice<'py>(&mut self, seq: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let n = seq.len()?;
        if n == 0 || n > u32::MAX as usize {
            return Err(usage("choice() needs a non-empty sequence"));
        }
        seq.get_item(self.inner.below(n as u32))
    }
}

/// The rule switches and their allowed values.
#[pyfunction]
fn switches() -> Vec<(&'static str, String)> {
    Ruleset::default().as_pairs()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("RajapasuError", m.py().get_type::<RajapasuError>())?;
    m.add("UsageError", m.py().get_type::<UsageError>())?;
    m.add_class::<PyRuleset>()?;
    m.add_class::<PyPosition>()?;
    m.add_class::<PyMatch>()?;
    m.add_class::<PyMove>()?;
    m.add_class::<PyCapture>()?;
    m.add_class::<PyRng>()?;
    m.add_class::<player::PyAgent>()?;
    m.add_class::<stepper::PyStepper>()?;
    m.add_function(wrap_pyfunction!(jobs::simulate_to, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::dataset_parts, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::solve_json, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::solve_match_json, m)?)?;
    m.add_function(wrap_pyfunction!(switches, m)?)?;
    m.add("ALLOWED_PLAYERS", rajapasu::agents::ALLOWED)?;
    Ok(())
}
