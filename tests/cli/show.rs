//! `rajapasu show`: pages written by the binary, read back in headless Chromium (the Debian
//! `chromium` package, which .ci/run installs) and compared with `replay`'s trace; the SVG; errors.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::*;

/// The browser: $RAJAPASU_CHROMIUM, or Debian's chromium.
pub(super) fn chromium() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("RAJAPASU_CHROMIUM").map(PathBuf::from),
        Some("/usr/bin/chromium".into()),
    ];
    candidates.into_iter().flatten().find(|p| p.is_file())
}

macro_rules! browser_or_skip {
    () => {
        match chromium() {
            Some(b) => b,
            None => {
                browser_missing(
                    module_path!(),
                    "no Chromium at /usr/bin/chromium or $RAJAPASU_CHROMIUM (install Debian's chromium package, as .ci/run does)",
                );
                return;
            }
        }
    };
}

/// Runs headless Chromium with `args` then `url`; returns (stdout, stderr).
pub(super) fn headless(browser: &Path, args: &[&str], url: &str) -> (String, String) {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .arg(url)
        .output()
        .expect("chromium runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

pub(super) fn file_url(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// Console messages (errors included) that a page logged: the pages log nothing when all is well.
pub(super) fn console_lines<'a>(stderr: &'a str, page: &str) -> Vec<&'a str> {
    stderr.lines().filter(|l| l.contains("CONSOLE") && l.contains(page)).collect()
}

/// The trace of `replay` for these moves, by line kind.
fn trace(first: &str, rules: &[String], moves: &[u64]) -> BTreeMap<&'static str, Vec<Value>> {
    let list = moves.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
    let mut args =
        vec!["replay".to_string(), "--first".into(), first.into(), "--moves".into(), list];
    args.extend(rules.iter().cloned());
    by_kind(&ok(&args.iter().map(String::as_str).collect::<Vec<_>>()))
}

/// The lines of a trace (`replay`'s JSON lines), by kind.
pub(super) fn by_kind(trace: &str) -> BTreeMap<&'static str, Vec<Value>> {
    let mut by_kind: BTreeMap<&'static str, Vec<Value>> = BTreeMap::new();
    for line in trace.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let kind = ["header", "round_start", "move", "round_end", "match_end"]
            .into_iter()
            .find(|k| v["kind"] == *k)
            .unwrap();
        by_kind.entry(kind).or_default().push(v);
    }
    by_kind
}

fn golden_match(name: &str, limit: usize) -> (String, Vec<String>, Vec<u64>) {
    let text = std::fs::read_to_string(golden(name)).unwrap();
    let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let rules = lines[0]["rules"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| format!("--rule={k}={}", v.as_str().map_or(v.to_string(), str::to_owned)))
        .collect();
    let moves = lines
        .iter()
        .filter(|v| v["kind"] == "move")
        .take(limit)
        .map(|v| v["pit"].as_u64().unwrap())
        .collect();
    (lines[0]["first"].as_str().unwrap().to_string(), rules, moves)
}

/// A page to check: the file, and what `replay` says of its moves.
pub(super) struct Page {
    pub(super) file: String,
    pub(super) trace: BTreeMap<&'static str, Vec<Value>>,
}

fn make_page(dir: &Path, file: &str, first: &str, rules: &[String], moves: &[u64]) -> Page {
    let list = moves.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
    let out = dir.join(file);
    let mut args = vec![
        "show".to_string(),
        "--first".into(),
        first.into(),
        "--moves".into(),
        list,
        "--out".into(),
        s(&out).into(),
    ];
    args.extend(rules.iter().cloned());
    ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
    Page { file: file.into(), trace: trace(first, rules, moves) }
}

fn state(board: &Value, reserve: &Value) -> Value {
    serde_json::json!({"board": board, "reserve": reserve, "hand": 0})
}

