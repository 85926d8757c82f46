//! Exact tables from someone else (`--tables`, `$RAJAPASU_TABLES`): a match table or values file
//! that was changed, damaged or is impossible is refused naming the file (and the state), and a
//! player never ends a round while it has legal moves; stale temporary files of the tables
//! directory are removed; values that cannot be saved are played from memory.

use std::path::{Path, PathBuf};

use serde_json::Value;
use sha2::Digest;

use crate::common::*;

const BOARD_4X4: [&str; 4] = ["--rule", "pits_per_row=4", "--rule", "seeds_per_pit=4"];

fn table_file(tables: &Path) -> PathBuf {
    std::fs::read_dir(tables)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .unwrap()
}

fn solve_4x4(tables: &Path, extra: &[&str]) -> (i32, String, String) {
    run(&[&["solve", "--match", "--json", "--quiet", "--tables", s(tables)][..], &BOARD_4X4, extra]
        .concat())
}

/// Rewrites the table file through `edit` (its `sha256` kept unless `edit` removes it).
fn edit_table(path: &Path, edit: impl FnOnce(&mut Value)) {
    let mut json: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    edit(&mut json);
    std::fs::write(path, json.to_string()).unwrap();
}

#[test]
fn an_impossible_or_changed_match_table_is_refused_naming_the_file_and_the_state() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("t");
    let (code, out, err) = solve_4x4(&tables, &[]);
    assert_eq!(code, 0, "{err}");
    let solved: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!((solved["value"].as_str(), solved["rounds"].as_u64()), (Some("win"), Some(3)));
    let path = table_file(&tables);
    let good = std::fs::read_to_string(&path).unwrap();
    // Edits that keep the values in range, the digest removed (as from a table written before
    // digests): refused for the missing digest, and when stamped the invariants find each,
    // naming the state. wins[side][south's holdings][starter].
    type Edit = fn(&mut Value);
    let cases: [(&str, Edit); 4] = [
        ("both sides win", |j| j["wins"][1][16][0] = 2.into()),
        ("south wins within 2 rounds, but after its best opening move south wins within 3 rounds", |j| j["wins"][0][16][0] = 2.into()),
        ("rounds value above its", |j| j["wins"][0][16][0] = 4294967294u32.into()),
        ("north wins in 0 rounds", |j| {
            j["wins"][0][16][0] = 4294967295u32.into();
            j["wins"][1][16][0] = 0.into();
        }),
    ];
    for (needle, edit) in cases {
        std::fs::write(&path, &good).unwrap();
        edit_table(&path, |j| {
            j.as_object_mut().unwrap().remove("sha256");
            edit(j)
        });
        let (code, out, err) = solve_4x4(&tables, &[]);
        assert_eq!(code, 2, "{needle}: {out}{err}");
        assert!(err.contains(s(&path)) && err.contains("no sha256"), "{needle}: {err}");
        let (code, out, err) = run(&["verify", "--stamp-digests", s(&tables)]);
        assert_eq!(code, 2, "{needle}: {out}{err}");
        assert!(out.contains(s(&path)) && out.contains(needle), "{needle}: {out}");
        if needle != "rounds value above its" {
            assert!(out.contains("South holds 16 and south starts"), "{out}");
        }
    }
    // Every value a draw: possible in itself, found by the digest the table carries.
    std::fs::write(&path, &good).unwrap();
    edit_table(&path, |j| {
        for side in 0..2 {
            for h in 4..=28 {
                j["wins"][side][h] = serde_json::json!([4294967295u32, 4294967295u32]);
                j["child"][side][h] = serde_json::to_value([[4294967295u32; 9]; 2]).unwrap();
            }
        }
        j["iterations"] = 1.into();
    });
    let (code, _, err) = solve_4x4(&tables, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(s(&path)) && err.contains("do not match its sha256"), "{err}");
    // --all-states writes nothing from a refused table.
    let out = dir.path().join("states");
    let (code, _, _) = run(&[
        &["solve", "--match", "--all-states", "--quiet", "--tables", s(&tables), "--out", s(&out)]
            [..],
        &BOARD_4X4,
    ]
    .concat());
    assert_eq!(code, 2);
    assert!(!out.join("match_states.csv").exists());
    // An unparsable table is input like any other: exit 2 (it was 1).
    std::fs::write(&path, "{\"rules\": 1}").unwrap();
    let (code, _, err) = solve_4x4(&tables, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not a match table"), "{err}");
}

