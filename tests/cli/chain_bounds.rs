//! scripts/chain_bounds.py (what a match under perfect round play can come to, from the
//! rounds' values alone) against the match the engine plays (`solve --perfect-match`): every
//! round the match plays is a round start the script reaches, with the same open pits, value,
//! captures and holdings after, and the match's outcome is one the script allows.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::*;

fn chain_bounds(csv: &Path, args: &[&str]) -> Output {
    Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/chain_bounds.py"))
        .arg(csv)
        .args(args)
        .output()
        .expect("python3 runs")
}

/// The rounds.csv columns the script reads, for every configuration of a match on `rules`
/// (a side opens all its pits whenever the other does not, R12), from the in-memory solver.
fn rounds_csv(rules: &[&str], pits: u32) -> String {
    let mut csv = String::from("open_south,open_north,starter,value\n");
    let mut configurations: Vec<(u32, u32)> =
        (1..=pits).flat_map(|k| [(pits, k), (k, pits)]).collect();
    configurations.dedup();
    for (south, north) in configurations {
        for starter in ["south", "north"] {
            let open = format!("{south},{north}");
            let args = [&["solve", "--json", "--open", &open, "--starter", starter][..], rules];
            let v: Value = serde_json::from_str(ok(&args.concat()).trim()).unwrap();
            csv += &format!("{open},{starter},{}\n", v["value"]);
        }
    }
    csv
}

