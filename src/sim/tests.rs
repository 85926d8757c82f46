use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

use super::*;
use crate::agents::AgentSpec;
use crate::engine::Ruleset;

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
    fn write(&self, batch: Batch) -> Result<(), ()> {
        self.batches.lock().unwrap().insert(batch.index, batch);
        Ok(())
    }
}

impl MemorySink {
    /// All rows, concatenated in batch order.
    fn merged(&self) -> Batch {
        let mut all = Batch::default();
        for b in self.batches.lock().unwrap().values() {
            for i in 0..b.matches.len() {
                all.matches.push(row_of(&b.matches, i));
            }
            all.rounds.match_id.extend(&b.rounds.match_id);
            all.rounds.south_total.extend(&b.rounds.south_total);
            all.moves.ply.extend(&b.moves.ply);
            all.moves.match_id.extend(&b.moves.match_id);
            all.histograms.merge(&b.histograms);
        }
        all
    }
}

fn row_of(m: &schema::MatchColumns, i: usize) -> schema::MatchRow {
    schema::MatchRow {
        match_id: m.match_id[i],
        seed: m.seed[i],
        south_player: m.south_player[i].clone(),
        north_player: m.north_player[i].clone(),
        first: m.first[i],
        outcome: m.outcome[i],
        winner: m.winner[i],
        rounds: m.rounds[i],
        moves: m.moves[i],
        laps: m.laps[i],
        sown: m.sown[i],
        south_holdings: m.south_holdings[i],
        north_holdings: m.north_holdings[i],
        endless_moves: m.endless_moves[i],
        round1_winner: m.round1_winner[i],
        starter_round_wins: m.starter_round_wins[i],
        tied_rounds: m.tied_rounds[i],
        south_pussa: m.south_pussa[i],
        south_own_fours: m.south_own_fours[i],
        south_gifted_fours: m.south_gifted_fours[i],
        south_remainder: m.south_remainder[i],
        north_pussa: m.north_pussa[i],
        north_own_fours: m.north_own_fours[i],
        north_gifted_fours: m.north_gifted_fours[i],
        north_remainder: m.north_remainder[i],
    }
}

fn run_all(cfg: &RunConfig, threads: usize) -> MemorySink {
    let sink = MemorySink::default();
    run(cfg, threads, &sink, &|_| {}, &AtomicBool::new(false)).unwrap();
    sink
}

#[test]
fn rows_do_not_depend_on_threads_batches_or_shards() {
    let a = run_all(&config(60, Detail::Move, 7), 1).merged();
    let b = run_all(&config(60, Detail::Move, 7), 2).merged();
    let c = run_all(&config(60, Detail::Move, 25), 2).merged();
    assert_eq!(a, b);
    assert_eq!(a.matches, c.matches);
    assert_eq!(a.moves, c.moves);
    assert_eq!(a.histograms, c.histograms);
    let mut sharded = Vec::new();
    for k in 1..=3 {
        let cfg = RunConfig { shard: Shard { index: k, count: 3 }, ..config(60, Detail::Move, 7) };
        sharded.push(run_all(&cfg, 2));
    }
    let union = MemorySink::default();
    for s in sharded {
        union.batches.lock().unwrap().extend(s.batches.into_inner().unwrap());
    }
    assert_eq!(union.merged(), a);
    assert_eq!(a.matches.len(), 60);
    assert_eq!(a.matches.match_id, (0..60).collect::<Vec<_>>());
}

