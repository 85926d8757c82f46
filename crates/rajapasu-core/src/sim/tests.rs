use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

use super::schema::{LAPS, MATCHES, MOVES, QUALITY, ROUNDS};
use super::table::{ColumnData, ColumnType, Table};
use super::*;
use crate::agents::{AgentSpec, Resources};
use crate::engine::{Ruleset, Side};

fn config(matches: u64, detail: Detail, batch_size: u64) -> RunConfig {
    RunConfig {
        rules: Ruleset::default(),
        south: AgentSpec::Random,
        north: AgentSpec::Greedy,
        first: FirstPolicy::Alternate,
        seed: 2024,
        matches,
        detail,
        batch_size,
        shard: Shard::WHOLE,
    }
}

/// Collects batches in memory, by index.
#[derive(Default)]
struct MemorySink {
    batches: Mutex<BTreeMap<u64, Batch>>,
}

impl BatchSink for MemorySink {
    type Error = ();
    fn is_done(&self, b: u64) -> bool {
        self.batches.lock().unwrap().contains_key(&b)
    }
    fn write(&self, batch: Batch) -> Result<Batch, ()> {
        self.batches.lock().unwrap().insert(batch.index, batch);
        Ok(Batch::default())
    }
}

impl MemorySink {
    /// All rows of every table, concatenated in batch order, and the merged histograms.
    fn merged(&self) -> Merged {
        let mut tables: Vec<Table> =
            [MATCHES, ROUNDS, MOVES, LAPS, QUALITY].iter().map(schema::empty_table).collect();
        let mut histograms = Histograms::default();
        let mut by_round = quality::ByRound::default();
        for b in self.batches.lock().unwrap().values() {
            histograms.merge(&b.histograms);
            by_round.merge(&b.by_round);
            for t in b.clone().into_tables(Detail::Lap) {
                if let Some(all) = tables.iter_mut().find(|a| a.name == t.name) {
                    all.append(&t);
                }
            }
        }
        Merged { tables, histograms, by_round }
    }
}

/// Every column of a run's tables.
#[derive(Debug, PartialEq)]
struct Merged {
    tables: Vec<Table>,
    histograms: Histograms,
    by_round: quality::ByRound,
}

impl Merged {
    fn table(&self, name: &str) -> &Table {
        self.tables.iter().find(|t| t.name == name).unwrap()
    }
    fn matches(&self) -> schema::MatchColumns {
        schema::MatchColumns::read(self.table("matches").clone()).unwrap()
    }
}

/// The resources of the players of these tests: one store of exact results, its tables in a
/// temporary directory.
fn players() -> Resources {
    Resources::new(crate::exact::perfect::tests::isolated())
}

fn run_all(cfg: &RunConfig, threads: usize) -> MemorySink {
    let sink = MemorySink::default();
    run(cfg, &players(), threads, &sink, &|_| {}, &AtomicBool::new(false)).unwrap();
    sink
}

#[test]
fn rows_do_not_depend_on_threads_batches_or_shards() {
    let a = run_all(&config(60, Detail::Lap, 7), 1).merged();
    let b = run_all(&config(60, Detail::Lap, 7), 2).merged();
    let c = run_all(&config(60, Detail::Lap, 25), 2).merged();
    // Every column of every table, the histograms and the sums by round number.
    assert_eq!(a, b);
    assert_eq!(a, c);
    let mut sharded = Vec::new();
    for k in 1..=3 {
        let cfg = RunConfig { shard: Shard { index: k, count: 3 }, ..config(60, Detail::Lap, 7) };
        sharded.push(run_all(&cfg, 2));
    }
    let union = MemorySink::default();
    for s in sharded {
        union.batches.lock().unwrap().extend(s.batches.into_inner().unwrap());
    }
    assert_eq!(union.merged(), a);
    // The comparison covers every column of every table, each holding rows.
    assert!(a.by_round.played().count() > 5);
    for (t, spec) in a.tables.iter().zip([MATCHES, ROUNDS, MOVES, LAPS, QUALITY]) {
        assert_eq!(
            t.columns.iter().map(|c| c.name).collect::<Vec<_>>(),
            spec.columns.iter().map(|c| c.name).collect::<Vec<_>>()
        );
        assert!(t.rows() >= 60, "{} has {} rows", t.name, t.rows());
    }
    assert_eq!(a.table("matches").column("match_id"), Some(&ColumnData::U64((0..60).collect())));
    // A different seed gives different rows: the comparison can fail.
    let other = run_all(&RunConfig { seed: 2025, ..config(60, Detail::Lap, 7) }, 2).merged();
    assert_ne!(other.table("moves"), a.table("moves"));
}

