//! How long an analysis will take, said before it starts (`GET /api/estimate`): whether the
//! round's values (R15) and its match values (R17) are at hand on this server, and if not, the
//! round's positions (measured by this server, or a reference count of round 1) over a rate
//! measured by this server's own solves (a reference rate until it has one).

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{json, Value};

use crate::app::explore::analyse::AnalyseRequest;
use crate::engine::{BySide, Position, Ruleset};
use crate::exact::{ExactStore, StoreCounts};

/// Positions of round 1 (every pit open, South starting) under the default reading, by pits a
/// row and counters a pit, as `rajapasu solve --json` counts them; the real board's from
/// docs/performance.md. The server solves a round from both starters at once, up to about 1.4
/// times as many (6x4: 2,527,528); other readings' rounds are of the same order.
const REFERENCE_POSITIONS: [(u8, u8, u64); 9] = [
    (5, 4, 55_393),
    (5, 5, 23_616),
    (5, 6, 28_126),
    (6, 4, 1_825_648),
    (6, 5, 3_181_726),
    (6, 6, 664_192),
    (6, 7, 642_667),
    (7, 2, 204_010),
    (7, 7, 16_800_000),
];
/// Positions a second of a round solve before this server has measured its own: the real
/// board's round 1, 16.8 million positions in 55 s on the development machine under load
/// (docs/serve.md).
const REFERENCE_RATE: f64 = 300_000.0;
/// Round positions a second of a round's match values (R17) with its match table, before this
/// server has measured its own: 6x4's round 1 (2.5 million positions), its match table and
/// values in 73 s on the development machine under load.
const REFERENCE_MATCH_RATE: f64 = 35_000.0;
/// Solves smaller than this measure their overheads more than their rate.
const MIN_MEASURED: u64 = 100_000;

type RoundKey = (Ruleset, BySide<u8>);

/// What this server measured of its own solves.
#[derive(Default)]
pub struct Estimates {
    measured: Mutex<Measured>,
}

#[derive(Default)]
struct Measured {
    /// Rounds this server solved, with their positions.
    rounds: HashMap<RoundKey, u64>,
    /// Rounds whose match values this server gave.
    matched: HashSet<RoundKey>,
    /// Positions a second of the last round solve of at least [`MIN_MEASURED`] positions.
    rate: Option<f64>,
    /// Round positions a second of the last match values computed.
    match_rate: Option<f64>,
}

fn key(pos: &Position) -> RoundKey {
    (*pos.rules(), pos.open().map(|set| set.len() as u8))
}

impl Estimates {
    fn measured(&self) -> std::sync::MutexGuard<'_, Measured> {
        // Figures only: a panicking holder leaves nothing inconsistent.
        self.measured.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records an analysis of `pos` that was answered in `took`, the store's counts `before` it:
    /// the round's positions and rate when it solved the round, the match values' rate when it
    /// computed them.
    pub fn record(
        &self,
        store: &ExactStore,
        (request, pos): (&AnalyseRequest, &Position),
        before: StoreCounts,
        took: Duration,
        with_match_values: bool,
    ) {
        let after = store.counts();
        let key = key(pos);
        let solved = after.round_solutions > before.round_solutions;
        // Solved by this job, the round is in the store's memory: asking for it reads it.
        let positions = if solved {
            store
                .round_solution(key.0, key.1, store.settings().solve)
                .ok()
                .map(|s| s.stats().positions)
        } else {
            None
        };
        let seconds = took.as_secs_f64().max(1e-3);
        let mut m = self.measured();
        if let Some(n) = positions {
            m.rounds.insert(key, n);
            if n >= MIN_MEASURED && !request.with_match {
                m.rate = Some(n as f64 / seconds);
            }
        }
        if request.with_match && with_match_values {
            let computed = after.match_tables > before.match_tables
                || after.round_values > before.round_values;
            if let (true, false, Some(&n)) = (computed, solved, m.rounds.get(&key)) {
                if n >= MIN_MEASURED {
                    m.match_rate = Some(n as f64 / seconds);
                }
            }
            m.matched.insert(key);
        }
    }

    /// The answer of `GET /api/estimate` for `pos`.
    pub fn estimate(&self, store: &ExactStore, request: &AnalyseRequest, pos: &Position) -> Value {
        let key = key(pos);
        let m = self.measured();
        let (rate, rate_basis) = match m.rate {
            Some(r) => (r, "this server's last solve".to_string()),
            None => (
                REFERENCE_RATE,
                "a reference: the real board's round 1 on a development machine".to_string(),
            ),
        };
        let known = m.rounds.get(&key).copied();
        let (positions, basis) = match known {
            Some(n) => (Some(n), "counted by this server"),
            None => (reference_positions(pos), "round 1's count under the default reading"),
        };
        let round_at_hand = known.is_some();
        let round = json!({
            "at_hand": round_at_hand,
            "positions": positions,
            "basis": positions.map(|_| basis),
            "rate": rate,
            "seconds": if round_at_hand { Some(0.0) } else { positions.map(|n| n as f64 / rate) },
        });
        let matches = request.with_match.then(|| {
            let at_hand = m.matched.contains(&key);
            let (match_rate, match_basis) = match m.match_rate {
                Some(r) => (r, "at this server's last measured rate"),
                None => (REFERENCE_MATCH_RATE, "at a reference rate measured on 6x4"),
            };
            let table = store.has_match_table(&key.0);
            json!({
                "at_hand": at_hand,
                "table_at_hand": table,
                "seconds": if at_hand { Some(0.0) } else { positions.map(|n| n as f64 / match_rate) },
                "basis": match_basis,
            })
        });
        json!({ "round": round, "match": matches, "rate_basis": rate_basis })
    }
}

/// The reference count of the round of `pos` when it is a round 1 (every pit open) of a board
/// counted in [`REFERENCE_POSITIONS`].
fn reference_positions(pos: &Position) -> Option<u64> {
    let rules = pos.rules();
    let p = rules.pits_per_row;
    let open = pos.open().map(|set| set.len() as u8);
    if open != BySide([p, p]) {
        return None;
    }
    REFERENCE_POSITIONS
        .iter()
        .find(|&&(pits, seeds, _)| pits == p && seeds == rules.seeds_per_pit)
        .map(|&(_, _, n)| n)
}
