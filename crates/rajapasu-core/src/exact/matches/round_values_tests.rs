use super::*;
use crate::engine::NextStarter;
use crate::exact::perfect::tests::isolated;
use crate::exact::round::solver::SolveOptions;
use sha2::{Digest, Sha256};

use crate::exact::test_rules::rules;

#[test]
fn round_values_too_large_for_the_memory_are_refused_with_their_figures() {
    let open = BySide::new(7, 7);
    // The real board's full round: 22,239,436 positions, 1,797,844,538 cells (80.8 reserves
    // of South a position, fewer the more counters are on the board): 3.6 GB.
    assert_eq!(RoundValues::fits(1_797_844_538, 22_239_436, open, 6 << 30), Ok(()));
    let err = RoundValues::fits(1_797_844_538, 22_239_436, open, 3 << 30).unwrap_err();
    assert!(
        err.contains("7,7 pits open need 3595689076 bytes (22239436 positions, 1797844538 pairs")
            && err.contains("more than the 3221225472 allowed"),
        "{err}"
    );
    assert_eq!(RoundValues::fits(1000, 100, open, 2000), Ok(()));
    assert!(RoundValues::fits(1000, 100, open, 1999).is_err());
}

/// The values by the first method (each threshold's attractor from nothing, by
/// [`RoundGraph::attract_observed`]): the rounds within which f wins, per node and reserve
/// `lo..=hi` (u8::MAX: never).
fn reference_rounds(
    graph: &RoundGraph,
    table: &MatchTable,
    ending: Ending,
    lo: u32,
    hi: u32,
) -> [Vec<u8>; 2] {
    let rules = *table.rules();
    let width = (hi - lo + 1) as usize;
    let mut dist = [vec![u8::MAX; graph.nodes() * width], vec![u8::MAX; graph.nodes() * width]];
    for f in Side::ALL {
        let wins = table.wins_of(f);
        for t in 1..=table.max_rounds() + 1 {
            let masks = end_masks(&rules, ending, graph.on_board(), &|h, st| {
                wins[h as usize][st.index()] < t
            });
            let win = graph.attract(f, &|left, mover| masks[left as usize][mover.index()]);
            for (x, m) in win.iter().enumerate() {
                for i in 0..width {
                    if (m >> (lo as usize + i)) & 1 == 1
                        && dist[f.index()][x * width + i] == u8::MAX
                    {
                        dist[f.index()][x * width + i] = t as u8;
                    }
                }
            }
        }
    }
    dist
}

#[test]
fn compact_round_values_equal_the_first_method_and_every_decided_cell_has_a_move() {
    let mut decided = 0;
    for r in [
        rules(3, 2, &[]),
        rules(4, 2, &[]),
        rules(3, 3, &[]),
        rules(3, 4, &["pussa_chain=true"]),
        rules(3, 2, &["next_starter=round_winner"]),
    ] {
        let table = isolated().match_table(r).unwrap();
        let mut configs: Vec<(BySide<u8>, Ending, u32)> = table
            .states()
            .into_iter()
            .map(|(state, _)| {
                let h = state.holdings[Side::South];
                let open = crate::exact::open_pits(&r, h);
                let kept = h - open[Side::South] as u32 * r.seeds_per_pit as u32;
                let ending = match r.next_starter {
                    NextStarter::Collector => Ending::Collector,
                    NextStarter::RoundWinner => {
                        Ending::RoundWinner { kept, starter: state.starter }
                    }
                };
                (open, ending, kept)
            })
            .collect();
        configs.sort_by_key(|c| (c.0[Side::South], c.0[Side::North], c.2, format!("{:?}", c.1)));
        configs.dedup_by_key(|c| (c.0, c.1, c.2));
        for (open, ending, kept) in configs {
            let graph = Arc::new(RoundGraph::build(r, open, SolveOptions::default()).unwrap());
            let (lo, hi) = (kept, (kept + graph.on_board()).min(r.total_counters()));
            let reference = reference_rounds(&graph, &table, ending, lo, hi);
            let values =
                RoundValues::compute(graph.clone(), &table, ending, Reserves { lo, hi }).unwrap();
            let width = (hi - lo + 1) as usize;
            for x in 0..graph.nodes() as u32 {
                let n = graph.level_of(x);
                for off in lo..=hi - n as u32 {
                    let cell = x as usize * width + (off - lo) as usize;
                    for f in Side::ALL {
                        let want = reference[f.index()][cell];
                        assert_eq!(
                            values.at(f, x, off).0,
                            (want != u8::MAX).then_some(want as u32),
                            "{r:?} {open:?} node {x} reserve {off}"
                        );
                    }
                    if graph.moves_of(x).next().is_some() {
                        // Whoever moves, won, lost or drawn, has a move that keeps the value.
                        let side = graph.mover_of(x);
                        assert!(
                            !values.best(x, off, side).is_empty(),
                            "{r:?} {open:?} node {x} reserve {off}: no perfect move"
                        );
                        decided += (values.at(side, x, off).0.is_some()
                            || values.at(side.other(), x, off).0.is_some())
                            as u32;
                    }
                }
            }
        }
    }
    assert!(decided > 1000, "{decided} decided cells checked");
}