#[test]
fn totals_agree_across_tables_and_counters_are_conserved() {
    for endless in ["endless=stop", "endless=forbid"] {
        let cfg = RunConfig {
            rules: Ruleset::from_assignments(["final_four=stays", endless]).unwrap(),
            ..config(40, Detail::Lap, 40)
        };
        tables_agree(&simulate_batch(&cfg, &players(), 0).unwrap(), &cfg.rules);
    }
}

fn tables_agree(b: &Batch, rules: &Ruleset) {
    let (total, seeds, pits) =
        (rules.total_counters() as i64, rules.seeds_per_pit as i64, rules.pits_per_row as i64);
    for i in 0..b.matches.len() {
        let id = b.matches.match_id[i];
        let rounds: Vec<usize> =
            (0..b.rounds.len()).filter(|&r| b.rounds.match_id[r] == id).collect();
        assert_eq!(rounds.len() as i64, b.matches.rounds[i]);
        let sum = |col: &Vec<i64>| rounds.iter().map(|&r| col[r]).sum::<i64>();
        assert_eq!(sum(&b.rounds.moves), b.matches.moves[i]);
        assert_eq!(sum(&b.rounds.laps), b.matches.laps[i]);
        assert_eq!(sum(&b.rounds.south_pussa), b.matches.south_pussa[i]);
        assert_eq!(sum(&b.rounds.north_gifted_fours), b.matches.north_gifted_fours[i]);
        assert_eq!(sum(&b.rounds.south_remainder), b.matches.south_remainder[i]);
        for &r in &rounds {
            // A side's total is the sum of its sources; both totals plus what was kept is everything.
            let rr = &b.rounds;
            assert_eq!(
                rr.south_total[r],
                rr.south_pussa[r]
                    + rr.south_own_fours[r]
                    + rr.south_gifted_fours[r]
                    + rr.south_remainder[r]
            );
            assert_eq!(
                rr.north_total[r],
                rr.north_pussa[r]
                    + rr.north_own_fours[r]
                    + rr.north_gifted_fours[r]
                    + rr.north_remainder[r]
            );
            assert_eq!(
                rr.south_total[r] + rr.north_total[r] + rr.south_kept[r] + rr.north_kept[r],
                total
            );
            // Holdings at the round's start (R12): filled pits of `seeds` counters plus what was kept.
            assert_eq!(rr.first[r], b.matches.first[i]);
            assert_eq!(rr.south_holdings[r], seeds * rr.south_open[r] + rr.south_kept[r]);
            assert_eq!(rr.north_holdings[r], seeds * rr.north_open[r] + rr.north_kept[r]);
            assert_eq!(rr.south_holdings[r] + rr.north_holdings[r], total);
            assert_eq!(
                (rr.south_closed[r] + rr.south_open[r], rr.north_closed[r] + rr.north_open[r]),
                (pits, pits)
            );
        }
        // Each round starts with what the last one left: kept plus captured (R12).
        for pair in rounds.windows(2) {
            let (rr, last, next) = (&b.rounds, pair[0], pair[1]);
            assert_eq!(rr.south_holdings[next], rr.south_kept[last] + rr.south_total[last]);
            assert_eq!(rr.north_holdings[next], rr.north_kept[last] + rr.north_total[last]);
        }
        assert_eq!(b.matches.south_holdings[i] + b.matches.north_holdings[i], total);
        let moves: Vec<usize> = (0..b.moves.len()).filter(|&m| b.moves.match_id[m] == id).collect();
        assert_eq!(moves.len() as i64, b.matches.moves[i]);
        assert_eq!(moves.iter().map(|&m| b.moves.laps[m]).sum::<i64>(), b.matches.laps[i]);
        assert_eq!(
            moves.iter().filter(|&&m| b.moves.endless[m]).count() as i64,
            b.matches.endless_moves[i]
        );
    }
    // Laps rows, histograms and moves agree.
    assert_eq!(b.laps.len() as i64, b.matches.laps.iter().sum::<i64>());
    assert_eq!(b.histograms.lap_length.iter().sum::<u64>(), b.laps.len() as u64);
    assert_eq!(b.histograms.laps_per_move.iter().sum::<u64>(), b.moves.len() as u64);
    let sown: u64 = b.histograms.lap_length.iter().enumerate().map(|(v, c)| v as u64 * c).sum();
    assert_eq!(sown as i64, b.matches.sown.iter().sum::<i64>());
}