/// Every check of one page's harness report against `replay`'s trace.
pub(super) fn check_page(page: &Page, got: &Value) {
    let name = &page.file;
    assert_eq!(got["ready"], true, "{name}: the page did not start: {got}");
    assert_eq!(got["errors"], serde_json::json!([]), "{name}");
    let moves = &page.trace["move"];
    let starts = &page.trace["round_start"];
    let ends = page.trace.get("round_end").cloned().unwrap_or_default();
    let p = starts[0]["board"].as_array().unwrap().len();
    assert_eq!(
        got["pit_numbers"],
        serde_json::json!((0..p).collect::<Vec<_>>()),
        "{name}: data-pit is the global pit (R2)"
    );
    // The state at every ply, read from the document, is replay's (board and reserves).
    let shown = got["plies_shown"].as_array().unwrap();
    assert_eq!(shown.len(), moves.len() + 1, "{name}");
    assert_eq!(shown[0], state(&starts[0]["board"], &starts[0]["reserve"]), "{name} ply 0");
    for (k, m) in moves.iter().enumerate() {
        assert_eq!(shown[k + 1], state(&m["board"], &m["reserve"]), "{name} ply {}", k + 1);
    }
    let round_starts = got["round_starts"].as_array().unwrap();
    assert_eq!(round_starts.len(), starts.len(), "{name}");
    for (r, (shown, start)) in round_starts.iter().zip(starts).enumerate() {
        assert_eq!(
            *shown,
            state(&start["board"], &start["reserve"]),
            "{name} start of round {}",
            r + 1
        );
    }
    let round_ends = got["round_ends"].as_array().unwrap();
    assert_eq!(round_ends.len(), ends.len(), "{name}");
    for (r, (shown, end)) in round_ends.iter().zip(&ends).enumerate() {
        assert_eq!(
            *shown,
            state(&serde_json::json!(vec![0; p]), &end["holdings"]),
            "{name} end of round {}",
            r + 1
        );
    }
    // Who moves next (not the mover of the ply shown), at every ply and round start:
    // the next move's player, or, after a round's last move, the side that has no legal move (R10).
    let side_name = |side: &Value| if side == "south" { "South" } else { "North" };
    let other = |side: &Value| if side == "south" { "north" } else { "south" };
    let to_move = got["to_move"].as_array().unwrap();
    assert_eq!(to_move.len(), moves.len() + 1, "{name}");
    assert_eq!(
        to_move[0],
        serde_json::json!([
            starts[0]["starter"],
            side_name(&starts[0]["starter"]),
            starts[0]["starter"]
        ]),
        "{name} ply 0"
    );
    for (k, m) in moves.iter().enumerate() {
        let next = moves.get(k + 1).filter(|n| n["round"] == m["round"]);
        let shown = &to_move[k + 1];
        match next {
            Some(n) => {
                assert_eq!(
                    n["player"],
                    other(&m["player"]),
                    "{name}: players alternate within a round"
                );
                assert_eq!(
                    *shown,
                    serde_json::json!([n["player"], side_name(&n["player"]), n["player"]]),
                    "{name} ply {}",
                    k + 1
                );
            }
            None => {
                assert_eq!(shown[0], other(&m["player"]), "{name} ply {}", k + 1);
                let round_ended = ends.iter().any(|e| e["round"] == m["round"]);
                let text = shown[1].as_str().unwrap();
                assert_eq!(
                    text.contains("no legal move"),
                    round_ended,
                    "{name} ply {}: {shown}",
                    k + 1
                );
                assert!(text.starts_with(side_name(&shown[0])), "{name} ply {}: {shown}", k + 1);
            }
        }
    }
    for (r, start) in starts.iter().enumerate() {
        assert_eq!(got["round_start_to_move"][r][0], start["starter"], "{name} round {}", r + 1);
    }
    // The timeline's holdings at each round's start: what each side keeps off the board and the
    // counters on its row (a round set up inside itself has rows other than open pits x seeds).
    for (r, start) in starts.iter().enumerate() {
        let board: Vec<u64> =
            start["board"].as_array().unwrap().iter().map(|n| n.as_u64().unwrap()).collect();
        let holds = |side: usize| {
            start["reserve"][side].as_u64().unwrap()
                + board[side * p / 2..(side + 1) * p / 2].iter().sum::<u64>()
        };
        let text = got["round_start_texts"][r][0].as_str().unwrap();
        let want = format!("at its start South holds {} and North {};", holds(0), holds(1));
        assert!(text.contains(&want), "{name} round {}: {text:?} does not say {want:?}", r + 1);
    }
    // The timeline gives every round's winner (R11) and numbers its rounds.
    let results: Vec<Value> =
        got["timeline_results"].as_array().unwrap().iter().map(|r| r[1].clone()).collect();
    let want: Vec<Value> = (0..starts.len())
        .map(|r| match ends.get(r) {
            None => serde_json::json!(""),
            Some(e) => {
                let c = e["captured"].as_array().unwrap();
                serde_json::json!(match c[0].as_u64().cmp(&c[1].as_u64()) {
                    std::cmp::Ordering::Greater => "south",
                    std::cmp::Ordering::Less => "north",
                    std::cmp::Ordering::Equal => "tie",
                })
            }
        })
        .collect();
    assert_eq!(results, want, "{name}");
    let labels: Vec<u64> =
        got["timeline_labels"].as_array().unwrap().iter().map(|l| l.as_u64().unwrap()).collect();
    assert_eq!(labels.first(), Some(&1), "{name}");
    assert!(
        labels.windows(2).all(|w| w[0] < w[1]) && *labels.last().unwrap() <= starts.len() as u64,
        "{name}: {labels:?}"
    );
    assert!(labels.len() >= starts.len().min(2) && labels.len() <= 14, "{name}: {labels:?}");
    // Counters are conserved at every step, forwards and backwards, and every step has its address.
    assert_eq!(got["not_conserved"], serde_json::json!([]), "{name}");
    let walked = got["walked"].as_u64().unwrap();
    assert_eq!(walked, got["frames"].as_u64().unwrap(), "{name}");
    let sown: u64 = moves
        .iter()
        .flat_map(|m| m["laps"].as_array().unwrap().iter().map(|l| l.as_u64().unwrap() + 1))
        .sum();
    assert!(
        walked >= sown + starts.len() as u64,
        "{name}: {walked} steps for {sown} counters and lifts"
    );
    assert_eq!(got["distinct_addresses"], walked, "{name}");
    assert_eq!(got["ply_mismatches"], serde_json::json!([]), "{name}");
    assert_eq!(got["backward_mismatches"], serde_json::json!([]), "{name}");
    assert_eq!(got["backward_end"], 0, "{name}");
    assert_eq!(got["address_follows"], true, "{name}");
    assert!(got["lap_addresses"].as_u64().unwrap() > 0, "{name}");
    assert_eq!(got["lap_mismatches"], serde_json::json!([]), "{name}");
    // Stepping by move stops at every ply in order (and at round starts and ends).
    let ply_stops: Vec<String> = got["move_stops"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a.as_str())
        .filter(|a| !a.contains("round"))
        .map(str::to_owned)
        .collect();
    assert_eq!(
        ply_stops,
        (1..=moves.len()).map(|k| format!("#ply={k}")).collect::<Vec<_>>(),
        "{name}"
    );
    // Captures are marked with their source as they happen (R6, R8).
    let mut fours: Vec<(u64, u64, String)> = got["fours"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (f[0].as_u64().unwrap(), f[1].as_u64().unwrap(), f[2].as_str().unwrap().to_string())
        })
        .collect();
    let mut expected_fours = Vec::new();
    for m in moves {
        for c in m["captures"].as_array().unwrap().iter().filter(|c| c["kind"] == "four") {
            let source = if c["by"] == m["player"] { "own" } else { "gifted" };
            expected_fours.push((
                m["ply"].as_u64().unwrap(),
                c["pit"].as_u64().unwrap(),
                source.to_string(),
            ));
        }
        let pussa: Vec<Value> = m["captures"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["kind"] == "pussa")
            .map(|c| serde_json::json!([c["pit"], "pussa"]))
            .collect();
        let marked: Vec<&Value> = got["ply_marks"][m["ply"].as_u64().unwrap() as usize]
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| x[1] == "pussa")
            .collect();
        assert_eq!(serde_json::json!(marked), serde_json::json!(pussa), "{name} ply {}", m["ply"]);
    }
    fours.sort();
    expected_fours.sort();
    assert_eq!(fours, expected_fours, "{name}");
    // In the charts' palette.
    for (source, [r, g, b]) in
        ["pussa", "own", "gifted", "remainder"].iter().zip(rajapasu::show::SOURCE_COLOURS)
    {
        if let Some(stroke) = got["strokes"][source].as_str() {
            assert_eq!(stroke, format!("rgb({r}, {g}, {b})"), "{name} {source}");
        }
    }
    let endless: Vec<u64> =
        moves.iter().filter(|m| m["endless"] == true).map(|m| m["ply"].as_u64().unwrap()).collect();
    assert_eq!(got["endless_plies"], serde_json::json!(endless), "{name}");
    // The keyboard steps; the controls can be reached and are labelled.
    assert_eq!(got["after_arrow_right"], "#ply=1", "{name}");
    if starts.len() > 1 {
        assert_eq!(got["after_page_down"], "#round=2", "{name}");
    }
    // The timeline jumps to a round; play moves on until paused.
    for check in ["timeline_click", "timeline_key"] {
        if starts.len() > 1 || check == "timeline_click" {
            assert_eq!(got[check][0], got[check][1], "{name} {check}");
        }
    }
    assert_eq!(
        (&got["playing"], &got["paused"]),
        (&serde_json::json!("true"), &serde_json::json!("false")),
        "{name}"
    );
    assert_ne!(got["played_to"], "#ply=0", "{name}: playing did not move");
    assert!(got["focusable_controls"].as_u64().unwrap() >= 10, "{name}");
    assert_eq!(got["unlabelled_controls"], 0, "{name}");
    assert!(got["board_label"].as_str().unwrap().contains("South's row"), "{name}");
}

