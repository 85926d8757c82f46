//! External players and the datasets they made, as untrusted input: no program runs from a
//! dataset, a player's output is bounded, nothing it forks outlives it, its timeout is not part
//! of a run's identity, and the docs say how to flush its answers.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::*;

const SMALL: [&str; 6] =
    ["--rule", "pits_per_row=4", "--rule", "seeds_per_pit=3", "--rule", "max_rounds=100"];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A player of tests/data/players/misbehaving_player.py (its modes are listed there).
fn misbehaving(mode: &str) -> String {
    format!(
        "python3 {} {mode}",
        root().join("crates/rajapasu-core/tests/data/players/misbehaving_player.py").display()
    )
}

/// Runs the binary in `dir` (with PWD set to it, as a shell would); returns (code, stdout, stderr).
fn run_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = bin().args(args).current_dir(dir).env("PWD", dir).output().expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs the binary, killing it if it has not ended within a minute (a hang is a failure, not
/// a test that never ends); returns (code, stdout + stderr).
fn run_bounded(args: &[&str]) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    let (out_path, err_path) = (dir.path().join("out"), dir.path().join("err"));
    let mut child = bin()
        .args(args)
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("rajapasu {} hangs", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let text =
        std::fs::read_to_string(out_path).unwrap() + &std::fs::read_to_string(err_path).unwrap();
    (status.code().unwrap_or(-1), text)
}

fn simulate_args<'a>(out: &'a str, south: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["simulate", "--matches", "4", "--south", south, "--out", out, "--quiet"];
    args.extend(extra);
    args.extend(SMALL);
    args
}

fn manifest(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap()
}

/// Whether process `pid` is gone (a zombie waiting for a reaper counts as gone).
fn gone(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => {
            stat.rsplit_once(')').is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
        }
    }
}

/// The pids recorded in `pidfile` still running after waiting up to 20 s for them to end.
fn survivors(pidfile: &Path) -> Vec<String> {
    let pids: Vec<String> =
        std::fs::read_to_string(pidfile).unwrap_or_default().lines().map(str::to_string).collect();
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(20) && !pids.iter().all(|p| gone(p)) {
        std::thread::sleep(Duration::from_millis(100));
    }
    pids.into_iter().filter(|p| !gone(p)).collect()
}

// Item 1: opening, showing, verifying or summarizing a dataset never starts a program.

