//! A match stepped move by move for the learning environments (`rajapasu.env`, the PettingZoo
//! and Gymnasium environments, and `rajapasu.openspiel`, the OpenSpiel game): the engine's
//! match with the round cut of R17, the legal moves kept between the question and the move, and
//! the observation of a side (`rajapasu._game` documents its layout) written in one call, as
//! numbers a learner's tensors take directly.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyDict, PyType};

use rajapasu::engine::{Pit, PitSet, RoundEnd, Side, MAX_PITS_PER_ROW};
use rajapasu::show::{page_html, state_svg, Film, PageInfo};

use super::{pair, parse_side, round_end_dict, usage, PyMatch, PyRuleset, RajapasuError};

/// The simulator's cut: a round still going after this many moves is play that never ends
/// (R17).
const MAX_ROUND_MOVES: u32 = 10_000;

/// Observation length for `pits` pits a row: both rows, then seven counters.
const fn observation_len(pits: usize) -> usize {
    2 * pits + 7
}

const MAX_OBSERVATION: usize = observation_len(MAX_PITS_PER_ROW);

/// A match stepped move by move, with the round cut of R17: after `max_round_moves` moves in
/// one round the match is over, neither won nor lost (`cut`).
/// `Stepper(rules=None, first="south", max_round_moves=10000)`.
#[pyclass(module = "rajapasu._game", name = "Stepper")]
#[derive(Clone)]
pub struct PyStepper {
    m: PyMatch,
    /// The legal moves of the side to move: empty once the match is over or cut.
    legal: PitSet,
    round_moves: u32,
    max_round_moves: u32,
    cut: bool,
    last_end: Option<RoundEnd>,
}

fn positive(value: &Bound<'_, PyAny>) -> PyResult<u32> {
    let bad = || {
        usage(format!(
            "max_round_moves {}: expected a positive integer",
            value.repr().map(|r| r.to_string()).unwrap_or_default()
        ))
    };
    if value.is_instance_of::<pyo3::types::PyBool>() {
        return Err(bad());
    }
    match value.extract::<u32>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(bad()),
    }
}

#[pymethods]
impl PyStepper {
    #[new]
    #[pyo3(signature = (rules=None, first="south", max_round_moves=None))]
    fn new(
        rules: Option<&PyRuleset>,
        first: &str,
        max_round_moves: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        parse_side(first, "first")
            .map_err(|_| usage(format!("first {first:?}: allowed values are south, north")))?;
        let max_round_moves = max_round_moves.map(positive).transpose()?.unwrap_or(MAX_ROUND_MOVES);
        let m = PyMatch::new(rules, first)?;
        let legal = m.game.legal_moves();
        Ok(PyStepper { m, legal, round_moves: 0, max_round_moves, cut: false, last_end: None })
    }

    /// The match of `rules` (a dict of switches) with `moves` played again: what a pickled
    /// stepper is made from.
    #[classmethod]
    fn replayed(
        _cls: &Bound<'_, PyType>,
        py: Python<'_>,
        switches: &Bound<'_, PyDict>,
        first: &str,
        max_round_moves: &Bound<'_, PyAny>,
        moves: Vec<i64>,
    ) -> PyResult<Self> {
        let rules = PyRuleset::new(Some(switches))?;
        let mut stepper = PyStepper::new(Some(&rules), first, Some(max_round_moves))?;
        for pit in moves {
            stepper.play(py, pit)?;
        }
        Ok(stepper)
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let py = slf.py();
        let this = slf.borrow();
        let rules = PyRuleset { inner: *this.m.game.rules() };
        let args =
            (rules.as_dict(py)?, this.m.first.name(), this.max_round_moves, this.m.moves.clone());
        Ok((slf.get_type().getattr("replayed")?, args.into_pyobject(py)?.into_any()))
    }

    /// An independent copy.
    fn clone(&self) -> Self {
        Clone::clone(self)
    }

    fn __copy__(&self) -> Self {
        Clone::clone(self)
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        Clone::clone(self)
    }

    /// The legal local pits of the side to move (R4, R9), in increasing order; none once the
    /// match is over or cut.
    fn legal_moves(&self) -> Vec<usize> {
        self.legal.iter().map(|p| p.index()).collect()
    }

