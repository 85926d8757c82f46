use super::*;
use crate::agents::AgentSpec;
use crate::engine::Outcome;
use crate::sim::quality::{PositionKey, QualityTally};
use crate::sim::{Detail, FirstPolicy, RunConfig, Shard};

const BOARD: Board = Board { counters: 98.0, pits: 14.0 };

/// A finished or unfinished match of `moves` moves with first player `first`, nothing else.
fn plain(match_id: u64, first: Side, winner: Option<Side>) -> MatchFacts {
    MatchFacts {
        match_id,
        first,
        winner,
        rounds: 1,
        moves: 10,
        laps: 20,
        sown: 60,
        captures: BySide::splat(CaptureCounts::default()),
        quality: QualityRecord {
            match_id,
            legal_sum: 10,
            legal_max: 1,
            legal_first: 1,
            legal_last: 1,
            ..QualityRecord::default()
        },
        exact: None,
    }
}

fn metrics_of(matches: &[MatchFacts], resamples: u32) -> Vec<Metric> {
    let mut acc = Accumulator::new(BOARD);
    matches.iter().for_each(|m| acc.add_match(m));
    acc.finish(resamples, 1).0
}

fn value(metrics: &[Metric], name: &str) -> f64 {
    metrics.iter().find(|m| m.name == name).unwrap_or_else(|| panic!("no metric {name}")).value
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn a_balanced_set_has_no_advantage_full_balance_and_least_uniform_outcomes() {
    let (s, n) = (Side::South, Side::North);
    let set =
        [plain(0, s, Some(s)), plain(1, n, Some(n)), plain(2, s, Some(n)), plain(3, n, Some(s))];
    let m = metrics_of(&set, 0);
    assert!(close(value(&m, "AdvantageP1"), 0.5));
    assert!(close(value(&m, "Balance"), 1.0));
    assert!(close(value(&m, "Completion"), 1.0));
    assert!(close(value(&m, "Drawishness"), 0.0));
    // Utilities +1 and -1 equally often: variance 1.
    assert!(close(value(&m, "OutcomeUniformity"), 0.0));
    assert!(close(value(&m, "SouthScore"), 0.5));
    assert!(close(value(&m, "DurationTurns"), 10.0));
    assert!(close(value(&m, "DurationTurnsStdDev"), 0.0));
    assert!(close(value(&m, "DurationMoves"), 20.0));
    assert!(close(value(&m, "LapsPerMove"), 2.0));
    assert!(close(value(&m, "CountersPerLap"), 3.0));
    // One legal move everywhere: no decisions, branching factor 1.
    assert!(close(value(&m, "DecisionMoves"), 0.0));
    assert!(value(&m, "DecisionFactorAvg").is_nan(), "no decision anywhere: undefined");
    assert!(close(value(&m, "BranchingFactorAvg"), 1.0));
}

#[test]
fn a_one_sided_set_has_full_advantage_and_no_balance_with_a_degenerate_interval() {
    let set: Vec<MatchFacts> = (0..40)
        .map(|i| plain(i, Side::from_index(i as usize % 2), Some(Side::from_index(i as usize % 2))))
        .collect();
    let m = metrics_of(&set, 200);
    let adv = m.iter().find(|m| m.name == "AdvantageP1").unwrap();
    assert_eq!(
        (adv.value, adv.ci_low, adv.ci_high),
        (1.0, 1.0, 1.0),
        "every resample is one-sided too"
    );
    assert!(close(value(&m, "Balance"), 0.0));
    assert!(close(value(&m, "OutcomeUniformity"), 1.0));
    assert!(close(value(&m, "SouthScore"), 0.5), "each seat starts half the matches");
}

#[test]
fn unfinished_matches_count_as_half_a_win_and_as_timeouts() {
    let s = Side::South;
    let mut won = plain(0, s, Some(s));
    won.quality.decisive_ply = 5;
    let mut unfinished = plain(1, s, None);
    unfinished.quality.decisive_ply = 10;
    let m = metrics_of(&[won, unfinished], 0);
    assert!(close(value(&m, "AdvantageP1"), 0.75));
    assert!(close(value(&m, "Completion"), 0.5));
    assert!(close(value(&m, "Drawishness"), 0.5));
    assert!(close(value(&m, "Timeouts"), 0.5));
    assert!(close(value(&m, "Balance"), 0.5));
    // Utilities +1 and 0: mean 1/2, variance 1/4.
    assert!(close(value(&m, "OutcomeUniformity"), 0.75));
    // Evaluation metrics are over finished matches only: the unfinished one does not dilute them.
    assert!(close(value(&m, "DecisivenessMoves"), 0.5));
}

/// The match of `sim::quality`'s test: leads 0, +4, 0, -6, -10 (South's), North wins; it fell
/// behind after round 1 (holdings 52 to 46) and came back.
#[test]
fn a_match_with_lead_changes_gives_the_evaluation_metrics_by_hand() {
    let mut scratch = crate::sim::quality::QualityScratch::default();
    let mut t = QualityTally::new(0, &mut scratch);
    for (legal, (south, north), pit) in
        [(7, (0, 0), 3), (1, (4, 0), 9), (3, (4, 4), 3), (2, (2, 8), 12), (5, (0, 10), 0)]
    {
        t.position(
            legal,
            PositionKey::new(&[7; 14], BySide::new(south, north)),
            BySide::new(south, north),
        );
        t.moved(pit);
    }
    t.round_ended(BySide::new(52, 46));
    let quality = t.finish(Outcome::Won(Side::North));
    let captures = BySide::new(
        CaptureCounts { pussa: 1, own_fours: 4, gifted_fours: 0, remainder: 5 },
        CaptureCounts { pussa: 0, own_fours: 8, gifted_fours: 2, remainder: 0 },
    );
    let facts =
        MatchFacts { moves: 5, captures, quality, ..plain(0, Side::South, Some(Side::North)) };
    let m = metrics_of(&[facts], 10);
    let t = 98.0;
    assert!(close(value(&m, "LeadChange"), 3.0 / 5.0));
    // Mean lead -12/5, mean square 152/5: variance 24.64, for each of the two players.
    assert!(close(value(&m, "Stability"), 2.0 * 24.64 / (t * t)));
    // The winner (North) trails only at the second position, by 4.
    assert!(close(value(&m, "DramaAverage"), 2.0 * 4.0 / t / 5.0));
    assert!(close(value(&m, "DramaMax"), 2.0 * 4.0 / t));
    assert!(close(value(&m, "DramaShare"), 1.0 / 5.0));
    assert!(close(value(&m, "DecisivenessThreshold"), 4.0 / t));
    assert!(close(value(&m, "DecisivenessMoves"), 3.0 / 5.0));
    assert!(close(value(&m, "Comebacks"), 1.0));
    assert!(close(value(&m, "PositionalRepetition"), 0.0), "the reserves differ at every position");
    assert!(close(value(&m, "BranchingFactorAvg"), 18.0 / 5.0));
    assert!(close(value(&m, "BranchingFactorMax"), 7.0));
    assert!(close(value(&m, "BranchingFactorChangeAverage"), -0.5));
    assert!(close(value(&m, "DecisionMoves"), 4.0 / 5.0));
    // The four decisions offer 7, 3, 2 and 5 moves.
    assert!(close(value(&m, "DecisionFactorAvg"), 17.0 / 4.0));
    assert!(close(value(&m, "BoardCoverage"), 4.0 / 14.0));
    assert!(close(value(&m, "CaptureSharePussa"), 1.0 / 20.0));
    assert!(close(value(&m, "CaptureShareOwnFours"), 12.0 / 20.0));
    assert!(close(value(&m, "CaptureShareGiftedFours"), 2.0 / 20.0));
    assert!(close(value(&m, "CaptureShareRemainder"), 5.0 / 20.0));
    assert!(m.iter().filter(|x| x.evaluation == Some(HOLDINGS)).count() >= 6);
}

/// Two matches: 2 of 8 positions repeated, and none of 4. Per match 1/4 and 0.
#[test]
fn positional_repetition_is_the_mean_share_of_repeated_positions_and_the_share_of_matches_with_one()
{
    let mut a = plain(0, Side::South, Some(Side::South));
    a.moves = 8;
    a.quality.repeated_positions = 2;
    let mut b = plain(1, Side::North, None);
    b.moves = 4;
    let m = metrics_of(&[a, b], 0);
    assert!(close(value(&m, "PositionalRepetition"), 0.125));
    assert!(close(value(&m, "PositionalRepetitionMatches"), 0.5));
}

/// The perfect players' tables of these tests in a directory of the test process's own (not the
/// user's cache).
pub(super) fn isolated_tables() -> std::sync::Arc<crate::exact::ExactStore> {
    use crate::exact::{ExactStore, StoreSettings};
    static STORE: std::sync::OnceLock<(tempfile::TempDir, std::sync::Arc<ExactStore>)> =
        std::sync::OnceLock::new();
    let (_, store) = STORE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let store = ExactStore::new(StoreSettings {
            tables: dir.path().to_path_buf(),
            ..StoreSettings::default()
        });
        (dir, std::sync::Arc::new(store))
    });
    store.clone()
}