#[test]
fn recycled_batches_are_emptied_keep_their_memory_and_give_the_same_rows() {
    let cfg = config(40, Detail::Lap, 20);
    let (first, second) = (
        simulate_batch(&cfg, &players(), 0).unwrap(),
        simulate_batch(&cfg, &players(), 1).unwrap(),
    );
    let recycled = Batch::recycle(first.clone().into_tables(Detail::Lap));
    assert!(
        recycled.matches.is_empty()
            && recycled.rounds.is_empty()
            && recycled.moves.is_empty()
            && recycled.laps.is_empty()
    );
    assert_eq!(recycled.histograms, Histograms::default());
    assert!(
        recycled.laps.start_pit.capacity() >= first.laps.len()
            && recycled.rounds.south_total.capacity() >= first.rounds.len()
    );
    assert_eq!(simulate_batch_into(&cfg, &players(), 1, recycled).unwrap(), second);
    // A batch still holding rows is emptied first.
    assert_eq!(simulate_batch_into(&cfg, &players(), 0, second).unwrap(), first);
}

#[test]
fn a_run_stopped_early_and_resumed_equals_an_uninterrupted_one() {
    let cfg = config(50, Detail::Round, 5);
    let sink = MemorySink::default();
    let stop = AtomicBool::new(false);
    let done = std::sync::atomic::AtomicU64::new(0);
    let progress = |n: u64| {
        if done.fetch_add(n, std::sync::atomic::Ordering::SeqCst) + n >= 20 {
            stop.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    };
    let first = run(&cfg, &players(), 2, &sink, &progress, &stop).unwrap();
    assert!(first.written < 10, "the stop flag ended the run early");
    let second = run(&cfg, &players(), 2, &sink, &|_| {}, &AtomicBool::new(false)).unwrap();
    assert_eq!(second.skipped, first.written);
    assert_eq!(first.written + second.written, 10);
    assert_eq!(sink.merged(), run_all(&cfg, 1).merged());
}

#[test]
fn shards_partition_the_batches() {
    for batches in [0u64, 1, 5, 17, 100] {
        for n in 1..=6u32 {
            let mut next = 0;
            for k in 1..=n {
                let r = Shard { index: k, count: n }.batches(batches);
                assert_eq!(r.start, next);
                next = r.end;
            }
            assert_eq!(next, batches);
        }
    }
    assert!("0/3".parse::<Shard>().is_err());
    assert!("4/3".parse::<Shard>().is_err());
    assert!("x".parse::<Shard>().unwrap_err().contains("K/N"));
    assert_eq!("2/3".parse::<Shard>().unwrap(), Shard { index: 2, count: 3 });
}

#[test]
fn random_play_matches_the_reference_figures_roughly() {
    // docs/rules.md reference: about 38 rounds and 615 moves a match, 2.34 laps a move, 4.3
    // counters a lap, first player wins about 55%. 2,000 matches give loose checks.
    let cfg = RunConfig { north: AgentSpec::Random, ..config(2000, Detail::Match, 500) };
    let merged = run_all(&cfg, 2).merged();
    let (m, b) = (merged.matches(), &merged);
    let n = m.len() as f64;
    let rounds = m.rounds.iter().map(|&r| r as f64).sum::<f64>() / n;
    let moves = m.moves.iter().map(|&r| r as f64).sum::<f64>() / n;
    let laps: u64 = b.histograms.lap_length.iter().sum();
    let sown: u64 = b.histograms.lap_length.iter().enumerate().map(|(v, c)| v as u64 * c).sum();
    let mv: u64 = b.histograms.laps_per_move.iter().sum();
    assert!((34.0..42.0).contains(&rounds), "rounds {rounds}");
    assert!((570.0..660.0).contains(&moves), "moves {moves}");
    assert!((2.2..2.5).contains(&(laps as f64 / mv as f64)), "laps per move");
    assert!((4.1..4.5).contains(&(sown as f64 / laps as f64)), "lap length");
    let first_wins = (0..m.len()).filter(|&i| m.winner[i] == Some(m.first[i])).count() as f64 / n;
    assert!((0.51..0.59).contains(&first_wins), "first player wins {first_wins}");
}

/// Hashes every capture event in order, so a change in what an observer sees is caught.
#[derive(Default)]
struct CaptureHash(u64);

impl crate::engine::MoveObserver for CaptureHash {
    fn lap(&mut self, start: u8, sown: u8) {
        self.0 = mix(self.0, 1 << 16 | (start as u64) << 8 | sown as u64);
    }
    fn capture(&mut self, c: crate::engine::Capture) {
        let kind = matches!(c.kind, crate::engine::CaptureKind::Pussa) as u64;
        self.0 = mix(
            self.0,
            2 << 32 | kind << 24 | (c.by.index() as u64) << 16 | (c.pit as u64) << 8 | c.n as u64,
        );
    }
}

fn mix(h: u64, x: u64) -> u64 {
    (h ^ x).wrapping_mul(0x100_0000_01b3).rotate_left(29)
}

/// (moves, rounds, first-player wins, endless moves, hash of every move's pit and summary and
/// of the match's holdings).
type Fingerprint = (u64, u64, u64, u64, u64);

/// Random-vs-random matches as in `bench_engine`.
fn random_fingerprint<O: crate::engine::MoveObserver>(
    rules: Ruleset,
    matches: u64,
    seed: u64,
    obs: &mut O,
) -> Fingerprint {
    use crate::agents::{seat_rng, Agent};
    use crate::engine::Game;
    let (mut moves, mut rounds, mut first_wins, mut endless, mut h) =
        (0u64, 0u64, 0u64, 0u64, 0u64);
    for i in 0..matches {
        let first = Side::from_index((i % 2) as usize);
        let mut game = Game::new(rules, first);
        let mut agents = [
            Agent::new(AgentSpec::Random, seat_rng(seed, i, Side::South)),
            Agent::new(AgentSpec::Random, seat_rng(seed, i, Side::North)),
        ];
        while !game.is_over() {
            let side = game.position().turn();
            if let Some((pit, s)) =
                agents[side.index()].play(&mut game, obs).expect("random players never fail")
            {
                moves += 1;
                endless += s.endless as u64;
                h = mix(
                    h,
                    pit.index() as u64
                        | (s.laps as u64) << 8
                        | (s.sown as u64) << 24
                        | (s.pussa as u64) << 40
                        | (s.endless as u64) << 56,
                );
                h = mix(h, s.fours[Side::South] as u64 | (s.fours[Side::North] as u64) << 32);
            } else {
                game.end_round();
                rounds += 1;
            }
        }
        first_wins += (game.outcome().and_then(|o| o.winner()) == Some(first)) as u64;
        h = mix(h, game.holdings()[Side::South] as u64 | (game.round() as u64) << 32);
    }
    (moves, rounds, first_wins, endless, h)
}

/// Pins random play: any change of the rules engine's results or of the random stream's
/// consumption shows here.
#[test]
fn random_play_is_pinned() {
    assert_eq!(
        random_fingerprint(Ruleset::default(), 2000, 1, &mut ()),
        (1_267_589, 78_720, 1067, 0, 7_178_135_245_016_566_269)
    );
    // (rules, matches): 3,000 matches under endless=stop with final_four=stays hold endless
    // moves (R9), played and stopped at the repeat.
    let variants: &[(&[&str], u64)] = &[
        (&["final_four=stays"], 200),
        (&["final_four=sower"], 200),
        (&["skip_origin=true"], 200),
        (&["pussa_chain=true"], 200),
        (&["endless=stop", "final_four=stays"], 3000),
        (&["pits_per_row=3", "seeds_per_pit=2", "pussa_chain=true"], 200),
        (&["pits_per_row=9", "seeds_per_pit=12", "skip_origin=true"], 200),
        (&["pits_per_row=5", "seeds_per_pit=4", "final_four=stays", "endless=stop"], 200),
    ];
    let mut got = Vec::new();
    for (v, matches) in variants {
        let rules = Ruleset::from_assignments(v.iter().copied()).unwrap();
        let mut obs = CaptureHash::default();
        let f = random_fingerprint(rules, *matches, 7, &mut obs);
        got.push((f, obs.0));
    }
    let want: Vec<(Fingerprint, u64)> = vec![
        ((223933, 10356, 99, 0, 12112747942775291174), 11692498120128566442),
        ((229404, 13503, 111, 0, 15983154936652755569), 4506004178095251504),
        ((332514, 18397, 111, 0, 709011070272435220), 11109030423405381933),
        ((74778, 6542, 103, 0, 10184918936396916965), 5934245568245855946),
        ((3493144, 160158, 1496, 2, 17202012635826399357), 16131211006835287947),
        ((1842, 961, 165, 0, 1444360324097312857), 1148066498244798571),
        ((1180361, 40248, 97, 0, 10128850302472031212), 12457581902707432737),
        ((31553, 2516, 121, 0, 1372178016145134610), 1671282895552773912),
    ];
    assert_eq!(got, want);
    // The same matches under endless=forbid: the endless candidates are struck out (R9), so
    // no move is endless and the play differs from the first endless move on.
    let forbid = random_fingerprint(
        Ruleset::from_assignments(["final_four=stays"]).unwrap(),
        3000,
        7,
        &mut (),
    );
    assert_eq!(forbid.3, 0);
    assert_ne!(forbid.4, got[4].0 .4);
}

/// An independent engine of the default rules, shared with the benchmark example
/// `plain_engine_speed`.
#[path = "plain.rs"]
mod plain;

/// The draws of the seats of match `i` (seed 1) from their streams, as `bench_engine` and the
/// players use them.
fn plain_draws(i: u64) -> impl FnMut(usize, u32) -> u32 {
    let mut streams = [
        crate::agents::seat_rng(1, i, crate::engine::Side::South),
        crate::agents::seat_rng(1, i, crate::engine::Side::North),
    ];
    move |seat, n| streams[seat].below(n)
}

/// The plain engine is an independent implementation of the default rules (R1-R14 without the
/// R9 check, rare under the default rules): given the same random streams, it plays the same
/// matches, move for move.
#[test]
fn a_plain_engine_plays_the_same_random_matches() {
    let n = 300;
    let plain: u64 =
        (0..n).map(|i| plain::random_match((i % 2) as usize, &mut plain_draws(i))).sum();
    let ours = bench::bench_engine(Ruleset::default(), n, 1);
    assert_eq!(plain, ours.moves);
    assert!(plain > 100 * n, "{plain} moves");
}

/// Every batch of a run, whole (every column of every table).
fn batches(cfg: &RunConfig, threads: usize) -> Vec<Batch> {
    run_all(cfg, threads).batches.into_inner().unwrap().into_values().collect()
}

#[test]
fn search_players_give_the_same_rows_on_any_thread_count() {
    // Node budgets, tables kept across moves and trees kept between moves are per player and
    // match: the rows are the same on one thread and two.
    let rules =
        Ruleset::from_assignments(["pits_per_row=5", "seeds_per_pit=4", "max_rounds=60"]).unwrap();
    for (south, north) in [
        ("minimax:nodes=3000", "mcts:playouts=40,c=1.2"),
        ("minimax:depth=3,eval=rows", "minimax:nodes=500,eval=round"),
    ] {
        let cfg = RunConfig {
            rules,
            south: south.parse().unwrap(),
            north: north.parse().unwrap(),
            ..config(12, Detail::Move, 3)
        };
        let one = batches(&cfg, 1);
        assert_eq!(one, batches(&cfg, 2), "{south} vs {north}");
        assert_eq!(one.iter().map(|b| b.matches.len()).sum::<usize>(), 12);
    }
}

#[test]
fn a_player_that_fails_stops_the_run_before_its_batch_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("crash.sh");
    std::fs::write(&script, "read line; exit 7").unwrap();
    let south = format!("external:timeout=5,cmd=sh {}", script.display()).parse().unwrap();
    let cfg = RunConfig { south, first: FirstPolicy::South, ..config(6, Detail::Move, 2) };
    let sink = MemorySink::default();
    let Err(RunError::Match(e)) = run(&cfg, &players(), 1, &sink, &|_| {}, &AtomicBool::new(false))
    else {
        panic!("the run must fail")
    };
    assert_eq!((e.match_index, e.ply, e.side), (0, 1, crate::engine::Side::South));
    assert!(e.to_string().starts_with("match 0, ply 1 (south to move): external player"), "{e}");
    assert!(e.to_string().contains("exit status: 7"), "{e}");
    assert!(
        sink.batches.lock().unwrap().is_empty(),
        "nothing of the failed batch reaches the sink"
    );
    assert!(matches!(simulate_batch(&cfg, &players(), 2), Err(MatchError { match_index: 4, .. })));
}

