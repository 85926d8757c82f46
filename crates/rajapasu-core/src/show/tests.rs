//! The page's data against the golden traces (docs/rules.md), and the drawing.

use std::path::PathBuf;

use serde_json::Value;

use super::*;
use crate::engine::{BySide, Ruleset, Side};

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden")
}

/// A golden trace: (name, rules, first player, moves, lines).
type Golden = (String, Ruleset, Side, Vec<usize>, Vec<Value>);

/// Every golden trace.
fn goldens() -> Vec<Golden> {
    let mut names: Vec<String> = std::fs::read_dir(golden_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".jsonl"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let text = std::fs::read_to_string(golden_dir().join(&name)).unwrap();
            let lines: Vec<Value> =
                text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
            let rules = Ruleset::from_json(&lines[0]["rules"].to_string()).unwrap();
            let first: Side = lines[0]["first"].as_str().unwrap().parse().unwrap();
            let moves = lines
                .iter()
                .filter(|v| v["kind"] == "move")
                .map(|v| v["pit"].as_u64().unwrap() as usize)
                .collect();
            (name, rules, first, moves, lines)
        })
        .collect()
}

/// Sows a film's moves from its laps and captures alone, the way the page does (show.js): lift
/// each lap's start pit, drop one counter into each following open pit (R5), take a listed four
/// when the drop brings its pit to four (R6), and the pussa after the last lap (R8). Returns the
/// board and reserves after every move.
fn sow_like_the_page(film: &Film) -> Vec<(Vec<u8>, BySide<u32>)> {
    let p = film.rules.pits_per_row as usize;
    let np = 2 * p;
    let mut out = Vec::new();
    for round in &film.rounds {
        let open: Vec<bool> =
            (0..np).map(|g| (g % p) >= p - round.open[Side::from_index(g / p)] as usize).collect();
        let next = |g: usize| (1..=np).map(|d| (g + d) % np).find(|&q| open[q]).unwrap();
        let mut board = round.board.clone();
        let mut reserve = round.kept;
        for m in
            &film.moves[round.plies_before as usize..(round.plies_before + round.moves) as usize]
        {
            let mut pending = m.captures.iter().peekable();
            for (l, lap) in m.laps.iter().enumerate() {
                let start = lap.start as usize;
                assert_eq!(board[start], lap.sown, "ply {} lap {}", m.ply, l + 1);
                board[start] = 0;
                let mut at = start;
                for _ in 0..lap.sown {
                    at = next(at);
                    if film.rules.skip_origin && at == start {
                        at = next(at);
                    }
                    board[at] += 1;
                    if let Some(c) = pending.next_if(|c| {
                        c.lap as usize == l + 1
                            && c.source != Source::Pussa
                            && c.pit as usize == at
                            && board[at] == c.n
                    }) {
                        board[at] = 0;
                        reserve[c.by] += c.n as u32;
                    }
                }
            }
            for c in pending {
                assert_eq!(c.source, Source::Pussa, "ply {}: a four left over", m.ply);
                assert_eq!(c.lap as usize, m.laps.len());
                assert_eq!(board[c.pit as usize], c.n);
                board[c.pit as usize] = 0;
                reserve[c.by] += c.n as u32;
            }
            out.push((board.clone(), reserve));
        }
    }
    out
}

