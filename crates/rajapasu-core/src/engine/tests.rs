//! Engine tests: golden traces, perft, and properties over random matches.

use std::path::PathBuf;

use serde_json::Value;

use super::trace::{replay, TraceEvent, TraceObserver};
use super::*;

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden")
}

/// (rules, first, moves, expected lines) of a golden trace file.
fn load_golden(name: &str) -> (Ruleset, Side, Vec<usize>, Vec<Value>) {
    let text = std::fs::read_to_string(golden_dir().join(name)).unwrap();
    let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let header = &lines[0];
    assert_eq!(header["kind"], "header");
    let rules: Ruleset = serde_json::from_value(header["rules"].clone()).unwrap();
    let first: Side = serde_json::from_value(header["first"].clone()).unwrap();
    let moves = lines
        .iter()
        .filter(|l| l["kind"] == "move")
        .map(|l| l["pit"].as_u64().unwrap() as usize)
        .collect();
    (rules, first, moves, lines)
}

fn golden_files() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(golden_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".jsonl"))
        .collect();
    names.sort();
    assert!(names.len() >= 13, "golden traces missing: {names:?}");
    names
}

#[test]
fn every_golden_trace_replays_identically() {
    for name in golden_files() {
        let (rules, first, moves, expected) = load_golden(&name);
        let mut got = Vec::new();
        replay(rules, first, &moves, |e| got.push(serde_json::to_value(&e).unwrap()))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(got.len(), expected.len(), "{name}: line count");
        // The header may carry more keys (the hash); rules and first must agree.
        assert_eq!(got[0]["rules"], expected[0]["rules"], "{name}: header rules");
        assert_eq!(got[0]["first"], expected[0]["first"], "{name}: header first");
        for (i, (g, e)) in got.iter().zip(&expected).enumerate().skip(1) {
            assert_eq!(g, e, "{name}: line {}", i + 1);
        }
    }
}

#[test]
fn golden_perft_counts() {
    let text = std::fs::read_to_string(golden_dir().join("perft.json")).unwrap();
    let data: Value = serde_json::from_str(&text).unwrap();
    for case in data["cases"].as_array().unwrap() {
        let rules: Ruleset = serde_json::from_value(case["rules"].clone()).unwrap();
        let pos = Position::opening(rules, Side::South);
        for (d, want) in case["perft"].as_array().unwrap().iter().enumerate() {
            let depth = d as u32 + 1;
            assert_eq!(perft(&pos, depth), want.as_u64().unwrap(), "{rules}: perft({depth})");
        }
    }
}

#[test]
fn the_worked_example_of_the_rules() {
    // docs/rules.md: every opening move is a relay of 12 laps; local pit 0 ends 15-4, pit 5 ends 7-12,
    // the other five 11-8.
    let pos = Position::opening(Ruleset::default(), Side::South);
    for pit in 0..7 {
        let (after, s) = pos.after(Pit::new(pit, 7).unwrap());
        assert_eq!(s.laps, 12, "pit {pit}");
        let want = match pit {
            0 => (15, 4),
            5 => (7, 12),
            _ => (11, 8),
        };
        assert_eq!((after.reserve()[Side::South], after.reserve()[Side::North]), want, "pit {pit}");
    }
}

/// A random match played with `Game::play` (checked), returning its moves and trace.
fn random_match(rules: Ruleset, first: Side, seed: u64) -> (Vec<usize>, Vec<TraceEvent>) {
    let mut rng = Rng::from_seed(seed);
    let mut moves = Vec::new();
    let mut trace = Vec::new();
    let mut game = replay(rules, first, &[], |e| trace.push(e)).unwrap();
    let total = rules.total_counters();
    while !game.is_over() {
        let legal = game.legal_moves();
        assert!(!legal.is_empty(), "a settled, unfinished match always has a legal move");
        let pit = legal.nth(rng.below(legal.len() as u32) as usize).index();
        // Checked and unchecked play agree.
        let mut unchecked = *game.position();
        let s_unchecked = unchecked.play_unchecked(Pit::new(pit, rules.pits_per_row).unwrap());
        let before = *game.position();
        let kept = game.round_start().kept;
        let mut obs = TraceObserver::default();
        let (summary, end) = game.play_observed(pit, &mut obs).unwrap();
        assert_eq!(summary, s_unchecked);
        if end.is_none() {
            assert_eq!(*game.position(), unchecked);
        }
        // Counters conserved after every move (R1), laps and captures consistent.
        assert_eq!(unchecked.on_board() + unchecked.reserve().0.iter().sum::<u32>(), total);
        assert_eq!(obs.laps.len() as u32, summary.laps);
        assert_eq!(obs.laps.iter().sum::<u32>(), summary.sown);
        let captured: u32 = obs.captures.iter().map(|c| c.n as u32).sum();
        assert_eq!(before.on_board() - unchecked.on_board(), captured);
        if let Some(end) = end {
            assert_eq!(
                end.holdings[Side::South] + end.holdings[Side::North],
                total,
                "R10: round end conserves"
            );
            for side in Side::ALL {
                assert_eq!(
                    end.holdings[side],
                    kept[side] + end.captured[side],
                    "R12: holdings are kept plus captured"
                );
            }
        }
        moves.push(pit);
        if moves.len() > 200_000 {
            panic!("match did not end");
        }
    }
    let mut replayed = Vec::new();
    replay(rules, first, &moves, |e| replayed.push(e)).unwrap();
    (moves, replayed)
}

