//! One level's in-level game solved in few bytes a position, for the spilled solver
//! ([`crate::exact::round::spill`]), whose largest levels hold billions of positions: the same values as the
//! in-memory solver's attractor ([`crate::exact::round::solver::level_values`]) from
//!
//! - each position's best exit in South's terms as one byte ([`NO_EXIT`]: none; values and
//!   exits are within -127..=127, [`crate::exact::MAX_COUNTERS`]),
//! - its in-level degree as one byte, which the attractor then counts down,
//! - the predecessors in CSR form built from the successor lists streamed from a file
//!   ([`Preds::build`]), so that successors and predecessors are never in memory at once: a
//!   one-byte in-degree a position (the few of 255 or more aside) and a u64 offset a block of
//!   [`BLOCK`] positions instead of a u32 offset a position,
//! - a one-byte value a position and a stack of bounded size (two of each while both forcers
//!   run at once, where the memory bound allows: [`forcers_at_once`]),
//!
//! and no buckets of positions by exit value: each threshold scans the level for the positions
//! it starts from (see [`LeanAttractor::phase`]). About 4 bytes a position and 4 an in-level move.

use std::io::Read;

use rustc_hash::FxHashMap;

/// The best exit of a position with none.
pub(crate) const NO_EXIT: i8 = i8::MIN;
/// A position attracted at the current threshold whose predecessors are still to visit, left
/// out of a full stack (never a value: values are within -127..=127).
const PENDING: i8 = i8::MIN;
/// Positions per block of the predecessor index (one u64 offset a block).
const BLOCK: usize = 64;
/// An in-degree byte of 255: the count (255 or more) is in the `big` map.
const BIG: u8 = u8::MAX;
/// The flag of a block offset whose block holds an in-degree of 255 or more.
const BIG_BLOCK: u64 = 1 << 63;
/// Bytes accounted an entry of a map of large in-degrees (key, count, the table's slack).
const BIG_ENTRY_BYTES: u64 = 32;
/// Bytes of the buffer the successor file is read through.
const READ_BYTES: usize = 1 << 20;

/// Counts by position, a byte each: a byte of [`BIG`] says the count (255 or more) is in a map,
/// so that the few positions with many moves into them cost no more than the rest.
struct ByteCounts {
    bytes: Vec<u8>,
    big: FxHashMap<u32, u64>,
}

impl ByteCounts {
    fn new(m: usize) -> ByteCounts {
        ByteCounts { bytes: vec![0; m], big: FxHashMap::default() }
    }

    /// Adds one to `t`'s count; the count before.
    #[inline]
    fn increment(&mut self, t: u32) -> u64 {
        let c = &mut self.bytes[t as usize];
        if *c == BIG {
            let k = self.big.get_mut(&t).expect("a count of 255 is in the map");
            *k += 1;
            return *k - 1;
        }
        *c += 1;
        if *c == BIG {
            self.big.insert(t, BIG as u64);
        }
        *c as u64 - 1
    }

    fn get(&self, x: usize) -> u64 {
        match self.bytes[x] {
            BIG => self.big[&(x as u32)],
            c => c as u64,
        }
    }
}

/// The in-degrees of a level's positions, counted as the successor lists are written.
pub(crate) struct InDegrees {
    counts: ByteCounts,
    edges: u64,
}

impl InDegrees {
    pub(crate) fn new(m: usize) -> InDegrees {
        InDegrees { counts: ByteCounts::new(m), edges: 0 }
    }

    /// Counts a move into `t`.
    #[inline]
    pub(crate) fn add(&mut self, t: u32) {
        self.edges += 1;
        self.counts.increment(t);
    }

    /// The in-level moves counted.
    pub(crate) fn edges(&self) -> u64 {
        self.edges
    }

    /// Positions of in-degree 255 or more.
    pub(crate) fn big(&self) -> usize {
        self.counts.big.len()
    }

    fn count(&self, x: usize) -> u64 {
        self.counts.get(x)
    }

    /// The count bytes of positions `range` ([`BIG`] for a count in the map).
    fn bytes(&self, range: std::ops::Range<usize>) -> &[u8] {
        &self.counts.bytes[range]
    }
}