#[test]
fn every_state_of_a_page_read_in_chromium_is_replays_and_counters_are_conserved() {
    let browser = browser_or_skip!();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A whole match of a dataset, played again from its manifest.
    let data = d.join("data");
    ok(&[
        "simulate",
        "--matches",
        "4",
        "--seed",
        "11",
        "--detail",
        "move",
        "--quiet",
        "--out",
        s(&data),
    ]);
    ok(&["show", s(&data), "--match", "3", "--out", s(&d.join("dataset.html"))]);
    let tables = tables(&data);
    let moves_table = tables.iter().find(|t| t.name == "moves").unwrap();
    let ids = moves_table.column("match_id").unwrap().as_u64().unwrap();
    let pits = moves_table.column("pit").unwrap().as_u64().unwrap();
    let dataset_moves: Vec<u64> =
        ids.iter().zip(&pits).filter(|(id, _)| **id == 3).map(|(_, p)| *p).collect();
    // Match 3 of first=alternate: North starts.
    let mut pages =
        vec![Page { file: "dataset.html".into(), trace: trace("north", &[], &dataset_moves) }];
    // Move lists under other rules: a whole unfinished match on a small board (closed pits,
    // max_rounds), skip_origin, an endless move (endless=stop, final_four=stays), a wide board.
    for (name, limit, file) in [
        ("small_4x3_cycle.jsonl", usize::MAX, "small.html"),
        ("skip_origin.jsonl", 250, "skip.html"),
        ("endless_stop_stays.jsonl", 560, "endless.html"),
        ("wide_9x5.jsonl", 120, "wide.html"),
    ] {
        let (first, rules, moves) = golden_match(name, limit);
        pages.push(make_page(d, file, &first, &rules, &moves));
    }
    assert!(pages[3].trace["move"].iter().any(|m| m["endless"] == true));
    check_pages_in_chromium(&browser, d, &pages);
}