    /// Plays local pit `pit` for the side to move (ValueError naming why if it is illegal);
    /// returns the round's end (a dict, see `Move.round_end`) when the move ended a round,
    /// else None. The next round starts by itself.
    fn play<'py>(&mut self, py: Python<'py>, pit: i64) -> PyResult<Option<Bound<'py, PyDict>>> {
        let local = usize::try_from(pit).ok();
        let known = local
            .and_then(|i| Pit::new(i, self.m.game.rules().pits_per_row))
            .filter(|&p| self.legal.contains(p));
        let Some(p) = known else { return Err(self.illegal(pit)) };
        self.m.game.play_unchecked_observed(p, &mut ());
        self.m.moves.push(p.index());
        // The next mover's legal moves; without any the round ends (R10), and so does a next
        // round whose starter has none.
        let mut end = None;
        loop {
            self.legal = self.m.game.legal_moves();
            if !self.legal.is_empty() || self.m.game.is_over() {
                break;
            }
            end.get_or_insert(self.m.game.end_round());
        }
        if end.is_some() {
            self.round_moves = 0;
        } else {
            self.round_moves += 1;
            if self.round_moves >= self.max_round_moves && !self.m.game.is_over() {
                self.cut = true;
                self.legal = PitSet::EMPTY;
            }
        }
        self.last_end = end;
        end.map(|e| round_end_dict(py, &e)).transpose()
    }

    /// The observation of `side` (the layout `rajapasu._game` documents) as a list of ints.
    fn observe(&self, side: &str) -> PyResult<Vec<u32>> {
        let side = parse_side(side, "side")?;
        let mut out = vec![0; observation_len(self.pits())];
        self.fill_observation(side, &mut out);
        Ok(out)
    }

    /// The observation of `side` as native 64-bit integers followed by its action mask (one
    /// byte a pit: 1 where `side` may play it), in one new bytearray: two `numpy.frombuffer`
    /// views of it are the PettingZoo observation.
    fn observation_bytes<'py>(
        &self,
        py: Python<'py>,
        side: &str,
    ) -> PyResult<Bound<'py, PyByteArray>> {
        let side = parse_side(side, "side")?;
        let p = self.pits();
        let n = observation_len(p);
        let mut values = [0u32; MAX_OBSERVATION];
        self.fill_observation(side, &mut values[..n]);
        let mut bytes = Vec::with_capacity(8 * n + p);
        for &v in &values[..n] {
            bytes.extend_from_slice(&i64::from(v).to_ne_bytes());
        }
        let mask = self.mask(side);
        bytes.extend((0..p).map(|i| u8::from(mask.0 & (1 << i) != 0)));
        Ok(PyByteArray::new(py, &bytes))
    }

    /// Writes the observation of `side` as native 32-bit floats into `out`, a bytearray of
    /// exactly 4 x (2P + 7) bytes (the buffer of the OpenSpiel observer's tensor).
    fn write_observation(&self, side: &str, out: &Bound<'_, PyByteArray>) -> PyResult<()> {
        let side = parse_side(side, "side")?;
        let n = observation_len(self.pits());
        if out.len() != 4 * n {
            return Err(PyValueError::new_err(format!(
                "the observation takes {} bytes; the buffer has {}",
                4 * n,
                out.len()
            )));
        }
        let mut values = [0u32; MAX_OBSERVATION];
        self.fill_observation(side, &mut values[..n]);
        // SAFETY: the GIL is held and nothing else runs while the bytes are written, so the
        // bytearray can neither be resized nor read meanwhile; its length was checked above.
        let bytes = unsafe { out.as_bytes_mut() };
        for (chunk, &v) in bytes.chunks_exact_mut(4).zip(&values[..n]) {
            chunk.copy_from_slice(&(v as f32).to_ne_bytes());
        }
        Ok(())
    }

    /// The match so far (a copy).
    #[getter]
    #[pyo3(name = "match")]
    fn match_copy(&self) -> PyMatch {
        self.m.clone()
    }

    #[getter]
    fn rules(&self) -> PyRuleset {
        PyRuleset { inner: *self.m.game.rules() }
    }

    #[getter]
    fn first(&self) -> &'static str {
        self.m.first.name()
    }

    /// The local pits played so far, in order.
    #[getter]
    fn moves(&self) -> Vec<usize> {
        self.m.moves.clone()
    }

    #[getter]
    fn round(&self) -> u32 {
        self.m.game.round()
    }

    /// Moves played in the current round.
    #[getter]
    fn round_moves(&self) -> u32 {
        self.round_moves
    }

    #[getter]
    fn max_round_moves(&self) -> u32 {
        self.max_round_moves
    }

    /// "south" or "north": the side to move (the last mover's opponent once it is over).
    #[getter]
    fn turn(&self) -> &'static str {
        self.m.game.position().turn().name()
    }

    /// 0 (South) or 1 (North) to move; None once the match is over or cut.
    #[getter]
    fn player(&self) -> Option<usize> {
        (!self.is_over()).then(|| self.m.game.position().turn().index())
    }

    /// "south" or "north": who started the current round.
    #[getter]
    fn starter(&self) -> &'static str {
        self.m.game.round_start().starter.name()
    }

    /// Counters each side holds for the next round (kept plus captured), (south, north).
    #[getter]
    fn holdings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        pair(py, self.m.game.holdings())
    }

    /// The round a move ended, as `play` returned it, if the last move ended one.
    #[getter]
    fn last_round_end<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.last_end.map(|e| round_end_dict(py, &e)).transpose()
    }

    /// The round was still going after `max_round_moves` moves (R17).
    #[getter]
    fn cut(&self) -> bool {
        self.cut
    }

    #[getter]
    fn is_over(&self) -> bool {
        self.cut || self.m.game.is_over()
    }

    /// "south" or "north" once the match is won; None while it goes on or when it ended
    /// unfinished (max_rounds, R14) or was cut (R17).
    #[getter]
    fn winner(&self) -> Option<&'static str> {
        if self.cut {
            None
        } else {
            self.m.winner()
        }
    }

    /// The match is over without a winner: max_rounds rounds (R14) or a round cut (R17).
    #[getter]
    fn truncated(&self) -> bool {
        self.is_over() && self.winner().is_none()
    }

    /// The match so far in `rajapasu replay`'s trace format.
    fn to_trace(&self) -> PyResult<String> {
        self.m.to_trace()
    }

    /// The position now as the replay page draws it: the SVG document `rajapasu show --svg`
    /// writes for this ply of the match.
    fn svg(&self) -> PyResult<String> {
        let film = self.film()?;
        Ok(state_svg(&film, film.plies()).expect("the film ends at the last ply"))
    }

    /// The match so far as the replay page of `rajapasu show` (one self-contained HTML file),
    /// opening at the position now.
    fn replay_page(&self) -> PyResult<String> {
        let film = self.film()?;
        let plies = film.plies();
        let first = match self.m.first {
            Side::South => "South",
            Side::North => "North",
        };
        let rules = self.m.game.rules();
        let changed = rules.non_default();
        let what = if changed.is_empty() {
            "the default rules".to_string()
        } else {
            format!("the default rules but {}", changed.join(", "))
        };
        let state = if self.cut {
            format!("The round was cut after {} moves (R17).", self.max_round_moves)
        } else if let Some(winner) = self.winner() {
            format!("The match is over: {winner} won.")
        } else if self.m.game.is_over() {
            "The match is over, unfinished (max_rounds, R14).".to_string()
        } else {
            format!("The match goes on: round {}, {} to move.", self.m.game.round(), self.turn())
        };
        let about = vec![
            format!("{first} moved first; {plies} moves played in a rajapasu environment."),
            format!("Rules {} ({what}).", rules.hash()),
            state,
        ];
        let info = PageInfo {
            title: format!("Raja Pasu: a replay of {plies} moves"),
            about,
            initial_ply: plies,
        };
        Ok(page_html(&film, &info))
    }

    fn __repr__(&self) -> String {
        format!(
            "Stepper(round={}, ply={}, turn={:?}, over={}, cut={})",
            self.m.game.round(),
            self.m.game.ply(),
            self.turn(),
            self.is_over(),
            self.cut
        )
    }
}