fn config(rules: &[&str], detail: Detail) -> RunConfig {
    RunConfig {
        rules: Ruleset::from_assignments(rules.iter().copied()).unwrap(),
        south: AgentSpec::Random,
        north: AgentSpec::Greedy,
        first: FirstPolicy::Alternate,
        seed: 11,
        matches: 30,
        detail,
        batch_size: 30,
        shard: Shard::WHOLE,
    }
}

#[test]
fn the_streamed_tallies_equal_those_recomputed_from_the_move_rows() {
    let mut repeated = 0;
    // Random against greedy, and random self-play (most random matches repeat a position).
    for (rules, north) in [
        (&[][..], AgentSpec::Greedy),
        (&["final_four=stays", "endless=stop"][..], AgentSpec::Greedy),
        (&["pits_per_row=4", "pussa_chain=true"][..], AgentSpec::Greedy),
        (&[][..], AgentSpec::Random),
        (&["final_four=stays"][..], AgentSpec::Random),
    ] {
        let cfg = RunConfig { north, ..config(rules, Detail::Move) };
        let batch = crate::sim::simulate_batch(&cfg, &Default::default(), 0).unwrap();
        let (records, by_round) =
            rows::from_rows(&batch.matches, &batch.rounds, &batch.moves, &cfg.rules).unwrap();
        let streamed: Vec<QualityRecord> =
            (0..batch.quality.len()).map(|i| quality_record(&batch.quality, i)).collect();
        assert_eq!(records, streamed, "rules {rules:?}");
        repeated += streamed.iter().map(|q| q.repeated_positions).sum::<u32>();
        assert_eq!(by_round, batch.by_round, "rules {rules:?}");
        assert!(streamed.iter().any(|q| q.lead_changes > 2 && q.decision_moves > 0));
        // The legal moves column is what the tallies saw.
        assert_eq!(
            batch.moves.legal_moves.iter().map(|&l| l as u64).sum::<u64>(),
            streamed.iter().map(|q| q.legal_sum).sum::<u64>()
        );
        // The same matches at match detail stream the same tallies.
        let whole = crate::sim::simulate_batch(
            &RunConfig { detail: Detail::Match, ..cfg },
            &Default::default(),
            0,
        )
        .unwrap();
        assert_eq!(whole.quality, batch.quality);
        assert_eq!(whole.by_round, batch.by_round);
    }
    assert!(repeated > 0, "some positions repeat, so the naive count checks the streamed one");
}

