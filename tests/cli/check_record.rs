//! `rajapasu check-record`: games generated under each reading, with and without observations,
//! checked against every reading; and bad records.

use rajapasu::engine::trace::{replay, TraceEvent};
use rajapasu::engine::{Game, Rng, Ruleset, Side};
use rajapasu::game_record::readings;
use serde_json::Value;

use crate::common::*;

/// What a reading shows after each move of `moves`, up to the first move it cannot play (and
/// that move's ply).
struct Seen {
    /// Board, reserve and captures by side after the move.
    what: String,
    /// The starter of the round in play after the move, and whether the move ended a round.
    starter: Side,
    new_round: bool,
}

fn seen(rules: Ruleset, first: Side, moves: &[usize]) -> (Vec<Seen>, Option<usize>) {
    let mut after: Vec<Seen> = Vec::new();
    let mut starter = first;
    let result = replay(rules, first, moves, |event| match event {
        TraceEvent::Move { board, reserve, captures, .. } => {
            let mut by = [0u32; 2];
            for c in &captures {
                by[c.by.index()] += c.n as u32;
            }
            let board: Vec<String> = board.iter().map(u8::to_string).collect();
            let what = format!(
                "board={} reserve={},{} captures={},{}",
                board.join(","),
                reserve.0[0],
                reserve.0[1],
                by[0],
                by[1]
            );
            after.push(Seen { what, starter, new_round: false });
        }
        TraceEvent::RoundStart { starter: s, .. } => {
            starter = s;
            if let Some(last) = after.last_mut() {
                (last.starter, last.new_round) = (s, true);
            }
        }
        _ => {}
    });
    (after, result.err().map(|e| e.ply as usize))
}

/// A random match under `rules`, at most `plies` moves.
fn random_moves(rules: Ruleset, first: Side, plies: usize, seed: u64) -> Vec<usize> {
    let mut rng = Rng::from_seed(seed);
    let mut game = Game::new(rules, first);
    let mut moves = Vec::new();
    while moves.len() < plies && !game.is_over() {
        let legal = game.legal_moves();
        let pit = legal.nth(rng.below(legal.len() as u32) as usize).index();
        game.play(pit).unwrap();
        moves.push(pit);
    }
    moves
}

fn check(args: &[String]) -> Value {
    serde_json::from_str(ok(&args.iter().map(String::as_str).collect::<Vec<_>>()).trim()).unwrap()
}