/// Loads `pages` (files in `dir`) in the harness page in headless Chromium and checks each
/// against its trace ([`check_page`]); a page may log nothing to the console. Returns what the
/// harness read of each page.
pub(super) fn check_pages_in_chromium(browser: &Path, dir: &Path, pages: &[Page]) -> Vec<Value> {
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/show/harness.html"),
        dir.join("harness.html"),
    )
    .unwrap();
    let names: Vec<&str> = pages.iter().map(|p| p.file.as_str()).collect();
    let url = format!("{}?pages={}", file_url(&dir.join("harness.html")), names.join(","));
    let (dom, stderr) = headless(
        browser,
        &[
            "--allow-file-access-from-files",
            "--disable-ipc-flooding-protection",
            "--virtual-time-budget=100000000",
            "--dump-dom",
        ],
        &url,
    );
    let start = dom
        .find("<pre id=\"result\">")
        .unwrap_or_else(|| panic!("no result in the harness page; stderr: {stderr}"))
        + 17;
    let end = start + dom[start..].find("</pre>").unwrap();
    let text = dom[start..end]
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&");
    let report: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}; stderr: {stderr}"));
    assert!(report.get("harness_error").is_none(), "{report}");
    for (page, got) in pages.iter().zip(report["pages"].as_array().unwrap()) {
        check_page(page, got);
        assert_eq!(
            console_lines(&stderr, &page.file),
            Vec::<&str>::new(),
            "{}: the page logged",
            page.file
        );
    }
    assert_eq!(report["pages"].as_array().unwrap().len(), pages.len());
    report["pages"].as_array().unwrap().clone()
}

