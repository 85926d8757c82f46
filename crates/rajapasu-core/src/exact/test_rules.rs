//! The rules the exact layer's tests build: a board of `p` pits a row and `s` counters a pit,
//! with other switches set by `extra` (`name=value`, as `--rule` takes them), or a golden case's;
//! the readings the disk solvers are checked under, and their bounds.

use crate::engine::{Ruleset, Side};
use crate::exact::SpillOptions;

/// The readings the disk solvers are checked under: the default rules, then each switch on its
/// own.
pub(crate) const READINGS: [&[&str]; 6] = [
    &[],
    &["final_four=stays"],
    &["skip_origin=true"],
    &["pussa_chain=true"],
    &["next_starter=round_winner"],
    &["endless=stop"],
];

/// Every reading, `final_four=sower` included (its positions are the default's, its values
/// not): for what depends on the values, such as the layers and the chains of rounds.
pub(crate) const ALL_READINGS: [&[&str]; 7] = [
    &[],
    &["final_four=stays"],
    &["final_four=sower"],
    &["skip_origin=true"],
    &["pussa_chain=true"],
    &["endless=stop"],
    &["next_starter=round_winner"],
];

/// Bounds the tests' boards never meet.
pub(crate) fn unbounded() -> SpillOptions {
    SpillOptions { max_memory: 1 << 30, max_disk: u64::MAX, max_levels: None }
}

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

/// A case of tests/data/golden/solve.json: a round start and what the independent model found.
pub(crate) struct GoldenRound {
    pub rules: Ruleset,
    pub open: (u8, u8),
    pub starter: Side,
    pub value: i32,
    pub best_moves: Vec<u64>,
    pub positions: u64,
    /// The case as the file holds it, for messages.
    pub case: serde_json::Value,
}

/// Every case of tests/data/golden/solve.json.
pub(crate) fn golden_rounds() -> Vec<GoldenRound> {
    let cases: Vec<serde_json::Value> =
        serde_json::from_str(include_str!("../../tests/data/golden/solve.json")).unwrap();
    cases
        .into_iter()
        .map(|case| {
            let open = case["open"].as_array().unwrap();
            GoldenRound {
                rules: golden_rules(&case),
                open: (open[0].as_u64().unwrap() as u8, open[1].as_u64().unwrap() as u8),
                starter: case["starter"].as_str().unwrap().parse().unwrap(),
                value: case["value"].as_i64().unwrap() as i32,
                best_moves: case["best_moves"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_u64().unwrap())
                    .collect(),
                positions: case["positions"].as_u64().unwrap(),
                case,
            }
        })
        .collect()
}
