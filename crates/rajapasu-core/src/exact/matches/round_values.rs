//! The perfect-match values of one round (R17) for `perfect:match`: for every position of the
//! round's graph and every reserve South can hold, who forces the match won, within how many
//! rounds, and a progress measure, in two bytes. On the real board the full round has
//! 22.2 million positions and 1.8 billion such cells (3.6 GB), so large values are also kept on
//! disk beside the match table ([`save`], [`load`]) and computed once per tables directory.
//!
//! A values file is untrusted input: its size must be exactly what the round's graph implies
//! (so memory is bounded by the graph, never by the file), it names the digest of the match
//! table its values were computed from, it ends with the SHA-256 of everything before, and every
//! byte is checked before use.
//!
//! The file: `RJPVALS2`, the match table's digest (64 hex digits), the length and text of the
//! rules' JSON, the open pits (2 bytes), the ending (tag, kept reserve as u32, starter), then as
//! u64 the graph's positions and moves, South's reserves lo and hi, the cells and the deep
//! entries; the cells' win bytes, their layer bytes, each deep entry (cell u64, layer u32); last
//! the SHA-256 of all the bytes before it. Integers are little-endian.

use std::collections::HashMap;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use crate::engine::{BySide, PitSet, Ruleset, Side};
use crate::exact::files::hashing::Hashing;
use crate::exact::files::temporaries::{ROUND_VALUES_EXTENSION, ROUND_VALUES_PREFIX};
use crate::exact::matches::match_solver::{end_masks, Ending, MatchTable};
use crate::exact::matches::round_graph::{Mask, RoundGraph};
use crate::exact::round::solver::{Progress, SendWatch, SolveError};
use crate::files;

/// The perfect-match values of one round's positions (R17), compactly: for each node and South's
/// reserve (a cell), which side forces the match won and within how few rounds k (at most one
/// side can), and the layer of the attractor at which that was established (see
/// [`RoundGraph::attract_layered`]: a forcer's cell has a move to a cell of a lower layer, so
/// moving down the layers converts the win). Two bytes a cell; a node with n counters on the
/// board has a cell for each reserve South can hold, `lo..=hi - n`.
pub(crate) struct RoundValues {
    pub(crate) graph: Arc<RoundGraph>,
    reserves: Reserves,
    /// The first cell of each level's nodes.
    level_cells: Vec<u64>,
    /// Per cell: 0 if neither side forces a win, else the rounds k (bits 0..7) and the side
    /// (bit 7 set: North).
    wins: Vec<u8>,
    /// Per won cell: its layer, [`FAR`] if it is 255 or more (then it is in `far`).
    layer: Vec<u8>,
    far: HashMap<u64, u32>,
}

/// Why the match values (R17) of a round were not computed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RoundValuesError {
    /// Whoever watched the computation stopped it; nothing was kept.
    #[error("the computation of the round's match values was cancelled")]
    Cancelled,
    /// The graph of the round's positions met a limit of the solver.
    #[error(transparent)]
    Solve(SolveError),
    /// The values cannot be had (too large, no match reaches the round, a file that is not
    /// theirs): the message says why, with the figures or the file.
    #[error("{0}")]
    Failed(String),
}

impl From<String> for RoundValuesError {
    fn from(message: String) -> RoundValuesError {
        RoundValuesError::Failed(message)
    }
}

/// The cell byte of a win of side f within t rounds.
fn t_tag(f: Side) -> impl Fn(u32) -> u8 {
    move |t| t as u8 | if f == Side::North { NORTH_BIT } else { 0 }
}

/// The bytes as atomics, for writers on several threads.
fn as_atomic(bytes: &mut [u8]) -> &[AtomicU8] {
    // SAFETY: AtomicU8 has the size, alignment and bit validity of u8, and the exclusive
    // borrow keeps every other access out while the atomics live.
    unsafe { &*(bytes as *mut [u8] as *const [AtomicU8]) }
}

