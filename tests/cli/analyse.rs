//! `rajapasu analyse` against `solve --json` and `solve --match --json`: every move's values
//! follow from the position after it, on small boards under every reading and at the golden
//! positions; and its errors.

use std::collections::HashMap;
use std::path::Path;

use rajapasu::engine::{Game, Outcome, Rng, Ruleset, Side};
use serde_json::{json, Value};

use crate::common::*;

/// One non-default value of each reading switch, and the default reading.
const READINGS: [&str; 7] = [
    "",
    "final_four=stays",
    "final_four=sower",
    "skip_origin=true",
    "pussa_chain=true",
    "endless=stop",
    "next_starter=round_winner",
];

/// Runs `rajapasu CMD --json` with the board's rules and the test's tables directory, memoized.
struct Oracle<'a> {
    tables: &'a Path,
    rules: Vec<String>,
    seen: HashMap<Vec<String>, Value>,
}

impl Oracle<'_> {
    fn json(&mut self, cmd: &[&str], extra: &[String]) -> Value {
        let mut args: Vec<String> = cmd.iter().map(|s| s.to_string()).collect();
        args.extend(["--json".into(), "--tables".into(), s(self.tables).into()]);
        args.extend(self.rules.iter().map(|r| format!("--rule={r}")));
        args.extend(extra.iter().cloned());
        if let Some(v) = self.seen.get(&args) {
            return v.clone();
        }
        let v: Value =
            serde_json::from_str(ok(&args.iter().map(String::as_str).collect::<Vec<_>>()).trim())
                .unwrap();
        self.seen.insert(args, v.clone());
        v
    }

    fn analyse(&mut self, first: Side, moves: &[usize]) -> Value {
        let mut extra = vec![format!("--first={first}")];
        if !moves.is_empty() {
            extra.push(format!(
                "--moves={}",
                moves.iter().map(usize::to_string).collect::<Vec<_>>().join(",")
            ));
        }
        self.json(&["analyse", "--quiet"], &extra)
    }

    /// `solve --match` at a match state, as (value, rounds) for `side`.
    fn state_for(&mut self, holdings: [u32; 2], starter: Side, side: Side) -> Value {
        let v = self.json(
            &["solve", "--match", "--quiet"],
            &[
                format!("--holdings={},{}", holdings[0], holdings[1]),
                format!("--starter={starter}"),
            ],
        );
        let outlook = json!({ "value": v["value"], "rounds": v["rounds"] });
        if side == starter {
            outlook
        } else {
            flip(&outlook)
        }
    }
}

/// A match value for the other side.
fn flip(outlook: &Value) -> Value {
    let value = match outlook["value"].as_str().unwrap() {
        "win" => "loss",
        "loss" => "win",
        other => other,
    };
    json!({ "value": value, "rounds": outlook["rounds"] })
}

fn later(outlook: Value) -> Value {
    let rounds = outlook["rounds"].as_u64().map(|k| k + 1);
    json!({ "value": outlook["value"], "rounds": rounds })
}

/// The checks at one position: its moves against the positions after them, and at a round's
/// start the position against `solve` and `solve --match`.
fn check_position(oracle: &mut Oracle, rules: Ruleset, first: Side, moves: &[usize]) -> Value {
    let a = oracle.analyse(first, moves);
    let mut game = Game::new(rules, first);
    for &m in moves {
        game.play(m).unwrap();
    }
    let mover = game.position().turn();
    let context = format!("{} moves {moves:?}", rules);
    assert_eq!(a["to_move"], json!(mover), "{context}");
    assert_eq!(a["round"], json!(game.round()), "{context}");
    if *game.position() == game.round_start().position {
        let rs = *game.round_start();
        let solved = oracle.json(
            &["solve", "--quiet"],
            &[
                format!("--open={},{}", rs.open.0[0], rs.open.0[1]),
                format!("--starter={}", rs.starter),
            ],
        );
        assert_eq!(a["value"], solved["value"], "{context}");
        assert_eq!(a["best_round"], solved["best_moves"], "{context}");
        let holdings = game.holdings().0;
        let state = oracle.json(
            &["solve", "--match", "--quiet"],
            &[
                format!("--holdings={},{}", holdings[0], holdings[1]),
                format!("--starter={}", rs.starter),
            ],
        );
        assert_eq!(
            a["match_value"],
            json!({ "value": state["value"], "rounds": state["rounds"] }),
            "{context}"
        );
        assert_eq!(a["best_match"], state["best_moves"], "{context}");
    }
    let legal: Vec<usize> = game.legal_moves().iter().map(|p| p.index()).collect();
    let listed: Vec<usize> = a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["pit"].as_u64().unwrap() as usize)
        .collect();
    assert_eq!(listed, legal, "{context}");
    for m in a["moves"].as_array().unwrap() {
        let pit = m["pit"].as_u64().unwrap() as usize;
        let mut after = game;
        let (summary, end) = after.play(pit).unwrap();
        let gain = summary.net_gain(mover) as i64;
        let (child_value, child_match) = match end {
            // The round goes on: the position after the move, the opponent to move.
            None => {
                let mut next = moves.to_vec();
                next.push(pit);
                let c = oracle.analyse(first, &next);
                (
                    c["value"].as_i64().unwrap(),
                    if c["match_value"].is_null() { Value::Null } else { flip(&c["match_value"]) },
                )
            }
            // The opponent has no move: it is worth minus the remainder to it (R10, R15); the
            // match goes to its next state, one round later, or ends in this round.
            Some(end) => {
                let outlook = match end.outcome {
                    Some(Outcome::Won(w)) => {
                        json!({ "value": if w == mover { "win" } else { "loss" }, "rounds": 1 })
                    }
                    Some(Outcome::Unfinished) => {
                        unreachable!("the tests' matches are far from max_rounds")
                    }
                    None => later(oracle.state_for(end.holdings.0, end.next_starter, mover)),
                };
                (-(end.remainder as i64), outlook)
            }
        };
        assert_eq!(m["round_value"].as_i64().unwrap(), gain - child_value, "{context}, pit {pit}");
        assert_eq!(m["match"], child_match, "{context}, pit {pit}");
    }
    a
}

