//! The `check-record` job: a recorded game (docs/records.md) replayed under every reading of
//! the rules, each reading consistent with it or not, and where it first disagrees. One JSON
//! object, the same for the command line and the server.

use rayon::prelude::*;
use serde_json::{json, Value};

use crate::engine::Ruleset;
use crate::game_record::{check, readings, Record, READING_SWITCHES};

/// A validated check: the record and the rules every reading shares (board size, round limit).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckRequest {
    pub base: Ruleset,
    pub record: Record,
}

pub use crate::app::FieldError;

/// The rules every reading shares: the record's `rules:` line, then `extra` (as `--rule`
/// gives them). The reading switches are not fixed: every value of each is tried.
pub fn base_rules(record: &Record, extra: &[String]) -> Result<Ruleset, FieldError> {
    let mut rules = Ruleset::default();
    for (field, items) in [("record rules", &record.rules), ("rules", &extra.to_vec())] {
        for text in items {
            let bad = |message: String| FieldError { field, message };
            let (name, value) = text.split_once('=').ok_or_else(|| {
                bad(format!("'{text}': expected name=value, e.g. pits_per_row=4"))
            })?;
            if READING_SWITCHES.contains(&name.trim()) {
                return Err(bad(format!(
                    "'{text}': {name} is one of the readings checked ({}); every value of it is tried",
                    READING_SWITCHES.join(", ")
                )));
            }
            rules.set(name, value).map_err(|e| bad(e.to_string()))?;
        }
    }
    Ok(rules)
}

/// Replays the record under every reading: the JSON object `check-record --json` prints.
pub fn run(request: &CheckRequest) -> Value {
    let all = readings(request.base);
    let results: Vec<_> =
        all.par_iter().map(|rules| (rules, check(&request.record, *rules))).collect();
    let entries: Vec<Value> = results
        .iter()
        .map(|(rules, d)| {
            json!({
                "rules": rules,
                "rules_hash": rules.hash(),
                "consistent": d.is_none(),
                "first_disagreement": d.as_ref().map(|d| json!({ "ply": d.ply, "kind": d.kind, "what": d.what })),
            })
        })
        .collect();
    let record = &request.record;
    json!({
        "first": record.first,
        "moves": record.moves.len(),
        "observations": record.moves.iter().filter(|m| !m.seen.is_empty()).count(),
        "consistent_readings": results.iter().filter(|(_, d)| d.is_none()).count(),
        "readings": entries,
    })
}

/// The readings' switches that differ from the defaults, as `name=value` (or "default").
pub fn reading_label(rules: &Ruleset) -> String {
    let v: Vec<String> = rules
        .non_default()
        .into_iter()
        .filter(|s| READING_SWITCHES.iter().any(|r| s.starts_with(&format!("{r}="))))
        .collect();
    if v.is_empty() {
        "default".into()
    } else {
        v.join(" ")
    }
}