#[test]
fn an_edited_partial_checkpoint_is_refused_not_completed() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("t");
    let (code, _, err) = solve_4x4(&tables, &["--max-iterations", "2"]);
    assert_eq!(code, 1, "{err}");
    let path = table_file(&tables);
    // Marked complete: in range and possible, but not what the loop wrote.
    edit_table(&path, |j| j["complete"] = true.into());
    let (code, out, err) = solve_4x4(&tables, &[]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains(s(&path)) && err.contains("do not match its sha256"), "{err}");
}

/// `simulate` with perfect:match on the 6x7 board of the issue, 2 matches, its tables in `tables`.
fn perfect_6x7(tables: &Path, out: &Path) -> (i32, String, String) {
    let o = bin()
        .env("RAJAPASU_TABLES", tables)
        .args([
            "simulate",
            "--matches",
            "2",
            "--seed",
            "1",
            "--south",
            "perfect:match",
            "--north",
            "random",
        ])
        .args([
            "--rule",
            "pits_per_row=6",
            "--rule",
            "seeds_per_pit=7",
            "--detail",
            "move",
            "--quiet",
            "--out",
            s(out),
        ])
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The committed match table of the 6x7 board (solving it takes minutes), copied into `tables`.
fn tables_6x7(tables: &Path) {
    std::fs::create_dir_all(tables).unwrap();
    let name = "match-07dd08cedb0e.json";
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/match_solution/tables").join(name),
        tables.join(name),
    )
    .unwrap();
}

fn values_file(tables: &Path) -> PathBuf {
    std::fs::read_dir(tables)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with("-6x6.bin"))
        .expect("the 6x6 values were saved")
}

/// The values file's layout (see the core's round_values): (offset of the cells' win bytes, cells).
fn values_layout(bytes: &[u8]) -> (usize, usize) {
    let rules_len = u32::from_le_bytes(bytes[72..76].try_into().unwrap()) as usize;
    let header = 76 + rules_len + 2 + 1 + 4 + 1 + 48;
    let cells = u64::from_le_bytes(bytes[header - 16..header - 8].try_into().unwrap()) as usize;
    (header, cells)
}

fn reseal(bytes: &mut [u8]) {
    let n = bytes.len() - 32;
    let digest = sha2::Sha256::digest(&bytes[..n]);
    bytes[n..].copy_from_slice(&digest);
}

#[test]
fn a_tampered_values_file_is_refused_and_no_round_ends_with_legal_moves() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("T");
    tables_6x7(&tables);
    let (code, _, err) = perfect_6x7(&tables, &dir.path().join("A"));
    assert_eq!(code, 0, "{err}");
    let path = values_file(&tables);
    let good = std::fs::read(&path).unwrap();
    let (body, cells) = values_layout(&good);
    // One flipped bit, anywhere: the file's digest names it.
    for at in [body + cells / 3, body + cells + cells / 2, good.len() - 40] {
        let mut bytes = good.clone();
        bytes[at] ^= 0x80;
        std::fs::write(&path, &bytes).unwrap();
        let (code, _, err) = perfect_6x7(&tables, &dir.path().join(format!("flip{at}")));
        assert_ne!(code, 0, "byte {at}: {err}");
        assert!(
            err.contains(s(&path)) && err.contains("do not match the SHA-256"),
            "byte {at}: {err}"
        );
    }
    // Every nonzero layer byte set to 1 and the digest made again (the file): possible
    // values one by one, but South finds no move though it has some; that is an error, and no
    // round is recorded without its moves.
    let mut bytes = good.clone();
    for l in &mut bytes[body + cells..body + 2 * cells] {
        if *l != 0 {
            *l = 1;
        }
    }
    reseal(&mut bytes);
    std::fs::write(&path, &bytes).unwrap();
    let out = dir.path().join("B");
    let (code, _, err) = perfect_6x7(&tables, &out);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("perfect:match") && err.contains("no move chosen though"), "{err}");
    assert!(
        !out.join("matches").exists() || files(&out.join("matches")).is_empty(),
        "nothing of the batch was written"
    );
}

