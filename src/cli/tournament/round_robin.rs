//! The round robin of a tournament: which datasets it plays, with which seeds, and the results
//! read back from them.

use std::path::Path;

use crate::analysis::summarize::summarize_dataset;
use crate::analysis::summary::ArmSummary;
use crate::engine::Side;
use crate::io::Dataset;
use crate::ratings::bradley_terry::PairResults;
use crate::ratings::report::SelfPlay;
use crate::sim::config::player_identity;
use crate::sim::{FirstPolicy, RunConfig, Shard};

use super::config::Tournament;
use crate::cli::CliError;

/// One dataset of the round robin: `south` against `north` (player indices; equal for self-play).
#[derive(Clone, Debug, PartialEq)]
pub struct Pairing {
    pub south: usize,
    pub north: usize,
    /// The dataset's directory name under the tournament's directory.
    pub dir: String,
    pub seed: u64,
    pub matches: u64,
}

impl Pairing {
    pub fn is_self_play(&self) -> bool {
        self.south == self.north
    }

    pub fn run_config(&self, t: &Tournament, matches: u64) -> RunConfig {
        RunConfig {
            rules: t.rules,
            south: t.players[self.south].spec,
            north: t.players[self.north].spec,
            // Alternating: in every dataset each seat starts half of the matches.
            first: FirstPolicy::Alternate,
            seed: self.seed,
            matches,
            detail: t.detail,
            // Small batches, so that both seat orders' few costly matches spread over the
            // threads; from the pairing's full count, so that a trial with fewer matches batches
            // the same way.
            batch_size: (self.matches / 16).clamp(1, t.detail.default_batch_size()),
            shard: Shard::WHOLE,
        }
    }
}

/// The seed of the dataset of `south` against `north`: a function of the tournament's seed and
/// the two specifications only, so that adding a player to a tournament leaves the datasets of
/// the others as they are (a rerun keeps them), and the datasets' random streams differ.
pub fn pairing_seed(seed: u64, south: &str, north: &str) -> u64 {
    let hash = crate::engine::short_hash(&format!("tournament-v1|{seed}|{south}|{north}"));
    u64::from_str_radix(&hash, 16).expect("a short hash is hexadecimal")
}

/// Every ordered pair of distinct players (both seat orders, `matches_per_pair` matches each)
/// and, with self-play, every player against itself (2 x `matches_per_pair` matches, as many as
/// a pair plays), in the order of the players' list. A pairing plays the fewest of the
/// tournament's count and its players' own (`Player::matches_per_pair`).
pub fn schedule(t: &Tournament) -> Vec<Pairing> {
    let mut out = Vec::new();
    for (i, a) in t.players.iter().enumerate() {
        for (j, b) in t.players.iter().enumerate() {
            if i == j && !t.self_play {
                continue;
            }
            let per_seat_order = [a.matches_per_pair, b.matches_per_pair].into_iter().flatten().fold(t.matches_per_pair, u64::min);
            out.push(Pairing {
                south: i,
                north: j,
                dir: format!("{}_vs_{}", a.slug, b.slug),
                seed: pairing_seed(t.seed, &player_identity(&a.spec), &player_identity(&b.spec)),
                matches: if i == j { 2 * per_seat_order } else { per_seat_order },
            });
        }
    }
    out
}

/// The results of the round robin read back from its datasets.
pub struct Results {
    /// The summary of each pairing's dataset, in schedule order.
    pub arms: Vec<ArmSummary>,
    /// Matches between distinct players (South's player as `a`).
    pub pairs: Vec<PairResults>,
    /// Each player's self-play, when played.
    pub self_play: Vec<Option<SelfPlay>>,
}

