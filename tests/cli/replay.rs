//! `rajapasu replay` against the golden traces, and its errors.

use std::io::{BufRead, BufReader};

use serde_json::Value;

use crate::common::*;

fn golden_moves(name: &str) -> (Value, Vec<String>, Vec<String>) {
    let text = std::fs::read_to_string(golden(name)).unwrap();
    let lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let header: Value = serde_json::from_str(&lines[0]).unwrap();
    let moves = lines
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["kind"] == "move")
        .map(|v| v["pit"].to_string())
        .collect();
    (header, moves, lines)
}

fn rule_args(header: &Value) -> Vec<String> {
    header["rules"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| format!("--rule={k}={}", v.as_str().map_or(v.to_string(), str::to_owned)))
        .collect()
}

#[test]
fn every_golden_trace_replays_identically_through_the_binary() {
    let dir = tempfile::tempdir().unwrap();
    let mut names: Vec<String> = std::fs::read_dir(golden(""))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".jsonl"))
        .collect();
    names.sort();
    assert!(names.len() >= 13);
    for name in names {
        let (header, moves, expected) = golden_moves(&name);
        let moves_file = dir.path().join(format!("{name}.moves"));
        std::fs::write(&moves_file, format!("# moves of {name}\n{}\n", moves.join("\n"))).unwrap();
        let mut args =
            vec!["replay".to_string(), "--first".into(), header["first"].as_str().unwrap().into()];
        args.extend(rule_args(&header));
        args.extend(["--moves-file".into(), s(&moves_file).into()]);
        let out = ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
        let got: Vec<Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(got.len(), expected.len(), "{name}");
        assert_eq!(got[0]["rules"], header["rules"], "{name}");
        assert_eq!(got[0]["rules_hash"].as_str().unwrap().len(), 12);
        for (i, (g, e)) in got.iter().zip(&expected).enumerate().skip(1) {
            assert_eq!(*g, serde_json::from_str::<Value>(e).unwrap(), "{name} line {}", i + 1);
        }
    }
}

#[test]
fn moves_on_the_command_line_stop_the_stream_where_they_end() {
    let out = ok(&["replay", "--first", "south", "--moves", "0"]);
    let lines: Vec<Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3);
    // docs/rules.md worked example: the opening at local pit 0 ends with 15 for South and 4 for North.
    assert_eq!(lines[2]["reserve"], serde_json::json!([15, 4]));
    assert_eq!(lines[2]["laps"].as_array().unwrap().len(), 12);
}

#[test]
fn illegal_moves_name_the_ply_side_pit_and_legal_pits() {
    // After 0 (South), North plays 0; then South's pits 2 and 4 are empty.
    let e = usage_error(
        &["replay", "--moves", "0,0,2"],
        &["ply 3", "south", "pit 2", "empty", "legal pits: "],
    );
    assert!(!e.contains("legal pits: none"), "{e}");
    usage_error(&["replay", "--moves", "0,9"], &["ply 2", "north", "pit 9", "no such pit"]);
    usage_error(&["replay", "--moves", "0,x"], &["'x'", "not a pit number"]);
    // The 3x2 golden match ends after two moves: a third is after the match's end.
    usage_error(
        &[
            "replay",
            "--first",
            "north",
            "--rule",
            "pits_per_row=3",
            "--rule",
            "seeds_per_pit=2",
            "--rule",
            "pussa_chain=true",
            "--moves",
            "2,1,0",
        ],
        &["ply 3", "after the match's end"],
    );
}

#[test]
fn an_endless_move_is_illegal_under_forbid() {
    let (header, moves, lines) = golden_moves("endless_stop_stays.jsonl");
    let endless_ply = lines
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["endless"] == true)
        .unwrap()["ply"]
        .as_u64()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("moves");
    std::fs::write(&f, moves[..endless_ply as usize].join(",")).unwrap();
    let mut args: Vec<String> =
        vec!["replay".into(), "--first".into(), header["first"].as_str().unwrap().into()];
    args.extend(
        rule_args(&header).into_iter().map(|a| a.replace("endless=stop", "endless=forbid")),
    );
    args.extend(["--moves-file".into(), s(&f).into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    usage_error(&args, &[&format!("ply {endless_ply}"), "endless", "legal pits"]);
}

#[test]
fn bad_options_are_usage_errors() {
    usage_error(
        &["replay", "--rule", "final_fours=owner"],
        &["final_fours", "known switches are final_four"],
    );
    usage_error(&["replay", "--rule", "pits_per_row=10"], &["pits_per_row", "2..=9"]);
    usage_error(&["replay", "--first", "east"], &["east"]);
    usage_error(&["replay", "--moves-file", "/nonexistent/moves"], &["/nonexistent/moves"]);
    usage_error(&["frobnicate"], &["frobnicate"]);
}

#[test]
fn a_closed_pipe_is_not_an_error() {
    let (header, moves, _) = golden_moves("default_north.jsonl");
    let mut child = bin()
        .args(["replay", "--first", header["first"].as_str().unwrap(), "--moves", &moves.join(",")])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    // The reader is dropped here: the rest of the 200 KB trace meets a closed pipe.
    let out = child.wait_with_output().unwrap();
    assert!(first.contains("header"));
    assert_eq!(out.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&out.stderr));
}