#[test]
fn show_runs_no_program_named_in_a_dataset_unless_the_user_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    let pwned = cwd.join("PWNED");
    // The command: a manifest whose player touches a file, then plays.
    let example = example_player_script();
    assert!(
        !example.display().to_string().contains(' '),
        "the ${{IFS}} trick needs a path without spaces"
    );
    let south = format!(
        "external:sh -c touch${{IFS}}$PWD/PWNED;exec${{IFS}}python3${{IFS}}{}",
        example.display()
    );
    let (code, _, err) = run_in(
        cwd,
        &[
            "simulate",
            "--matches",
            "2",
            "--detail",
            "match",
            "--out",
            "evil",
            "--south",
            &south,
            "--quiet",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(pwned.exists(), "simulate runs the player: that is what it was asked to do");
    std::fs::remove_file(&pwned).unwrap();

    let (code, _, err) = run_in(cwd, &["show", "evil", "--match", "1", "--out", "e.html"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("South is the external player 'sh -c") && err.contains("Pass --run-external"),
        "{err}"
    );
    assert!(!pwned.exists() && !cwd.join("e.html").exists(), "show ran the dataset's program");
    for args in [&["verify", "evil"][..], &["summarize", "evil"]] {
        let (code, _, err) = run_in(cwd, args);
        assert_eq!(code, 0, "{args:?}: {err}");
    }
    assert!(!pwned.exists(), "verify or summarize ran the dataset's program");
    // Another program named is refused, and runs nothing.
    let (code, _, err) = run_in(
        cwd,
        &["show", "evil", "--match", "1", "--out", "e.html", "--run-external", &example_player()],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("Pass --run-external") && !pwned.exists(), "{err}");

    // Named exactly as the manifest records it (the canonical cmd=), the program is run.
    let m = manifest(&cwd.join("evil"));
    let command = m["south"].as_str().unwrap().strip_prefix("external:cmd=").unwrap().to_string();
    let (code, _, err) = run_in(
        cwd,
        &[
            "show",
            "evil",
            "--match",
            "1",
            "--out",
            "e.html",
            "--run-external",
            &format!("timeout=20,cmd={command}"),
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(pwned.exists() && cwd.join("e.html").exists());
    std::fs::remove_file(&pwned).unwrap();

    // A dataset that records its moves is shown from them: nothing runs, no flag is needed.
    let (code, _, err) = run_in(
        cwd,
        &[
            "simulate",
            "--matches",
            "2",
            "--detail",
            "move",
            "--out",
            "moved",
            "--south",
            &south,
            "--quiet",
        ],
    );
    assert_eq!(code, 0, "{err}");
    std::fs::remove_file(&pwned).unwrap();
    let (code, _, err) = run_in(cwd, &["show", "moved", "--match", "1", "--out", "m.html"]);
    assert_eq!(code, 0, "{err}");
    assert!(!pwned.exists(), "show replays recorded moves without running the player");
    let page = std::fs::read_to_string(cwd.join("m.html")).unwrap();
    assert!(
        page.contains("from the dataset's moves table"),
        "the page says where its moves come from"
    );
}

#[test]
fn show_replays_recorded_moves_and_refuses_moves_that_do_not_replay() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d");
    let mut args = vec![
        "simulate",
        "--matches",
        "3",
        "--detail",
        "move",
        "--format",
        "csv",
        "--out",
        s(&out),
        "--quiet",
    ];
    args.extend(["--south", "greedy", "--north", "random"]);
    ok(&args);
    let page = dir.path().join("p.html");
    ok(&["show", s(&out), "--match", "2", "--out", s(&page)]);
    // A recorded move changed (and recorded as the file holds it): refused, and no page is
    // written.
    let part = std::fs::read_dir(out.join("moves")).unwrap().next().unwrap().unwrap().path();
    let text = std::fs::read_to_string(&part).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let (id_at, ply_at, pit_at) = (
        header.iter().position(|h| *h == "match_id").unwrap(),
        header.iter().position(|h| *h == "ply").unwrap(),
        header.iter().position(|h| *h == "pit").unwrap(),
    );
    let changed: Vec<String> = text
        .lines()
        .map(|line| {
            let mut f: Vec<String> = line.split(',').map(str::to_string).collect();
            if f[id_at] == "2" && f[ply_at] == "1" {
                f[pit_at] = "9".into();
            }
            f.join(",")
        })
        .collect();
    rewrite_part_file(&out, &part, (changed.join("\n") + "\n").as_bytes());
    std::fs::remove_file(&page).unwrap();
    // Pit 9 is off a row of 7: the batch's check refuses it before any replay.
    usage_error(
        &["show", s(&out), "--match", "2", "--out", s(&page)],
        &["table moves, match 2, column pit: 9", "(invariant moves.pit_within_row)"],
    );
    assert!(!page.exists());
}

// Item 2: bounded answers, bounded stderr, bounded timeouts, no orphans.

#[test]
fn an_external_player_flooding_stdout_is_stopped_at_the_answer_limit() {
    let dir = tempfile::tempdir().unwrap();
    for (name, player) in [
        ("zero", "external:timeout=3,cmd=cat /dev/zero".to_string()),
        ("long", format!("external:{}", misbehaving("long-line"))),
    ] {
        let out = dir.path().join(name);
        let (code, text) = run_bounded(&simulate_args(s(&out), &player, &["--first", "south"]));
        assert_eq!(code, 1, "{name}: {text}");
        assert!(
            text.contains("wrote more than 4096 bytes on stdout without a newline"),
            "{name}: {text}"
        );
    }
}

#[test]
fn an_external_players_huge_stderr_is_cut_to_its_end_in_the_message() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d");
    let player = format!("external:{}", misbehaving("huge-stderr"));
    let (code, _, err) = run(&simulate_args(s(&out), &player, &["--first", "south"]));
    assert_eq!(code, 1, "{}", &err[..err.len().min(500)]);
    assert!(
        err.contains("exited (exit status: 3)") && err.contains("the end of a huge line"),
        "{}",
        &err[..err.len().min(500)]
    );
    assert!(err.len() < 16 << 10, "a 20 MB stderr line became a {} byte message", err.len());
}

#[test]
fn bytes_that_are_not_utf8_on_stderr_do_not_stop_a_working_player() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d");
    let player = format!("external:{}", misbehaving("binary-stderr"));
    let (code, _, err) = run(&simulate_args(s(&out), &player, &[]));
    assert_eq!(code, 0, "{err}");
    assert_eq!(manifest(&out)["status"], "complete");
}

#[test]
fn the_timeout_of_an_external_player_is_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d");
    for timeout in ["0", "0.01", "601", "3600"] {
        let player = format!("external:timeout={timeout},cmd={}", example_player());
        usage_error(
            &simulate_args(s(&out), &player, &[]),
            &[&format!("timeout={timeout}"), "0.1..=600"],
        );
    }
}

