//! The engine benchmark: random full matches on one thread, nothing recorded.

use std::time::Instant;

use super::error::MatchError;
use crate::agents::{seat_rng, Agent, AgentSpec, Resources};
use crate::engine::{Game, Ruleset, Side};

#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct EngineBench {
    pub matches: u64,
    pub moves: u64,
    pub rounds: u64,
    pub seconds: f64,
    pub matches_per_second: f64,
    pub moves_per_second: f64,
}

/// Plays `matches` random-vs-random matches (first player alternating) on the calling thread.
pub fn bench_engine(rules: Ruleset, matches: u64, seed: u64) -> EngineBench {
    let start = Instant::now();
    let (mut moves, mut rounds) = (0u64, 0u64);
    for i in 0..matches {
        let mut game = Game::new(rules, Side::from_index((i % 2) as usize));
        let mut agents = [
            Agent::new(AgentSpec::Random, seat_rng(seed, i, Side::South)),
            Agent::new(AgentSpec::Random, seat_rng(seed, i, Side::North)),
        ];
        while !game.is_over() {
            let side = game.position().turn();
            if agents[side.index()]
                .play(&mut game, &mut ())
                .expect("random players never fail")
                .is_some()
            {
                moves += 1;
            } else {
                game.end_round();
                rounds += 1;
            }
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    EngineBench {
        matches,
        moves,
        rounds,
        seconds,
        matches_per_second: matches as f64 / seconds,
        moves_per_second: moves as f64 / seconds,
    }
}

/// Search players measured in full matches on one thread (see [`bench_players`]).
#[derive(Clone, Debug, serde::Serialize)]
pub struct PlayerBench {
    /// Player A (South in matches 0, 1 mod 4, North in 2, 3 mod 4) and player B.
    pub player: String,
    pub opponent: String,
    pub matches: u64,
    /// Moves played in the matches, by both players.
    pub moves: u64,
    /// Moves played in search by both players (minimax and MCTS nodes).
    pub nodes: u64,
    pub seconds: f64,
    pub nodes_per_second: f64,
    /// Wall time per move played in the matches (both players), in microseconds.
    pub micros_per_move: f64,
    pub unfinished: u64,
    /// Finished matches won by the player who started round 1.
    pub first_player_wins: u64,
    pub player_wins: u64,
    pub opponent_wins: u64,
}

/// Plays `matches` matches of `a` against `b` (self-play when they are equal) on the calling
/// thread, seats and first player alternating, with the seat streams of a run of seed `seed`.
/// A player that cannot decide (an external program) is an error, as in a run. The players
/// share `players` as a run's do.
pub fn bench_players(
    rules: Ruleset,
    a: AgentSpec,
    b: AgentSpec,
    matches: u64,
    seed: u64,
    players: &Resources,
) -> Result<PlayerBench, MatchError> {
    let start = Instant::now();
    let mut out = PlayerBench {
        player: a.to_string(),
        opponent: b.to_string(),
        matches,
        moves: 0,
        nodes: 0,
        seconds: 0.0,
        nodes_per_second: 0.0,
        micros_per_move: 0.0,
        unfinished: 0,
        first_player_wins: 0,
        player_wins: 0,
        opponent_wins: 0,
    };
    for i in 0..matches {
        let first = Side::from_index((i % 2) as usize);
        let a_side = Side::from_index((i / 2 % 2) as usize);
        let spec = |side: Side| if side == a_side { a.clone() } else { b.clone() };
        let mut game = Game::new(rules, first);
        let mut agents =
            Side::ALL.map(|side| Agent::seated(spec(side), seat_rng(seed, i, side), players));
        while !game.is_over() {
            let side = game.position().turn();
            let ply = game.ply() + 1;
            match agents[side.index()].play(&mut game, &mut ()) {
                Ok(Some(_)) => out.moves += 1,
                Ok(None) => {
                    game.end_round();
                }
                Err(error) => {
                    return Err(MatchError { match_index: i, ply, side, error: error.into() })
                }
            }
        }
        out.nodes += agents.iter().map(Agent::search_nodes).sum::<u64>();
        match game.outcome().and_then(|o| o.winner()) {
            None => out.unfinished += 1,
            Some(w) => {
                out.first_player_wins += (w == first) as u64;
                out.player_wins += (w == a_side) as u64;
                out.opponent_wins += (w != a_side) as u64;
            }
        }
    }
    out.seconds = start.elapsed().as_secs_f64();
    out.nodes_per_second = out.nodes as f64 / out.seconds;
    out.micros_per_move = out.seconds * 1e6 / out.moves.max(1) as f64;
    Ok(out)
}

/// What the game-quality metrics cost while simulating (docs/metrics.md): the same random
/// matches at round detail played into memory on one thread without and with the `quality`
/// and `by_round` tallies (the legal-move counts, R4, are the game loop's in both), nothing
/// written.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct MetricsCost {
    pub matches: u64,
    /// Seconds to play the matches, the mean of two runs each.
    pub seconds_without: f64,
    pub seconds_with: f64,
    /// 1 - (matches/s with) / (matches/s without): the share of round-detail speed the
    /// metrics cost.
    pub cost: f64,
}

/// Measures [`MetricsCost`] on `matches` random matches (first player alternating) of `rules`.
/// The batch memory is reused by every run and warmed by a first, untimed run; then each batch
/// is played without, with, with and without the metrics, so that a drift of the machine's
/// speed (other processes) cancels out to first order within a fraction of a second.
pub fn bench_metrics_cost(
    rules: Ruleset,
    matches: u64,
    seed: u64,
    players: &Resources,
) -> MetricsCost {
    use super::{simulate_batch_for_bench, Batch, Detail, FirstPolicy, RunConfig, Shard};
    let cfg = RunConfig {
        rules,
        south: AgentSpec::Random,
        north: AgentSpec::Random,
        first: FirstPolicy::Alternate,
        seed,
        matches,
        detail: Detail::Round,
        batch_size: Detail::Round.default_batch_size(),
        shard: Shard::WHOLE,
    };
    let mut batch = Batch::default();
    let mut time = |b: u64, metrics: bool| {
        let start = Instant::now();
        batch = simulate_batch_for_bench(&cfg, players, b, std::mem::take(&mut batch), metrics)
            .expect("random players never fail");
        start.elapsed().as_secs_f64()
    };
    (0..cfg.batches()).for_each(|b| _ = time(b, true));
    let (mut without, mut with) = (0.0, 0.0);
    for b in 0..cfg.batches() {
        without += time(b, false);
        with += time(b, true) + time(b, true);
        without += time(b, false);
    }
    MetricsCost {
        matches,
        seconds_without: without / 2.0,
        seconds_with: with / 2.0,
        cost: 1.0 - without / with,
    }
}