/// A layer too deep for a byte: looked up in [`RoundValues::far`].
const FAR: u8 = u8::MAX;
const NORTH_BIT: u8 = 0x80;

/// South's reserves off the board that a round's values cover: `lo..=hi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Reserves {
    pub lo: u32,
    pub hi: u32,
}

/// The cells both sides' attractors write at once (disjoint: at most one side forces a win at a
/// cell), through atomics.
struct SharedCells<'a> {
    level_cells: &'a [u64],
    starts: &'a [u32],
    reserves: Reserves,
    wins: &'a [AtomicU8],
    layer: &'a [AtomicU8],
}

/// What one side's attractor found beside its cells: the layers too deep for a byte, and a
/// cell the other side won already (a table that is not a solution).
#[derive(Default)]
struct SideFound {
    far: HashMap<u64, u32>,
    conflict: Option<(u32, u32)>,
}

impl SharedCells<'_> {
    /// Marks won, with `tag`, the cells of node x of level n whose South reserves are the bits
    /// of `bits`, at layer `depth` of the attractor.
    fn mark(&self, found: &mut SideFound, (x, n): (u32, usize), bits: Mask, depth: u32, tag: u8) {
        let (first, width) =
            RoundValues::node_cells(self.level_cells, self.starts, self.reserves, n, x);
        let mut b = bits >> self.reserves.lo;
        while b != 0 {
            let i = b.trailing_zeros() as u64;
            b &= b - 1;
            if i >= width {
                break;
            }
            let cell = first + i;
            let c = cell as usize;
            if self.wins[c].compare_exchange(0, tag, Ordering::Relaxed, Ordering::Relaxed).is_err()
            {
                found.conflict.get_or_insert((x, self.reserves.lo + i as u32));
                continue;
            }
            if depth < FAR as u32 {
                self.layer[c].store(depth as u8, Ordering::Relaxed);
            } else {
                self.layer[c].store(FAR, Ordering::Relaxed);
                found.far.insert(cell, depth);
            }
        }
    }
}

impl RoundValues {
    /// South's reserves of level n's cells: `lo..=hi - n`, since South holds at most its largest
    /// kept reserve plus what was captured, and `hi` is that reserve plus the round's counters.
    fn width(Reserves { lo, hi }: Reserves, n: usize) -> u64 {
        match hi.checked_sub(n as u32) {
            Some(top) if top >= lo => (top - lo + 1) as u64,
            _ => 0,
        }
    }

    /// The first cell of node x (of level n) and its number of cells, one a reserve `lo..`.
    fn node_cells(
        level_cells: &[u64],
        starts: &[u32],
        reserves: Reserves,
        n: usize,
        x: u32,
    ) -> (u64, u64) {
        let width = RoundValues::width(reserves, n);
        (level_cells[n] + (x - starts[n]) as u64 * width, width)
    }

    /// The first cell of each level (and the number of cells, last).
    pub(crate) fn level_cells(graph: &RoundGraph, reserves: Reserves) -> Vec<u64> {
        let starts = graph.level_starts();
        let mut cells = vec![0u64];
        for n in 0..starts.len() - 1 {
            let nodes = (starts[n + 1] - starts[n]) as u64;
            cells.push(cells[n] + nodes * RoundValues::width(reserves, n));
        }
        cells
    }

    /// Computes the values of `graph` under `ending` for South's reserves `lo..=hi`: for each
    /// side f and threshold t, the attractor of the round's ends whose next state f wins within
    /// t-1 rounds, each continued from the last (the cells of threshold t are those it adds).
    /// Fails if both sides would force a win at a cell (a match table that is not a solution).
    #[cfg(test)]
    pub(crate) fn compute(
        graph: Arc<RoundGraph>,
        table: &MatchTable,
        ending: Ending,
        reserves: Reserves,
    ) -> Result<RoundValues, RoundValuesError> {
        RoundValues::compute_watched(graph, table, ending, reserves, &mut |_| {
            std::ops::ControlFlow::Continue(())
        })
    }