#[test]
fn totals_agree_across_tables_and_counters_are_conserved() {
    let cfg = RunConfig { rules: Ruleset::from_assignments(["final_four=stays", "endless=stop"]).unwrap(), ..config(40, Detail::Lap, 40) };
    let b = simulate_batch(&cfg, 0);
    let total = cfg.rules.total_counters() as u64;
    for i in 0..b.matches.len() {
        let id = b.matches.match_id[i];
        let rounds: Vec<usize> = (0..b.rounds.len()).filter(|&r| b.rounds.match_id[r] == id).collect();
        assert_eq!(rounds.len() as u32, b.matches.rounds[i]);
        let sum = |col: &Vec<u32>| rounds.iter().map(|&r| col[r] as u64).sum::<u64>();
        assert_eq!(sum(&b.rounds.moves), b.matches.moves[i] as u64);
        assert_eq!(rounds.iter().map(|&r| b.rounds.laps[r]).sum::<u64>(), b.matches.laps[i]);
        assert_eq!(sum(&b.rounds.south_pussa), b.matches.south_pussa[i]);
        assert_eq!(sum(&b.rounds.north_gifted_fours), b.matches.north_gifted_fours[i]);
        assert_eq!(sum(&b.rounds.south_remainder), b.matches.south_remainder[i]);
        for &r in &rounds {
            // A side's total is the sum of its sources; both totals plus what was kept is everything.
            let rr = &b.rounds;
            assert_eq!(rr.south_total[r], rr.south_pussa[r] + rr.south_own_fours[r] + rr.south_gifted_fours[r] + rr.south_remainder[r]);
            assert_eq!(rr.north_total[r], rr.north_pussa[r] + rr.north_own_fours[r] + rr.north_gifted_fours[r] + rr.north_remainder[r]);
            assert_eq!((rr.south_total[r] + rr.north_total[r] + rr.south_kept[r] + rr.north_kept[r]) as u64, total);
        }
        assert_eq!((b.matches.south_holdings[i] + b.matches.north_holdings[i]) as u64, total);
        let moves: Vec<usize> = (0..b.moves.len()).filter(|&m| b.moves.match_id[m] == id).collect();
        assert_eq!(moves.len() as u32, b.matches.moves[i]);
        assert_eq!(moves.iter().map(|&m| b.moves.laps[m] as u64).sum::<u64>(), b.matches.laps[i]);
        assert_eq!(moves.iter().filter(|&&m| b.moves.endless[m]).count() as u32, b.matches.endless_moves[i]);
    }
    // Laps rows, histograms and moves agree.
    assert_eq!(b.laps.len() as u64, b.matches.laps.iter().sum::<u64>());
    assert_eq!(b.histograms.lap_length.iter().sum::<u64>(), b.laps.len() as u64);
    assert_eq!(b.histograms.laps_per_move.iter().sum::<u64>(), b.moves.len() as u64);
    let sown: u64 = b.histograms.lap_length.iter().enumerate().map(|(v, c)| v as u64 * c).sum();
    assert_eq!(sown, b.matches.sown.iter().sum::<u64>());
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
    let first = run(&cfg, 2, &sink, &progress, &stop).unwrap();
    assert!(first.written < 10, "the stop flag ended the run early");
    let second = run(&cfg, 2, &sink, &|_| {}, &AtomicBool::new(false)).unwrap();
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
    // RULES.md reference: about 38 rounds and 615 moves a match, 2.34 laps a move, 4.3
    // counters a lap, first player wins about 55%. 2,000 matches give loose checks.
    let cfg = RunConfig { north: AgentSpec::Random, ..config(2000, Detail::Match, 500) };
    let b = run_all(&cfg, 2).merged();
    let n = b.matches.len() as f64;
    let rounds = b.matches.rounds.iter().map(|&r| r as f64).sum::<f64>() / n;
    let moves = b.matches.moves.iter().map(|&r| r as f64).sum::<f64>() / n;
    let laps: u64 = b.histograms.lap_length.iter().sum();
    let sown: u64 = b.histograms.lap_length.iter().enumerate().map(|(v, c)| v as u64 * c).sum();
    let mv: u64 = b.histograms.laps_per_move.iter().sum();
    assert!((34.0..42.0).contains(&rounds), "rounds {rounds}");
    assert!((570.0..660.0).contains(&moves), "moves {moves}");
    assert!((2.2..2.5).contains(&(laps as f64 / mv as f64)), "laps per move");
    assert!((4.1..4.5).contains(&(sown as f64 / laps as f64)), "lap length");
    let first_wins = (0..b.matches.len()).filter(|&i| b.matches.winner[i] == b.matches.first[i]).count() as f64 / n;
    assert!((0.51..0.59).contains(&first_wins), "first player wins {first_wins}");
}

#[test]
#[ignore]
fn print_engine_bench() {
    let b = bench::bench_engine(Ruleset::default(), 20_000, 1);
    eprintln!("{b:?}");
}