#[test]
fn a_screenshot_of_a_page_is_the_board_in_colour() {
    let browser = browser_or_skip!();
    let dir = tempfile::tempdir().unwrap();
    let (first, rules, moves) = golden_match("default_south.jsonl", usize::MAX);
    let page = make_page(dir.path(), "page.html", &first, &rules, &moves);
    // A ply that ends with a pussa: its pit is ringed in the pussa colour.
    let ply = page.trace["move"]
        .iter()
        .find(|m| m["captures"].as_array().unwrap().iter().any(|c| c["kind"] == "pussa"))
        .unwrap()["ply"]
        .clone();
    let shot = dir.path().join("shot.png");
    let (width, height) = (1200u32, 900u32);
    let (_, stderr) = headless(
        &browser,
        &[&format!("--screenshot={}", shot.display()), &format!("--window-size={width},{height}")],
        &format!("{}#ply={ply}", file_url(&dir.path().join("page.html"))),
    );
    assert_eq!(console_lines(&stderr, "page.html"), Vec::<&str>::new());
    let decoder = png::Decoder::new(
        std::fs::File::open(&shot).unwrap_or_else(|e| panic!("{e}; stderr: {stderr}")),
    );
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (width, height));
    let channels = info.color_type.samples();
    assert!(channels >= 3, "{:?}", info.color_type);
    let pixels: Vec<[u8; 3]> =
        buf[..info.buffer_size()].chunks(channels).map(|c| [c[0], c[1], c[2]]).collect();
    let count = |rgb: [u8; 3]| pixels.iter().filter(|p| **p == rgb).count();
    let total = pixels.len();
    let white = count([255, 255, 255]);
    assert!(white < total * 9 / 10, "mostly blank: {white} of {total} pixels white");
    let distinct: std::collections::HashSet<[u8; 3]> = pixels.iter().copied().collect();
    assert!(distinct.len() > 50, "{} colours", distinct.len());
    // The board's wood (assets/show/board.css) and the pussa ring (the charts' palette).
    assert!(count([0xe8, 0xd3, 0xa9]) > total / 50, "no board");
    assert!(count(rajapasu::show::SOURCE_COLOURS[0]) > 200, "no pussa ring");
}

