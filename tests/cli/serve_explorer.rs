//! The explorer page as a person meets it, in headless Chromium driven through WebDriver (the
//! same browser, driver and selenium as tests/cli/serve_page.rs): the board inside the viewport
//! at a laptop's and a phone's size, the rules explained from the engine's declarations, take
//! back against an engine, the board at a round's end, the set-up refilled from its address, the
//! line's arrows, an engine seat moving while an analysis runs, a match played with the keyboard
//! alone, and the record's summary; the page's words checked against the trace of `replay` and
//! the answers of `check-record`.

use std::path::Path;

use serde_json::Value;

use super::serve::Server;
use crate::common::*;

fn trace(
    rules: &[&str],
    first: &str,
    moves: &str,
) -> std::collections::BTreeMap<&'static str, Vec<Value>> {
    let mut args =
        vec!["replay".to_string(), format!("--first={first}"), format!("--moves={moves}")];
    args.extend(rules.iter().map(|r| format!("--rule={r}")));
    let out = ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
    super::show::by_kind(&out)
}

/// The page's controls are made from the engine's declarations: no switch is named by hand.
#[test]
fn the_explorer_names_no_switch_by_hand() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/serve");
    let mut files: Vec<_> =
        std::fs::read_dir(root.join("js")).unwrap().map(|e| e.unwrap().path()).collect();
    files.push(root.join("index.html"));
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for (name, _) in rajapasu::engine::SWITCHES {
            let control = format!("id=\"{name}\"");
            let literal = format!("\"{name}\"");
            assert!(
                !text.contains(&control) && !text.contains(&literal),
                "{} names the switch {name}",
                file.display()
            );
        }
    }
}