pub fn collect(t: &Tournament, pairings: &[Pairing], dir: &Path) -> Result<Results, CliError> {
    let mut results = Results { arms: Vec::new(), pairs: Vec::new(), self_play: vec![None; t.players.len()] };
    for p in pairings {
        let arm = summarize_dataset(&Dataset::open(&dir.join(&p.dir))?, &p.dir)?;
        if p.is_self_play() {
            results.self_play[p.south] = Some(SelfPlay {
                matches: arm.matches,
                unfinished: arm.unfinished,
                first_player_wins: arm.first_player_wins.clone(),
                first_player_points: arm.first_player_points.clone(),
            });
        } else {
            results.pairs.push(PairResults {
                a: p.south,
                b: p.north,
                a_wins: arm.seat_wins[Side::South].successes,
                b_wins: arm.seat_wins[Side::North].successes,
                draws: arm.unfinished,
            });
        }
        results.arms.push(arm);
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pair_in_both_seats_and_self_play() {
        let text = "name = \"t\"\nplayers = [\"random\", \"greedy\", \"mcts:8\"]\nmatches_per_pair = 10\nseed = 3\n";
        let t = Tournament::parse(text).unwrap();
        let s = schedule(&t);
        assert_eq!(s.len(), 9);
        let dirs: Vec<&str> = s.iter().map(|p| p.dir.as_str()).collect();
        assert!(dirs.contains(&"greedy_vs_mcts-8") && dirs.contains(&"mcts-8_vs_greedy") && dirs.contains(&"random_vs_random"));
        assert_eq!(s.iter().filter(|p| p.is_self_play()).map(|p| p.matches).collect::<Vec<_>>(), [20, 20, 20]);
        assert!(s.iter().filter(|p| !p.is_self_play()).all(|p| p.matches == 10));
        // Seeds differ between datasets and do not depend on the other players.
        let mut seeds: Vec<u64> = s.iter().map(|p| p.seed).collect();
        seeds.sort_unstable();
        seeds.dedup();
        assert_eq!(seeds.len(), 9);
        let fewer = Tournament::parse(&text.replace("\"random\", ", "")).unwrap();
        let g = schedule(&fewer).into_iter().find(|p| p.dir == "greedy_vs_mcts-8").unwrap();
        assert_eq!(g.seed, s.iter().find(|p| p.dir == "greedy_vs_mcts-8").unwrap().seed);
        let no_self = Tournament::parse(&format!("{text}self_play = false\n")).unwrap();
        assert_eq!(schedule(&no_self).len(), 6);
    }

    #[test]
    fn a_player_with_fewer_matches_plays_them_in_each_of_its_pairings() {
        let text = "name = \"t\"\nplayers = [\"random\", { player = \"mcts:8\", matches_per_pair = 3 }, \
                    { name = \"g\", player = \"greedy\", matches_per_pair = 5 }]\nmatches_per_pair = 10\nseed = 3\n";
        let t = Tournament::parse(text).unwrap();
        assert_eq!(t.players[1].name, "mcts:8", "a table without a name is named by its specification");
        let count = |dir: &str| schedule(&t).into_iter().find(|p| p.dir == dir).unwrap().matches;
        assert_eq!((count("random_vs_random"), count("mcts-8_vs_mcts-8"), count("g_vs_g")), (20, 6, 10));
        assert_eq!((count("random_vs_mcts-8"), count("mcts-8_vs_random"), count("random_vs_g"), count("g_vs_random")), (3, 3, 5, 5));
        // Two capped players: the fewer.
        assert_eq!((count("mcts-8_vs_g"), count("g_vs_mcts-8")), (3, 3));
        // The seeds do not depend on the counts: the datasets of a full run begin with the capped run's matches.
        let plain = Tournament::parse("name = \"t\"\nplayers = [\"random\", \"mcts:8\"]\nmatches_per_pair = 10\nseed = 3\n").unwrap();
        let seed = |t: &Tournament| schedule(t).into_iter().find(|p| p.dir == "random_vs_mcts-8").unwrap().seed;
        assert_eq!(seed(&t), seed(&plain));
    }
}