#[test]
fn each_reading_is_flagged_at_its_first_difference_and_the_generating_one_never() {
    let dir = tempfile::tempdir().unwrap();
    let boards = [(3u8, 3u8), (4, 3), (7, 7)];
    let (mut flagged, mut by_observation) = (0, 0);
    for (i, generating) in readings(Ruleset::default()).into_iter().enumerate() {
        let (p, seeds) = boards[i % boards.len()];
        let rules = Ruleset { pits_per_row: p, seeds_per_pit: seeds, ..generating };
        let first = if i % 2 == 0 { Side::South } else { Side::North };
        let moves = random_moves(rules, first, 60, i as u64);
        let (observed, _) = seen(rules, first, &moves);
        assert_eq!(observed.len(), moves.len());
        // The record: the moves with every observation, a ply label on some lines.
        let mut text = format!(
            "# generated under {}\nfirst: {first}\nrules: pits_per_row={p} seeds_per_pit={seeds}\n",
            rules.hash()
        );
        for (k, (m, o)) in moves.iter().zip(&observed).enumerate() {
            let label = if k % 3 == 0 { format!("{}. ", k + 1) } else { String::new() };
            let starter =
                if o.new_round { format!(" starter={}", o.starter) } else { String::new() };
            text += &format!("{label}{m} {}{starter}\n", o.what);
        }
        let file = dir.path().join(format!("record-{i}.txt"));
        std::fs::write(&file, text).unwrap();
        let with = check(&["check-record".into(), s(&file).into(), "--json".into()]);
        let list: Vec<String> = moves.iter().map(usize::to_string).collect();
        let bare = check(&[
            "check-record".into(),
            "--json".into(),
            format!("--moves={}", list.join(",")),
            format!("--first={first}"),
            format!("--rule=pits_per_row={p}"),
            format!("--rule=seeds_per_pit={seeds}"),
        ]);
        for (v, observations) in [(&with, true), (&bare, false)] {
            assert_eq!(v["moves"], moves.len());
            let entries = v["readings"].as_array().unwrap();
            assert_eq!(entries.len(), 48);
            for entry in entries {
                let reading = Ruleset::from_json(&entry["rules"].to_string()).unwrap();
                let (theirs, illegal_at) = seen(reading, first, &moves);
                // The first move it cannot play, or (with observations) whose observation differs.
                let differs = observations
                    .then(|| {
                        theirs.iter().zip(&observed).position(|(a, b)| {
                            a.what != b.what || (b.new_round && a.starter != b.starter)
                        })
                    })
                    .flatten()
                    .map(|k| k + 1);
                let want = match (differs, illegal_at) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
                let got = entry["first_disagreement"]["ply"].as_u64().map(|p| p as usize);
                assert_eq!(
                    got,
                    want,
                    "record {i} ({}), observations {observations}, reading {}: {entry}",
                    rules.hash(),
                    reading
                );
                assert_eq!(entry["consistent"], want.is_none());
                if reading == rules {
                    assert_eq!(entry["consistent"], true, "the generating reading");
                }
                if let Some(ply) = want {
                    flagged += 1;
                    let kind = entry["first_disagreement"]["kind"].as_str().unwrap();
                    assert_eq!(
                        illegal_at == Some(ply),
                        kind == "illegal" || kind == "match_over",
                        "{entry}"
                    );
                    by_observation += (kind != "illegal" && kind != "match_over") as usize;
                    assert!(!entry["first_disagreement"]["what"].as_str().unwrap().is_empty());
                }
            }
        }
    }
    // Readings do play these games differently, by an illegal move and by what is seen.
    assert!(
        flagged > 100 && by_observation > 50,
        "{flagged} flagged, {by_observation} by an observation"
    );
}

#[test]
fn check_record_prints_each_reading_and_rejects_bad_records() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        ok(&["check-record", "--moves", "0,0", "--rule=pits_per_row=3", "--rule=seeds_per_pit=2"]);
    assert!(
        text.contains("2 moves (0 with observations), south starting;")
            && text.contains("of 48 readings consistent"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 49, "{text}");
    assert!(text.lines().any(|l| l.starts_with("default ")) && text.contains("stays"), "{text}");
    let write = |name: &str, body: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, body).unwrap();
        path
    };
    let cases = [
        (
            write("a.txt", "0\n1 colour=red\n"),
            vec!["line 2", "unknown observation 'colour'", "board, reserve"],
        ),
        (write("b.txt", "first: east\n"), vec!["line 1", "east", "south, north"]),
        (
            write("c.txt", "rules: final_four=stays\n0\n"),
            vec!["rules", "final_four", "every value of it is tried"],
        ),
        (write("d.txt", "rules: pits_per_row=12\n"), vec!["pits_per_row", "2..=9"]),
        (write("e.txt", "0 reserve=1\n"), vec!["line 1", "expected S,N"]),
        (write("f.txt", &"0 ".repeat(600_000)), vec!["longer than 1024 KiB"]),
    ];
    for (path, needles) in cases {
        usage_error(&["check-record", s(&path)], &needles);
    }
    usage_error(&["check-record", "--moves", "0,a"], &["--moves item 2", "'a'"]);
    usage_error(
        &["check-record", "--moves", "0", "--rule", "endless=stop"],
        &["--rule", "endless"],
    );
    usage_error(&["check-record", s(&dir.path().join("missing.txt"))], &["missing.txt"]);
    usage_error(&["check-record"], &["FILE"]);
}
