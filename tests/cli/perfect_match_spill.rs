//! `rajapasu solve --perfect-match --spill`: the matches of perfectly played rounds with every
//! round solved with its levels on disk are the in-memory matches, and a choice of a move that
//! needs more memory than allowed is refused naming --max-memory. Damaged level files are
//! refused naming the file, by it and by `solve --spill`.

use std::path::Path;

use crate::common::*;
use serde_json::Value;
use sha2::{Digest, Sha256};

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

/// The level files under `dir` named `name`, at any depth.
fn level_files(dir: &Path, name: &str) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(level_files(&path, name));
        } else if path.file_name().is_some_and(|n| n == name) {
            found.push(path);
        }
    }
    found
}

/// Rewrites a values file (docs of its format: crates/rajapasu-core/src/exact/files/
/// level_files.rs) with every value `value`, its header and a valid checksum kept: a file the
/// checks accept that does not hold the round's values.
fn rewrite_values(path: &Path, value: i32) {
    let old = std::fs::read(path).unwrap();
    let u32_at = |at: usize| u32::from_le_bytes(old[at..at + 4].try_into().unwrap()) as usize;
    let u64_at = |at: usize| u64::from_le_bytes(old[at..at + 8].try_into().unwrap()) as usize;
    let json_end = 12 + u32_at(8);
    let level = u32_at(json_end + 2);
    let len = u64_at(json_end + 6) + u64_at(json_end + 14);
    let head = json_end + 6 + 16 + 32;
    let bits = (u32::BITS - (2 * level as u32).leading_zeros()).max(1) as usize;
    let mut packed = vec![0u8; (len * bits).div_ceil(8) + 1];
    let stored = (value + level as i32) as u64;
    for i in 0..len {
        for b in 0..bits {
            if stored >> b & 1 == 1 {
                packed[(i * bits + b) / 8] |= 1 << ((i * bits + b) % 8);
            }
        }
    }
    let mut new = old[..head].to_vec();
    new.extend_from_slice(&packed);
    let digest = Sha256::digest(&new);
    new.extend_from_slice(&digest);
    assert_eq!(new.len(), old.len(), "{}", path.display());
    std::fs::write(path, new).unwrap();
}

#[test]
fn level_files_that_pass_their_checks_but_contradict_the_play_are_refused_naming_the_file() {
    let tables = tempfile::tempdir().unwrap();
    let (code, _, err) = spilled(tables.path(), &[]);
    assert_eq!(code, 0, "{err}");
    // Round 1's top level (all 24 counters on the board), every position worth them all: no
    // move of the round's start achieves that.
    let top = level_files(tables.path(), "level-024.val");
    assert_eq!(top.len(), 1, "{top:?}");
    rewrite_values(&top[0], 24);
    let (code, out, err) = spilled(tables.path(), &[]);
    assert_eq!(code, 2, "{out}{err}");
    let file = top[0].display().to_string();
    assert!(err.contains(&file) && err.contains("level 24 worth 24"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn best_moves_of_a_spilled_solve_over_contradicting_level_files_are_refused_naming_the_file() {
    let tables = tempfile::tempdir().unwrap();
    let mut a = vec!["solve", "--spill", "--json", "--quiet", "--tables", s(tables.path())];
    a.extend_from_slice(&BOARD);
    let v: Value = serde_json::from_str(ok(&a).trim()).unwrap();
    assert!(v["starts"][0]["best_moves"].as_array().is_some_and(|b| !b.is_empty()), "{v}");
    // The start, the top level's one position, worth all 24 counters: none of its moves (all
    // captures, to levels of their true values) achieves that.
    let top = level_files(tables.path(), "level-024.val");
    assert_eq!(top.len(), 1, "{top:?}");
    rewrite_values(&top[0], 24);
    let (code, out, err) = run(&a);
    assert_eq!(code, 2, "{out}{err}");
    let file = top[0].display().to_string();
    assert!(err.contains(&file) && err.contains("level 24 worth 24"), "{err}");
    assert!(!err.contains("panicked") && out.is_empty(), "{out}{err}");
}