/// The first position of random play (match index, ply) where R9 forbids an endless move
/// among the candidates, and the numbers of candidates and of legal moves there.
fn first_forbidden_endless_move(
    rules: Ruleset,
    seed: u64,
    matches: u64,
) -> Option<(u64, u32, u32, u32)> {
    use crate::agents::{seat_rng, Agent};
    for i in 0..matches {
        let mut game = crate::engine::Game::new(rules, FirstPolicy::Alternate.for_match(i));
        let mut agents = [
            Agent::new(AgentSpec::Random, seat_rng(seed, i, Side::South)),
            Agent::new(AgentSpec::Random, seat_rng(seed, i, Side::North)),
        ];
        while !game.is_over() {
            let (candidates, legal) = (
                game.position().candidates().len() as u32,
                game.position().legal_moves().len() as u32,
            );
            if legal > 0 && legal < candidates {
                return Some((i, game.ply() + 1, candidates, legal));
            }
            if agents[game.position().turn().index()].play(&mut game, &mut ()).unwrap().is_none() {
                game.end_round();
            }
        }
    }
    None
}

/// The moves table's `legal_moves` and the quality tallies count R4's moves (open pits holding
/// counters): at a position where R9 (endless = forbid) forbids one of them, the count is the
/// candidates', above the engine's legal moves (deciding R9 for every candidate would cost 73%
/// of the simulation's speed; docs/metrics.md).
#[test]
fn legal_moves_count_the_moves_of_r4_where_r9_forbids_one() {
    let rules = Ruleset::from_assignments(["final_four=stays"]).unwrap();
    let seed = 5;
    let (index, ply, candidates, legal) = first_forbidden_endless_move(rules, seed, 20_000)
        .expect("an endless candidate in random play");
    assert!(legal < candidates);
    let cfg = RunConfig {
        rules,
        south: AgentSpec::Random,
        north: AgentSpec::Random,
        first: FirstPolicy::Alternate,
        seed,
        matches: index + 1,
        detail: Detail::Move,
        batch_size: 1,
        shard: Shard::WHOLE,
    };
    let batch = simulate_batch(&cfg, &players(), index).unwrap();
    let row = batch.moves.ply.iter().position(|&p| p == ply as i64).expect("the move of that ply");
    assert_eq!(
        batch.moves.legal_moves[row], candidates as i64,
        "match {index}, ply {ply}: {legal} legal under R9"
    );
    // The quality tallies saw the same counts.
    assert_eq!(batch.quality.legal_sum[0], batch.moves.legal_moves.iter().sum::<i64>());
}

