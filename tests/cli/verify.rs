//! Verified part files: `rajapasu verify`, and `summarize`, `plot`, `run` and `--resume` on
//! datasets whose part files were removed, duplicated, truncated, altered or mixed with another
//! run's: a clear error naming each file (exit 2), never a figure; `--resume` plays exactly the
//! damaged batches again and gives the files of an uninterrupted run, byte for byte.

use std::path::Path;

use crate::common::*;

/// 60 matches in 3 batches at lap detail: every table, several part files each.
fn simulate_args(out: &Path, seed: &str) -> Vec<String> {
    [
        "simulate",
        "--matches",
        "60",
        "--seed",
        seed,
        "--detail",
        "lap",
        "--batch-size",
        "20",
        "--threads",
        "2",
        "--quiet",
        "--out",
        s(out),
    ]
    .iter()
    .map(|a| a.to_string())
    .collect()
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let target = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_dir(&p, &target);
        } else {
            std::fs::copy(&p, &target).unwrap();
        }
    }
}

/// Every file's bytes, by relative path; manifests (times, command) and lock files (holder)
/// left out.
pub fn contents(dir: &Path) -> Vec<(String, Vec<u8>)> {
    files(dir)
        .into_iter()
        // The manifest and the package descriptor record times and the command line.
        .filter(|f| {
            !f.starts_with("manifest")
                && !f.starts_with(".lock")
                && !f.starts_with("summary")
                && f != "datapackage.json"
        })
        .map(|f| {
            let bytes = std::fs::read(dir.join(&f)).unwrap();
            (f, bytes)
        })
        .collect()
}

fn part(dir: &Path, table: &str, batch: u64) -> std::path::PathBuf {
    let name = std::fs::read_dir(dir.join(table))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .find(|n| n.ends_with(&format!("-{batch:08}.parquet")))
        .unwrap_or_else(|| panic!("no part of batch {batch} in {table}"));
    dir.join(table).join(name)
}

const TABLES: [&str; 5] = ["matches", "rounds", "moves", "laps", "histograms"];

#[derive(Clone, Copy, Debug, PartialEq)]
enum Damage {
    Removed,
    Truncated,
    /// Replaced by the same batch's file of another run (same name, other bytes).
    Altered,
    /// Copied to an unused batch number.
    Duplicated,
    /// Another run's part file, under its own name.
    Foreign,
}

/// Damages `table` of `dir`; returns the damaged file's name and the words the error must use.
fn damage(dir: &Path, other: &Path, table: &str, how: Damage) -> (String, &'static str) {
    let victim = part(dir, table, 1);
    let name = victim.file_name().unwrap().to_string_lossy().into_owned();
    match how {
        Damage::Removed => {
            std::fs::remove_file(&victim).unwrap();
            (name, "missing")
        }
        Damage::Truncated => {
            let bytes = std::fs::read(&victim).unwrap();
            std::fs::write(&victim, &bytes[..bytes.len() / 2]).unwrap();
            (name, "truncated")
        }
        Damage::Altered => {
            std::fs::copy(part(other, table, 1), &victim).unwrap();
            (name, "altered")
        }
        Damage::Duplicated => {
            let copy = name.replace("-00000001.", "-00000007.");
            std::fs::copy(&victim, dir.join(table).join(&copy)).unwrap();
            (copy, "a copy of")
        }
        Damage::Foreign => {
            let stray = part(other, table, 2);
            let stray_name = stray.file_name().unwrap().to_string_lossy().into_owned();
            std::fs::copy(&stray, dir.join(table).join(&stray_name)).unwrap();
            (stray_name, "mixed into a dataset")
        }
    }
}