/// The predecessors of every position of a level, in the order of the parents.
pub(crate) struct Preds {
    degrees: InDegrees,
    /// The first predecessor of each block, [`BIG_BLOCK`] set when the block holds a big count.
    block: Vec<u64>,
    preds: Vec<u32>,
}

impl Preds {
    /// Builds the predecessor lists from `degrees` and the successor lists read from `succ`
    /// (u32 little-endian, in node order, `degree[x]` of them for node x): a pass over the
    /// successors, each placed at its child's next free slot (a one-byte cursor a position,
    /// freed before this returns).
    pub(crate) fn build(
        degrees: InDegrees,
        degree: &[u8],
        succ: &mut impl Read,
    ) -> std::io::Result<Preds> {
        let m = degree.len();
        let mut block = Vec::with_capacity(m.div_ceil(BLOCK));
        let mut total = 0u64;
        for (b, counts) in degrees.bytes(0..m).chunks(BLOCK).enumerate() {
            let big = counts.contains(&BIG);
            block.push(total | if big { BIG_BLOCK } else { 0 });
            total += if big {
                (0..counts.len()).map(|k| degrees.count(b * BLOCK + k)).sum::<u64>()
            } else {
                counts.iter().map(|&c| c as u64).sum::<u64>()
            };
        }
        let mut preds = Preds { degrees, block, preds: vec![0; total as usize] };
        let mut fill = Filling { cursor: ByteCounts::new(m), x: 0, left: 0 };
        let mut bad = None;
        for_each_u32(succ, |t| {
            if bad.is_none() {
                bad = fill.place(&mut preds, degree, t).err();
            }
        })?;
        while fill.x < m && fill.left == 0 {
            fill.left = *degree.get(fill.x).unwrap_or(&0);
            fill.x += (fill.left == 0) as usize;
        }
        if let Some(e) = bad.or((fill.x < m).then(|| "fewer moves than the degrees".to_string())) {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, e));
        }
        Ok(preds)
    }

    fn start(&self, x: usize) -> u64 {
        let b = x / BLOCK;
        let (offset, big) = (self.block[b] & !BIG_BLOCK, self.block[b] & BIG_BLOCK != 0);
        let from = b * BLOCK;
        offset
            + if big {
                (from..x).map(|y| self.degrees.count(y)).sum::<u64>()
            } else {
                self.degrees.bytes(from..x).iter().map(|&c| c as u64).sum::<u64>()
            }
    }

    /// The predecessors of `x`, in the order of the parents.
    pub(crate) fn of(&self, x: usize) -> &[u32] {
        let start = self.start(x) as usize;
        &self.preds[start..start + self.degrees.count(x) as usize]
    }
}

/// Where [`Preds::build`] is in the successor lists.
struct Filling {
    /// Predecessors placed so far of each position.
    cursor: ByteCounts,
    /// The parent of the next successor read, and its successors still to read.
    x: usize,
    left: u8,
}

impl Filling {
    #[inline]
    fn place(&mut self, preds: &mut Preds, degree: &[u8], t: u32) -> Result<(), String> {
        while self.left == 0 {
            match degree.get(self.x) {
                Some(&d) => {
                    self.left = d;
                    self.x += (d == 0) as usize;
                }
                None => return Err("more moves than the degrees".to_string()),
            }
        }
        let x = self.x as u32;
        self.left -= 1;
        if self.left == 0 {
            self.x += 1;
        }
        let at = preds.start(t as usize);
        let count = preds.degrees.count(t as usize);
        let k = self.cursor.increment(t);
        if k >= count {
            return Err(format!("more moves into position {t} than counted"));
        }
        preds.preds[(at + k) as usize] = x;
        Ok(())
    }
}