#[test]
fn every_move_value_is_the_value_of_the_position_after_it_under_every_reading() {
    let tables = tempfile::tempdir().unwrap();
    let mut positions = 0;
    for (p, s) in [(3u8, 2u8), (3, 3)] {
        for reading in READINGS {
            let mut assignments = vec![format!("pits_per_row={p}"), format!("seeds_per_pit={s}")];
            assignments.extend((!reading.is_empty()).then(|| reading.to_string()));
            let rules = Ruleset::from_assignments(assignments.iter().map(String::as_str)).unwrap();
            let mut oracle =
                Oracle { tables: tables.path(), rules: assignments, seen: HashMap::new() };
            let mut rng = Rng::from_seed(positions as u64 + 11);
            for first in Side::ALL {
                let mut moves = Vec::new();
                for _ in 0..14 {
                    let a = check_position(&mut oracle, rules, first, &moves);
                    positions += 1;
                    let legal = a["moves"].as_array().unwrap();
                    if legal.is_empty() {
                        break;
                    }
                    moves.push(
                        legal[rng.below(legal.len() as u32) as usize]["pit"].as_u64().unwrap()
                            as usize,
                    );
                }
            }
        }
    }
    assert!(positions >= 200, "{positions} positions");
}

#[test]
fn analyse_reproduces_the_golden_round_and_match_values() {
    let tables = tempfile::tempdir().unwrap();
    let cases: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(golden("solve.json")).unwrap()).unwrap();
    for case in &cases {
        let rules = rules_of(case);
        let (p, s) = (rules.pits_per_row as usize, rules.seeds_per_pit as u32);
        let open = [
            case["open"][0].as_u64().unwrap() as usize,
            case["open"][1].as_u64().unwrap() as usize,
        ];
        // The round's start with these open pits (R12); the rest of the counters in reserve.
        let pits: Vec<String> = (0..2 * p)
            .map(|g| if g % p >= p - open[g / p] { s.to_string() } else { "x".into() })
            .collect();
        let reserve = rules.total_counters() - (open[0] + open[1]) as u32 * s;
        let mut args = vec![
            "analyse".to_string(),
            "--json".into(),
            "--no-match".into(),
            format!("--position={}", pits.join(",")),
        ];
        args.extend([
            format!("--reserve={reserve},0"),
            format!("--to-move={}", case["starter"].as_str().unwrap()),
        ]);
        args.extend(rule_args(&rules));
        let v: Value =
            serde_json::from_str(ok(&args.iter().map(String::as_str).collect::<Vec<_>>()).trim())
                .unwrap();
        assert_eq!(
            (&v["value"], &v["best_round"]),
            (&case["value"], &case["best_moves"]),
            "{case}"
        );
        assert!(
            v["match_value"].is_null()
                && v["moves"].as_array().unwrap().iter().all(|m| m["match"].is_null())
        );
    }
    let cases: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(golden("solve_match.json")).unwrap())
            .unwrap();
    for case in &cases {
        let rules = rules_of(case);
        let mut args = vec![
            "analyse".to_string(),
            "--json".into(),
            "--quiet".into(),
            "--tables".into(),
            s(tables.path()).into(),
        ];
        args.push(format!("--holdings={},{}", case["holdings"][0], case["holdings"][1]));
        args.push(format!("--first={}", case["starter"].as_str().unwrap()));
        args.extend(rule_args(&rules));
        let v: Value =
            serde_json::from_str(ok(&args.iter().map(String::as_str).collect::<Vec<_>>()).trim())
                .unwrap();
        assert_eq!(
            v["match_value"],
            json!({ "value": case["value"], "rounds": case["rounds"] }),
            "{case}"
        );
        assert_eq!(v["best_match"], case["best_moves"], "{case}");
    }
}