#[test]
fn every_damaged_part_file_is_named_and_resume_repairs_what_it_wrote() {
    let tmp = tempfile::tempdir().unwrap();
    let good = tmp.path().join("good");
    let other = tmp.path().join("other");
    ok(&strs(&simulate_args(&good, "3")));
    ok(&strs(&simulate_args(&other, "4")));
    let verified = ok(&["verify", s(&good)]);
    assert!(verified.contains("ok: 3 batches, 21 part files"), "{verified}");
    let reference = contents(&good);
    for table in TABLES {
        for how in [
            Damage::Removed,
            Damage::Truncated,
            Damage::Altered,
            Damage::Duplicated,
            Damage::Foreign,
        ] {
            let dir = tmp.path().join(format!("{table}-{how:?}"));
            copy_dir(&good, &dir);
            let (file, words) = damage(&dir, &other, table, how);
            let case = format!("{table}, {how:?}");
            // No figure from a damaged dataset: each reader names the file and what is wrong.
            for args in [vec!["summarize", s(&dir)], vec!["plot", s(&dir)], vec!["verify", s(&dir)]]
            {
                let (code, out, err) = run(&args);
                let text = format!("{out}{err}");
                assert_eq!(code, 2, "{case}: rajapasu {} must fail; {text}", args.join(" "));
                assert!(
                    text.contains(&format!("{table}/{file}")) && text.contains(words),
                    "{case}: {}: {text}",
                    args[0]
                );
                assert!(
                    !out.contains("first player wins") && !dir.join("charts").exists(),
                    "{case}: no figure"
                );
            }
            let mut resume = simulate_args(&dir, "3");
            resume.push("--resume".into());
            if matches!(how, Damage::Duplicated | Damage::Foreign) {
                // Files the run did not write are left to the user, named.
                usage_error(&strs(&resume), &[&file, "not part of this run"]);
                std::fs::remove_file(dir.join(table).join(&file)).unwrap();
                ok(&["verify", s(&dir)]);
            } else {
                // Exactly the damaged batch is played again.
                let (code, _, err) = run(&strs(&resume)
                    .iter()
                    .copied()
                    .filter(|a| *a != "--quiet")
                    .collect::<Vec<_>>());
                assert_eq!(code, 0, "{case}: {err}");
                assert!(
                    err.contains("20 matches played, 1 batches written, 2 already done"),
                    "{case}: {err}"
                );
                ok(&["verify", s(&dir)]);
            }
            assert!(
                contents(&dir) == reference,
                "{case}: the repaired dataset is byte-identical to the uninterrupted one"
            );
        }
    }
}

#[test]
fn markers_and_manifests_are_checked_too() {
    let tmp = tempfile::tempdir().unwrap();
    let good = tmp.path().join("good");
    ok(&strs(&simulate_args(&good, "3")));
    // A removed progress marker.
    let no_marker = tmp.path().join("no_marker");
    copy_dir(&good, &no_marker);
    std::fs::remove_file(no_marker.join(".progress/batch-00000002.json")).unwrap();
    let (code, out, err) = run(&["verify", s(&no_marker)]);
    assert_eq!(code, 2, "{err}");
    assert!(out.contains(".progress/batch-00000002.json: batch 2 has no progress marker"), "{out}");
    assert!(err.contains("problems found") && err.contains("do not publish"), "{err}");
    // A manifest whose row counts disagree with the markers.
    let rows = tmp.path().join("rows");
    copy_dir(&good, &rows);
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(rows.join("manifest.json")).unwrap())
            .unwrap();
    m["rows"]["matches"] = 61.into();
    std::fs::write(rows.join("manifest.json"), serde_json::to_string_pretty(&m).unwrap()).unwrap();
    let (code, out, _) = run(&["verify", s(&rows)]);
    assert_eq!(code, 2);
    assert!(
        out.contains("manifest.json: the manifest records") && out.contains("61 matches"),
        "{out}"
    );
    // An unexpected file in a table directory.
    let extra = tmp.path().join("extra");
    copy_dir(&good, &extra);
    std::fs::write(extra.join("rounds/notes.txt"), "mine").unwrap();
    let (code, out, _) = run(&["verify", s(&extra)]);
    assert_eq!(code, 2);
    assert!(out.contains("rounds/notes.txt: extra file"), "{out}");
    // A temporary left by a killed write in a finished dataset: `*.parquet` would read it.
    let temporary = tmp.path().join("temporary");
    copy_dir(&good, &temporary);
    std::fs::write(temporary.join("laps/.part-x-00000001.parquet.tmp-7-1.parquet"), "half")
        .unwrap();
    let (code, out, _) = run(&["verify", s(&temporary)]);
    assert_eq!(code, 2);
    assert!(
        out.contains("laps/.part-x-00000001.parquet.tmp-7-1.parquet: extra file: a temporary"),
        "{out}"
    );
    usage_error(&["verify", s(&tmp.path().join("nothing"))], &["no such directory"]);
    // Both formats: every CSV file is recorded and checked as well.
    let both = tmp.path().join("both");
    let mut owned = simulate_args(&both, "3");
    owned.extend(["--format".to_string(), "both".to_string()]);
    let args = strs(&owned);
    ok(&args);
    assert!(ok(&["verify", s(&both)]).contains("ok: 3 batches, 42 part files"));
    let csv = std::fs::read_dir(both.join("laps"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().unwrap() == "csv")
        .unwrap();
    let text = std::fs::read_to_string(&csv).unwrap();
    std::fs::write(&csv, text.replacen(",1,", ",2,", 1)).unwrap();
    let (code, out, _) = run(&["verify", s(&both)]);
    assert_eq!(code, 2);
    let name = csv.file_name().unwrap().to_string_lossy().into_owned();
    assert!(out.contains(&format!("laps/{name}: altered: its SHA-256 differs")), "{out}");
    ok(&[&args[..], &["--resume"]].concat());
    ok(&["verify", s(&both)]);
}