/// Calls `f` with every u32 (little-endian) of `r`; a trailing partial word is an error.
fn for_each_u32(r: &mut impl Read, mut f: impl FnMut(u32)) -> std::io::Result<()> {
    let mut buf = vec![0u8; READ_BYTES];
    let mut have = 0;
    loop {
        let got = r.read(&mut buf[have..])?;
        if got == 0 {
            if have != 0 {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    format!("{have} bytes after the last whole move"),
                ));
            }
            return Ok(());
        }
        have += got;
        let whole = have / 4 * 4;
        for w in buf[..whole].chunks_exact(4) {
            f(u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
        }
        buf.copy_within(whole..have, 0);
        have -= whole;
    }
}

/// The entries of the stack of a level of `m` positions (more are marked [`PENDING`] and found
/// by a scan).
pub(crate) fn stack_entries(m: usize) -> usize {
    (m / 64).clamp(1 << 12, 1 << 24).min(m.max(1))
}

/// The working bytes of a level of `m` positions while it is scanned: best exits, degrees and
/// in-degrees.
pub(crate) fn scan_bytes(m: usize) -> u64 {
    3 * m as u64
}

/// The working bytes of a level of `m` positions, `edges` in-level moves and `big` in-degrees
/// of 255 or more while its predecessors are built ([`Preds::build`]: the cursors and the read
/// buffer on top of the scan's) and while it is solved ([`lean_values`]: the values and the
/// stack instead, one of each a forcer when `both_at_once`); the larger of the two.
pub(crate) fn solve_bytes(m: usize, edges: u64, big: usize, both_at_once: bool) -> u64 {
    let index = m.div_ceil(BLOCK) as u64 * 8 + edges * 4 + big as u64 * BIG_ENTRY_BYTES;
    let build = m as u64 + big as u64 * BIG_ENTRY_BYTES + READ_BYTES as u64;
    let solve = (m as u64 + stack_entries(m) as u64 * 4) * if both_at_once { 2 } else { 1 };
    scan_bytes(m) + index + build.max(solve)
}

/// Whether a level's two forcers run at once under a memory bound of `max_memory` bytes
/// ([`lean_values`]): where their second values and stack fit it.
pub(crate) fn forcers_at_once(m: usize, edges: u64, big: usize, max_memory: u64) -> bool {
    solve_bytes(m, edges, big, true) <= max_memory
}

/// The values in South's terms of a level of `n` counters (positions 0..south_count have South
/// to move) from the best exits in South's terms and the in-level degrees (counted down in
/// place) and predecessors: the values of [`crate::exact::round::solver::level_values`].
///
/// The two forcers settle disjoint positions (a position South forces 1 or more from is not
/// one North does) and count down disjoint halves of `left` (each the other side's), so with
/// `both_at_once` each runs on its own core with its own values and stack (one more byte a
/// position, [`solve_bytes`]), North's laid over South's; else one after the other.
pub(crate) fn lean_values(
    n: u32,
    south_count: usize,
    exit: &[i8],
    left: &mut [u8],
    preds: &Preds,
    stack: usize,
    both_at_once: bool,
) -> Vec<i8> {
    let (south_left, north_left) = left.split_at_mut(south_count);
    let forcer = |south: bool, left: &mut [u8], u: Vec<i8>| {
        // South forces: North's positions' counts are the ones counted down, and vice versa.
        let base = if south { south_count } else { 0 };
        let mut a = LeanAttractor {
            n: n as i32,
            south_count,
            exit,
            left,
            left_base: base,
            preds,
            u,
            stack: Vec::with_capacity(stack),
            cap: stack.max(1),
            overflowed: false,
            south_forces: south,
        };
        a.phase();
        a.u
    };
    let m = exit.len();
    if !both_at_once {
        let u = forcer(true, north_left, vec![0; m]);
        return forcer(false, south_left, u);
    }
    let (mut u, north) = rayon::join(
        || forcer(true, north_left, vec![0; m]),
        || forcer(false, south_left, vec![0; m]),
    );
    for (x, &v) in north.iter().enumerate().filter(|(_, &v)| v != 0) {
        debug_assert_eq!(u[x], 0, "position {x} settled by both forcers");
        u[x] = v;
    }
    u
}