fn variant_rulesets() -> Vec<Ruleset> {
    let sets: &[&[&str]] = &[
        &[],
        &["final_four=stays"],
        &["final_four=sower"],
        &["skip_origin=true"],
        &["pussa_chain=true"],
        &["endless=stop", "final_four=stays"],
        &["next_starter=round_winner"],
        &["pits_per_row=2", "seeds_per_pit=1"],
        &["pits_per_row=3", "seeds_per_pit=2", "pussa_chain=true"],
        &["pits_per_row=4", "seeds_per_pit=3", "max_rounds=50"],
        &["pits_per_row=9", "seeds_per_pit=12", "skip_origin=true"],
        &["pits_per_row=5", "seeds_per_pit=4", "final_four=stays", "endless=stop"],
        &["max_rounds=3"],
    ];
    sets.iter().map(|s| Ruleset::from_assignments(s.iter().copied()).unwrap()).collect()
}

#[test]
fn random_matches_conserve_counters_and_replay_their_own_trace() {
    for (i, rules) in variant_rulesets().into_iter().enumerate() {
        for seed in 0..6u64 {
            let first = if seed % 2 == 0 { Side::South } else { Side::North };
            let (moves, trace) = random_match(rules, first, seed * 100 + i as u64);
            // Replaying its own moves gives the same trace, and the match ends with match_end.
            let mut again = Vec::new();
            replay(rules, first, &moves, |e| again.push(e)).unwrap();
            assert_eq!(trace, again);
            assert!(matches!(trace.last(), Some(TraceEvent::MatchEnd { .. })), "{rules}");
            // Round ends conserve counters, and rounds are numbered 1, 2, ...
            let mut round = 0;
            for e in &trace {
                match e {
                    TraceEvent::RoundStart { round: r, board, reserve, .. } => {
                        round += 1;
                        assert_eq!(*r, round);
                        let on_board: u32 = board.iter().map(|&n| n as u32).sum();
                        assert_eq!(
                            on_board + reserve.0.iter().sum::<u32>(),
                            rules.total_counters()
                        );
                    }
                    TraceEvent::RoundEnd { captured, holdings, .. } => {
                        assert_eq!(holdings.0.iter().sum::<u32>(), rules.total_counters());
                        assert!(captured[Side::South] <= holdings[Side::South]);
                    }
                    _ => {}
                }
            }
        }
    }
}

/// Positions reached by random play under a ruleset, for move generation tests.
fn sample_positions(rules: Ruleset, count: usize, seed: u64) -> Vec<Position> {
    let mut rng = Rng::from_seed(seed);
    let mut out = Vec::new();
    let mut game = Game::new(rules, Side::South);
    while out.len() < count {
        if game.is_over() {
            game = Game::new(rules, Side::from_index(out.len() % 2));
        }
        out.push(*game.position());
        let legal = game.legal_moves();
        if legal.is_empty() {
            game.end_round();
            continue;
        }
        let pit = legal.nth(rng.below(legal.len() as u32) as usize);
        game.play(pit.index()).unwrap();
    }
    out
}

#[test]
fn legal_moves_are_the_candidates_minus_the_endless_ones() {
    for rules in variant_rulesets() {
        for pos in sample_positions(rules, 400, 11) {
            let candidates = pos.candidates();
            let legal = pos.legal_moves();
            // Partition: every local pit is exactly one of: no candidate, legal, endless-forbidden.
            for local in 0..rules.pits_per_row as usize {
                let pit = Pit::new(local, rules.pits_per_row).unwrap();
                let is_candidate =
                    pos.open()[pos.turn()].contains(pit) && pos.count(pos.turn(), pit) > 0;
                assert_eq!(candidates.contains(pit), is_candidate);
                let endless = is_candidate && pos.after(pit).1.endless;
                let forbidden = endless && rules.endless == Endless::Forbid;
                assert_eq!(legal.contains(pit), is_candidate && !forbidden, "{pos:?} pit {local}");
                assert_eq!(pos.check(local).is_none(), legal.contains(pit));
                let mut copy = pos;
                match copy.play(local) {
                    Ok(_) => assert!(legal.contains(pit)),
                    Err(e) => {
                        assert!(!legal.contains(pit));
                        assert_eq!(e.legal, legal);
                        assert_eq!(copy, pos, "a refused move leaves the position unchanged");
                    }
                }
            }
            assert_eq!(pos.has_legal_move(), !legal.is_empty());
            assert!(pos.check(rules.pits_per_row as usize).is_some());
        }
    }
}