#[test]
fn the_explorer_fits_its_board_explains_its_rules_and_plays_from_the_keyboard() {
    let Some(python) = super::serve_page::selenium_python() else {
        browser_missing(
            module_path!(),
            "needs $RAJAPASU_SELENIUM_PYTHON (a Python with selenium), /usr/bin/chromium and /usr/bin/chromedriver, as .ci/run installs",
        );
        return;
    };
    let tables = tempfile::tempdir().unwrap();
    let shots = tempfile::tempdir().unwrap();
    let server = Server::start(tables.path());
    let report = super::serve_page::run_script(&python, "explorer.py", &server.addr, shots.path());
    assert_eq!(report["console_errors"], serde_json::json!([]), "{report}");

    // The panels beside the board on a laptop, below it on a phone.
    assert_eq!(report["layout"]["laptop-panels-below"], false, "{report}");
    assert_eq!(report["layout"]["phone-panels-below"], true, "{report}");

    // The end of the match in words, as the trace of `replay` has it.
    let board = ["pits_per_row=5", "seeds_per_pit=3"];
    let moves: Vec<String> =
        report["match_moves"].as_array().unwrap().iter().map(|m| m.to_string()).collect();
    let t = trace(&board, "south", &moves.join(","));
    let end = &t["match_end"][0];
    let last = t["round_end"].last().unwrap();
    let words = report["end_words"].as_str().unwrap();
    let winner = if end["winner"] == "south" { "South" } else { "North" };
    let collector = if last["collector"] == "south" { "South" } else { "North" };
    let rounds = t["round_end"].len();
    for needle in [
        format!(
            "Round {rounds} is over: {collector} collected the remainder, {} counter",
            last["remainder"]
        ),
        format!("It captured South {}, North {}", last["captured"][0], last["captured"][1]),
        format!("The match is over (R14): {winner} won in {rounds} round"),
        format!("holding South {}, North {}", last["holdings"][0], last["holdings"][1]),
    ] {
        assert!(words.contains(&needle), "'{needle}' not in: {words}");
    }

    // Each switch's line is the engine's, which is docs/rules.md's; the readings named.
    let (_, rules) = server.get_json("/api/rules");
    for s in rules["switches"].as_array().unwrap() {
        let shown = report["explains"][s["name"].as_str().unwrap()].as_str().unwrap();
        assert!(shown.starts_with(s["explains"].as_str().unwrap()), "{shown} / {s}");
    }
    assert_eq!(
        (report["reading_default"].as_str(), report["reading_stays"].as_str()),
        (Some("default"), Some("final_four-stays"))
    );
    assert!(
        report["reading_unnamed"].as_str().unwrap().contains("not one the guide names"),
        "{report}"
    );
    assert!(report["findings_head"].as_str().unwrap().starts_with("# Findings"), "{report}");

    // Take back against an engine stays taken back.
    assert_eq!(report["taken_back_ply"], "0");

    // At a round's end the board is the next round's start, as the trace has it.
    let t = trace(&["pits_per_row=5", "seeds_per_pit=3", "final_four=sower"], "north", "4,0,4,2");
    let start = t["round_start"].last().unwrap();
    let shown = &report["round_end"];
    assert!(
        shown["status"].as_str().unwrap().starts_with("Round 2, ply 4: south to move"),
        "{shown}"
    );
    let open = start["open"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap() as usize)
        .collect::<Vec<_>>();
    let closed: Vec<bool> = (0..10).map(|g| (g % 5) < 5 - open[g / 5]).collect();
    assert_eq!(
        (&shown["board"], &shown["reserve"], &shown["closed"]),
        (&start["board"], &start["reserve"], &Value::from(closed))
    );
    // Only South's open pits with counters are offered.
    assert_eq!(shown["playable"], serde_json::json!([1, 2, 3, 4]), "{shown}");
    let words = shown["words"].as_str().unwrap();
    let end = &t["round_end"][0];
    for needle in [
        format!("South collected the remainder, {} counters", end["remainder"]),
        format!(
            "Holdings carried over: South {}, North {}",
            end["holdings"][0], end["holdings"][1]
        ),
        format!(
            "South opens {} pits (1 pit closed) and keeps {} in reserve",
            open[0], start["reserve"][0]
        ),
    ] {
        assert!(words.contains(&needle), "'{needle}' not in: {words}");
    }

    // The set-up refilled from its address.
    let refilled = &report["setup_refilled"];
    assert_eq!(
        refilled,
        &serde_json::json!({"board": true, "position": "0,3,2,1,0,2", "reserve": "2,2", "to_move": "north", "holdings": "7,5"})
    );

    // The line's arrows: numbers shown, clear of the reserves, none from the same place.
    let arrows = report["arrows"].as_array().unwrap();
    assert!(arrows.len() >= 2, "{report}");
    assert!(arrows.iter().all(|a| a["clear"] == true && a["number_shown"] == true), "{arrows:?}");
    let mut at: Vec<&Value> = arrows.iter().map(|a| &a["at"]).collect();
    at.dedup();
    assert_eq!(at.len(), arrows.len(), "{arrows:?}");

    // An engine seat did not wait behind the real board's analysis.
    assert_eq!(report["engine_moved_while_analysing"], true);
    // The round values asked first, the match values after; with "round values only", no match values.
    assert_eq!(report["stages"]["asked"], serde_json::json!(["false", "true"]), "{report}");
    assert!(
        report["stages"]["match"].as_array().unwrap().iter().all(|m| m != "-" && m != "..."),
        "{report}"
    );
    assert_eq!(report["round_only"]["asked"], serde_json::json!(["false"]), "{report}");
    assert!(report["round_only"]["match"].as_array().unwrap().iter().all(|m| m == "-"), "{report}");
    // Meanwhile the search players' evaluation: a row per legal move of the real board's ply 1.
    let meanwhile = &report["evaluation_meanwhile"];
    assert!(
        meanwhile["rows"].as_u64() >= Some(1)
            && meanwhile["rows"] == meanwhile["legal"]
            && meanwhile["analysed"] == "false",
        "{meanwhile}"
    );
    let jobs = &report["jobs_after_close"];
    assert!(jobs["ran"].as_u64() >= Some(1) && jobs["ended"] == jobs["ran"], "{jobs}");
    eprintln!(
        "the server's work stopped {:.2} s after the cancel, {:.2} s after the page closed",
        report["stopped_after_cancel_seconds"].as_f64().unwrap(),
        report["stopped_after_close_seconds"].as_f64().unwrap()
    );

    // From a set-up its round's start does not reach: perfect:round plays, perfect:match says why not.
    let round = &report["set_up_round"];
    assert_eq!(
        (round["ply"].as_str(), round["message"].as_str()),
        (Some("2"), Some("")),
        "{round}"
    );
    let (status, _) = server.get_json(&format!(
        "/api/game?rule=pits_per_row=4&rule=seeds_per_pit=4&position=x,5,3,0,2,6,4,1&reserve=7,4&to_move=south&moves={}",
        round["moves"].as_str().unwrap()
    ));
    assert_eq!(status, 200, "perfect:round's move is legal");
    let before = &report["set_up_match_before"];
    let warned = before["message"].as_str().unwrap();
    assert!(
        before["ply"] == "0"
            && warned.starts_with("North (perfect:match) cannot play from here")
            && !warned.contains("delete"),
        "{before}"
    );
    let refused = report["set_up_match"].as_str().unwrap();
    assert!(
        refused.contains("perfect:match cannot play from this set-up position")
            && !refused.contains("delete"),
        "{refused}"
    );

    // Every pit labelled with its side, number and count; every control labelled; a whole match
    // played with the keyboard alone, the moves the trace replays to the match's end.
    let labels = report["pit_labels"].as_array().unwrap();
    assert_eq!(labels.len(), 6);
    assert_eq!(labels[0].as_str().unwrap().split(", ").next(), Some("South pit 0"));
    assert!(labels[3].as_str().unwrap().starts_with("North pit 0, 2 counters"), "{labels:?}");
    assert_eq!(report["focusable_pits"], true);
    assert_eq!(report["unlabelled_controls"], serde_json::json!([]));
    let played = &report["keyboard_match"];
    let t =
        trace(&["pits_per_row=3", "seeds_per_pit=2"], "south", played["moves"].as_str().unwrap());
    assert_eq!(t["match_end"][0]["winner"].as_str(), played["over"].as_str(), "{played}");

    // The record's summary: a switch settled when every consistent reading has one value.
    let record = "first: south\nrules: pits_per_row=3 seeds_per_pit=2\n1. 2 board=3,3,0,0,3,0 reserve=3,0\n2. 1 captures=8,0\n";
    let file = shots.path().join("record.txt");
    std::fs::write(&file, record).unwrap();
    let checked: Value =
        serde_json::from_str(ok(&["check-record", "--json", s(&file)]).trim()).unwrap();
    let consistent: Vec<&Value> = checked["readings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["consistent"] == true)
        .collect();
    let settles = report["settles"].as_object().unwrap();
    assert!(!settles.is_empty(), "{report}");
    for (name, settled) in settles {
        let mut values: Vec<String> = consistent
            .iter()
            .map(|r| r["rules"][name].to_string().trim_matches('"').to_string())
            .collect();
        values.sort();
        values.dedup();
        let want = if values.len() == 1 { values[0].clone() } else { String::new() };
        assert_eq!(settled.as_str(), Some(want.as_str()), "{name}: {values:?}");
    }

    // Screenshots at both sizes: the page drawn, not blank.
    for (name, w, h) in [("explorer-laptop.png", 1280, 800), ("explorer-phone.png", 390, 844)] {
        let (width, height, colours) = super::serve_page::screenshot(&shots.path().join(name));
        assert!(
            (width, height) == (w, h) && colours >= 8,
            "{name}: {width}x{height}, {colours} colours"
        );
    }
    if std::env::var_os("RAJAPASU_SAVE_SCREENSHOT").is_some() {
        let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
        std::fs::copy(shots.path().join("explorer-laptop.png"), docs.join("serve.png")).unwrap();
        std::fs::copy(shots.path().join("explorer-phone.png"), docs.join("serve-phone.png"))
            .unwrap();
    }
}

/// `analyse --json` of a position given by its rules, first player and moves.
fn analysed(tables: &Path, rules: &[&str], first: &str, moves: &str, with_match: bool) -> Value {
    let mut args = vec![
        "analyse".to_string(),
        "--json".into(),
        "--quiet".into(),
        format!("--tables={}", tables.display()),
        format!("--first={first}"),
        format!("--moves={moves}"),
    ];
    args.extend(rules.iter().map(|r| format!("--rule={r}")));
    if !with_match {
        args.push("--no-match".into());
    }
    serde_json::from_str(ok(&args.iter().map(String::as_str).collect::<Vec<_>>()).trim()).unwrap()
}

/// The rows the page shows for `analyse --json`'s answer `a` (`played`: the pit marked played).
fn shown_rows(a: &Value, with_match: bool, played: Option<u64>) -> Value {
    let outlook = |o: &Value| match (o["value"].as_str(), o["rounds"].as_u64()) {
        (Some(v), Some(k)) => format!("{v} in {k}"),
        (Some(v), None) => v.to_string(),
        _ => "-".into(),
    };
    let rows: Vec<Value> = a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            serde_json::json!({
                "pit": m["pit"],
                "round": m["round_value"].to_string(),
                "match": if with_match { outlook(&m["match"]) } else { "-".into() },
                "played": played == m["pit"].as_u64(),
            })
        })
        .collect();
    Value::from(rows)
}