#[test]
fn the_svg_is_the_pages_drawing_of_that_state() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (first, rules, moves) = golden_match("small_5x4.jsonl", 40);
    let list = moves.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
    let trace = trace(&first, &rules, &moves);
    for ply in [0usize, 17, 40] {
        let svg = d.join(format!("{ply}.svg"));
        let html = d.join(format!("{ply}.html"));
        for (out, svg_flag) in [(&svg, true), (&html, false)] {
            let mut args = vec!["show", "--first", &first, "--moves", &list, "--out", s(out)];
            let ply_text = ply.to_string();
            args.extend(["--ply", &ply_text]);
            if svg_flag {
                args.push("--svg");
            }
            args.extend(rules.iter().map(String::as_str));
            ok(&args);
        }
        let svg = std::fs::read_to_string(&svg).unwrap();
        let html = std::fs::read_to_string(&html).unwrap();
        assert!(svg.starts_with("<?xml"));
        let (board, reserve) = if ply == 0 {
            (&trace["round_start"][0]["board"], &trace["round_start"][0]["reserve"])
        } else {
            (&trace["move"][ply - 1]["board"], &trace["move"][ply - 1]["reserve"])
        };
        for (g, n) in board.as_array().unwrap().iter().enumerate() {
            assert!(
                svg.contains(&format!(r#"data-pit="{g}" data-count="{n}""#)),
                "ply {ply} pit {g}"
            );
        }
        for (i, side) in ["south", "north"].iter().enumerate() {
            assert!(
                svg.contains(&format!(r#"data-reserve="{side}" data-count="{}""#, reserve[i])),
                "ply {ply}"
            );
        }
        // One drawing: the SVG file less its stylesheet is the board the page opens with.
        let style_start = svg.find("<style>").unwrap();
        let style_end = svg.find("</style>").unwrap() + "</style>".len();
        let drawing =
            format!("{}{}", &svg[svg.find("<svg").unwrap()..style_start], &svg[style_end..]);
        assert!(
            html.contains(drawing.trim_end()),
            "ply {ply}: the page's board differs from the SVG"
        );
        // The stylesheet travels with the SVG (it opens alone) and uses the charts' palette.
        assert!(svg[style_start..style_end].contains("--src-pussa:#0072b2"));
    }
}

#[test]
fn a_long_match_page_stays_small() {
    let dir = tempfile::tempdir().unwrap();
    let (first, rules, moves) = golden_match("endless_stop_stays.jsonl", usize::MAX);
    assert!(moves.len() > 4000);
    make_page(dir.path(), "long.html", &first, &rules, &moves);
    let size = std::fs::metadata(dir.path().join("long.html")).unwrap().len();
    // A 7,000-move match under 5 MB; this one has 4,282 moves, several of many laps.
    assert!(size < 5_000_000 * 4282 / 7000, "{size} bytes for {} moves", moves.len());
    let html = std::fs::read_to_string(dir.path().join("long.html")).unwrap();
    for needle in ["<link", " src=", "@import", "https://"] {
        assert!(!html.contains(needle), "{needle}: the page must be self-contained");
    }
}

#[test]
fn a_changed_dataset_row_is_an_error_naming_the_column() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    ok(&[
        "simulate",
        "--matches",
        "3",
        "--seed",
        "5",
        "--format",
        "csv",
        "--detail",
        "match",
        "--quiet",
        "--out",
        s(&data),
    ]);
    let out = dir.path().join("page.html");
    ok(&["show", s(&data), "--match", "1", "--out", s(&out)]);
    assert!(out.exists());
    // Change match 1's move count in its CSV row.
    let part = std::fs::read_dir(data.join("matches"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "csv"))
        .unwrap();
    let text = std::fs::read_to_string(&part).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let column = header.iter().position(|c| *c == "moves").unwrap();
    let changed: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, line)| {
            let mut cells: Vec<String> = line.split(',').map(str::to_owned).collect();
            if i == 2 {
                cells[column] = (cells[column].parse::<u64>().unwrap() + 1).to_string();
            }
            cells.join(",")
        })
        .collect();
    let changed = changed.join("\n") + "\n";
    std::fs::write(&part, &changed).unwrap();
    std::fs::remove_file(&out).unwrap();
    // Verification sees the file differ from its progress marker and refuses it first.
    usage_error(&["show", s(&data), "--match", "1", "--out", s(&out)], &["altered"]);
    // A dataset whose marker agrees with its changed row (as a different engine would write it)
    // still fails: its tables no longer agree (the histograms count the moves the rows had), so
    // the dataset is refused whichever match is shown (docs/data.md).
    rewrite_part_file(&data, &part, changed.as_bytes());
    for id in ["1", "0"] {
        usage_error(
            &["show", s(&data), "--match", id, "--out", s(&out)],
            &["table histograms", "column moves of table matches"],
        );
    }
    assert!(!out.exists(), "no page for a match that does not match its dataset");
}