#[test]
fn laps_and_captures_alone_give_every_golden_state() {
    for (name, rules, first, moves, lines) in goldens() {
        let film = Film::replay(rules, first, &moves).unwrap();
        let traced: Vec<&Value> = lines.iter().filter(|v| v["kind"] == "move").collect();
        assert_eq!(film.moves.len(), traced.len(), "{name}");
        let sown = sow_like_the_page(&film);
        for ((m, t), (board, reserve)) in film.moves.iter().zip(&traced).zip(&sown) {
            let laps: Vec<u64> =
                t["laps"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
            assert_eq!(
                m.laps.iter().map(|l| l.sown as u64).collect::<Vec<_>>(),
                laps,
                "{name} ply {}",
                m.ply
            );
            assert_eq!(m.endless, t["endless"].as_bool().unwrap(), "{name} ply {}", m.ply);
            assert_eq!(serde_json::to_value(board).unwrap(), t["board"], "{name} ply {}", m.ply);
            assert_eq!(
                serde_json::to_value(reserve).unwrap(),
                t["reserve"],
                "{name} ply {}",
                m.ply
            );
            // Captures in the trace's order; the first lap starts at the played pit (R3).
            let caps: Vec<(u64, u64)> = t["captures"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| (c["pit"].as_u64().unwrap(), c["n"].as_u64().unwrap()))
                .collect();
            assert_eq!(
                m.captures.iter().map(|c| (c.pit as u64, c.n as u64)).collect::<Vec<_>>(),
                caps,
                "{name} ply {}",
                m.ply
            );
            assert_eq!(
                m.laps[0].start as usize,
                m.mover.index() * rules.pits_per_row as usize + m.pit as usize
            );
        }
        let ends = lines.iter().filter(|v| v["kind"] == "round_end").count();
        assert_eq!(film.rounds.iter().filter(|r| r.over.is_some()).count(), ends, "{name}");
        assert_eq!(film.over.is_some(), lines.last().unwrap()["kind"] == "match_end", "{name}");
    }
}

#[test]
fn capture_sources_add_up_to_each_rounds_captures() {
    for (name, rules, first, moves, _) in goldens() {
        let film = Film::replay(rules, first, &moves).unwrap();
        for round in film.rounds.iter().filter(|r| r.over.is_some()) {
            let over = round.over.unwrap();
            let mut captured = BySide::new(0u32, 0u32);
            captured[over.collector] += over.remainder;
            for m in &film.moves
                [round.plies_before as usize..(round.plies_before + round.moves) as usize]
            {
                for c in &m.captures {
                    captured[c.by] += c.n as u32;
                    // Own: by the mover; gifted: by the opponent (the charts' meaning).
                    assert_eq!(
                        c.by == m.mover,
                        c.source != Source::GiftedFour,
                        "{name} ply {}",
                        m.ply
                    );
                }
            }
            assert_eq!(captured, over.captured, "{name} round {}", round.round);
        }
    }
}

#[test]
fn the_drawing_carries_each_pit_and_reserve_count() {
    let (_, rules, first, moves, lines) =
        goldens().into_iter().find(|g| g.0 == "small_5x4.jsonl").unwrap();
    let film = Film::replay(rules, first, &moves).unwrap();
    let traced: Vec<&Value> = lines.iter().filter(|v| v["kind"] == "move").collect();
    for ply in [1, traced.len() as u32 / 2, traced.len() as u32] {
        let state = film.state_after(ply).unwrap();
        let svg = board_svg(&state, None);
        let t = traced[ply as usize - 1];
        for (g, n) in t["board"].as_array().unwrap().iter().enumerate() {
            assert!(
                svg.contains(&format!(r#"data-pit="{g}" data-count="{n}""#)),
                "ply {ply} pit {g}"
            );
        }
        for (i, side) in ["south", "north"].iter().enumerate() {
            assert!(
                svg.contains(&format!(r#"data-reserve="{side}" data-count="{}""#, t["reserve"][i])),
                "ply {ply} {side}"
            );
        }
        // Closed pits (R12) are drawn closed: exactly the pits the round does not open.
        let closed = svg.matches(r#"class="pit closed"#).count();
        let round = film.round_of(ply);
        assert_eq!(
            closed,
            2 * rules.pits_per_row as usize
                - round.open[Side::South] as usize
                - round.open[Side::North] as usize
        );
    }
    assert!(film.state_after(traced.len() as u32 + 1).is_none());
}

#[test]
fn an_illegal_move_is_the_replay_error() {
    let err = Film::replay(Ruleset::default(), Side::South, &[0, 0, 2]).unwrap_err();
    let replayed =
        crate::engine::trace::replay(Ruleset::default(), Side::South, &[0, 0, 2], |_| {})
            .unwrap_err();
    assert_eq!(err, replayed);
    assert_eq!(err.ply, 3);
}

#[test]
fn dots_fill_the_bowl_without_overlapping() {
    let dots = dot_positions();
    for (i, a) in dots.iter().enumerate() {
        assert!((a.0 * a.0 + a.1 * a.1).sqrt() + 5.6 < 46.0, "dot {i} leaves the bowl");
        for b in &dots[..i] {
            assert!(
                ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt() > 2.0 * 5.6,
                "dot {i} overlaps"
            );
        }
    }
    // Counter-clockwise (R2): South's row left to right below, North's right to left above.
    let (x0, y0) = pit_centre(0, 7);
    let (x6, _) = pit_centre(6, 7);
    let (x7, y7) = pit_centre(7, 7);
    let (x13, _) = pit_centre(13, 7);
    assert!(x0 < x6 && y7 < y0 && (x7 - x6).abs() < 1e-9 && (x13 - x0).abs() < 1e-9);
}