/// Runs `args` and asserts exit 2 (never a panic's 101) with every needle in stdout or stderr.
fn refused(args: &[&str], needles: &[&str]) {
    let (code, out, err) = run(args);
    assert_eq!(code, 2, "rajapasu {} should fail with exit 2:\n{out}\n{err}", args.join(" "));
    for n in needles {
        assert!(
            out.contains(n) || err.contains(n),
            "rajapasu {} does not say '{n}':\n{out}\n{err}",
            args.join(" ")
        );
    }
}

/// The manifest's identity is checked by verify, summarize, plot, show, run
/// and --resume, and a malformed manifest is an error naming the field, never a panic.
#[test]
fn an_edited_or_malformed_manifest_is_an_error_naming_the_field() {
    let tmp = tempfile::tempdir().unwrap();
    let good = tmp.path().join("good");
    let simulate = |out: &Path| -> Vec<String> {
        [
            "simulate",
            "--matches",
            "20",
            "--seed",
            "4",
            "--detail",
            "match",
            "--batch-size",
            "5",
            "--quiet",
            "--out",
            s(out),
        ]
        .iter()
        .map(|a| a.to_string())
        .collect()
    };
    ok(&strs(&simulate(&good)));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(good.join("manifest.json")).unwrap())
            .unwrap();
    let edited = |name: &str, edit: &dyn Fn(&mut serde_json::Value)| {
        let dir = tmp.path().join(name);
        copy_dir(&good, &dir);
        let mut m = manifest.clone();
        edit(&mut m);
        std::fs::write(dir.join("manifest.json"), serde_json::to_string_pretty(&m).unwrap())
            .unwrap();
        dir
    };
    let readers = |dir: &Path, needles: &[&str]| {
        let charts = dir.join("charts");
        let page = dir.join("page.html");
        for args in [
            vec!["verify", s(dir)],
            vec!["summarize", s(dir)],
            vec!["plot", s(dir), "--out", s(&charts)],
            vec!["show", s(dir), "--match", "1", "--out", s(&page)],
        ] {
            refused(&args, needles);
        }
        assert!(!charts.exists() && !page.exists(), "nothing is made of an untrusted dataset");
    };
    // Fields of the identity edited: each is named, by every reader and by --resume.
    let edits: [(&str, &ManifestEdit); 7] = [
        ("seed", &|m| m["seed"] = 5.into()),
        ("south", &|m| m["south"] = "greedy".into()),
        ("rules", &|m| m["rules"]["pits_per_row"] = 6.into()),
        ("matches", &|m| m["matches"] = 25.into()),
        ("batch_size", &|m| m["batch_size"] = 10.into()),
        ("detail", &|m| m["detail"] = "round".into()),
        ("versions", &|m| m["versions"]["polars"] = "0.1.0".into()),
    ];
    for (field, edit) in edits {
        let dir = edited(field, edit);
        let named = format!("`{field}`");
        readers(&dir, &["manifest.json was edited", &named]);
        let mut resume = simulate(&dir);
        resume.push("--resume".into());
        refused(&strs(&resume), &["manifest.json was edited", &named]);
    }
    // The identity's own record edited along with the batch size: the progress markers still
    // record the digest of the identity the batches were written under.
    let forged = edited("forged", &|m| {
        let mut typed: rajapasu::io::Manifest = serde_json::from_value(m.clone()).unwrap();
        typed.batch_size = 10;
        typed.identity = typed.current_identity();
        *m = serde_json::to_value(&typed).unwrap();
    });
    readers(&forged, &["manifest.json was edited: its identity no longer matches the digest recorded by the batches"]);
    let mut resume = simulate(&forged);
    resume[8] = "10".into();
    resume.push("--resume".into());
    refused(&strs(&resume), &["the manifest was edited: its identity no longer matches the digest recorded by the batches"]);
    // Malformed fields: errors naming them, never a panic or a huge allocation.
    let malformed: [(&str, &ManifestEdit); 6] = [
        ("batch_size", &|m| m["batch_size"] = 0.into()),
        ("matches", &|m| m["matches"] = u64::MAX.into()),
        ("seed", &|m| m["seed"] = "four".into()),
        ("batch_size", &|m| m["batch_size"] = serde_json::json!([5])),
        ("south", &|m| m["south"] = 7.into()),
        ("rules", &|m| m["rules"]["pits_per_row"] = "six".into()),
    ];
    for (i, (field, edit)) in malformed.into_iter().enumerate() {
        let dir = edited(&format!("malformed-{i}"), edit);
        readers(&dir, &[&format!("`{field}`")]);
    }
    // A study's arm with an edited manifest: `run` and `verify` of the study name it.
    let exp = tmp.path().join("solo.toml");
    std::fs::write(
        &exp,
        "name = \"solo\"\n[defaults]\nmatches = 10\nseed = 2\n[[arms]]\nname = \"a\"\n",
    )
    .unwrap();
    let root = tmp.path().join("data");
    ok(&["run", s(&exp), "--out-root", s(&root), "--quiet"]);
    let arm = root.join("solo/a/manifest.json");
    std::fs::write(
        &arm,
        std::fs::read_to_string(&arm).unwrap().replace("\"seed\": 2", "\"seed\": 3"),
    )
    .unwrap();
    refused(
        &["run", s(&exp), "--out-root", s(&root), "--quiet"],
        &["arm `a`", "manifest.json was edited", "`seed`"],
    );
    refused(&["verify", s(&root.join("solo"))], &["a/manifest.json", "was edited", "`seed`"]);
}

