//! Pits: the local pit a move is named by (R3) and the global pit of the board (R2).

use std::fmt;

use super::Side;

/// The most pits a row can have (`pits_per_row` is 2..=9).
pub const MAX_PITS_PER_ROW: usize = 9;
/// The most pits a board can have.
pub const MAX_PITS: usize = 2 * MAX_PITS_PER_ROW;

/// A local pit, 0 being the mover's left end (R3). Valid values depend on `pits_per_row`;
/// [`Pit::new`] checks them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pit(u8);

impl Pit {
    /// The local pit `i` on a row of `pits_per_row` pits, if it exists.
    #[inline]
    pub fn new(i: usize, pits_per_row: u8) -> Option<Pit> {
        (i < pits_per_row as usize).then_some(Pit(i as u8))
    }

    /// Only for values already known to be below `pits_per_row` (no check).
    #[inline]
    pub const fn new_unchecked(i: usize) -> Pit {
        Pit(i as u8)
    }

    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Global pit of this local pit for `side` (R3: local pit i of player k is Pk+i).
    #[inline]
    pub const fn global(self, side: Side, pits_per_row: u8) -> usize {
        side.index() * pits_per_row as usize + self.0 as usize
    }
}

impl fmt::Display for Pit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A set of local pits, as a bit mask (bit i = local pit i).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PitSet(pub u16);

impl PitSet {
    pub const EMPTY: PitSet = PitSet(0);

    #[inline]
    pub const fn contains(self, pit: Pit) -> bool {
        self.0 & (1 << pit.0) != 0
    }
    #[inline]
    pub fn insert(&mut self, pit: Pit) {
        self.0 |= 1 << pit.0;
    }
    #[inline]
    pub fn remove(&mut self, pit: Pit) {
        self.0 &= !(1 << pit.0);
    }
    #[inline]
    pub fn len(self) -> usize {
        // A table, not count_ones: the baseline x86-64 target has no popcnt instruction.
        SET_BITS[self.0 as usize & 0x1ff] as usize
    }
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// The `n`-th pit of the set in increasing order (n < len). A table look-up: a loop
    /// over the set bits would mispredict once per random move.
    #[inline]
    pub fn nth(self, n: usize) -> Pit {
        debug_assert!(n < self.len());
        Pit(NTH_SET_BIT[self.0 as usize & 0x1ff][n & 0xf])
    }
    pub fn iter(self) -> impl Iterator<Item = Pit> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                None
            } else {
                let p = bits.trailing_zeros() as u8;
                bits &= bits - 1;
                Some(Pit(p))
            }
        })
    }
}

impl fmt::Display for PitSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v: Vec<String> = self.iter().map(|p| p.to_string()).collect();
        write!(f, "{}", v.join(","))
    }
}

/// SET_BITS[mask]: the number of set bits of a 9-bit mask.
static SET_BITS: [u8; 512] = {
    let mut table = [0u8; 512];
    let mut mask = 0;
    while mask < 512 {
        table[mask] = (mask as u16).count_ones() as u8;
        mask += 1;
    }
    table
};

/// NTH_SET_BIT[mask][n]: the position of the n-th set bit of a 9-bit mask.
static NTH_SET_BIT: [[u8; 16]; 512] = {
    let mut table = [[0u8; 16]; 512];
    let mut mask = 0;
    while mask < 512 {
        let (mut bit, mut n) = (0, 0);
        while bit < 9 {
            if mask & (1 << bit) != 0 {
                table[mask][n] = bit as u8;
                n += 1;
            }
            bit += 1;
        }
        mask += 1;
    }
    table
};
