//! `rajapasu bench`: the engine's speed (random full matches on one thread, nothing recorded).

use crate::agents::AgentSpec;
use crate::sim::bench::{bench_engine, bench_players};

use super::output::Output;
use super::CliError;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Matches to play.
    #[arg(long, default_value_t = 100_000)]
    matches: u64,
    /// Seed of the random players.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Repeat the measurement this many times and report each run and the best.
    #[arg(long, default_value_t = 3)]
    repeat: u32,
    #[command(flatten)]
    rules: super::RuleArgs,
    /// Print JSON lines instead of text.
    #[arg(long)]
    json: bool,
    /// Also measure this player (repeatable): search nodes per second on one thread against the
    /// engine's moves per second, time per move, and self-play outcomes.
    #[arg(long, value_name = "SPEC")]
    player: Vec<AgentSpec>,
    /// The opponent of each --player (default: the player itself).
    #[arg(long, value_name = "SPEC")]
    against: Option<AgentSpec>,
    /// Matches per --player (seats and first player alternating).
    #[arg(long, default_value_t = 20)]
    player_matches: u64,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let rules = args.rules.ruleset()?;
    let mut out = Output::lines();
    let mut best: Option<crate::sim::bench::EngineBench> = None;
    for i in 1..=args.repeat.max(1) {
        let b = bench_engine(rules, args.matches, args.seed);
        if args.json {
            out.line(serde_json::to_string(&b).map_err(CliError::failed)?)?;
        } else {
            out.line(format_args!(
                "run {i}: {} matches, {} moves in {:.3} s: {:.0} matches/s, {:.0} moves/s ({:.0} moves per match)",
                b.matches,
                b.moves,
                b.seconds,
                b.matches_per_second,
                b.moves_per_second,
                b.moves as f64 / b.matches.max(1) as f64
            ))?;
        }
        if best.is_none_or(|x| b.matches_per_second > x.matches_per_second) {
            best = Some(b);
        }
    }
    if let (Some(b), false) = (best, args.json) {
        out.line(format_args!("best: {:.0} matches/s, {:.0} moves/s (rules {})", b.matches_per_second, b.moves_per_second, rules.hash()))?;
    }
    let engine = best.map_or(0.0, |b| b.moves_per_second);
    for &player in &args.player {
        let against = args.against.unwrap_or(player);
        // A player that cannot decide is a failure here as in a run (exit 1), not an unfinished match.
        let p = bench_players(rules, player, against, args.player_matches, args.seed)
            .map_err(|e| CliError::failed(format!("bench --player {player} against {against}: {e}")))?;
        if args.json {
            out.line(serde_json::to_string(&p).unwrap())?;
            continue;
        }
        let finished = p.matches - p.unfinished;
        out.line(format_args!(
            "{} vs {}: {} matches, {} moves, {} search nodes in {:.2} s: {:.0} nodes/s ({:.0}% of the engine's moves/s), {:.1} us per move; \
             unfinished {}, first player won {} of {} finished, {} won {} and lost {}",
            p.player,
            p.opponent,
            p.matches,
            p.moves,
            p.nodes,
            p.seconds,
            p.nodes_per_second,
            100.0 * p.nodes_per_second / engine.max(1.0),
            p.micros_per_move,
            p.unfinished,
            p.first_player_wins,
            finished,
            p.player,
            p.player_wins,
            p.opponent_wins
        ))?;
    }
    out.finish()
}
