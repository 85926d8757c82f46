//! Outputs never replace what is not theirs: every command that writes a file atomically refuses
//! a destination that exists and is not a regular file (a symbolic link is neither followed nor
//! replaced; a FIFO is not opened, so nothing waits), and a study never writes through a link.
//! The links and FIFOs live in each test's own temporary directory.

use std::path::{Path, PathBuf};

use crate::common::*;

/// `path` made a symbolic link to a file of ours holding "theirs", beside it.
fn link(path: &Path) -> PathBuf {
    link_into(path, path.parent().unwrap())
}

/// `path` made a symbolic link to a file of ours holding "theirs", in `dir`.
fn link_into(path: &Path, dir: &Path) -> PathBuf {
    let target = dir.join(format!("target-of-{}", path.file_name().unwrap().to_string_lossy()));
    std::fs::write(&target, "theirs").unwrap();
    std::os::unix::fs::symlink(&target, path).unwrap();
    target
}

fn fifo(path: &Path) {
    let c = std::ffi::CString::new(s(path)).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

/// The command fails with exit 1 naming `path` as not a regular file, and the link and its
/// target are as they were.
fn refused(args: &[&str], path: &Path, target: Option<&Path>) {
    let (code, _, err) = run(args);
    assert_eq!(code, 1, "rajapasu {}: {err}", args.join(" "));
    assert!(
        err.contains(s(path)) && err.contains("not a regular file"),
        "rajapasu {}: {err}",
        args.join(" ")
    );
    if let Some(target) = target {
        assert!(
            std::fs::symlink_metadata(path).unwrap().file_type().is_symlink(),
            "{} is still the link",
            path.display()
        );
        assert_eq!(
            std::fs::read_to_string(target).unwrap(),
            "theirs",
            "the link's target is untouched"
        );
    }
}

#[test]
fn show_refuses_a_symlink_or_fifo_as_its_page() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.html");
    let target = link(&page);
    refused(&["show", "--moves", "0,1", "--out", s(&page)], &page, Some(&target));
    let pipe = dir.path().join("pipe.html");
    fifo(&pipe);
    refused(&["show", "--moves", "0,1", "--out", s(&pipe)], &pipe, None);
    // A regular file is replaced as before.
    let plain = dir.path().join("plain.html");
    std::fs::write(&plain, "old").unwrap();
    ok(&["show", "--moves", "0,1", "--out", s(&plain)]);
    assert!(std::fs::read_to_string(&plain).unwrap().contains("<html"));
}

#[test]
fn plot_summarize_and_metrics_refuse_a_symlinked_output() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("d");
    ok(&["simulate", "--matches", "30", "--seed", "1", "--out", s(&data), "--quiet"]);
    let charts = dir.path().join("charts");
    std::fs::create_dir(&charts).unwrap();
    let png = charts.join("lap_length.png");
    let target = link(&png);
    refused(&["plot", s(&data), "--out", s(&charts)], &png, Some(&target));
    let summary = data.join("summary.json");
    let target = link(&summary);
    refused(&["summarize", s(&data)], &summary, Some(&target));
    std::fs::remove_file(&summary).unwrap();
    let metrics = data.join("metrics.json");
    let target = link(&metrics);
    refused(&["metrics", s(&data)], &metrics, Some(&target));
}

#[test]
fn solve_refuses_a_symlinked_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let json = out.join("solve_match.json");
    let target = link(&json);
    let tables = dir.path().join("tables");
    let args = [
        "solve",
        "--match",
        "--all-states",
        "--rule",
        "pits_per_row=3",
        "--rule",
        "seeds_per_pit=2",
        "--quiet",
    ];
    refused(
        &[&args[..], &["--tables", s(&tables), "--out", s(&out)]].concat(),
        &json,
        Some(&target),
    );
}

#[test]
fn run_and_tournament_refuse_a_symlinked_study_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let exp = dir.path().join("e.toml");
    std::fs::write(&exp, "name = \"e\"\n[defaults]\nmatches = 10\n[[arms]]\nname = \"a\"\n")
        .unwrap();
    std::fs::create_dir_all(root.join("e")).unwrap();
    let copy = root.join("e").join("experiment.toml");
    let target = link_into(&copy, dir.path());
    refused(&["run", s(&exp), "--out-root", s(&root), "--quiet"], &copy, Some(&target));
    let tour = dir.path().join("t.toml");
    std::fs::write(
        &tour,
        "name = \"t\"\nplayers = [\"random\", \"greedy\"]\nmatches_per_pair = 2\nseed = 1\n",
    )
    .unwrap();
    std::fs::create_dir_all(root.join("t")).unwrap();
    let copy = root.join("t").join("tournament.toml");
    let target = link_into(&copy, dir.path());
    refused(&["tournament", s(&tour), "--out-root", s(&root), "--quiet"], &copy, Some(&target));
}

#[test]
fn a_study_refuses_symlinked_charts_and_arm_directories() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let exp = dir.path().join("e.toml");
    std::fs::write(&exp, "name = \"e\"\n[defaults]\nmatches = 10\n[[arms]]\nname = \"a\"\n")
        .unwrap();
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    for name in ["charts", "a"] {
        std::fs::create_dir_all(root.join("e")).unwrap();
        let linked = root.join("e").join(name);
        std::os::unix::fs::symlink(&elsewhere, &linked).unwrap();
        usage_error(
            &["run", s(&exp), "--out-root", s(&root), "--quiet"],
            &[&format!("{name} is a symbolic link"), "remove it"],
        );
        assert_eq!(
            std::fs::read_dir(&elsewhere).unwrap().count(),
            0,
            "nothing written through the link {name}"
        );
        std::fs::remove_file(&linked).unwrap();
    }
}

#[test]
fn arms_named_like_a_studys_own_files_are_refused_when_the_experiment_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    for name in ["charts", "summary.json", "summary.txt", "metrics.json", "experiment.toml"] {
        let exp = dir.path().join("e.toml");
        std::fs::write(&exp, format!("name = \"e\"\n[defaults]\nmatches = 10\n[[arms]]\nname = \"ok\"\n[[arms]]\nname = \"{name}\"\n"))
            .unwrap();
        usage_error(
            &["run", s(&exp), "--out-root", s(&root), "--quiet"],
            &[
                "line 7, field `name`",
                &format!("'{name}' is the name of one of the study's own files"),
            ],
        );
        assert!(!root.exists(), "refused before anything is written");
    }
}