#[test]
fn a_round_that_never_ends_leaves_its_match_unfinished_after_max_round_moves() {
    // On 4x4, perfect match play that cannot win keeps some rounds going forever against
    // greedy and random players, which cannot force their end (R17: a draw).
    let rules =
        Ruleset::from_assignments(["pits_per_row=4", "seeds_per_pit=4", "max_rounds=30"]).unwrap();
    let mut capped = 0;
    for other in ["greedy", "random"] {
        let cfg = RunConfig {
            rules,
            south: "perfect:match".parse().unwrap(),
            north: other.parse().unwrap(),
            ..config(6, Detail::Move, 3)
        };
        let merged = run_all(&cfg, 2).merged();
        let m = merged.matches();
        let moves = schema::MoveColumns::read(merged.table("moves").clone()).unwrap();
        let rounds = schema::RoundColumns::read(merged.table("rounds").clone()).unwrap();
        let quality = schema::QualityColumns::read(merged.table("quality").clone()).unwrap();
        for i in 0..m.match_id.len() {
            let id = m.match_id[i];
            let played = m.rounds[i];
            let endless = (0..moves.match_id.len())
                .filter(|&j| moves.match_id[j] == id && moves.round[j] == played + 1)
                .count();
            if endless == 0 {
                continue;
            }
            capped += 1;
            assert_eq!(
                endless as u32, MAX_ROUND_MOVES,
                "{other} match {id}: the endless round is cut at MAX_ROUND_MOVES"
            );
            assert!(
                played < 30 && m.winner[i].is_none(),
                "{other} match {id}: unfinished before max_rounds"
            );
            assert!(
                !(0..rounds.match_id.len())
                    .any(|j| rounds.match_id[j] == id && rounds.round[j] > played),
                "no row for a round without an end"
            );
            let ended_moves = (0..moves.match_id.len())
                .filter(|&j| moves.match_id[j] == id && moves.round[j] <= played)
                .count();
            assert_eq!(
                m.moves[i], ended_moves as i64,
                "{other} match {id}: `moves` counts the rounds that ended"
            );
            // Unfinished, decisive_ply counts the positions of the quality table: those of the
            // rounds that ended, as `moves` counts them.
            let q = (0..quality.match_id.len()).find(|&j| quality.match_id[j] == id).unwrap();
            assert_eq!(
                quality.decisive_ply[q], m.moves[i],
                "{other} match {id}: the cut round's positions are not counted"
            );
            assert!(
                quality.legal_sum[q] <= 4 * m.moves[i],
                "{other} match {id}: legal moves of the counted positions only"
            );
            assert_eq!(
                m.round1_winner[i] == RoundResult::Unfinished,
                played == 0,
                "round 1 is unfinished only if it never ended"
            );
        }
    }
    assert!(capped > 0, "the boards give an endless round");
}

#[test]
fn a_nullable_column_keeps_its_absent_values_through_extend_and_row() {
    let mut a = ColumnData::or_null([Some(3u32), None]);
    a.extend(&ColumnData::or_null([None, Some(5u32)]));
    assert_eq!(a.column_type(), ColumnType::NullU32);
    assert_eq!((0..4).map(|i| a.show(i)).collect::<Vec<_>>(), ["3", "null", "null", "5"]);
    assert_eq!(a.row(3), ColumnData::or_null([Some(5u32)]));
    let ColumnData::OrNull(n) = &a else { panic!("{a:?}") };
    assert_eq!(n.iter::<u32>().collect::<Vec<_>>(), [Some(&3), None, None, Some(&5)]);
    assert_eq!(n.values(), &ColumnData::U32(vec![3, 0, 0, 5]), "an absent value holds 0");
    let text = ColumnData::or_null([None, Some("x".to_string())]);
    assert_eq!(
        (text.column_type(), text.show(0), text.show(1)),
        (ColumnType::NullText, "null".into(), "'x'".into())
    );
    assert_eq!(ColumnData::new(ColumnType::NullF64), ColumnData::or_null::<f64>([]));
}