#[test]
fn nothing_an_external_player_forks_outlives_its_match() {
    let dir = tempfile::tempdir().unwrap();
    let (out, pidfile) = (dir.path().join("d"), dir.path().join("pids"));
    let player = format!("external:{} {}", misbehaving("fork"), pidfile.display());
    ok(&simulate_args(s(&out), &player, &["--first", "south"]));
    // Four matches, each a player with two `sleep 300` grandchildren.
    assert_eq!(std::fs::read_to_string(&pidfile).unwrap().lines().count(), 12);
    assert_eq!(survivors(&pidfile), Vec::<String>::new());
}

#[test]
fn a_rajapasu_ended_by_sigterm_or_sigint_leaves_no_player_behind() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    for (name, signal) in [("term", libc::SIGTERM), ("int", libc::SIGINT)] {
        let (out, pidfile) = (dir.path().join(name), dir.path().join(format!("{name}.pids")));
        let player = format!("external:{} {}", misbehaving("slow"), pidfile.display());
        let mut args = simulate_args(s(&out), &player, &["--threads", "2", "--batch-size", "10"]);
        args[2] = "1000";
        let mut command = bin();
        command.args(&args).stdout(Stdio::null()).stderr(Stdio::null());
        // rajapasu keeps a signal ignored that it inherits ignored (as `nohup` ignores SIGHUP),
        // and a test run in the background of a shell inherits SIGINT ignored: start the child
        // with the default action, as an interactive run has.
        use std::os::unix::process::CommandExt;
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            command.pre_exec(move || {
                libc::signal(signal, libc::SIG_DFL);
                Ok(())
            });
        }
        let mut child = command.spawn().unwrap();
        // Both threads' players are running (each with its two sleeps) before the signal.
        let started = Instant::now();
        while std::fs::read_to_string(&pidfile).unwrap_or_default().lines().count() < 6 {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "{name}: the players did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        // SAFETY: a signal to our own child.
        assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
        let signalled = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if signalled.elapsed() > Duration::from_secs(60) {
                child.kill().unwrap();
                panic!("{name}: rajapasu did not end on the signal");
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        assert_eq!(status.signal(), Some(signal), "{name}: rajapasu ends by the signal, as before");
        assert_eq!(
            survivors(&pidfile),
            Vec::<String>::new(),
            "{name}: players or their children outlived rajapasu"
        );
    }
}

// Item 9: a timeout is not part of a run's identity.