struct LeanAttractor<'a> {
    n: i32,
    south_count: usize,
    exit: &'a [i8],
    /// In-level moves of a non-forcer not yet attracted (the degree before its phase: a side's
    /// counts are touched only in the phase the other side forces), from position `left_base`
    /// on: only the non-forcer's positions.
    left: &'a mut [u8],
    left_base: usize,
    preds: &'a Preds,
    /// Values in South's terms (0: not attracted; [`PENDING`]).
    u: Vec<i8>,
    /// Attracted positions whose predecessors are still to visit.
    stack: Vec<u32>,
    cap: usize,
    /// Whether a position was marked [`PENDING`] at the current threshold.
    overflowed: bool,
    south_forces: bool,
}

impl LeanAttractor<'_> {
    #[inline]
    fn is_forcer(&self, x: usize) -> bool {
        (x < self.south_count) == self.south_forces
    }

    /// The in-level moves left of `x`, a non-forcer's position.
    #[inline]
    fn left_of(&self, x: usize) -> u8 {
        self.left[x - self.left_base]
    }

    /// Settles the positions worth at least 1 to the forcer (South when `south`), thresholds
    /// from n down to 1, as [`crate::exact::round::solver::level_values`] does, with one scan a threshold for
    /// the positions it starts from instead of buckets by exit value: at threshold t those are
    /// the positions not attracted whose exit is worth exactly t to the forcer and that are the
    /// forcer's or have no in-level move left. That is the bucket's content: a forcer's node
    /// and a non-forcer's without in-level moves are bucketed by their exit value; a
    /// non-forcer's last move is attracted at some threshold s > t (its count changes only
    /// while settling a threshold), where an exit f >= s makes it attracted at once and
    /// f = t < s puts it into bucket t, the one this scan finds it in. The order of settling
    /// differs; the values, the least fixed point of each threshold, do not.
    fn phase(&mut self) {
        let south = self.south_forces;
        let sign = if south { 1 } else { -1 };
        let exit = self.exit;
        let m = exit.len();
        for t in (1..=self.n).rev() {
            let value = (sign * t) as i8;
            for (c, chunk) in exit.chunks(64).enumerate() {
                // Most chunks hold no exit of this value: a branch-free test first.
                if !chunk.iter().fold(false, |a, &e| a | (e == value)) {
                    continue;
                }
                for (k, &e) in chunk.iter().enumerate() {
                    let x = c * 64 + k;
                    if e == value && self.u[x] == 0 && (self.is_forcer(x) || self.left_of(x) == 0) {
                        self.attract(x, value);
                        self.drain(t, sign, value);
                    }
                }
            }
            while self.overflowed {
                self.overflowed = false;
                for x in 0..m {
                    if self.u[x] == PENDING {
                        self.u[x] = value;
                        self.stack.push(x as u32);
                        self.drain(t, sign, value);
                    }
                }
            }
        }
    }

    /// Gives `x` the threshold's value (final: a position is attracted at one threshold) and
    /// stacks it, or marks it [`PENDING`] when the stack is full.
    #[inline]
    fn attract(&mut self, x: usize, value: i8) {
        if self.stack.len() < self.cap {
            self.u[x] = value;
            self.stack.push(x as u32);
        } else {
            self.u[x] = PENDING;
            self.overflowed = true;
        }
    }

    /// Visits the predecessors of the stacked positions: a forcer's is attracted, a
    /// non-forcer's once all its in-level moves are and its exit is worth at least `t`.
    fn drain(&mut self, t: i32, sign: i32, value: i8) {
        let preds = self.preds;
        while let Some(x) = self.stack.pop() {
            for &p in preds.of(x as usize) {
                let p = p as usize;
                if self.u[p] != 0 {
                    continue;
                }
                if self.is_forcer(p) {
                    self.attract(p, value);
                } else {
                    let left = &mut self.left[p - self.left_base];
                    *left -= 1;
                    let e = self.exit[p];
                    // No exit: a non-forcer's value is that of its in-level moves.
                    if *left == 0 && (e == NO_EXIT || sign * e as i32 >= t) {
                        self.attract(p, value);
                    }
                }
            }
        }
    }
}