#[test]
fn stale_temporaries_are_removed_and_unsaved_values_are_played_from_memory() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("T");
    tables_6x7(&tables);
    let stale = [
        ".values-07dd08cedb0e-6x6.bin.tmp-AbCdEfGhIj.bin",
        ".match-07dd08cedb0e.json.tmp-KlMnOpQrSt.json",
    ];
    for name in stale {
        std::fs::write(tables.join(name), vec![0u8; 4096]).unwrap();
    }
    // Not of the pattern, or held by a live writer (this process's lock): kept.
    let kept = [".other.tmp-AbCdEfGhIj.bin", "notes.txt"];
    for name in kept {
        std::fs::write(tables.join(name), "keep").unwrap();
    }
    let held_path = tables.join(".values-07dd08cedb0e-5x5.bin.tmp-HeLdHeLdHe.bin");
    let held = std::fs::File::create(&held_path).unwrap();
    use std::os::fd::AsRawFd;
    assert_eq!(unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) }, 0);
    // The values' file name taken by a link to nothing: no values to read, and none saved
    // (a link is never replaced), as in a full or read-only directory.
    let blocked = tables.join("values-07dd08cedb0e-6x6.bin");
    std::os::unix::fs::symlink(dir.path().join("nowhere"), &blocked).unwrap();
    let (code, _, err) = perfect_6x7(&tables, &dir.path().join("A"));
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning")
            && err.contains("cannot save the round's values")
            && err.contains("in memory"),
        "{err}"
    );
    for name in stale {
        assert!(!tables.join(name).exists(), "{name} was removed");
    }
    for name in kept {
        assert!(tables.join(name).exists(), "{name} was kept");
    }
    assert!(held_path.exists(), "a temporary file a live writer holds is kept");
    assert!(!dir.path().join("nowhere").exists(), "nothing written through the link");
    drop(held);
}

/// `simulate` with perfect:match on 3x2 against random, its tables in `tables`.
fn perfect_3x2(tables: &Path, out: &Path, extra: &[&str]) -> (i32, String, String) {
    let o = bin()
        .env("RAJAPASU_TABLES", tables)
        .args([
            "simulate",
            "--matches",
            "6",
            "--seed",
            "4",
            "--south",
            "perfect:match",
            "--north",
            "random",
            "--quiet",
        ])
        .args(["--rule", "pits_per_row=3", "--rule", "seeds_per_pit=2", "--out", s(out)])
        .args(extra)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn a_dataset_records_its_tables_and_refuses_others_on_resume_and_for_metrics_exact() {
    let dir = tempfile::tempdir().unwrap();
    let (t1, t2, data) = (dir.path().join("T1"), dir.path().join("T2"), dir.path().join("d"));
    let (code, _, err) = perfect_3x2(&t1, &data, &[]);
    assert_eq!(code, 0, "{err}");
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(data.join("manifest.json")).unwrap())
            .unwrap();
    let recorded =
        manifest["tables"].as_str().expect("the manifest records the tables' digest").to_string();
    let table: Value =
        serde_json::from_str(&std::fs::read_to_string(table_file(&t1)).unwrap()).unwrap();
    assert_eq!(
        table["sha256"].as_str(),
        Some(recorded.as_str()),
        "the digest of the table the players read"
    );
    assert!(manifest["identity"]["tables"].is_string(), "part of the identity the markers record");
    // Other tables, possible in themselves (every live state a draw; written without a digest,
    // as before digests, then checked and stamped): another identity.
    std::fs::create_dir_all(&t2).unwrap();
    let mut other = table.clone();
    other.as_object_mut().unwrap().remove("sha256");
    for side in 0..2 {
        for h in 2..=10 {
            other["wins"][side][h] = serde_json::json!([4294967295u32, 4294967295u32]);
            other["child"][side][h] = serde_json::to_value([[4294967295u32; 9]; 2]).unwrap();
        }
    }
    other["iterations"] = 1.into();
    std::fs::write(t2.join(table_file(&t1).file_name().unwrap()), other.to_string()).unwrap();
    let (code, out, err) = run(&["verify", "--stamp-digests", s(&t2)]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, _, err) = perfect_3x2(&t2, &data, &["--resume"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("the match tables' sha256 is") && err.contains(&recorded),
        "names both: {err}"
    );
    let metrics = |tables: &Path| {
        let o = bin()
            .env("RAJAPASU_TABLES", tables)
            .args(["metrics", s(&data), "--exact", "--out", s(&dir.path().join("m"))])
            .output()
            .unwrap();
        (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stderr).into_owned())
    };
    let (code, err) = metrics(&t2);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&recorded) && err.contains("the tables read now give"), "{err}");
    // With its own tables both go on.
    let (code, _, err) = perfect_3x2(&t1, &data, &["--resume"]);
    assert_eq!(code, 0, "{err}");
    let (code, err) = metrics(&t1);
    assert_eq!(code, 0, "{err}");
    // A run without perfect:match players records no tables (its manifest as before).
    let plain = dir.path().join("plain");
    ok(&["simulate", "--matches", "4", "--seed", "4", "--out", s(&plain), "--quiet"]);
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(plain.join("manifest.json")).unwrap())
            .unwrap();
    assert!(manifest.get("tables").is_none() && manifest["identity"].get("tables").is_none());
}

