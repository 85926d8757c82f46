//! Helpers: run the binary, read datasets back.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rajapasu"));
    c.stdin(Stdio::null());
    c
}

/// The example external player (scripts/example_player.py).
pub fn example_player_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/example_player.py")
}

/// The command that runs the example external player.
pub fn example_player() -> String {
    format!("python3 {}", example_player_script().display())
}

/// Runs the binary with `args`; returns (exit code, stdout, stderr).
pub fn run(args: &[&str]) -> (i32, String, String) {
    let out: Output = bin().args(args).output().expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs and asserts success.
pub fn ok(args: &[&str]) -> String {
    let (code, out, err) = run(args);
    assert_eq!(code, 0, "rajapasu {}\nstderr: {err}", args.join(" "));
    out
}

/// Runs and asserts exit code 2 with every needle in stderr; returns stderr.
pub fn usage_error(args: &[&str], needles: &[&str]) -> String {
    let (code, _, err) = run(args);
    assert_eq!(code, 2, "rajapasu {} should fail with exit 2; stderr: {err}", args.join(" "));
    for n in needles {
        assert!(err.contains(n), "stderr of rajapasu {} lacks '{n}': {err}", args.join(" "));
    }
    err
}

pub fn golden(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/rajapasu-core/tests/data/golden").join(name)
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Every table of a dataset, read back whole, by name.
pub fn tables(dir: &Path) -> Vec<rajapasu::sim::table::Table> {
    let d = rajapasu::io::Dataset::open(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    d.detail().tables().into_iter().map(|t| d.read_all(t).unwrap()).collect()
}

/// Files under `dir` (recursively), relative, sorted; hidden progress files included.
pub fn files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(base: &Path, d: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(base, &p, out);
            } else {
                out.push(p.strip_prefix(base).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    if dir.exists() {
        walk(dir, dir, &mut out);
    }
    out.sort();
    out
}

/// Replaces a part file of dataset `dir` by `contents` and records the new file in its batch's
/// progress marker, as a dataset written that way would hold it (so only the rows differ).
pub fn rewrite_part_file(dir: &Path, part: &Path, contents: &[u8]) {
    use sha2::Digest;
    std::fs::write(part, contents).unwrap();
    let (table, name) = (
        part.parent().unwrap().file_name().unwrap().to_str().unwrap(),
        part.file_name().unwrap().to_str().unwrap(),
    );
    for marker_path in std::fs::read_dir(dir.join(".progress")).unwrap().map(|e| e.unwrap().path())
    {
        let mut marker: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&marker_path).unwrap()).unwrap();
        let mut changed = false;
        for file in marker["files"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .filter(|f| f["table"] == table && f["file"] == name)
        {
            file["bytes"] = contents.len().into();
            file["sha256"] = sha2::Sha256::digest(contents)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
                .into();
            changed = true;
        }
        if changed {
            std::fs::write(&marker_path, serde_json::to_string_pretty(&marker).unwrap()).unwrap();
            return;
        }
    }
    panic!("no progress marker records {}", part.display());
}

/// A browser test that cannot run: skipped on a developer's machine without the browser, but
/// under CI (`$CI` set, as .ci/run runs) a failure, so that a green run has tested the pages.
pub fn browser_missing(test: &str, why: &str) {
    if std::env::var_os("CI").is_some_and(|v| !v.is_empty()) {
        panic!("{test}: {why}; under CI a browser test that cannot run fails (.ci/run installs what it needs)");
    }
    eprintln!("SKIPPED {test}: {why}");
}