#[test]
fn a_run_that_timed_out_resumes_with_a_longer_timeout_and_pairings_keep_their_seeds() {
    let dir = tempfile::tempdir().unwrap();
    let (out, fresh) = (dir.path().join("d"), dir.path().join("fresh"));
    // Each match's first answer comes after 1 s.
    let late = |timeout: &str| format!("external:timeout={timeout},cmd={}", misbehaving("late"));
    let (short, long) = (late("0.3"), late("5"));
    let (code, _, err) = run(&simulate_args(s(&out), &short, &["--batch-size", "2"]));
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("gave no answer within 0.3 s"), "{err}");
    let (code, _, err) = run(&simulate_args(s(&out), &long, &["--batch-size", "2", "--resume"]));
    assert_eq!(code, 0, "resuming with a longer timeout: {err}");
    ok(&simulate_args(s(&fresh), &long, &["--batch-size", "2"]));
    assert_eq!(tables(&out), tables(&fresh));
    assert_eq!(manifest(&out)["south"], format!("external:cmd={}", misbehaving("late")));
    assert_eq!(manifest(&out)["run_id"], manifest(&fresh)["run_id"]);

    // In a tournament, the pairing seeds and datasets do not change with a timeout.
    let mut seeds = Vec::new();
    for timeout in ["2", "9"] {
        let file = dir.path().join(format!("t{timeout}.toml"));
        let text = format!(
            "name = \"t\"\nplayers = [\"random\", {{ name = \"ext\", player = \"external:timeout={timeout},cmd={}\" }}]\n\
             matches_per_pair = 2\nseed = 4\nself_play = false\nbootstrap = 10\n[rules]\npits_per_row = 4\nseeds_per_pit = 3\nmax_rounds = 100\n",
            example_player()
        );
        std::fs::write(&file, text).unwrap();
        let root = dir.path().join(format!("root{timeout}"));
        ok(&["tournament", s(&file), "--out-root", s(&root), "--quiet"]);
        let pairings: Vec<(String, serde_json::Value, Vec<rajapasu::sim::table::Table>)> =
            ["ext_vs_random", "random_vs_ext"]
                .iter()
                .map(|p| {
                    (
                        p.to_string(),
                        manifest(&root.join("t").join(p))["seed"].clone(),
                        tables(&root.join("t").join(p)),
                    )
                })
                .collect();
        seeds.push(pairings);
    }
    assert_eq!(seeds[0], seeds[1]);
}

// Item 11: a player's failure is an error in bench.

#[test]
fn bench_with_an_external_player_that_cannot_start_is_an_error() {
    let (code, out, err) = run(&[
        "bench",
        "--matches",
        "10",
        "--repeat",
        "1",
        "--player",
        "external:/nonexistent/prog",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains("bench --player external:cmd=/nonexistent/prog")
            && err.contains("cannot start external player '/nonexistent/prog'"),
        "{err}"
    );
    assert!(!out.contains("unfinished"), "{out}");
}

// Item 12: extra lines, `[3]`, paths with spaces, verify on special files, bounded moves files.

#[test]
fn an_extra_answer_line_is_an_error_and_a_list_is_not_an_answer() {
    let dir = tempfile::tempdir().unwrap();
    for (mode, needle) in [
        ("twice", "wrote the line \"{\\\"pit\\\": 0}\" when it was not asked"),
        ("list", "answered \"[0]\", which is not a JSON object"),
    ] {
        let out = dir.path().join(mode);
        let player = format!("external:{}", misbehaving(mode));
        let (code, _, err) = run(&simulate_args(s(&out), &player, &["--first", "south"]));
        assert_eq!(code, 1, "{mode}: {err}");
        assert!(err.contains(needle), "{mode}: {err}");
    }
}

#[test]
fn a_program_path_with_spaces_is_given_in_quotes() {
    let dir = tempfile::tempdir().unwrap();
    let players = dir.path().join("my players");
    std::fs::create_dir(&players).unwrap();
    let program = players.join("example player.py");
    std::fs::copy(example_player_script(), &program).unwrap();
    let canonical = format!("external:cmd=python3 '{}' --strategy first", program.display());
    for (name, player) in [
        ("single", format!("external:python3 '{}' --strategy first", program.display())),
        (
            "double",
            format!("external:timeout=5,cmd=python3 \"{}\" --strategy 'first'", program.display()),
        ),
    ] {
        let out = dir.path().join(name);
        ok(&simulate_args(s(&out), &player, &[]));
        assert_eq!(manifest(&out)["south"], canonical.as_str(), "{name}");
    }
    assert_eq!(tables(&dir.path().join("single")), tables(&dir.path().join("double")));
}

#[test]
fn verify_opens_only_regular_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d");
    ok(&[
        "simulate",
        "--matches",
        "4",
        "--batch-size",
        "2",
        "--format",
        "csv",
        "--out",
        s(&out),
        "--quiet",
    ]);
    let run_id = manifest(&out)["run_id"].as_str().unwrap().to_string();
    let part = |batch: u32| out.join("matches").join(format!("part-{run_id}-{batch:08}.csv"));
    let mkfifo = |path: &Path| {
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a path that is a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo {}", path.display());
    };
    let original = std::fs::read(part(0)).unwrap();
    let restore = || {
        let _ = std::fs::remove_file(part(0));
        std::fs::write(part(0), &original).unwrap();
    };
    // A FIFO and a symlink to /dev/zero named like a part file of batch 7 (which this run has
    // not), and in place of the recorded part file of batch 0.
    for (name, file) in [
        ("stray fifo", part(7)),
        ("stray symlink", part(7)),
        ("part fifo", part(0)),
        ("part symlink", part(0)),
    ] {
        let _ = std::fs::remove_file(&file);
        if name.ends_with("fifo") {
            mkfifo(&file);
        } else {
            std::os::unix::fs::symlink("/dev/zero", &file).unwrap();
        }
        let (code, text) = run_bounded(&["verify", s(&out)]);
        assert_eq!(code, 2, "{name}: {text}");
        assert!(text.contains(&format!("part-{run_id}-0000000")), "{name}: names the file: {text}");
        if name.starts_with("part") {
            assert!(text.contains("not a regular file"), "{name}: {text}");
        }
        let _ = std::fs::remove_file(&file);
        restore();
    }
    ok(&["verify", s(&out)]);
}