impl PyStepper {
    fn pits(&self) -> usize {
        self.m.game.rules().pits_per_row as usize
    }

    /// The pits `side` may play: the legal moves when it is to move.
    fn mask(&self, side: Side) -> PitSet {
        if self.m.game.position().turn() == side {
            self.legal
        } else {
            PitSet::EMPTY
        }
    }

    /// The observation of `side` (X; Y its opponent): X's pits and Y's, local from each one's
    /// left end (R3); the counters each keeps off the board; each one's closed pits (R12); the
    /// round; whether X is to move; whether X started the round.
    fn fill_observation(&self, side: Side, out: &mut [u32]) {
        let game = &self.m.game;
        let pos = game.position();
        let p = self.pits();
        let board = pos.board();
        let (x, y) = (side, side.other());
        for (i, slot) in out[..p].iter_mut().enumerate() {
            *slot = board[x.index() * p + i] as u32;
        }
        for (i, slot) in out[p..2 * p].iter_mut().enumerate() {
            *slot = board[y.index() * p + i] as u32;
        }
        let reserve = pos.reserve();
        let open = pos.open();
        let tail = [
            reserve[x],
            reserve[y],
            (p - open[x].len()) as u32,
            (p - open[y].len()) as u32,
            game.round(),
            u32::from(!self.is_over() && pos.turn() == x),
            u32::from(game.round_start().starter == x),
        ];
        out[2 * p..].copy_from_slice(&tail);
    }

    /// The match so far as the replay page's film.
    fn film(&self) -> PyResult<Film> {
        Film::replay(*self.m.game.rules(), self.m.first, &self.m.moves).map_err(|e| {
            RajapasuError::new_err(format!("the moves played do not replay ({e}): a bug"))
        })
    }

    /// ValueError for an illegal pit, with the engine's reason when it has one.
    fn illegal(&self, pit: i64) -> PyErr {
        if self.cut {
            return PyValueError::new_err(format!(
                "pit {pit}: the match is over (a round cut after {} moves, R17)",
                self.max_round_moves
            ));
        }
        let mut game = self.m.game;
        match usize::try_from(pit).map(|i| game.play_checked_observed(i, &mut ())) {
            Ok(Err(e)) => PyValueError::new_err(e.to_string()),
            _ => PyValueError::new_err(format!(
                "pit {pit} is not a legal move here (legal: {})",
                self.legal
            )),
        }
    }
}