#[test]
fn bad_requests_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p.html");
    let o = s(&out);
    // An illegal move is the same error as in replay.
    let (code, _, replay_err) = run(&["replay", "--moves", "0,0,2"]);
    assert_eq!(code, 2);
    let show_err =
        usage_error(&["show", "--moves", "0,0,2", "--out", o], &["ply 3", "pit 2", "empty"]);
    assert_eq!(show_err, replay_err);
    usage_error(&["show", "--moves", "0,x", "--out", o], &["'x'", "not a pit number"]);
    usage_error(&["show", "--moves", "0,3", "--ply", "3", "--out", o], &["--ply 3", "2 moves"]);
    usage_error(&["show", "--moves", "0", "--svg", "--out", o], &["--ply"]);
    usage_error(&["show", "--match", "0", "--out", o], &["DIR"]);
    usage_error(&["show", s(dir.path()), "--out", o], &["--match"]);
    usage_error(&["show", s(dir.path()), "--match", "0", "--out", o], &["no manifest.json"]);
    let data = dir.path().join("data");
    ok(&["simulate", "--matches", "2", "--detail", "match", "--quiet", "--out", s(&data)]);
    usage_error(&["show", s(&data), "--match", "2", "--out", o], &["--match 2", "matches 0..=1"]);
    usage_error(&["show", s(&data), "--match", "0", "--moves", "1", "--out", o], &["--moves"]);
    assert!(!out.exists());
}

/// `show` reads one batch of a dataset, so it checks that batch alone (in the time of a batch,
/// not of the whole dataset): a part file of its match's batch altered is refused naming the
/// file; an altered part of another batch, which it does not read, does not stop it.
#[test]
fn show_checks_the_batch_of_its_match_and_reads_no_other() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let args = [
        "simulate",
        "--matches",
        "40",
        "--batch-size",
        "10",
        "--seed",
        "5",
        "--format",
        "csv",
        "--detail",
        "round",
        "--quiet",
    ];
    ok(&[&args[..], &["--out", s(&data)]].concat());
    let batch_of = |p: &Path| {
        p.file_stem().unwrap().to_str().unwrap().rsplit_once('-').unwrap().1.parse::<u64>().unwrap()
    };
    let part = std::fs::read_dir(data.join("rounds"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| batch_of(p) == 3)
        .unwrap();
    let mut bytes = std::fs::read(&part).unwrap();
    bytes.extend_from_slice(b"\n");
    std::fs::write(&part, &bytes).unwrap();
    let page = dir.path().join("page.html");
    let (code, _, err) = run(&["show", s(&data), "--match", "35", "--out", s(&page)]);
    let name = part.file_name().unwrap().to_str().unwrap();
    assert!(code != 0 && err.contains(name), "{code} {err}");
    assert!(!page.exists());
    ok(&["show", s(&data), "--match", "5", "--out", s(&page)]);
    assert!(std::fs::read_to_string(&page).unwrap().contains("<svg"));
    // The whole dataset's check still finds it.
    let (code, out, err) = run(&["verify", s(&data)]);
    assert!(code != 0 && (out + &err).contains(name), "{code} {err}");
}