#[test]
fn endless_moves_stop_exactly_and_conserve() {
    // The golden endless move (endless_stop_stays.jsonl) is endless under stop, illegal under forbid.
    let (rules, first, moves, lines) = load_golden("endless_stop_stays.jsonl");
    let idx = lines.iter().position(|l| l["endless"] == true).unwrap();
    let ply = lines[idx]["ply"].as_u64().unwrap() as usize;
    let mut game = Game::new(rules, first);
    for &pit in &moves[..ply - 1] {
        game.play(pit).unwrap();
    }
    let pos = *game.position();
    let pit = moves[ply - 1];
    let (after, summary) = pos.after(Pit::new(pit, 7).unwrap());
    assert!(summary.endless);
    assert_eq!(after.on_board() + after.reserve().0.iter().sum::<u32>(), 98);
    let forbid = Ruleset { endless: Endless::Forbid, ..rules };
    let pos_forbid = Position::from_setup(Setup { rules: forbid, ..pos.to_setup() }).unwrap();
    let err = { pos_forbid }.play(pit).unwrap_err();
    assert_eq!(err.reason, IllegalReason::Endless);
    assert!(!err.legal.contains(Pit::new(pit, 7).unwrap()));
    assert!(err.to_string().contains("endless"), "{err}");
}

#[test]
fn setup_validation_names_the_problem() {
    let rules = Ruleset::default();
    let good = Position::opening(rules, Side::South).to_setup();
    assert!(Position::from_setup(good.clone()).is_ok());
    let mut s = good.clone();
    s.board.pop();
    assert!(matches!(Position::from_setup(s), Err(SetupError::BoardSize { got: 13, want: 14 })));
    let mut s = good.clone();
    s.board[0] += 1;
    assert!(matches!(Position::from_setup(s), Err(SetupError::Counters { got: 99, want: 98 })));
    let mut s = good.clone();
    s.open[Side::North] = PitSet(0b0111_1110);
    s.reserve[Side::North] += 7;
    s.board[7] = 0;
    assert!(Position::from_setup(s.clone()).is_ok());
    s.open[Side::North] = PitSet(0b0111_1101);
    assert!(matches!(
        Position::from_setup(s),
        Err(SetupError::OpenNotAtRightEnd { side: Side::North })
    ));
    let mut s = good.clone();
    s.open[Side::South] = PitSet(0b0111_1110);
    assert!(matches!(Position::from_setup(s), Err(SetupError::ClosedPitNotEmpty { pit: 0, n: 7 })));
}

#[test]
fn setup_totals_do_not_wrap_around() {
    // 98 on the board plus 4294967295 + 1 wraps to 98 in 32 bits: refused all the same.
    let good = Position::opening(Ruleset::default(), Side::South).to_setup();
    let mut s = good.clone();
    s.reserve = BySide::new(u32::MAX, 1);
    assert_eq!(
        Position::from_setup(s),
        Err(SetupError::Reserve { side: Side::South, got: u32::MAX, want: 98 })
    );
    let mut s = good.clone();
    s.reserve = BySide::new(1, u32::MAX - 97);
    assert!(matches!(Position::from_setup(s), Err(SetupError::Reserve { side: Side::North, .. })));
    // Each reserve within the total, their sum beyond it.
    let mut s = good;
    s.reserve = BySide::new(98, 98);
    assert_eq!(Position::from_setup(s), Err(SetupError::Counters { got: 294, want: 98 }));
}

#[test]
fn round_start_fills_from_the_right_end() {
    // R12: 44 holdings at 7 per pit fill 6 pits (1..6), keep 2; 3 fill none and lose (R14).
    let rules = Ruleset::default();
    let (pos, kept) = Position::round_start(rules, BySide::new(44, 54), Side::North);
    assert_eq!(pos.board(), &[0, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7]);
    assert_eq!(kept, BySide::new(2, 5));
    assert_eq!(pos.open()[Side::South], PitSet(0b111_1110));
    let (pos, kept) = Position::round_start(rules, BySide::new(90, 8), Side::South);
    assert_eq!(pos.open()[Side::North].len(), 1);
    assert_eq!(kept, BySide::new(41, 1));
    assert_eq!(pos.board()[13], 7);
}

