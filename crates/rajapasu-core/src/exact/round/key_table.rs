//! A set of position keys that numbers them in the order they are first added: the
//! enumeration's duplicate check (crates/rajapasu-core/src/exact/round/enumerate.rs).
//!
//! Written by hand rather than taken from `hashbrown` because the enumeration's time went to
//! waiting on memory: 57.5 million children of the real board's round 1 looked up in tables
//! of hundreds of megabytes, each lookup a miss on the control bytes and another on the entry
//! (3.4 of 17 CPU seconds). Here a slot holds the key and its number together (one cache line)
//! and a batch of lookups prefetches the slots of the keys ahead of the one in hand, which a
//! general map does not expose. Tested against `std`'s `HashMap`.

use crate::exact::prefetch::prefetch;

/// Lookups prefetched ahead of the one in hand.
pub(crate) const AHEAD: usize = 16;

/// A slot: the key's complement in the low word (never 0: a key is a rank below 2^62, shifted),
/// its number in the high word; 0 when empty, so that a new table is allocated zeroed and its
/// fresh pages are not written twice.
type Slot = u128;

#[inline]
fn slot(key: u64, number: u32) -> Slot {
    (number as u128) << 64 | !key as u128
}

#[inline]
fn key_of(slot: Slot) -> u64 {
    !(slot as u64)
}

/// Keys numbered 0, 1, 2, ... in the order first added; open addressing with linear probing,
/// at most three quarters full.
#[derive(Default)]
pub(crate) struct KeyTable {
    slots: Vec<Slot>,
    /// Keys by number.
    keys: Vec<u64>,
}

/// The slots a table holding `items` keys has: a power of two, at least 16, with a quarter
/// free.
pub(crate) fn capacity_for(items: usize) -> usize {
    (items * 4).div_ceil(3).next_power_of_two().max(16)
}

/// Bytes a slot takes.
pub(crate) const SLOT_BYTES: u64 = std::mem::size_of::<Slot>() as u64;

#[inline]
fn home(key: u64, mask: usize) -> usize {
    // The high bits of a multiplicative hash: unlike the shard's mix (enumerate.rs), so a shard's
    // keys spread over its table.
    ((key ^ key >> 29).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as usize & mask
}

impl KeyTable {
    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    /// The keys, by number.
    pub(crate) fn keys(&self) -> &[u64] {
        &self.keys
    }

    pub(crate) fn into_keys(self) -> Vec<u64> {
        self.keys
    }

    /// Slots held (for the memory bound).
    pub(crate) fn capacity(&self) -> usize {
        self.slots.len()
    }

    pub(crate) fn key_capacity(&self) -> usize {
        self.keys.capacity()
    }

    pub(crate) fn bytes(&self) -> u64 {
        self.slots.len() as u64 * SLOT_BYTES + self.keys.capacity() as u64 * 8
    }

    /// The number of `key`, which is added if new.
    #[inline]
    pub(crate) fn intern(&mut self, key: u64) -> u32 {
        debug_assert_ne!(key, u64::MAX);
        if (self.keys.len() + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = home(key, mask);
        loop {
            let found = &mut self.slots[i];
            if *found == 0 {
                let number = self.keys.len() as u32;
                *found = slot(key, number);
                self.keys.push(key);
                return number;
            }
            if key_of(*found) == key {
                return (*found >> 64) as u32;
            }
            i = (i + 1) & mask;
        }
    }

    /// Numbers `key`, known to be new, without a slot: a list of keys for a level whose
    /// duplicates another structure finds (rank_bitmap.rs).
    #[inline]
    pub(crate) fn push_key(&mut self, key: u64) -> u32 {
        debug_assert!(self.slots.is_empty(), "a table either looks keys up or lists them");
        self.keys.push(key);
        (self.keys.len() - 1) as u32
    }

    /// Where `key`'s search starts, fetched into the cache ahead of its lookup.
    #[inline]
    pub(crate) fn prefetch(&self, key: u64) {
        if let Some(slot) = self.slots.get(home(key, self.slots.len().wrapping_sub(1))) {
            prefetch(slot);
        }
    }

    fn grow(&mut self) {
        let capacity = capacity_for(self.keys.len() + 1).max(self.slots.len() * 2);
        let mask = capacity - 1;
        let mut slots = vec![0 as Slot; capacity];
        for (number, &key) in self.keys.iter().enumerate() {
            let mut i = home(key, mask);
            while slots[i] != 0 {
                i = (i + 1) & mask;
            }
            slots[i] = slot(key, number as u32);
        }
        self.slots = slots;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn numbers_keys_in_the_order_first_added_as_a_hash_map_does() {
        let mut table = KeyTable::default();
        let mut reference: HashMap<u64, u32> = HashMap::new();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Few distinct keys, so most lookups find one already there.
            let key = (x % 50_000) << 1 | (x >> 40) & 1;
            let next = reference.len() as u32;
            let expected = *reference.entry(key).or_insert(next);
            assert_eq!(table.intern(key), expected);
        }
        assert_eq!(table.len(), reference.len());
        for (number, key) in table.keys().iter().enumerate() {
            assert_eq!(reference[key], number as u32);
        }
        assert!(table.capacity() * 3 >= table.len() * 4, "at most three quarters full");
    }

    #[test]
    fn capacity_leaves_a_quarter_free() {
        assert_eq!(capacity_for(0), 16);
        assert_eq!(capacity_for(12), 16);
        assert_eq!(capacity_for(13), 32);
        assert!(capacity_for(3_000_000) * 3 >= 3_000_000 * 4);
    }
}