#[test]
fn verify_checks_every_arm_of_a_study() {
    let tmp = tempfile::tempdir().unwrap();
    let exp = tmp.path().join("duo.toml");
    std::fs::write(
        &exp,
        "name = \"duo\"\n[defaults]\nmatches = 40\nseed = 2\nbatch_size = 10\n[[arms]]\nname = \"a\"\n[[arms]]\nname = \"b\"\nnorth = \"greedy\"\n",
    )
    .unwrap();
    let root = tmp.path().join("data");
    ok(&["run", s(&exp), "--out-root", s(&root), "--quiet"]);
    let study = root.join("duo");
    let out = ok(&["verify", s(&study)]);
    assert_eq!(out.lines().filter(|l| l.contains(": ok: 4 batches")).count(), 2, "{out}");
    // A damaged arm: verify names it, and `run` plays its damaged batch again.
    let victim = part(&study.join("b"), "rounds", 3);
    std::fs::write(&victim, "not parquet").unwrap();
    let (code, out, _) = run(&["verify", s(&study)]);
    assert_eq!(code, 2);
    assert!(
        out.contains(&format!(
            "  rounds/{}: truncated",
            victim.file_name().unwrap().to_string_lossy()
        )),
        "{out}"
    );
    assert!(out.contains(": ok: 4 batches"), "the intact arm is reported as such: {out}");
    usage_error(&["summarize", s(&study)], &["truncated"]);
    ok(&["run", s(&exp), "--out-root", s(&root), "--quiet"]);
    ok(&["verify", s(&study)]);
    // A summary left from other data is stale: it would publish figures of other rows.
    let summary = study.join("summary.json");
    let text = std::fs::read_to_string(&summary).unwrap();
    std::fs::write(&summary, text.replacen("\"matches\": 40", "\"matches\": 39", 1)).unwrap();
    let (code, out, _) = run(&["verify", s(&study)]);
    assert_eq!(code, 2);
    assert!(out.contains("summary.json: arm `a` has matches 39, its dataset 40"), "{out}");
    ok(&["summarize", s(&study)]);
    ok(&["verify", s(&study)]);
    // An arm of the experiment file that is missing.
    std::fs::remove_dir_all(study.join("a")).unwrap();
    let (code, out, _) = run(&["verify", s(&study)]);
    assert_eq!(code, 2);
    assert!(out.contains("arm `a` of experiment.toml has no dataset"), "{out}");
}

/// An edit of a manifest's JSON, as a test makes it.
type ManifestEdit = dyn Fn(&mut serde_json::Value);
