//! Every subcommand writes stdout through one writer: a reader that goes away (`| head -1`,
//! `| true`) ends the output quietly with exit code 0, never a panic (exit 101).

use std::io::Read;
use std::process::Stdio;

use crate::common::*;

/// Runs `args` with stdout a pipe whose reading end is closed before the binary writes;
/// returns (exit code, stderr).
fn with_closed_stdout(args: &[&str]) -> (i32, String) {
    let mut child = bin().args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    drop(child.stdout.take());
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    (child.wait().unwrap().code().unwrap_or(-1), err)
}

#[test]
fn a_closed_pipe_ends_every_subcommand_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("d");
    ok(&["simulate", "--matches", "40", "--seed", "2", "--out", s(&data), "--quiet"]);
    let exp = dir.path().join("pipe.toml");
    std::fs::write(&exp, "name = \"pipe\"\n[defaults]\nmatches = 30\n[[arms]]\nname = \"a\"\n")
        .unwrap();
    let tour = dir.path().join("tour.toml");
    std::fs::write(
        &tour,
        "name = \"tour\"\nplayers = [\"random\", \"greedy\"]\nmatches_per_pair = 4\nseed = 1\n",
    )
    .unwrap();
    let root = dir.path().join("studies");
    let charts = dir.path().join("charts");
    let cases: Vec<Vec<&str>> = vec![
        vec!["bench", "--matches", "200", "--repeat", "3"],
        vec!["bench", "--matches", "200", "--repeat", "2", "--json"],
        vec!["plot", s(&data), "--out", s(&charts)],
        vec!["run", s(&exp), "--out-root", s(&root), "--quiet"],
        vec!["tournament", s(&tour), "--out-root", s(&root), "--quiet"],
        vec!["summarize", s(&data)],
        vec!["summarize", s(&data), "--json"],
        vec!["verify", s(&data)],
        vec!["replay", "--moves", "6,4,5,0"],
        vec!["perft", "--depth", "3"],
        vec!["schema", "--markdown"],
        vec!["--help"],
    ];
    for args in &cases {
        let (code, err) = with_closed_stdout(args);
        assert_eq!(code, 0, "rajapasu {} | true: {err}", args.join(" "));
        assert!(
            !err.contains("panicked") && !err.contains("Broken pipe"),
            "rajapasu {} | true: {err}",
            args.join(" ")
        );
    }
    // The work is done even though nobody read the output.
    assert!(charts.join("lap_length.png").exists());
    assert!(
        root.join("pipe/summary.txt").exists() && root.join("pipe/charts/closed_pits.svg").exists()
    );
    ok(&["verify", s(&root.join("pipe"))]);
    assert!(
        root.join("tour/ratings.txt").exists() && root.join("tour/charts/ratings.png").exists()
    );
}
