//! The explorer page in headless Chromium driven through WebDriver (Debian's `chromium` and
//! `chromium-driver`, and Python's selenium in the virtual environment $RAJAPASU_SELENIUM_PYTHON,
//! all of which .ci/run installs): matches played to their end against `random` and against
//! `perfect:match`, take back, an address reopened, a set-up position refused, a record marked
//! against the readings, the analysis on the page equal to `analyse --json`, screenshots. And the
//! replay page exported for a game set up mid-round, read in headless Chromium by `show`'s
//! harness (tests/cli/show.rs), which needs the browser only.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::serve::Server;
use crate::common::*;

/// The Python with selenium, when this machine has it and the browser and driver.
/// Runs tests/browser/`script` with `python` against the server at `addr`, its screenshots
/// into `shots`: the JSON report it prints, once it has succeeded.
pub(super) fn run_script(python: &Path, script: &str, addr: &str, shots: &Path) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser").join(script);
    let out = Command::new(python).arg(&script).arg(addr).arg(shots).output().expect("python runs");
    let (stdout, stderr) =
        (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "the browser script failed:\n{stderr}\n{stdout}");
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

pub(super) fn selenium_python() -> Option<PathBuf> {
    let python = PathBuf::from(std::env::var_os("RAJAPASU_SELENIUM_PYTHON")?);
    let present =
        [python.as_path(), Path::new("/usr/bin/chromium"), Path::new("/usr/bin/chromedriver")]
            .iter()
            .all(|p| p.is_file());
    present.then_some(python)
}

/// Decodes a PNG screenshot: (width, height, distinct colours of a sample of pixels).
pub(super) fn screenshot(path: &Path) -> (u32, u32, usize) {
    let decoder = png::Decoder::new(
        std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    );
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let bytes = &buf[..info.buffer_size()];
    let px = info.color_type.samples();
    let colours: std::collections::HashSet<&[u8]> = bytes.chunks(px).step_by(97).collect();
    (info.width, info.height, colours.len())
}

fn outlook(o: &Value) -> String {
    match (o["value"].as_str(), o["rounds"].as_u64()) {
        (Some(v), Some(k)) => format!("{v} in {k}"),
        (Some(v), None) => v.to_string(),
        _ => "-".into(),
    }
}

/// The rows the page's analysis table shows for `analyse --json`'s answer `a`.
fn page_rows(a: &Value) -> Value {
    let rows: Vec<Value> = a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            serde_json::json!({
                "pit": m["pit"],
                "round": m["round_value"],
                "match": outlook(&m["match"]),
                "best_round": a["best_round"].as_array().unwrap().contains(&m["pit"]),
                "best_match": a["best_match"].as_array().unwrap().contains(&m["pit"]),
            })
        })
        .collect();
    Value::from(rows)
}

