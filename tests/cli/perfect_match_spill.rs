//! `rajapasu solve --perfect-match --spill`: the matches of perfectly played rounds with every
//! round solved with its levels on disk are the in-memory matches, and a choice of a move that
//! needs more memory than allowed is refused naming --max-memory.

use std::path::Path;

use crate::common::*;
use serde_json::Value;

const BOARD: [&str; 3] =
    ["--rule=pits_per_row=4", "--rule=seeds_per_pit=3", "--rule=final_four=stays"];

/// `solve --perfect-match --spill --json` of BOARD with its rounds in `tables`.
fn spilled(tables: &Path, extra: &[&str]) -> (i32, String, String) {
    let mut a =
        vec!["solve", "--perfect-match", "--spill", "--json", "--quiet", "--tables", s(tables)];
    a.extend_from_slice(&BOARD);
    a.extend_from_slice(extra);
    run(&a)
}

#[test]
fn spilled_perfect_matches_are_the_in_memory_ones() {
    let tables = tempfile::tempdir().unwrap();
    for starter in ["south", "north"] {
        let mut memory = vec!["solve", "--perfect-match", "--json", "--starter", starter];
        memory.extend_from_slice(&BOARD);
        let want: Value = serde_json::from_str(ok(&memory).trim()).unwrap();
        let (code, out, err) = spilled(tables.path(), &["--starter", starter]);
        assert_eq!(code, 0, "{err}");
        let got: Value = serde_json::from_str(out.trim()).unwrap();
        assert_eq!(got, want, "{starter}");
        assert!(want["matches"][0]["rounds"].as_array().is_some_and(|r| !r.is_empty()));
    }
    // The rounds are where `solve --spill --starter both` puts them, and read from there.
    let rounds: Vec<_> = std::fs::read_dir(tables.path().join("rounds")).unwrap().collect();
    assert!(!rounds.is_empty());
    let text = ok(&[
        &["solve", "--perfect-match", "--spill", "--quiet", "--tables", s(tables.path())][..],
        &BOARD,
    ]
    .concat());
    assert!(
        text.contains("ties broken by the highest local pit") && text.contains("outcome: "),
        "{text}"
    );
}

#[test]
fn a_move_whose_choice_needs_more_memory_than_allowed_names_max_memory() {
    let tables = tempfile::tempdir().unwrap();
    let (code, _, err) = spilled(tables.path(), &[]);
    assert_eq!(code, 0, "{err}");
    // The rounds are solved: only the choices of moves need memory now.
    let (code, out, err) = spilled(tables.path(), &["--max-memory", "64"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("(--max-memory 64 bytes)") && err.contains("allow more memory"), "{err}");
}