#[test]
fn the_explorer_keeps_a_finished_round_says_its_waits_and_reads_clearly() {
    let Some(python) = super::serve_page::selenium_python() else {
        browser_missing(
            module_path!(),
            "needs $RAJAPASU_SELENIUM_PYTHON (a Python with selenium), /usr/bin/chromium and /usr/bin/chromedriver, as .ci/run installs",
        );
        return;
    };
    let tables = tempfile::tempdir().unwrap();
    let shots = tempfile::tempdir().unwrap();
    let server = Server::start(tables.path());
    let report =
        super::serve_page::run_script(&python, "explorer_panels.py", &server.addr, shots.path());
    assert_eq!(report["console_errors"], serde_json::json!([]), "{report}");

    // A round's end: the finished round's last position (before the move that ended it) as
    // analyse --json has it, the move played marked, its perfect line; the next round analysed.
    let sower = ["pits_per_row=5", "seeds_per_pit=3", "final_four=sower"];
    let before = analysed(tables.path(), &sower, "north", "4,0,4", true);
    let kept = &report["round_end"];
    assert_eq!(kept["rows"], shown_rows(&before, true, Some(2)), "{kept}");
    let line: Vec<String> =
        before["line"].as_array().unwrap().iter().map(|p| p.to_string()).collect();
    assert_eq!(kept["line"], format!("Perfect round play from there: {}", line.join(" ")));
    assert!(
        kept["summary"].as_str().unwrap().starts_with(&format!(
            "Round 1's last position (ply 3), south to move: round value {}",
            before["value"]
        )),
        "{kept}"
    );
    assert!(!kept["current"].as_array().unwrap().is_empty(), "{kept}");
    // The match's end: its last round's last position stays shown.
    let moves: Vec<String> =
        report["match_moves"].as_array().unwrap().iter().map(|m| m.to_string()).collect();
    let (last, earlier) = moves.split_last().unwrap();
    let board = ["pits_per_row=5", "seeds_per_pit=3"];
    let before = analysed(tables.path(), &board, "south", &earlier.join(","), true);
    let kept = &report["match_end"];
    assert_eq!(kept["rows"], shown_rows(&before, true, last.parse().ok()), "{kept}");
    assert!(kept["event"].as_str().unwrap().contains("The match is over"), "{kept}");

    // Every text readable against its background at both sizes.
    for (name, c) in report["contrast"].as_object().unwrap() {
        assert!(c["checked"].as_u64() > Some(30), "{name}: {c}");
        assert_eq!(c["failing"], serde_json::json!([]), "{name}");
    }

    // The wait said before the solve, a search player's estimate meanwhile, then the exact
    // values (analyse --json's), the estimate's numbers those of /api/evaluate.
    let words = report["wait_words"].as_str().unwrap();
    assert!(
        words.starts_with("Solving this round's values (R15) takes about")
            && words.contains("positions a second"),
        "{words}"
    );
    let meanwhile = &report["estimate_shown"];
    assert!(
        meanwhile["source"] == "estimate"
            && meanwhile["caption"].as_str().unwrap().starts_with("Estimates by minimax:4")
            && meanwhile["rows"]
                .as_array()
                .unwrap()
                .iter()
                .all(|r| r["round"].as_str().unwrap().starts_with('~')),
        "{meanwhile}"
    );
    let pairs = |moves: &Value, pair: &dyn Fn(&Value) -> (&Value, &Value)| -> Vec<(u64, f64)> {
        let numbers =
            |(pit, value): (&Value, &Value)| (pit.as_u64().unwrap(), value.as_f64().unwrap());
        moves.as_array().unwrap().iter().map(|m| numbers(pair(m))).collect()
    };
    assert_eq!(
        pairs(&report["estimated"]["moves"], &|m| (&m[0], &m[1])),
        pairs(&report["evaluate"]["moves"], &|m| (&m["pit"], &m["value"])),
        "{report}"
    );
    let big = ["pits_per_row=6", "seeds_per_pit=4"];
    let exact = analysed(tables.path(), &big, "south", "", false);
    let shown = &report["exact"];
    assert_eq!(shown["rows"], shown_rows(&exact, false, None), "{shown}");
    assert!(shown["source"] == "exact" && shown["caption"] == "" && shown["wait_shown"] == false);
    // Once solved, the round is at hand, its positions counted by the server.
    let after = &report["estimate_after"]["round"];
    assert!(after["at_hand"] == true && after["positions"].as_u64() > Some(1_000_000), "{after}");

    // Moves made faster than the analysis: the streams of a superseded analysis are closed, so
    // the page holds at most two (the analysis', the statistics'), and the server has at most
    // one more (a closed stream is noticed at its next progress event, within 250 ms).
    let streams = &report["streams"];
    let samples = streams["samples"].as_array().unwrap();
    assert!(samples.len() >= 8, "{streams}");
    assert!(streams["page_max"].as_u64() <= Some(2), "{streams}");
    assert!(
        samples.iter().all(|s| s["page"].as_u64() <= Some(2) && s["server"].as_u64() <= Some(2)),
        "{streams}"
    );
    assert_eq!(streams["after"]["streams"], 0, "{streams}");
}