    /// [`RoundValues::compute`], `watch` hearing each step of the two sides' attractors (a
    /// number of rounds `t` of the match table, `2 (max_rounds + 1)` in all) and able to stop
    /// them at the next step ([`RoundValuesError::Cancelled`]).
    pub(crate) fn compute_watched(
        graph: Arc<RoundGraph>,
        table: &MatchTable,
        ending: Ending,
        reserves: Reserves,
        watch: &mut SendWatch,
    ) -> Result<RoundValues, RoundValuesError> {
        let rules = *table.rules();
        let level_cells = RoundValues::level_cells(&graph, reserves);
        let cells = *level_cells.last().expect("levels") as usize;
        let mut wins = vec![0u8; cells];
        let mut layer = vec![0u8; cells];
        let top = table.max_rounds() + 1;
        if top >= NORTH_BIT as u32 {
            return Err(
                format!("a match won within {top} rounds does not fit the values' byte").into()
            );
        }
        let starts = graph.level_starts();
        // The two sides' attractors are independent and write disjoint cells (at most one side
        // forces a win), so they run at once, one per core, writing through atomics.
        let (shared_wins, shared_layer) = (as_atomic(&mut wins), as_atomic(&mut layer));
        let (watch, steps, stopped) =
            (Mutex::new(watch), AtomicU64::new(0), AtomicBool::new(false));
        // One side's step `t` done: the watch hears it, and may stop both sides.
        let stepped = |t: u32| -> bool {
            let done = steps.fetch_add(1, Ordering::Relaxed) + 1;
            let progress = Progress { phase: "attracting", level: t, done, total: 2 * top as u64 };
            if (watch.lock().unwrap_or_else(|e| e.into_inner()))(progress).is_break() {
                stopped.store(true, Ordering::SeqCst);
            }
            stopped.load(Ordering::SeqCst)
        };
        let cells = SharedCells {
            level_cells: &level_cells,
            starts,
            reserves,
            wins: shared_wins,
            layer: shared_layer,
        };
        let side = |f: Side| -> SideFound {
            let tag = t_tag(f);
            let wins_of = table.wins_of(f);
            let mut win = vec![0 as Mask; graph.nodes()];
            let mut found = SideFound::default();
            for t in 1..=top {
                let masks = end_masks(&rules, ending, graph.on_board(), &|h, st| {
                    wins_of[h as usize][st.index()] < t
                });
                graph.attract_layered(
                    f,
                    &|left, mover| masks[left as usize][mover.index()],
                    &mut win,
                    |x, n, bits, depth| cells.mark(&mut found, (x, n), bits, depth, tag(t)),
                );
                if stepped(t) {
                    break;
                }
            }
            found
        };
        let (south, north) = rayon::join(|| side(Side::South), || side(Side::North));
        let (mut far, south_conflict) = (south.far, south.conflict);
        let (north_far, north_conflict) = (north.far, north.conflict);
        if stopped.load(Ordering::SeqCst) {
            return Err(RoundValuesError::Cancelled);
        }
        if let Some((node, reserve)) = south_conflict.or(north_conflict) {
            return Err(format!(
                "the match table is not a solution: both sides force a win at node {node} with South holding {reserve} off the board"
            )
            .into());
        }
        far.extend(north_far);
        far.shrink_to_fit();
        Ok(RoundValues { graph, reserves, level_cells, wins, layer, far })
    }

    pub(crate) fn bytes(&self) -> u64 {
        (self.wins.len() + self.layer.len() + self.far.len() * 16 + self.level_cells.len() * 8)
            as u64
    }

    /// Whether values of `cells` cells fit `limit` bytes; else why not, with the figures
    /// (computed before the values are, so that the player fails with a message instead of the
    /// process with no memory).
    pub(crate) fn fits(cells: u64, nodes: u64, open: BySide<u8>, limit: u64) -> Result<(), String> {
        let needed = cells * 2;
        if needed <= limit {
            return Ok(());
        }
        Err(format!(
            "the values of the round with {},{} pits open need {needed} bytes ({nodes} positions, {cells} pairs of a position and \
             a reserve of South, 2 bytes each), more than the {limit} allowed; play a smaller board, or perfect:round (R15), \
             which needs far less",
            open[Side::South],
            open[Side::North]
        ))
    }