/// A round cut at MAX_ROUND_MOVES (perfect:match on 4x4 against players that cannot force its
/// end, R17): the streamed tallies equal those recomputed from the rows of the rounds that
/// ended, per-position figures stay per position (BranchingFactorAvg at most a row's 4 pits),
/// and a quality row that counts the cut round's positions, as an earlier version wrote it, is
/// refused naming its match.
#[test]
fn a_round_cut_before_its_end_adds_no_positions_and_rows_that_count_them_are_refused() {
    let players = crate::agents::Resources::new(isolated_tables());
    let mut cut = 0;
    for north in ["greedy", "random"] {
        let cfg = RunConfig {
            south: "perfect:match".parse().unwrap(),
            north: north.parse().unwrap(),
            seed: 2024,
            matches: 6,
            batch_size: 6,
            ..config(&["pits_per_row=4", "seeds_per_pit=4", "max_rounds=30"], Detail::Move)
        };
        let batch = crate::sim::simulate_batch(&cfg, &players, 0).unwrap();
        let (m, q) = (&batch.matches, &batch.quality);
        let (records, _) = rows::from_rows(m, &batch.rounds, &batch.moves, &cfg.rules).unwrap();
        let streamed: Vec<QualityRecord> = (0..q.len()).map(|i| quality_record(q, i)).collect();
        assert_eq!(records, streamed, "against {north}");
        let facts: Vec<MatchFacts> = (0..m.len()).map(|i| match_facts(m, i, streamed[i])).collect();
        let branching = value(&metrics_of(&facts, 0), "BranchingFactorAvg");
        assert!(
            (1.0..=4.0).contains(&branching),
            "against {north}: BranchingFactorAvg {branching}"
        );
        for i in 0..m.len() {
            counted_positions(m, q, i).unwrap();
            if m.winner[i].is_some() || m.rounds[i] >= 30 {
                continue;
            }
            cut += 1;
            let mut older = q.clone();
            older.decisive_ply[i] += crate::sim::MAX_ROUND_MOVES as i64;
            let e = counted_positions(m, &older, i).unwrap_err();
            assert!(
                e.contains(&format!("match {} counts", m.match_id[i]))
                    && e.contains("simulate it again"),
                "{e}"
            );
        }
    }
    assert!(cut > 0, "perfect:match on 4x4 keeps some round going forever");
}

/// A match whose only round never ended (R17's cut) has no counted position: the per-position
/// metrics are means over the matches that have one, not dragged towards 0 by it, while the
/// outcome and duration metrics count every match.
#[test]
fn a_match_without_a_counted_position_is_left_out_of_the_per_position_means() {
    let played = plain(1, Side::South, Some(Side::South));
    let cut = MatchFacts {
        moves: 0,
        rounds: 0,
        laps: 0,
        sown: 0,
        quality: QualityRecord { match_id: 2, ..QualityRecord::default() },
        ..plain(2, Side::North, None)
    };
    let (alone, both) = (metrics_of(&[played], 0), metrics_of(&[played, cut], 0));
    for name in [
        "BranchingFactorAvg",
        "BranchingFactorMax",
        "DecisionMoves",
        "BoardCoverage",
        "PositionalRepetition",
        "LeadChange",
        "Stability",
    ] {
        assert!(
            close(value(&alone, name), value(&both, name)),
            "{name}: {} alone, {} with the cut match",
            value(&alone, name),
            value(&both, name)
        );
    }
    assert!(close(value(&both, "BranchingFactorAvg"), 1.0));
    assert!(close(value(&both, "DurationTurns"), 5.0) && close(value(&both, "Completion"), 0.5));
}