/// Checks each match of `solve --perfect-match --json` on `rules` (and `next_starter`, R13)
/// against the script's round starts; returns the outcomes the script allows and those the
/// matches came to. The rounds' values are solved under `rules` alone (the default
/// `next_starter`): a round's value does not depend on who starts the next.
fn check_board(
    rules: &[&str],
    (pits, seeds): (u32, u32),
    first: &str,
    next_starter: &str,
) -> (Vec<String>, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("rounds.csv");
    std::fs::write(&csv, rounds_csv(rules, pits)).unwrap();
    let (p, s) = (pits.to_string(), seeds.to_string());
    let out = chain_bounds(
        &csv,
        &["--pits", &p, "--seeds", &s, "--first", first, "--next-starter", next_starter, "--json"],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let bounds: Value = serde_json::from_slice(&out.stdout).unwrap();
    let next = format!("--rule=next_starter={next_starter}");
    let args =
        [&["solve", "--perfect-match", "--json", "--starter", first, &next][..], rules].concat();
    let played: Value = serde_json::from_str(ok(&args).trim()).unwrap();
    check_played(&format!("{rules:?}"), &bounds, &played, first)
}

/// Checks each match of `played` (`solve --perfect-match --json`, `first` starting round 1)
/// against the script's round starts (`bounds`, its `--json`): every round reached with the
/// same open pits, value, captures and holdings after, and a won match ended there by R14.
/// Returns the outcomes the script allows and those the matches came to.
fn check_played(
    label: &str,
    bounds: &Value,
    played: &Value,
    first: &str,
) -> (Vec<String>, Vec<String>) {
    let starts = bounds["round_starts"].as_array().unwrap();
    let find = |holdings: &Value, starter: &str| {
        starts.iter().find(|r| &r["holdings"] == holdings && r["starter"] == starter)
    };
    let mut outcomes = Vec::new();
    for m in played["matches"].as_array().unwrap() {
        assert_eq!(m["first"], first, "{label}");
        let rounds = m["rounds"].as_array().unwrap();
        // Round 1 is the match's start: the counters split evenly.
        assert_eq!(rounds[0]["holdings"][0], rounds[0]["holdings"][1], "{label}");
        assert_eq!(rounds[0]["starter"], first, "{label}");
        for (i, round) in rounds.iter().enumerate() {
            let starter = round["starter"].as_str().unwrap();
            let reached = find(&round["holdings"], starter)
                .unwrap_or_else(|| panic!("{label}: round {round} not reached by the script"));
            for field in ["open", "value", "captured"] {
                assert_eq!(reached[field], round[field], "{label} {field} of {round}");
            }
            if let Some(next) = rounds.get(i + 1) {
                assert_eq!(reached["next_holdings"], next["holdings"], "{label} after {round}");
            }
        }
        let outcome = m["outcome"].as_str().unwrap().to_string();
        if outcome == "first" || outcome == "second" {
            let last = rounds.last().unwrap();
            let after = &find(&last["holdings"], last["starter"].as_str().unwrap()).unwrap()
                ["next_holdings"];
            let end = starts.iter().find(|r| &r["holdings"] == after && r.get("winner").is_some());
            let winner = end.unwrap_or_else(|| panic!("{label}: no end at {after}"))["winner"]
                .as_str()
                .unwrap();
            assert_eq!(winner == first, outcome == "first", "{label}");
        }
        outcomes.push(outcome);
    }
    let allowed: Vec<String> = bounds["outcomes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o.as_str().unwrap().to_string())
        .collect();
    for outcome in &outcomes {
        assert!(
            outcome == "endless_round" || allowed.contains(outcome),
            "{label}: the match came to {outcome}; the script allows {allowed:?}"
        );
    }
    (allowed, outcomes)
}

#[test]
fn the_rounds_values_bound_the_match_the_engine_plays() {
    let board = |reading: &'static str, pits: u32, seeds: u32| {
        let p = format!("--rule=pits_per_row={pits}");
        let s = format!("--rule=seeds_per_pit={seeds}");
        (vec![p, s, format!("--rule={reading}")], pits, seeds)
    };
    let mut seen = Vec::new();
    for (rules, pits, seeds) in [
        board("final_four=stays", 2, 3),
        board("final_four=stays", 3, 4),
        board("final_four=stays", 4, 3),
        board("final_four=owner", 3, 3),
        board("final_four=sower", 3, 2),
        board("skip_origin=true", 4, 3),
    ] {
        let rules: Vec<&str> = rules.iter().map(String::as_str).collect();
        for first in ["south", "north"] {
            let (allowed, outcomes) = check_board(&rules, (pits, seeds), first, "collector");
            seen.extend(outcomes);
            seen.extend(allowed.into_iter().map(|o| format!("allowed {o}")));
        }
    }
    // The boards show each kind: matches won by either player and cycling, and values that
    // leave the outcome to who collects the remainders.
    for kind in ["first", "second", "cycle", "allowed first", "allowed second", "allowed cycle"] {
        assert!(seen.iter().any(|o| o == kind), "no board came to {kind}: {seen:?}");
    }
}

#[test]
fn under_round_winner_the_rounds_values_give_the_match_the_engine_plays() {
    let mut seen = Vec::new();
    for (reading, pits, seeds) in [
        ("final_four=stays", 2, 3),
        ("final_four=stays", 3, 4),
        ("final_four=stays", 4, 3),
        ("final_four=owner", 3, 3),
        ("final_four=sower", 3, 2),
        ("skip_origin=true", 4, 3),
        ("final_four=owner", 3, 2),
    ] {
        let rules = [
            format!("--rule=pits_per_row={pits}"),
            format!("--rule=seeds_per_pit={seeds}"),
            format!("--rule={reading}"),
        ];
        let rules: Vec<&str> = rules.iter().map(String::as_str).collect();
        for first in ["south", "north"] {
            let (allowed, outcomes) = check_board(&rules, (pits, seeds), first, "round_winner");
            // The winners decide every starter: one path, one outcome, the matches' own.
            assert_eq!(allowed.len(), 1, "{rules:?} {first}: {allowed:?}");
            for outcome in outcomes.iter().filter(|o| *o != "endless_round") {
                assert_eq!(outcome, &allowed[0], "{rules:?} {first}");
            }
            seen.extend(outcomes);
        }
    }
    for kind in ["first", "second", "cycle"] {
        assert!(seen.iter().any(|o| o == kind), "no board came to {kind}: {seen:?}");
    }
}

/// The published `final_four = stays` match under perfect round play (`solve --perfect-match
/// --spill` over the rounds solved on disk) against the script run on the published rounds'
/// values: each round a start the values reach, the holdings carried as R10-R12 say, the
/// winner left as R14 says, both tie-breaks.
#[test]
fn the_published_stays_match_is_one_the_published_rounds_values_give() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/match_solution/final_four-stays");
    let out = chain_bounds(&dir.join("rounds.csv"), &["--first", "south", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let bounds: Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = std::fs::read_to_string(dir.join("perfect_match.json")).unwrap();
    let played: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(played["rules"]["final_four"], "stays");
    // The match's rounds read the same rules' tables as the rounds' values.
    let rounds = std::fs::read_to_string(dir.join("rounds.csv")).unwrap();
    let hash = played["rules_hash"].as_str().unwrap();
    assert!(rounds.lines().skip(1).all(|row| row.ends_with(&format!(",{hash}"))), "{hash}");
    let (_, outcomes) = check_played("published stays", &bounds, &played, "south");
    let breaks: Vec<&str> = played["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["tie_break"].as_str().unwrap())
        .collect();
    assert_eq!(breaks, ["lowest", "highest"]);
    assert!(outcomes.iter().all(|o| o == "first" || o == "second"), "{outcomes:?}");
}

#[test]
fn a_missing_or_bad_row_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("rounds.csv");
    let refused = |text: &str, args: &[&str]| {
        std::fs::write(&csv, text).unwrap();
        let out = chain_bounds(&csv, args);
        assert_eq!(out.status.code(), Some(2), "{text}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let head = "open_south,open_north,starter,value\n";
    // South 4 ahead on 2x3: holdings 8,4 open 2,1 (R12), which has no row.
    let err = refused(&format!("{head}2,2,south,4\n"), &["--pits", "2", "--seeds", "3"]);
    assert!(err.contains("no row for open 2,1 with") && err.contains("holdings 8,4"), "{err}");
    let err = refused(&format!("{head}2,2,south,3\n2,2,north,x\n"), &["--pits", "2"]);
    assert!(err.contains("line 3: field 'value' is 'x'"), "{err}");
    let err = refused(&format!("{head}2,2,east,3\n"), &["--pits", "2"]);
    assert!(err.contains("line 2: field 'starter' is 'east'"), "{err}");
    let err = refused(&format!("{head}8,2,south,3\n"), &["--pits", "7"]);
    assert!(err.contains("field 'open_south' is 8; allowed 1 to 7"), "{err}");
    let err = refused(&format!("{head}2,2,south,3\n2,2,south,5\n"), &["--pits", "2"]);
    assert!(err.contains("has two values, 3 and 5"), "{err}");
    // A value that cannot split the counters on the board: 12 on a 2x3 board's 2,2 start.
    let err = refused(&format!("{head}2,2,south,5\n"), &["--pits", "2", "--seeds", "3"]);
    assert!(err.contains("value 5 cannot split the 12 counters"), "{err}");
    let err = refused(head, &["--pits", "10"]);
    assert!(err.contains("--pits is 10; allowed 2 to 9"), "{err}");
    let err = refused(head, &["--next-starter", "loser"]);
    assert!(err.contains("--next-starter is 'loser'; allowed collector, round_winner"), "{err}");
}
