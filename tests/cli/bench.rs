//! `rajapasu bench`: the engine's speed and, with --player, the search players'.

use crate::common::*;

#[test]
fn players_are_measured_in_nodes_against_the_engine() {
    let out = ok(&[
        "bench",
        "--matches",
        "100",
        "--repeat",
        "1",
        "--json",
        "--rule",
        "max_rounds=200",
        "--player",
        "minimax:2",
        "--player",
        "mcts:playouts=16,eval=round",
        "--against",
        "greedy",
        "--player-matches",
        "4",
    ]);
    let lines: Vec<serde_json::Value> =
        out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert_eq!(lines[0]["matches"], 100);
    assert!(lines[0]["moves_per_second"].as_f64().unwrap() > 0.0);
    for (line, player) in lines[1..].iter().zip([
        "minimax:depth=2,nodes=unlimited,eval=match",
        "mcts:playouts=16,c=0.1,eval=round,reuse=true",
    ]) {
        assert_eq!(line["player"], player, "the canonical spec");
        assert_eq!(line["opponent"], "greedy");
        assert_eq!(line["matches"], 4);
        let (moves, nodes) = (line["moves"].as_u64().unwrap(), line["nodes"].as_u64().unwrap());
        // Every searched decision plays at least one move in search; greedy plays none.
        assert!(moves > 0 && nodes >= moves / 2, "{line}");
        let results =
            ["unfinished", "player_wins", "opponent_wins"].map(|k| line[k].as_u64().unwrap());
        assert_eq!(results.iter().sum::<u64>(), 4, "{line}");
    }
    let text = ok(&[
        "bench",
        "--matches",
        "50",
        "--repeat",
        "1",
        "--player",
        "greedy",
        "--player-matches",
        "2",
    ]);
    assert!(
        text.contains("greedy vs greedy: 2 matches") && text.contains("% of the engine's moves/s"),
        "{text}"
    );
}

#[test]
fn a_bad_player_is_a_usage_error() {
    usage_error(
        &["bench", "--player", "minimax:depth=2,speed=3"],
        &["unknown key 'speed'", "depth, nodes, eval"],
    );
    usage_error(&["bench", "--player", "mcts:c=fast"], &["c=fast"]);
}

#[test]
fn detail_ratios_time_the_same_matches_end_to_end_and_leave_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let out = ok(&[
        "bench",
        "--matches",
        "30",
        "--fine-matches",
        "3",
        "--repeat",
        "2",
        "--detail",
        "all",
        "--json",
        "--dir",
        s(dir.path()),
    ]);
    let lines: Vec<serde_json::Value> =
        out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2, "one line per repeat: {out}");
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(line["repeat"], i + 1);
        let engine = &line["engine"];
        let details: Vec<&str> = line["details"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["detail"].as_str().unwrap())
            .collect();
        assert_eq!(details, ["match", "round", "move", "lap"]);
        for d in line["details"].as_array().unwrap() {
            let fine = d["detail"] == "move" || d["detail"] == "lap";
            assert_eq!(d["matches"], if fine { 3 } else { 30 }, "{d}");
            assert_eq!(d["rows"]["matches"], d["matches"], "the run wrote every match: {d}");
            assert!(d["bytes"].as_u64().unwrap() > 0 && d["ratio"].as_f64().unwrap() > 0.0, "{d}");
            let rate = d["matches"].as_f64().unwrap() / d["seconds"].as_f64().unwrap();
            assert!((d["matches_per_second"].as_f64().unwrap() / rate - 1.0).abs() < 1e-9);
            let ratio = rate / engine["matches_per_second"].as_f64().unwrap();
            assert!((d["ratio"].as_f64().unwrap() / ratio - 1.0).abs() < 1e-9, "{d}");
        }
        // The round-detail run played the engine's matches: as many rounds.
        assert_eq!(line["details"][1]["rows"]["rounds"], engine["rounds"], "{line}");
        assert!(
            line["details"][3]["rows"]["laps"].as_u64().unwrap()
                > line["details"][2]["rows"]["moves"].as_u64().unwrap()
        );
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "the temporary datasets are removed"
    );
    let text = ok(&[
        "bench",
        "--matches",
        "20",
        "--repeat",
        "1",
        "--detail",
        "round,match",
        "--dir",
        s(dir.path()),
    ]);
    assert!(
        text.contains("repeat 1: engine ")
            && text.contains("; round ")
            && text.contains("; match "),
        "{text}"
    );
    assert!(text.contains("ratios, lowest-highest over 1 repeats: round "), "{text}");
    usage_error(
        &["bench", "--detail", "rounds"],
        &["bad detail 'rounds'", "match, round, move, lap, or all"],
    );
    usage_error(&["bench", "--detail", "all", "--player", "greedy"], &["--player"]);
    usage_error(
        &["bench", "--detail", "match", "--dir", "/no/such/dir"],
        &["--dir", "no such directory"],
    );
}
