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
    let lines: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert_eq!(lines[0]["matches"], 100);
    assert!(lines[0]["moves_per_second"].as_f64().unwrap() > 0.0);
    for (line, player) in
        lines[1..].iter().zip(["minimax:depth=2,nodes=unlimited,eval=match", "mcts:playouts=16,c=0.1,eval=round,reuse=true"])
    {
        assert_eq!(line["player"], player, "the canonical spec");
        assert_eq!(line["opponent"], "greedy");
        assert_eq!(line["matches"], 4);
        let (moves, nodes) = (line["moves"].as_u64().unwrap(), line["nodes"].as_u64().unwrap());
        // Every searched decision plays at least one move in search; greedy plays none.
        assert!(moves > 0 && nodes >= moves / 2, "{line}");
        let results = ["unfinished", "player_wins", "opponent_wins"].map(|k| line[k].as_u64().unwrap());
        assert_eq!(results.iter().sum::<u64>(), 4, "{line}");
    }
    let text = ok(&["bench", "--matches", "50", "--repeat", "1", "--player", "greedy", "--player-matches", "2"]);
    assert!(text.contains("greedy vs greedy: 2 matches") && text.contains("% of the engine's moves/s"), "{text}");
}

#[test]
fn a_bad_player_is_a_usage_error() {
    usage_error(&["bench", "--player", "minimax:depth=2,speed=3"], &["unknown key 'speed'", "depth, nodes, eval"]);
    usage_error(&["bench", "--player", "mcts:c=fast"], &["c=fast"]);
}
