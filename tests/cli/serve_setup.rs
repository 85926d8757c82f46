//! `rajapasu serve` from a set-up position (a round's start, or inside a round): played and
//! analysed as the position itself is by `analyse --position`, refused with the field at fault;
//! and the exports of a game, byte for byte what `replay` and `show` write for its moves.

use serde_json::Value;

use super::serve::Server;
use crate::common::*;

const SMALL: &str = "rule=pits_per_row=3&rule=seeds_per_pit=2";

/// South's (0) or North's (1) number of a pair of a trace line.
fn by_side(pair: &Value, i: usize) -> u64 {
    pair.get(i)
        .or(pair.get(["south", "north"][i]))
        .and_then(Value::as_u64)
        .unwrap_or_else(|| panic!("{pair}"))
}

/// The board of a trace line as `--position` takes it: counts in global order, x for a pit
/// closed in its round (`open` pits at the right end of each row).
fn position_text(board: &Value, open: &Value, pits_per_row: usize) -> String {
    let board = board.as_array().unwrap();
    let open = [by_side(open, 0) as usize, by_side(open, 1) as usize];
    (0..board.len())
        .map(|g| {
            if g % pits_per_row >= pits_per_row - open[g / pits_per_row] {
                board[g].to_string()
            } else {
                "x".into()
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

#[test]
fn a_set_up_game_is_played_and_analysed_as_its_positions_are() {
    let tables = tempfile::tempdir().unwrap();
    let server = Server::start(tables.path());
    let starts = [
        "holdings=7,5&first=north",
        "position=0,3,2,1,0,2&reserve=2,2&to_move=south",
        "position=x,2,4,x,2,0&reserve=3,1&to_move=north",
    ];
    for start in starts {
        let (mut moves, mut open) = (Vec::<u64>::new(), Value::Null);
        for step in 0..6 {
            let list = moves.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
            let (status, game) =
                server.get_json(&format!("/api/game?{SMALL}&{start}&moves={list}"));
            assert_eq!(status, 200, "{start} {list}: {game}");
            assert_eq!(
                (game["set_up"].as_bool(), game["ply"].as_u64()),
                (Some(true), Some(step)),
                "{game}"
            );
            let trace = game["trace"].as_array().unwrap();
            if step == 0 && start.starts_with("position") {
                let given = start.split('&').next().unwrap().trim_start_matches("position=");
                assert_eq!(position_text(&trace[1]["board"], &trace[1]["open"], 3), given);
            }
            let last = trace
                .iter()
                .rev()
                .find(|e| e["kind"] == "move" || e["kind"] == "round_start")
                .unwrap();
            if let Some(start_open) = trace.iter().rev().find(|e| e["kind"] == "round_start") {
                open = start_open["open"].clone();
            }
            if game["over"] != Value::Null {
                break;
            }
            let (status, a) =
                server.get_json(&format!("/api/analyse?{SMALL}&{start}&moves={list}"));
            assert_eq!(status, 200, "{a}");
            assert_eq!((a["round"].clone(), a["ply"].clone()), (Value::Null, Value::Null), "{a}");
            let reserve = format!(
                "--reserve={},{}",
                by_side(&last["reserve"], 0),
                by_side(&last["reserve"], 1)
            );
            let position = format!("--position={}", position_text(&last["board"], &open, 3));
            let to_move = format!("--to-move={}", game["to_move"].as_str().unwrap());
            let args = [
                "analyse",
                "--json",
                "--quiet",
                "--rule=pits_per_row=3",
                "--rule=seeds_per_pit=2",
                &position,
                &reserve,
                &to_move,
            ];
            let want: Value = serde_json::from_str(ok(&args).trim()).unwrap();
            assert_eq!(
                (a["moves"].clone(), a["value"].clone()),
                (want["moves"].clone(), want["value"].clone()),
                "{start} {list}"
            );
            let (_, played) = server.get_json(&format!(
                "/api/play?{SMALL}&{start}&moves={list}&player=random&seed={step}"
            ));
            let legal = game["legal"].as_array().unwrap();
            assert!(legal.contains(&played["pit"]), "{played} not in {legal:?}");
            moves.push(played["pit"].as_u64().unwrap());
        }
    }
}

#[test]
fn a_bad_set_up_is_refused_naming_its_field() {
    let tables = tempfile::tempdir().unwrap();
    let server = Server::start(tables.path());
    let cases = [
        (format!("/api/game?{SMALL}&holdings=7,6"), "holdings", "sum to 13"),
        (format!("/api/game?{SMALL}&holdings=11,1"), "holdings", "fewer than"),
        (format!("/api/game?{SMALL}&holdings=6,6&position=2,2,2,2,2,2"), "position", "not both"),
        (format!("/api/game?{SMALL}&reserve=0,0"), "reserve", "position=PITS"),
        (format!("/api/game?{SMALL}&position=2,2,2,2,2,2&to_move=south"), "reserve", "reserve=S,N"),
        (
            format!("/api/game?{SMALL}&position=3,x,3,2,2,2&reserve=0,0&to_move=south"),
            "position",
            "right end",
        ),
        (
            format!("/api/play?{SMALL}&position=2,2,2,2,2,2&reserve=0,0&to_move=up&player=random"),
            "to_move",
            "south",
        ),
        (
            format!("/api/export/trace?{SMALL}&holdings=6,6&moves=0,0,0,0,0,0,0"),
            "moves",
            "cannot be played",
        ),
        (format!("/api/export/show?{SMALL}&moves=2&ply=5"), "ply", "plies 0..=1"),
        (format!("/api/export/moves?{SMALL}&moves=0,9"), "moves", "pit 9"),
        // Reserves whose 32-bit sum wraps around to the board's total.
        (
            format!("/api/game?{SMALL}&position=2,2,2,2,2,2&reserve=4294967295,1&to_move=south"),
            "reserve",
            "12 in all",
        ),
        (
            format!("/api/analyse?{SMALL}&position=2,2,2,2,2,2&reserve=1,4294967295&to_move=south"),
            "reserve",
            "north's reserve",
        ),
    ];
    for (target, field, needle) in &cases {
        let (status, v) = server.get_json(target);
        assert_eq!(status, 400, "{target}: {v}");
        assert_eq!(v["field"], *field, "{target}: {v}");
        assert!(v["error"].as_str().unwrap().contains(needle), "{target}: {v}");
    }
}

#[test]
fn the_exports_are_what_replay_and_show_write_for_the_moves() {
    let tables = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let server = Server::start(tables.path());
    let games: [(&str, &[&str]); 3] = [
        (
            "moves=2,0,3&first=north&rule=pits_per_row=4&rule=seeds_per_pit=3",
            &["--moves=2,0,3", "--first=north", "--rule=pits_per_row=4", "--rule=seeds_per_pit=3"],
        ),
        ("moves=", &[]),
        (
            "moves=2,1&rule=pits_per_row=3&rule=seeds_per_pit=2&rule=final_four=sower",
            &[
                "--moves=2,1",
                "--rule=pits_per_row=3",
                "--rule=seeds_per_pit=2",
                "--rule=final_four=sower",
            ],
        ),
    ];
    for (query, args) in games {
        let (status, trace) = server.request("GET", &format!("/api/export/trace?{query}"), b"");
        assert_eq!(
            (status, trace.as_str()),
            (200, ok(&[&["replay"][..], args].concat()).as_str()),
            "{query}"
        );
        let page = out.path().join("page.html");
        ok(&[&["show", "--out", s(&page)][..], args].concat());
        let (status, html) = server.request("GET", &format!("/api/export/show?{query}"), b"");
        assert!(
            status == 200 && html == std::fs::read_to_string(&page).unwrap(),
            "{query}: the replay page differs from show's"
        );
        let (_, list) = server.request("GET", &format!("/api/export/moves?{query}"), b"");
        let given = query.split('&').next().unwrap().trim_start_matches("moves=");
        assert_eq!(list, format!("{given}\n"));
    }
    // From a set-up: its trace starts at the set-up board, and the page draws it.
    let (status, trace) = server.request(
        "GET",
        &format!(
            "/api/export/trace?{SMALL}&position=0,3,2,1,0,2&reserve=2,2&to_move=north&moves=2"
        ),
        b"",
    );
    assert_eq!(status, 200, "{trace}");
    let lines: Vec<Value> = trace.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(
        (lines[0]["first"].as_str(), lines[1]["board"].to_string().as_str()),
        (Some("north"), "[0,3,2,1,0,2]")
    );
    assert_eq!(
        (lines[2]["kind"].as_str(), lines[2]["ply"].as_u64(), lines[2]["pit"].as_u64()),
        (Some("move"), Some(1), Some(2))
    );
    let (status, html) =
        server.request("GET", &format!("/api/export/show?{SMALL}&holdings=7,5&moves=0"), b"");
    assert!(status == 200 && html.contains("set-up position"), "{status}");
}