/// Every position reachable in round 1 of a small board, each checked: the legal moves
/// partition the candidates with the endless ones, and every legal move conserves counters.
#[test]
fn exhaustive_move_generation_on_small_boards() {
    use std::collections::{HashSet, VecDeque};
    let cases: &[&[&str]] = &[
        &["pits_per_row=4", "seeds_per_pit=4"],
        &["pits_per_row=5", "seeds_per_pit=3", "final_four=stays"],
        &["pits_per_row=5", "seeds_per_pit=4"],
        &["pits_per_row=3", "seeds_per_pit=5", "final_four=stays", "endless=stop"],
        &["pits_per_row=4", "seeds_per_pit=5", "skip_origin=true", "pussa_chain=true"],
        &["pits_per_row=3", "seeds_per_pit=6", "final_four=sower"],
        // Round 1 of these reaches an endless candidate move (R9): one position of each.
        &["pits_per_row=4", "seeds_per_pit=6", "final_four=stays"],
        &["pits_per_row=4", "seeds_per_pit=6", "final_four=stays", "endless=stop"],
    ];
    for case in cases {
        let rules = Ruleset::from_assignments(case.iter().copied()).unwrap();
        let start = Position::opening(rules, Side::South);
        let key = |p: &Position| (p.board().to_vec(), p.turn(), p.reserve());
        let mut seen = HashSet::from([key(&start)]);
        let mut queue = VecDeque::from([start]);
        let mut endless = 0;
        while let Some(pos) = queue.pop_front() {
            let legal = pos.legal_moves();
            for pit in pos.candidates().iter() {
                let (after, summary) = pos.after(pit);
                endless += summary.endless as u32;
                assert_eq!(
                    legal.contains(pit),
                    !(summary.endless && rules.endless == Endless::Forbid),
                    "{case:?} {pos:?} {pit}"
                );
                assert_eq!(
                    after.on_board() + after.reserve().0.iter().sum::<u32>(),
                    rules.total_counters()
                );
                assert_eq!(after.turn(), pos.turn().other());
                if legal.contains(pit) && seen.insert(key(&after)) {
                    queue.push_back(after);
                }
            }
            for local in 0..rules.pits_per_row as usize {
                let pit = Pit::new(local, rules.pits_per_row).unwrap();
                assert_eq!(pos.candidates().contains(pit), pos.count(pos.turn(), pit) > 0);
            }
            assert_eq!(pos.has_legal_move(), !legal.is_empty());
        }
        assert!(seen.len() > 40, "{case:?}: only {} positions", seen.len());
        let expect_endless =
            case.contains(&"seeds_per_pit=6") && case.contains(&"final_four=stays");
        assert_eq!(endless > 0, expect_endless, "{case:?}: {endless} endless candidates");
    }
}

/// A match set up at a round's start, or inside a round, plays on as the match it was taken
/// from: the same positions after every move and the same holdings at each round's end (the
/// set-up's captures counted from the set-up).
#[test]
fn a_set_up_match_plays_on_as_the_match_it_was_taken_from() {
    let rules = Ruleset { pits_per_row: 4, seeds_per_pit: 3, ..Default::default() };
    let mut rng = Rng::from_seed(11);
    let (mut whole, mut moves) = (Game::new(rules, Side::North), Vec::new());
    let mut history = vec![whole];
    while !whole.is_over() && whole.ply() < 400 {
        let legal: Vec<Pit> = whole.legal_moves().iter().collect();
        let pit = legal[rng.below(legal.len() as u32) as usize].index();
        whole.play(pit).unwrap();
        moves.push(pit);
        history.push(whole);
    }
    let second = history.iter().position(|g| g.round() == 2).expect("the match reaches round 2");
    let mid = second / 2;
    let at_round = Game::from_round_start(
        rules,
        history[second].holdings(),
        history[second].round_start().starter,
    );
    assert_eq!(at_round.position(), history[second].position());
    for (from, mut game) in
        [(second, at_round), (mid, Game::from_position(*history[mid].position()))]
    {
        for (i, &pit) in moves[from..].iter().enumerate() {
            let (_, end) = game.play(pit).unwrap();
            let want = &history[from + i + 1];
            assert_eq!(game.position(), want.position(), "set up at ply {from}, move {}", i + 1);
            if let Some(end) = end {
                assert_eq!(end.holdings, want.holdings());
            }
        }
        assert_eq!(game.outcome(), whole.outcome());
    }
}