#[test]
fn the_page_plays_analyses_and_checks_records_in_a_real_browser() {
    let Some(python) = selenium_python() else {
        browser_missing(
            module_path!(),
            "needs $RAJAPASU_SELENIUM_PYTHON (a Python with selenium), /usr/bin/chromium and /usr/bin/chromedriver, as .ci/run installs",
        );
        return;
    };
    let tables = tempfile::tempdir().unwrap();
    let shots = tempfile::tempdir().unwrap();
    let server = Server::start(tables.path());
    let report = run_script(&python, "serve_page.py", &server.addr, shots.path());
    eprintln!("page ready in {:.2} s", report["page_ready_seconds"].as_f64().unwrap());
    // The dataset links of two matches played to their end: datasets that verify replays, the
    // seats as played (a person's clicks, the engine's moves with the server's seed).
    for (file, south, north) in [
        ("against_random.tar", "human", "random"),
        ("perfect_against_random.tar", "perfect:match", "random"),
    ] {
        let m = super::played::unpack_verified(&std::fs::read(shots.path().join(file)).unwrap());
        assert_eq!(
            (m["south"].as_str(), m["north"].as_str()),
            (Some(south), Some(north)),
            "{file}"
        );
    }
    // The perfect match player, holding a won match as the starter, won it.
    assert_eq!(
        (report["perfect_against_random"].as_str(), report["perfect_north"].as_str()),
        (Some("south"), Some("north"))
    );
    assert!(["south", "north", "unfinished"].contains(&report["against_random"].as_str().unwrap()));
    // The analysis on the page is analyse --json's.
    let a: Value = serde_json::from_str(
        ok(&[
            "analyse",
            "--json",
            "--quiet",
            "--tables",
            s(tables.path()),
            "--rule=pits_per_row=3",
            "--rule=seeds_per_pit=3",
            "--first=north",
            "--moves=0,1",
        ])
        .trim(),
    )
    .unwrap();
    // The R17 stage: this small board's match table is solved, so every move has a match value,
    // and the page's match column is analyse --json's `match` fields.
    assert!(a["moves"].as_array().unwrap().iter().all(|m| m["match"]["value"].is_string()), "{a}");
    assert!(!a["best_match"].as_array().unwrap().is_empty(), "{a}");
    assert_eq!(report["analysis"], page_rows(&a));
    // The line of perfect play drawn as arrows, in its order, the first into its first pit.
    let line: Vec<String> =
        a["line"].as_array().unwrap().iter().take(4).map(|p| format!("line-{p}")).collect();
    assert_eq!(report["arrows"], Value::from(line), "{report}");
    // The real board's first solve showed its progress and was cancelled from the page.
    assert!(report["progress"].as_str().unwrap().contains("R15"), "{report}");
    assert!(report["cancelled_note"].as_str().unwrap().contains("cancelled"), "{report}");
    // The set-up position was refused with the message naming the total.
    let refused = report["setup_refused"].as_str().unwrap();
    assert!(
        refused.contains("position") && refused.contains("13") && refused.contains("12"),
        "{refused}"
    );
    // The round's start set up from the holdings: the page's analysis is analyse --json's.
    let tables_arg = format!("--tables={}", tables.path().display());
    let small = ["--rule=pits_per_row=3", "--rule=seeds_per_pit=2"];
    let mut args = vec![
        "analyse",
        "--json",
        "--quiet",
        tables_arg.as_str(),
        "--first=north",
        "--holdings=7,5",
    ];
    args.extend(small);
    let a: Value = serde_json::from_str(ok(&args).trim()).unwrap();
    assert_eq!(report["setup_round"]["analysis"], page_rows(&a), "{report}");
    assert!(
        report["setup_round"]["status"].as_str().unwrap().contains("north to move"),
        "{report}"
    );
    assert!(
        ["south", "north", "unfinished"].contains(&report["setup_board_played"].as_str().unwrap()),
        "{report}"
    );
    // The exports are what replay and show write for the same moves, byte for byte.
    let game =
        ["--rule=pits_per_row=4", "--rule=seeds_per_pit=3", "--first=north", "--moves=2,0,3"];
    let exports = &report["exports"];
    assert_eq!(exports["export-moves"], "2,0,3\n");
    assert_eq!(
        exports["export-trace"].as_str().unwrap(),
        ok(&[&["replay"][..], &game[..]].concat())
    );
    let page = shots.path().join("replay.html");
    ok(&[&["show", "--out", s(&page)][..], &game[..]].concat());
    assert!(
        exports["export-show"].as_str().unwrap() == std::fs::read_to_string(&page).unwrap(),
        "the replay page differs from show's"
    );
    // Statistics: a row per legal move, and a long run's progress, cancelled from the page.
    let (_, start) = server.get_json("/api/game?rule=pits_per_row=3&rule=seeds_per_pit=2");
    assert_eq!(
        report["statistics_rows"].as_u64(),
        Some(start["legal"].as_array().unwrap().len() as u64),
        "{report}"
    );
    assert!(report["statistics_progress"].as_str().unwrap().contains("continuations"), "{report}");
    assert!(report["statistics_note"].as_str().unwrap().contains("cancelled"), "{report}");
    let (_, status) = server.get_json("/api/status");
    assert!(status["cancelled"].as_u64() >= Some(2), "{status}");
    // The record: the same consistent readings as check-record --json.
    let record = "first: south\nrules: pits_per_row=3 seeds_per_pit=2\n1. 2 board=3,3,0,0,3,0 reserve=3,0\n2. 1 captures=8,0\n";
    let file = shots.path().join("record.txt");
    std::fs::write(&file, record).unwrap();
    let checked: Value =
        serde_json::from_str(ok(&["check-record", "--json", s(&file)]).trim()).unwrap();
    let consistent: Vec<Value> = checked["readings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["consistent"] == true)
        .map(|r| r["rules_hash"].clone())
        .collect();
    assert_eq!(report["record"]["consistent"], Value::from(consistent));
    // A bare move list is checked on the page's board (4 x 4), as the command line checks it
    // with that board's rules, not on the real board.
    let bare = [
        "check-record",
        "--json",
        "--moves",
        "1,1,2,3,0",
        "--rule",
        "pits_per_row=4",
        "--rule",
        "seeds_per_pit=4",
    ];
    let checked: Value = serde_json::from_str(ok(&bare).trim()).unwrap();
    let consistent: Vec<Value> = checked["readings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["consistent"] == true)
        .map(|r| r["rules_hash"].clone())
        .collect();
    assert_eq!(report["bare_record"]["consistent"], Value::from(consistent.clone()));
    let summary = report["bare_record"]["summary"].as_str().unwrap();
    assert!(
        summary.starts_with(&format!("{} of 48 readings", consistent.len()))
            && summary.contains("4 x 4"),
        "{summary}"
    );
    // Screenshots: the page drawn, not blank.
    for name in ["serve.png", "serve-record.png", "serve-progress.png"] {
        let (w, h, colours) = screenshot(&shots.path().join(name));
        assert!(w >= 1000 && h >= 800 && colours >= 8, "{name}: {w}x{h}, {colours} colours");
    }
}

/// A game set up inside a round on a 5x4 board (40 counters): South's leftmost pit and North's
/// two leftmost closed (R12), uneven counts, and reserves holding what was captured before.
const MID_ROUND: &str = "rule=pits_per_row=5&rule=seeds_per_pit=4&position=x,3,6,0,2,x,x,5,1,4&reserve=11,8&to_move=south";
/// Its moves: the set-up round to its end (fours own and gifted, pussas), all of round 2, and
/// round 3's start.
const MID_ROUND_MOVES: &str = "1,2,2,4,4,2,2,3,3,4,2,0,1,0";

/// The replay page the server exports for a game set up mid-round, read at every ply in
/// headless Chromium by `show`'s harness, is the engine's trace of the same game (the lines
/// `replay` prints, from `/api/export/trace`), and its opening state is the set-up as given.
#[test]
fn the_replay_page_of_a_game_set_up_mid_round_shows_every_state_in_chromium() {
    let Some(browser) = super::show::chromium() else {
        browser_missing(
            module_path!(),
            "no Chromium at /usr/bin/chromium or $RAJAPASU_CHROMIUM (install Debian's chromium package, as .ci/run does)",
        );
        return;
    };
    let (tables, dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let server = Server::start(tables.path());
    let query = format!("{MID_ROUND}&moves={MID_ROUND_MOVES}");
    let (status, trace) = server.request("GET", &format!("/api/export/trace?{query}"), b"");
    assert_eq!(status, 200, "{trace}");
    let trace = super::show::by_kind(&trace);
    // The set-up as given (closed pits hold nothing), independent of the engine and the page.
    let set_up =
        serde_json::json!({"board": [0, 3, 6, 0, 2, 0, 0, 5, 1, 4], "reserve": [11, 8], "hand": 0});
    let start = &trace["round_start"][0];
    assert_eq!(
        (&start["board"], &start["reserve"], &start["open"]),
        (&set_up["board"], &set_up["reserve"], &serde_json::json!([4, 3]))
    );
    // The game this test means: the set-up round ends, round 2 is played to its end, round 3 starts.
    let in_round = |r: u64| trace["move"].iter().filter(|m| m["round"] == r).count();
    assert!(in_round(1) >= 3 && in_round(2) >= 2, "{} and {} moves", in_round(1), in_round(2));
    assert_eq!((trace["round_end"].len(), trace["round_start"].len()), (2, 3));
    let (status, html) = server.request("GET", &format!("/api/export/show?{query}"), b"");
    assert_eq!(status, 200, "{html}");
    std::fs::write(dir.path().join("midround.html"), html).unwrap();
    let page = super::show::Page { file: "midround.html".into(), trace };
    // Every ply, round start and end, counter and lap against the trace; counters conserved.
    let got = super::show::check_pages_in_chromium(&browser, dir.path(), &[page]).remove(0);
    let shown = got["plies_shown"].as_array().unwrap();
    assert_eq!(shown[0], set_up, "the page opens at the set-up");
    for (k, state) in shown.iter().enumerate() {
        let sum: u64 = state["board"]
            .as_array()
            .unwrap()
            .iter()
            .chain(state["reserve"].as_array().unwrap())
            .map(|n| n.as_u64().unwrap())
            .sum();
        assert_eq!(sum, 40, "ply {k}: {state}");
    }
    // The set-up round's sentence names each side's open pits (they differ).
    let text = got["round_start_texts"][0][1].as_str().unwrap();
    assert!(text.contains("South has 4 open pits") && text.contains("North 3 open pits"), "{text}");
}
