//! The server's exact values, kept between requests within a byte budget (least recently used
//! dropped first): round solutions (R15), match tables and rounds' match values (R17). Two
//! requests for the same values solve them once (the second waits for the first); requests for
//! different ones solve in parallel. Match tables and large round values are also kept in the
//! tables directory, across sessions.

use std::collections::HashMap;
use std::hash::Hash;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use crate::app::analyse::ExactSource;
use crate::engine::{BySide, NextStarter, Position, Ruleset, Side};
use crate::exact::{load_or_solve, round_start, MatchTable, RoundContext, RoundMatch, Solution, SolveOptions};

/// One kind of value by key, each computed once.
struct Shelf<K, V> {
    entries: Mutex<HashMap<K, Entry<V>>>,
}

struct Entry<V> {
    cell: Arc<OnceLock<Result<Arc<V>, String>>>,
    used: u64,
    bytes: u64,
}

impl<K: Hash + Eq + Clone, V> Shelf<K, V> {
    fn new() -> Shelf<K, V> {
        Shelf { entries: Mutex::new(HashMap::new()) }
    }

    /// The value of `key`, computed by `make` unless it is there or being computed; then the
    /// shelf is trimmed to `budget` bytes (`size` gives a value's bytes).
    fn get(
        &self,
        key: K,
        clock: u64,
        budget: u64,
        size: impl Fn(&V) -> u64,
        make: impl FnOnce() -> Result<V, String>,
    ) -> Result<Arc<V>, String> {
        let cell = {
            let mut map = self.entries.lock().unwrap_or_else(|e| e.into_inner());
            let entry = map.entry(key.clone()).or_insert_with(|| Entry { cell: Arc::new(OnceLock::new()), used: clock, bytes: 0 });
            entry.used = clock;
            entry.cell.clone()
        };
        let result = cell.get_or_init(|| make().map(Arc::new)).clone();
        let mut map = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        match &result {
            // A failure is not kept: a later request with a larger budget may succeed.
            Err(_) => {
                map.remove(&key);
            }
            Ok(v) => {
                if let Some(e) = map.get_mut(&key) {
                    e.bytes = size(v);
                }
                trim(&mut map, budget);
            }
        }
        result
    }
}

/// Drops the least recently used finished values until the rest fit `budget`.
fn trim<K: Hash + Eq + Clone, V>(map: &mut HashMap<K, Entry<V>>, budget: u64) {
    while map.values().map(|e| e.bytes).sum::<u64>() > budget {
        let oldest = map.iter().filter(|(_, e)| e.cell.get().is_some()).min_by_key(|(_, e)| e.used).map(|(k, _)| k.clone());
        match oldest {
            Some(k) if map.len() > 1 => {
                map.remove(&k);
            }
            _ => break,
        }
    }
}

/// The exact values of the server (see the module's documentation).
pub struct Store {
    pub opts: SolveOptions,
    pub tables: PathBuf,
    /// Bytes of values kept in memory.
    pub budget: u64,
    clock: std::sync::atomic::AtomicU64,
    rounds: Shelf<(Ruleset, BySide<u8>), Solution>,
    tables_by_rules: Shelf<Ruleset, MatchTable>,
    matches: Shelf<(Ruleset, BySide<u8>, Option<RoundContext>), RoundMatch>,
}

impl Store {
    pub fn new(opts: SolveOptions, tables: PathBuf, budget: u64) -> Store {
        Store {
            opts: SolveOptions { keep_order: true, ..opts },
            tables,
            budget,
            clock: std::sync::atomic::AtomicU64::new(0),
            rounds: Shelf::new(),
            tables_by_rules: Shelf::new(),
            matches: Shelf::new(),
        }
    }

    fn tick(&self) -> u64 {
        self.clock.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }
}

impl ExactSource for Store {
    fn round(&self, pos: &Position) -> Result<Arc<Solution>, String> {
        let rules = *pos.rules();
        let open = pos.open().map(|set| set.len() as u8);
        let opts = self.opts;
        let solved = self.rounds.get(
            (rules, open),
            self.tick(),
            self.budget,
            |s| s.stats().table_bytes,
            || {
                let roots = [round_start(rules, open, Side::South), round_start(rules, open, Side::North)];
                Solution::solve(&roots, opts, &mut |_| {}).map_err(|e| e.to_string())
            },
        );
        match solved? {
            s if s.value(pos).is_some() => Ok(s),
            // A set-up position that its round's start does not reach: solved alone, not kept.
            _ => Solution::solve(&[*pos], opts, &mut |_| {}).map(Arc::new).map_err(|e| e.to_string()),
        }
    }

    fn table(&self, rules: Ruleset) -> Result<Arc<MatchTable>, String> {
        let (opts, dir) = (SolveOptions { keep_order: false, ..self.opts }, &self.tables);
        self.tables_by_rules.get(
            rules,
            self.tick(),
            self.budget,
            |_| 0,
            || load_or_solve(rules, dir, opts, None, &mut |_| {}).map(|(t, _)| t).map_err(|e| e.to_string()),
        )
    }

    fn round_match(&self, table: &MatchTable, open: BySide<u8>, context: Option<RoundContext>) -> Result<Arc<RoundMatch>, String> {
        let rules = *table.rules();
        // Under the collector rule one round's values serve every start (R13).
        let context = if rules.next_starter == NextStarter::Collector { None } else { context };
        self.matches.get((rules, open, context), self.tick(), self.budget, RoundMatch::bytes, || {
            RoundMatch::build(table, open, context, self.opts, &self.tables)
        })
    }
}