fn rules_of(case: &Value) -> Ruleset {
    let mut rules = Ruleset::from_json(&case["rules"].to_string()).unwrap();
    rules.pits_per_row = case["pits_per_row"].as_u64().unwrap() as u8;
    rules.seeds_per_pit = case["seeds_per_pit"].as_u64().unwrap() as u8;
    rules
}

fn rule_args(rules: &Ruleset) -> Vec<String> {
    rules.as_pairs().into_iter().map(|(k, v)| format!("--rule={k}={v}")).collect()
}

#[test]
fn analyse_prints_a_readable_table_and_reports_the_end_of_a_round() {
    let tables = tempfile::tempdir().unwrap();
    let text = ok(&[
        "analyse",
        "--rule=pits_per_row=3",
        "--rule=seeds_per_pit=2",
        "--tables",
        s(tables.path()),
    ]);
    for needle in [
        "south to move; value 10 (R15); match win in 1 (R17)",
        "pit  round  match",
        "  2    +10  win in 1   round match",
    ] {
        assert!(text.contains(needle), "lacks {needle:?}:\n{text}");
    }
    // North to move with every counter of its row gone: no legal move, South collects (R10).
    let v: Value = serde_json::from_str(
        ok(&[
            "analyse",
            "--json",
            "--no-match",
            "--rule=pits_per_row=3",
            "--rule=seeds_per_pit=2",
            "--position=1,0,2,0,0,0",
            "--reserve=5,4",
            "--to-move=north",
        ])
        .trim(),
    )
    .unwrap();
    assert_eq!(v["moves"], json!([]));
    assert_eq!(v["value"], json!(-3));
    assert_eq!(v["round_end"], json!({ "collector": "south", "remainder": 3, "value": -3 }));
    assert_eq!(v["board"], json!([1, 0, 2, 0, 0, 0]));
}

#[test]
fn analyse_rejects_bad_input_naming_the_field() {
    let small = ["--rule=pits_per_row=3", "--rule=seeds_per_pit=2", "--no-match"];
    let with = |extra: &[&str]| -> Vec<String> {
        let mut v = vec!["analyse".to_string()];
        v.extend(small.iter().map(|s| s.to_string()));
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let cases: [(&[&str], &[&str]); 8] = [
        (&["--holdings=5,5"], &["--holdings", "sum to 10", "12 counters"]),
        (&["--holdings=1,11"], &["--holdings", "fewer than seeds_per_pit"]),
        (
            &["--position=1,2,3", "--reserve=0,0", "--to-move=south"],
            &["--position", "3 pits given", "6"],
        ),
        (
            &["--position=2,2,2,2,2,2", "--reserve=1,0", "--to-move=south"],
            &["--position", "13", "12"],
        ),
        (
            &["--position=x,2,2,2,y,2", "--reserve=0,0", "--to-move=south"],
            &["--position item 5", "'y'"],
        ),
        (&["--position=2,2,2,2,2,2", "--reserve=0", "--to-move=south"], &["--reserve", "S,N"]),
        (&["--moves=0,9"], &["--moves", "move 2", "pit 9"]),
        (&["--rule=colour=red"], &["--rule", "colour"]),
    ];
    for (extra, needles) in cases {
        let args = with(extra);
        usage_error(&args.iter().map(String::as_str).collect::<Vec<_>>(), needles);
    }
    usage_error(
        &["analyse", "--no-match", "--max-positions=1000"],
        &["budget", "1000", "positions (--max-positions)"],
    );
    // 98 on the board and reserves whose 32-bit sum wraps around to 98: refused, not analysed.
    let real = [
        "analyse",
        "--no-match",
        "--position",
        "7,7,7,7,7,7,7,7,7,7,7,7,7,7",
        "--to-move",
        "south",
    ];
    for (reserve, side) in
        [("4294967295,1", "south's reserve"), ("1,4294967295", "north's reserve"), ("98,98", "")]
    {
        let args: Vec<&str> = real.iter().copied().chain(["--reserve", reserve]).collect();
        let needles: &[&str] = if side.is_empty() {
            &["--position", "294"]
        } else {
            &["--reserve", side, "98 in all"]
        };
        usage_error(&args, needles);
    }
}
