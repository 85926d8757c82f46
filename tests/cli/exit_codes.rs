//! One rule for exit codes (docs/data.md, "Exit codes"): 0 done; 2 the request or an input is
//! wrong (arguments, experiment and tournament files, datasets, tables), nothing was done;
//! 1 the work failed (a file could not be written, memory, a player), what it says was not done.

use std::path::Path;
use std::time::Duration;

use crate::common::*;

#[test]
fn every_command_that_cannot_write_its_output_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("d");
    ok(&["simulate", "--matches", "20", "--seed", "1", "--out", s(&data), "--quiet"]);
    // A regular file where the output directory should be: nothing can be written under it.
    let blocked = dir.path().join("file");
    std::fs::write(&blocked, "x").unwrap();
    let under = blocked.join("sub");
    for args in [
        vec!["summarize", s(&data), "--out", s(&under)],
        vec!["metrics", s(&data), "--out", s(&under)],
        vec!["plot", s(&data), "--out", s(&under)],
        vec!["show", "--moves", "0,1", "--out", s(&under)],
    ] {
        let (code, _, err) = run(&args);
        assert_eq!(code, 1, "rajapasu {}: {err}", args.join(" "));
        assert!(err.contains(s(&blocked)), "rajapasu {}: {err}", args.join(" "));
    }
    // summarize with its files beside the dataset: the same (it exited 0 before).
    std::fs::create_dir(data.join("summary.json")).unwrap();
    let (code, out, err) = run(&["summarize", s(&data)]);
    assert_eq!(code, 1, "{err}");
    assert!(
        out.contains("first player wins")
            && err.contains("summary.json")
            && err.contains("not written"),
        "{out}{err}"
    );
}

#[test]
fn experiment_and_tournament_files_are_read_only_if_regular_and_small() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let pipe = dir.path().join("pipe.toml");
    let c = std::ffi::CString::new(s(&pipe)).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    // Sparse: 2 MiB of zeros without the disk space.
    let huge = dir.path().join("huge.toml");
    std::fs::File::create(&huge).unwrap().set_len(2 << 20).unwrap();
    for command in ["run", "tournament"] {
        // A FIFO with no writer: refused at once, never waited on.
        let mut child = bin()
            .args([command, s(&pipe), "--out-root", s(&root), "--quiet"])
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut waited = Duration::ZERO;
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            assert!(waited < Duration::from_secs(60), "{command} waits on a FIFO");
            std::thread::sleep(Duration::from_millis(50));
            waited += Duration::from_millis(50);
        };
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        assert_eq!(status.code(), Some(2), "{err}");
        assert!(err.contains("not a regular file"), "{err}");
        usage_error(
            &[command, s(&huge), "--out-root", s(&root), "--quiet"],
            &["huge.toml", "longer than 1048576 bytes"],
        );
    }
    assert!(!root.exists());
}

#[test]
fn without_home_the_tables_directory_is_refused_not_invented() {
    let dir = tempfile::tempdir().unwrap();
    let o = bin()
        .current_dir(dir.path())
        .env_remove("HOME")
        .env_remove("XDG_CACHE_HOME")
        .env_remove("RAJAPASU_TABLES")
        .args(["solve", "--match", "--rule", "pits_per_row=3", "--rule", "seeds_per_pit=2"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("RAJAPASU_TABLES, XDG_CACHE_HOME and HOME are all unset")
            && err.contains("--tables"),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "no ./.rajapasu-tables");
}

fn wait_for(path: &Path) {
    for _ in 0..1200 {
        if path.exists() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("{} never appeared", path.display());
}

#[test]
fn a_refused_resume_leaves_the_lock_and_never_names_itself_the_writer() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d");
    let writer = |seed: &str| {
        vec![
            "simulate",
            "--matches",
            "150000",
            "--seed",
            seed,
            "--detail",
            "match",
            "--threads",
            "1",
            "--quiet",
            "--out",
            s(&out),
        ]
        .into_iter()
        .map(String::from)
        .collect::<Vec<String>>()
    };
    let mut first = bin().args(writer("1")).spawn().unwrap();
    wait_for(&out.join("manifest.json"));
    first.kill().unwrap();
    first.wait().unwrap();
    let lock = out.join(".lock-shard-1-of-1");
    let before = std::fs::read_to_string(&lock).unwrap();
    assert!(before.contains(&format!("process {}", first.id())), "{before}");
    let mut other = writer("2");
    other.push("--resume".into());
    let err = usage_error(
        &other.iter().map(String::as_str).collect::<Vec<_>>(),
        &["different dataset (manifest.json, interrupted)"],
    );
    assert!(!err.contains("being written"), "the refused writer does not name itself: {err}");
    assert_eq!(
        std::fs::read_to_string(&lock).unwrap(),
        before,
        "the lock still names the run's writer"
    );
}