#[test]
fn show_reads_a_moves_file_only_up_to_its_limit() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("p.html");
    let (code, text) = run_bounded(&["show", "--moves-file", "/dev/zero", "--out", s(&page)]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("--moves-file /dev/zero: longer than 16 MiB, the limit of a moves file"),
        "{text}"
    );
    assert!(!page.exists());
}

// Flushing, per language, in the docs and in the timeout's message.

#[test]
fn the_docs_say_how_to_flush_in_each_language_and_an_unflushed_player_gets_the_hint() {
    let docs = std::fs::read_to_string(root().join("docs/external-players.md")).unwrap();
    for needle in [
        "**awk**",
        "-W interactive",
        "fflush()",
        "**C**",
        "setvbuf",
        "**Shell**",
        "**Python**",
        "flush=True",
        "python3 -u",
    ] {
        assert!(docs.contains(needle), "docs/external-players.md lacks {needle}");
    }
    // awk as the docs say (fflush after each answer; mawk also -W interactive, or it waits to
    // fill its input buffer) plays; without the flush, its answers wait in a buffer and the
    // timeout's message says why.
    let dir = tempfile::tempdir().unwrap();
    let version = std::process::Command::new("awk")
        .args(["-W", "version"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let awk = if String::from_utf8_lossy(&version.stdout).starts_with("mawk") {
        "awk -W interactive"
    } else {
        "awk"
    };
    let program = |flush: &str| {
        format!("{{ match($0, /\"legal\":\\[[0-9]+/); print \"{{\\\"pit\\\":\" substr($0, RSTART + 9, RLENGTH - 9) \"}}\"{flush} }}")
    };
    for (name, flush, awk) in [("flushed", "; fflush()", awk), ("buffered", "", "awk")] {
        let path = dir.path().join(format!("{name}.awk"));
        std::fs::write(&path, program(flush)).unwrap();
        let out = dir.path().join(name);
        let player = format!("external:timeout=1,cmd={awk} -f {}", path.display());
        let (code, _, err) = run(&simulate_args(s(&out), &player, &["--first", "south"]));
        if flush.is_empty() {
            assert_eq!(code, 1, "{err}");
            assert!(
                err.contains("gave no answer within 1 s")
                    && err.contains("flush each answer line")
                    && err.contains("awk fflush()"),
                "{err}"
            );
        } else {
            assert_eq!(code, 0, "{err}");
        }
    }
}