/// A table without its digest (written before tables carried one, or with the digest dropped
/// to hide an edit) is refused by every reader, naming the way to check and stamp it; `verify
/// --stamp-digests` writes the digest of one whose invariants hold, and refuses an impossible one.
#[test]
fn a_table_without_its_digest_is_refused_until_checked_and_stamped() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("tables");
    tables_6x7(&tables);
    let path = table_file(&tables);
    let digested = std::fs::read_to_string(&path).unwrap();
    let undigested = regex_free_strip_digest(&digested);
    std::fs::write(&path, &undigested).unwrap();
    let (code, _, err) = perfect_6x7(&tables, &dir.path().join("out"));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&path.display().to_string())
            && err.contains("no sha256")
            && err.contains("--stamp-digests"),
        "{err}"
    );
    let (code, out, err) = run(&["verify", s(&tables)]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.contains("no sha256"), "{out}");
    // An impossible table is not stamped, and stays as it was.
    let mut json: Value = serde_json::from_str(&undigested).unwrap();
    json["wins"][0][0][0] = 999.into();
    std::fs::write(&path, json.to_string()).unwrap();
    let (code, out, _) = run(&["verify", "--stamp-digests", s(&tables)]);
    assert_eq!(code, 2);
    assert!(out.contains("not a possible match table"), "{out}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), json.to_string());
    // A possible one is stamped: the file as written with its digest, and read again.
    std::fs::write(&path, &undigested).unwrap();
    let (code, out, err) = run(&["verify", "--stamp-digests", s(&tables)]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("1 match table checked") && out.contains("1 without a digest"), "{out}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), digested);
    let (code, _, err) = perfect_6x7(&tables, &dir.path().join("out"));
    assert_eq!(code, 0, "{err}");
    // --stamp-digests is for a tables directory.
    let (code, _, err) = run(&["verify", "--stamp-digests", s(dir.path())]);
    assert_eq!(code, 2);
    assert!(err.contains("holds no match table"), "{err}");
}

/// Every committed match table carries its digest, and it holds.
#[test]
fn every_committed_match_table_carries_its_digest() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/match_solution/tables");
    let (code, out, err) = run(&["verify", s(&dir)]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("match tables checked against their SHA-256"), "{out}");
}

/// A table file's text without its `sha256` field (the writer puts it last).
fn regex_free_strip_digest(text: &str) -> String {
    let at = text.rfind(",\"sha256\":\"").expect("a digest");
    format!("{}}}\n", &text[..at])
}
