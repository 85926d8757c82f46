//! A cache of values computed once per key, within a byte budget. Each key has a cell of its
//! own: the first caller computes the value holding only that cell's lock, so callers of other
//! keys compute theirs at the same time and later callers of the same key wait for it and share
//! it. Filled entries beyond the budget are dropped least recently used first (callers holding
//! one keep it alive); an error is not kept, so the next caller tries again.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

type Cell<V> = Arc<Mutex<Option<Arc<V>>>>;

struct Entry<V> {
    cell: Cell<V>,
    /// Bytes accounted once filled (0 while being computed).
    bytes: u64,
    used: u64,
}

struct Entries<K, V> {
    map: HashMap<K, Entry<V>>,
    clock: u64,
    bytes: u64,
}

pub(crate) struct OnceCache<K, V> {
    entries: Mutex<Entries<K, V>>,
    budget: u64,
    /// Values computed (not found in the cache): what the tests count.
    computed: AtomicU64,
}

fn locked<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<K: Hash + Eq + Clone, V> OnceCache<K, V> {
    /// A cache keeping at most `budget` bytes of values (one value larger than that is kept
    /// alone).
    pub(crate) fn new(budget: u64) -> OnceCache<K, V> {
        OnceCache {
            entries: Mutex::new(Entries { map: HashMap::new(), clock: 0, bytes: 0 }),
            budget,
            computed: AtomicU64::new(0),
        }
    }

    /// The value of `key`, computed by `compute` (the value and its bytes) if no caller has.
    pub(crate) fn get_or_compute<E>(
        &self,
        key: &K,
        compute: impl FnOnce() -> Result<(V, u64), E>,
    ) -> Result<Arc<V>, E> {
        let cell = self.cell(key);
        let mut slot = locked(&cell);
        if let Some(value) = slot.as_ref() {
            return Ok(value.clone());
        }
        let (value, bytes) = compute()?;
        self.computed.fetch_add(1, Ordering::Relaxed);
        let value = Arc::new(value);
        *slot = Some(value.clone());
        drop(slot);
        self.account(key, &cell, bytes);
        Ok(value)
    }

    /// The value of `key` if it is cached (not while it is being computed).
    pub(crate) fn cached(&self, key: &K) -> Option<Arc<V>> {
        let cell = {
            let mut entries = locked(&self.entries);
            entries.clock += 1;
            let used = entries.clock;
            let entry = entries.map.get_mut(key)?;
            entry.used = used;
            entry.cell.clone()
        };
        let slot = cell.try_lock().ok()?;
        slot.clone()
    }

    /// The cell of `key`, new and empty if there is none; marks it used.
    fn cell(&self, key: &K) -> Cell<V> {
        let mut entries = locked(&self.entries);
        entries.clock += 1;
        let used = entries.clock;
        let entry = entries.map.entry(key.clone()).or_insert_with(|| Entry {
            cell: Arc::default(),
            bytes: 0,
            used,
        });
        entry.used = used;
        entry.cell.clone()
    }

    /// Counts a filled cell's bytes and drops the least recently used other filled entries
    /// while over the budget.
    fn account(&self, key: &K, cell: &Cell<V>, bytes: u64) {
        let mut entries = locked(&self.entries);
        // The entry may have been dropped meanwhile (then it is not counted).
        match entries.map.get_mut(key) {
            Some(entry) if Arc::ptr_eq(&entry.cell, cell) => entry.bytes = bytes,
            _ => return,
        }
        entries.bytes += bytes;
        while entries.bytes > self.budget {
            let oldest = entries
                .map
                .iter()
                .filter(|(k, e)| *k != key && e.bytes > 0)
                .min_by_key(|(_, e)| e.used)
                .map(|(k, _)| k.clone());
            let Some(oldest) = oldest else { break };
            let dropped = entries.map.remove(&oldest).expect("present");
            entries.bytes -= dropped.bytes;
        }
    }

    /// How many values were computed (each key once while it stays cached).
    pub(crate) fn computed(&self) -> u64 {
        self.computed.load(Ordering::Relaxed)
    }

    /// The bytes of the values kept.
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> u64 {
        locked(&self.entries).bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;
    use std::time::Duration;

    /// Two keys computed by two threads at once: each computation waits until the other has
    /// started, which it could never do if one lock were held across computations (the wait
    /// then gives up and the test fails; the wait is a deadlock guard, not a measurement).
    #[test]
    fn two_keys_are_computed_at_the_same_time() {
        let cache: OnceCache<u32, u32> = OnceCache::new(1 << 20);
        let (to_a, from_b) = channel();
        let (to_b, from_a) = channel();
        std::thread::scope(|s| {
            let cache = &cache;
            let a = s.spawn(move || {
                cache.get_or_compute(&1, || {
                    to_b.send(()).unwrap();
                    from_b.recv_timeout(Duration::from_secs(60)).map(|()| (10, 1))
                })
            });
            let b = s.spawn(move || {
                cache.get_or_compute(&2, || {
                    to_a.send(()).unwrap();
                    from_a.recv_timeout(Duration::from_secs(60)).map(|()| (20, 1))
                })
            });
            assert_eq!(*a.join().unwrap().expect("key 1 computed while key 2 was"), 10);
            assert_eq!(*b.join().unwrap().expect("key 2 computed while key 1 was"), 20);
        });
        assert_eq!(cache.computed(), 2);
    }

    /// Many threads asking for one key get one value, computed once.
    #[test]
    fn one_key_asked_by_many_threads_is_computed_once() {
        let cache: OnceCache<u32, u32> = OnceCache::new(1 << 20);
        let calls = AtomicU64::new(0);
        let values: Vec<Arc<u32>> = std::thread::scope(|s| {
            let threads: Vec<_> = (0..8)
                .map(|_| {
                    s.spawn(|| {
                        cache
                            .get_or_compute(&7, || -> Result<_, ()> {
                                calls.fetch_add(1, Ordering::Relaxed);
                                std::thread::yield_now();
                                Ok((49, 8))
                            })
                            .unwrap()
                    })
                })
                .collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        });
        assert_eq!(calls.load(Ordering::Relaxed), 1);
        assert_eq!(cache.computed(), 1);
        assert!(values.iter().all(|v| Arc::ptr_eq(v, &values[0])), "one shared value");
    }

    #[test]
    fn the_least_recently_used_values_go_when_over_budget_and_errors_are_not_kept() {
        let cache: OnceCache<u32, u32> = OnceCache::new(20);
        let ok = |v: u32| move || -> Result<(u32, u64), String> { Ok((v, 10)) };
        cache.get_or_compute(&1, ok(1)).unwrap();
        cache.get_or_compute(&2, ok(2)).unwrap();
        cache.get_or_compute(&1, ok(1)).unwrap();
        cache.get_or_compute(&3, ok(3)).unwrap();
        assert_eq!((cache.computed(), cache.bytes()), (3, 20), "key 2, least recently used, went");
        cache.get_or_compute(&1, ok(1)).unwrap();
        assert_eq!(cache.computed(), 3, "key 1 stayed");
        cache.get_or_compute(&2, ok(2)).unwrap();
        assert_eq!(cache.computed(), 4, "key 2 computed again");
        assert!(cache
            .get_or_compute(&9, || -> Result<(u32, u64), String> { Err("no".into()) })
            .is_err());
        assert_eq!(*cache.get_or_compute(&9, ok(9)).unwrap(), 9, "an error is not kept");
    }
}