    /// The cell of a node and South's reserve, None outside the values.
    fn cell(&self, node: u32, south_reserve: u32) -> Option<u64> {
        let n = self.graph.level_of(node);
        let (first, width) = RoundValues::node_cells(
            &self.level_cells,
            self.graph.level_starts(),
            self.reserves,
            n,
            node,
        );
        let i = south_reserve.checked_sub(self.reserves.lo)? as u64;
        (i < width).then_some(first + i)
    }

    /// Whether South's reserve is one of these values'.
    pub(crate) fn covers(&self, south_reserve: u32) -> bool {
        (self.reserves.lo..=self.reserves.hi).contains(&south_reserve)
    }

    /// (rounds within which f forces the win, layer) at a node and South reserve; None: never.
    pub(crate) fn at(&self, f: Side, node: u32, south_reserve: u32) -> (Option<u32>, u32) {
        let Some(cell) = self.cell(node, south_reserve) else { return (None, 0) };
        let w = self.wins[cell as usize];
        let side = if w & NORTH_BIT != 0 { Side::North } else { Side::South };
        if w == 0 || side != f {
            return (None, 0);
        }
        let layer = match self.layer[cell as usize] {
            FAR => self.far[&cell],
            l => l as u32,
        };
        (Some((w & !NORTH_BIT) as u32), layer)
    }

    /// The moves of perfect match play (R17) at `node` with South holding `south_reserve` off
    /// the board, for the side to move.
    pub(crate) fn best(&self, node: u32, south_reserve: u32, mover: Side) -> PitSet {
        let (mine, my_layer) = self.at(mover, node, south_reserve);
        let (theirs, _) = self.at(mover.other(), node, south_reserve);
        let mut set = PitSet::EMPTY;
        for (pit, child, gain) in self.graph.moves_of(node) {
            let off = south_reserve + gain;
            let (cm, co) = self.at(mover, child, off);
            let (ct, _) = self.at(mover.other(), child, off);
            let keeps = match (mine, theirs) {
                // Keep the rounds and make progress: a successor of a lower layer.
                (Some(k), _) => cm == Some(k) && co < my_layer,
                // Hold out longest.
                (None, Some(k)) => ct == Some(k),
                (None, None) => cm.is_none() && ct.is_none(),
            };
            if keeps {
                set.insert(pit);
            }
        }
        set
    }
}

/// Values with at least this many cells are saved to the tables directory (smaller ones are
/// computed faster than a file is read and checked).
pub(crate) const SAVED_CELLS: u64 = 1 << 24;

const MAGIC: &[u8; 8] = b"RJPVALS2";

/// The file of a round's values in the tables directory.
pub(crate) fn round_values_path(
    dir: &Path,
    rules: &Ruleset,
    open: BySide<u8>,
    ending: Ending,
) -> PathBuf {
    let (s, n, hash) = (open[Side::South], open[Side::North], rules.hash());
    let ending = match ending {
        Ending::Collector => String::new(),
        Ending::RoundWinner { kept, starter } => format!("-kept{kept}-{starter}"),
    };
    dir.join(format!("{ROUND_VALUES_PREFIX}{hash}-{s}x{n}{ending}{ROUND_VALUES_EXTENSION}"))
}

/// The values' trailer: the SHA-256 of every byte before it.
const TRAILER: u64 = 32;