#[test]
fn round_values_at_each_round_start_equal_the_match_table() {
    for r in [
        rules(3, 2, &[]),
        rules(4, 2, &[]),
        rules(3, 4, &[]),
        rules(3, 2, &["next_starter=round_winner"]),
    ] {
        let table = isolated().match_table(r).unwrap();
        for (state, v) in table.states() {
            let h = state.holdings[Side::South];
            let open = crate::exact::open_pits(&r, h);
            let kept = h - open[Side::South] as u32 * r.seeds_per_pit as u32;
            let graph = Arc::new(RoundGraph::build(r, open, SolveOptions::default()).unwrap());
            let ending = match r.next_starter {
                NextStarter::Collector => Ending::Collector,
                NextStarter::RoundWinner => Ending::RoundWinner { kept, starter: state.starter },
            };
            let values = RoundValues::compute(
                graph.clone(),
                &table,
                ending,
                Reserves { lo: kept, hi: (kept + graph.on_board()).min(r.total_counters()) },
            )
            .unwrap();
            let root = graph.root(state.starter);
            for f in Side::ALL {
                assert_eq!(
                    values.at(f, root, kept).0,
                    table.wins_within(f, state),
                    "{r:?} {state:?} {f}"
                );
            }
            // The player's moves at the round's start are among the state's best moves.
            if !v.best_moves.is_empty() {
                let chosen = values.best(root, kept, state.starter);
                assert!(
                    !chosen.is_empty() && chosen.iter().all(|p| v.best_moves.contains(p)),
                    "{r:?} {state:?} {chosen} {}",
                    v.best_moves
                );
            }
        }
    }
}

#[test]
fn values_saved_and_loaded_are_equal_and_a_damaged_file_is_refused_by_name() {
    let r = rules(4, 2, &[]);
    let dir = tempfile::tempdir().unwrap();
    let table = MatchTable::solve(r, SolveOptions::default(), None, None, &mut |_| {}, &mut |_| {})
        .unwrap();
    let digest = table.digest();
    let open = BySide::new(4, 4);
    let graph = Arc::new(RoundGraph::build(r, open, SolveOptions::default()).unwrap());
    let reserves = Reserves { lo: 0, hi: graph.on_board() };
    let top = table.max_rounds() + 1;
    let mut values =
        RoundValues::compute(graph.clone(), &table, Ending::Collector, reserves).unwrap();
    // One deep layer, as the real board has, to carry the far entries through the file.
    let deep = values.wins.iter().position(|&w| w != 0).unwrap();
    values.layer[deep] = FAR;
    values.far.insert(deep as u64, 300);
    let path = round_values_path(dir.path(), &r, open, Ending::Collector);
    values.save(&path, &digest, &r, Ending::Collector).unwrap();
    let load = |table: &str| {
        RoundValues::load(&path, table, graph.clone(), &r, Ending::Collector, reserves, top)
    };
    let loaded = load(&digest).unwrap().unwrap();
    assert!(loaded.wins == values.wins && loaded.layer == values.layer && loaded.far == values.far);
    let none = dir.path().join("none.bin");
    assert!(RoundValues::load(&none, &digest, graph.clone(), &r, Ending::Collector, reserves, top)
        .unwrap()
        .is_none());
    let other = load(&"0".repeat(64)).err().unwrap();
    assert!(
        other.contains(&path.display().to_string())
            && other.contains("computed from another match table"),
        "{other}"
    );
    let good = std::fs::read(&path).unwrap();
    let damaged = |bytes: &[u8]| {
        std::fs::write(&path, bytes).unwrap();
        load(&digest).err().expect("refused")
    };
    // Any changed byte of the body is found by the digest, the file named.
    let body = good.len() - 32 - 12 - 2 * values.wins.len();
    for (at, bit) in [
        (body + deep, 0x80),
        (body + deep, 0x01),
        (body + values.wins.len() + deep, 0x02),
        (good.len() - 40, 0x10),
    ] {
        let mut flipped = good.clone();
        flipped[at] ^= bit;
        let e = damaged(&flipped);
        assert!(
            e.starts_with(&path.display().to_string()) && e.contains("do not match the SHA-256"),
            "byte {at}: {e}"
        );
    }
    // A changed value with the digest made again is still checked value by value.
    let resealed = |mut bytes: Vec<u8>| {
        let n = bytes.len() - 32;
        let d = Sha256::digest(&bytes[..n]);
        bytes[n..].copy_from_slice(&d);
        bytes
    };
    let mut bad_value = good.clone();
    bad_value[body + deep] = 0x7f;
    assert!(damaged(&resealed(bad_value.clone())).contains(&format!("cell {deep} holds 127")));
    assert!(damaged(&good[..good.len() - 1]).contains("not the size"));
    assert!(damaged(&good[..10]).contains("shorter than its header"));
    let mut other = good.clone();
    other[body - 30] ^= 1;
    assert!(damaged(&other).contains("not the values of this round"));
    let mut far = good.clone();
    let n = far.len() - 32;
    far[n - 4..n].copy_from_slice(&7u32.to_le_bytes());
    assert!(damaged(&resealed(far)).contains("deep layer entry"));
    assert!(damaged(&[]).contains("shorter than its header"));
    // A FIFO named like a values file is refused, not waited on.
    std::fs::remove_file(&path).unwrap();
    assert!(std::process::Command::new("mkfifo").arg(&path).status().unwrap().success());
    let e = load(&digest).err().unwrap();
    assert!(e.contains("not a regular file"), "{e}");
}
