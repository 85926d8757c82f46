//! The rules the exact layer's tests build: a board of `p` pits a row and `s` counters a pit,
//! with other switches set by `extra` (`name=value`, as `--rule` takes them), or a golden case's.

use crate::engine::Ruleset;

pub(crate) fn rules(p: u8, s: u8, extra: &[&str]) -> Ruleset {
    let mut r = Ruleset::from_assignments(extra.iter().copied()).unwrap();
    r.pits_per_row = p;
    r.seeds_per_pit = s;
    r
}

/// The rules of a case of the golden files (tests/data/golden): its board and its `rules`
/// object's switches.
pub(crate) fn golden_rules(case: &serde_json::Value) -> Ruleset {
    let extra: Vec<String> = case["rules"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| format!("{k}={}", v.as_str().map_or(v.to_string(), str::to_owned)))
        .collect();
    rules(
        case["pits_per_row"].as_u64().unwrap() as u8,
        case["seeds_per_pit"].as_u64().unwrap() as u8,
        &extra.iter().map(String::as_str).collect::<Vec<_>>(),
    )
}