/// The header: what the values are of (and of which match table), so that a file is never read
/// for another round or table.
fn header(
    graph: &RoundGraph,
    table: &str,
    rules: &Ruleset,
    ending: Ending,
    Reserves { lo, hi }: Reserves,
    cells: u64,
    far: u64,
) -> Vec<u8> {
    let mut h = MAGIC.to_vec();
    h.extend_from_slice(table.as_bytes());
    let rules_json = rules.to_json();
    h.extend_from_slice(&(rules_json.len() as u32).to_le_bytes());
    h.extend_from_slice(rules_json.as_bytes());
    h.extend_from_slice(&[graph.open[Side::South], graph.open[Side::North]]);
    let (tag, kept, starter) = match ending {
        Ending::Collector => (0u8, 0u32, 0u8),
        Ending::RoundWinner { kept, starter } => (1, kept, starter.index() as u8),
    };
    h.push(tag);
    h.extend_from_slice(&kept.to_le_bytes());
    h.push(starter);
    for v in [graph.nodes() as u64, graph.moves() as u64, lo as u64, hi as u64, cells, far] {
        h.extend_from_slice(&v.to_le_bytes());
    }
    h
}

impl RoundValues {
    /// Writes the values to `path` atomically (a temporary name, synced, renamed); `table` is
    /// the digest of the match table they were computed from.
    pub(crate) fn save(
        &self,
        path: &Path,
        table: &str,
        rules: &Ruleset,
        ending: Ending,
    ) -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut far: Vec<(u64, u32)> = self.far.iter().map(|(&c, &l)| (c, l)).collect();
        far.sort_unstable();
        files::write_atomically(path, |f| {
            let mut w = Hashing::buffered(f);
            w.write_all(&header(
                &self.graph,
                table,
                rules,
                ending,
                self.reserves,
                self.wins.len() as u64,
                far.len() as u64,
            ))?;
            w.write_all(&self.wins)?;
            w.write_all(&self.layer)?;
            for (cell, layer) in far {
                w.write_all(&cell.to_le_bytes())?;
                w.write_all(&layer.to_le_bytes())?;
            }
            w.finish().map(|_| ())
        })
    }

    /// The values of `graph` under `ending` for South's reserves `lo..=hi`, from `table`: read
    /// from the tables directory `dir` if they are large enough to be saved there, else computed
    /// (and saved when large: a directory where they cannot be saved, full or read-only, costs a
    /// warning and the next use the computation, not this one its values).
    pub(crate) fn load_or_compute(
        dir: &Path,
        graph: Arc<RoundGraph>,
        table: &MatchTable,
        ending: Ending,
        reserves: Reserves,
        watch: &mut SendWatch,
    ) -> Result<RoundValues, RoundValuesError> {
        let rules = *table.rules();
        let open = graph.open;
        let cells = *RoundValues::level_cells(&graph, reserves).last().expect("levels");
        let path = round_values_path(dir, &rules, open, ending);
        let saved = cells >= SAVED_CELLS;
        let digest = table.digest();
        if saved {
            if let Some(v) = RoundValues::load(
                &path,
                &digest,
                graph.clone(),
                &rules,
                ending,
                reserves,
                table.max_rounds() + 1,
            )? {
                return Ok(v);
            }
        }
        let v = RoundValues::compute_watched(graph, table, ending, reserves, watch)?;
        if let Err(e) = saved.then(|| v.save(&path, &digest, &rules, ending)).transpose() {
            eprintln!(
                "warning: {}: cannot save the round's values ({e}); going on with them in memory",
                path.display()
            );
        }
        Ok(v)
    }

    /// Reads the values of `graph` (under `ending`, reserves `lo..=hi`, rounds at most `top`,
    /// computed from the match table of digest `table`) from `path`: None if there is no file;
    /// an error naming the file and what is wrong if it is not exactly such values.
    pub(crate) fn load(
        path: &Path,
        table: &str,
        graph: Arc<RoundGraph>,
        rules: &Ruleset,
        ending: Ending,
        reserves: Reserves,
        top: u32,
    ) -> Result<Option<RoundValues>, String> {
        let bad = |what: &str| {
            format!("{}: {what}; delete the file to compute the values again", path.display())
        };
        let file = match files::open_regular(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(bad(&format!("cannot read the round's values ({e})"))),
        };
        let level_cells = RoundValues::level_cells(&graph, reserves);
        let cells = *level_cells.last().expect("levels");
        let len = file.metadata().map_err(|e| bad(&e.to_string()))?.len();
        let mut r = Hashing::new(BufReader::with_capacity(1 << 20, file));
        let io = |e: std::io::Error| bad(&format!("cannot read the round's values ({e})"));
        // The far count is the one field the graph does not fix: its header is read first.
        let probe = header(&graph, table, rules, ending, reserves, cells, 0);
        let mut got = vec![0u8; probe.len()];
        r.read_exact(&mut got).map_err(|_| bad("shorter than its header"))?;
        let far_at = probe.len() - 8;
        let table_at = MAGIC.len()..MAGIC.len() + table.len();
        if got[..MAGIC.len()] != *MAGIC {
            return Err(bad("not a values file of this version"));
        }
        if got[table_at.clone()] != probe[table_at.clone()] {
            return Err(bad(&format!(
                "computed from another match table (its digest {}, the table's {table})",
                String::from_utf8_lossy(&got[table_at])
            )));
        }
        if got[..far_at] != probe[..far_at] {
            return Err(bad(
                "not the values of this round (rules, open pits, ending, graph or reserves differ)",
            ));
        }
        let far_len = u64::from_le_bytes(got[far_at..].try_into().expect("8 bytes"));
        if far_len > cells || len != probe.len() as u64 + 2 * cells + 12 * far_len + TRAILER {
            return Err(bad(&format!(
                "{len} bytes, not the size its header and the round's {cells} cells give"
            )));
        }
        let mut wins = vec![0u8; cells as usize];
        r.read_exact(&mut wins).map_err(io)?;
        let mut layer = vec![0u8; cells as usize];
        r.read_exact(&mut layer).map_err(io)?;
        let mut pairs = vec![0u8; 12 * far_len as usize];
        r.read_exact(&mut pairs).map_err(io)?;
        // The digest first: a damaged file is named as such, not by its first odd value.
        let (digest, mut rest) = r.digest();
        let mut recorded = [0u8; TRAILER as usize];
        rest.read_exact(&mut recorded).map_err(io)?;
        if recorded[..] != digest[..] {
            return Err(bad(
                "its bytes do not match the SHA-256 it ends with (the file was changed or damaged)",
            ));
        }
        let far = far_layers(&pairs, &wins, &layer, top).map_err(|why| bad(&why))?;
        Ok(Some(RoundValues { graph, reserves, level_cells, wins, layer, far }))
    }
}