/// The estimate before an analysis: a round not yet solved is not at hand, its reference count
/// and the seconds at the reference rate given; once analysed it is at hand with the positions
/// the server counted; a bad position is a 400 naming its field.
#[test]
fn the_estimate_before_an_analysis_says_what_is_at_hand() {
    let tables = tempfile::tempdir().unwrap();
    let server = Server::start(tables.path());
    let board = "rule=pits_per_row=5&rule=seeds_per_pit=4";
    let (status, before) = server.get_json(&format!("/api/estimate?{board}&match=false"));
    assert_eq!(status, 200, "{before}");
    let round = &before["round"];
    assert!(round["at_hand"] == false && round["positions"] == 55_393, "{before}");
    let seconds = round["seconds"].as_f64().unwrap();
    assert!((seconds - 55_393.0 / round["rate"].as_f64().unwrap()).abs() < 1e-9, "{before}");
    assert_eq!(before["match"], Value::Null);
    let (status, _) = server.get_json(&format!("/api/analyse?{board}&match=false"));
    assert_eq!(status, 200);
    let (_, after) = server.get_json(&format!("/api/estimate?{board}&moves=0"));
    let round = &after["round"];
    assert!(round["at_hand"] == true && round["seconds"] == 0.0, "{after}");
    assert!(round["positions"].as_u64() >= Some(55_393), "{after}");
    assert_eq!(after["match"]["at_hand"], false, "{after}");
    // A board no reference counts: the positions are not known before the solve.
    let (_, unknown) = server.get_json("/api/estimate?rule=pits_per_row=4&rule=seeds_per_pit=5");
    assert!(unknown["round"]["positions"].is_null() && unknown["round"]["seconds"].is_null());
    let (status, bad) = server.get_json(&format!("/api/estimate?{board}&moves=9"));
    assert_eq!((status, bad["field"].as_str()), (400, Some("moves")), "{bad}");
}