/// The deep layers of a values file's far entries (12 bytes each: cell, layer), checked against
/// its cells' wins and layers: each entry a cell marked deep, each cell a value of a match won
/// within `1..=top` rounds (or none). Why not, when not.
fn far_layers(
    pairs: &[u8],
    wins: &[u8],
    layer: &[u8],
    top: u32,
) -> Result<HashMap<u64, u32>, String> {
    let cells = wins.len() as u64;
    let mut far = HashMap::with_capacity(pairs.len() / 12);
    for pair in pairs.chunks_exact(12) {
        let cell = u64::from_le_bytes(pair[..8].try_into().expect("8 bytes"));
        let l = u32::from_le_bytes(pair[8..].try_into().expect("4 bytes"));
        if cell >= cells
            || layer[cell as usize] != FAR
            || l < FAR as u32
            || far.insert(cell, l).is_some()
        {
            return Err(format!(
                "a deep layer entry ({cell}, {l}) that is not one of a cell marked deep"
            ));
        }
    }
    for (c, (&w, &l)) in wins.iter().zip(layer).enumerate() {
        let rounds = (w & !NORTH_BIT) as u32;
        if (w == 0 && l != 0)
            || (w != 0 && !(1..=top).contains(&rounds))
            || (l == FAR && !far.contains_key(&(c as u64)))
        {
            return Err(format!(
                "cell {c} holds {w}, layer {l}: not a value of a match won within 1..={top} rounds"
            ));
        }
    }
    Ok(far)
}

#[cfg(test)]
#[path = "round_values_tests.rs"]
mod tests;
