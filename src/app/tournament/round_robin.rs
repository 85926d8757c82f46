//! The results of a tournament's round robin, read back from the datasets of its pairings
//! (which datasets it plays, with which seeds: `config::schedule`).

use std::path::Path;

use crate::analysis::summarize::summarize_dataset;
use crate::analysis::summary::ArmSummary;
use crate::engine::Side;
use crate::io::Dataset;
use crate::ratings::bradley_terry::PairResults;
use crate::ratings::report::SelfPlay;

use super::file::{Pairing, Tournament};
use crate::app::study::StudyError;

/// The results of the round robin read back from its datasets.
pub struct Results {
    /// The summary of each pairing's dataset, in schedule order.
    pub arms: Vec<ArmSummary>,
    /// Matches between distinct players (South's player as `a`).
    pub pairs: Vec<PairResults>,
    /// Each player's self-play, when played.
    pub self_play: Vec<Option<SelfPlay>>,
}

pub fn collect(t: &Tournament, pairings: &[Pairing], dir: &Path) -> Result<Results, StudyError> {
    let mut results =
        Results { arms: Vec::new(), pairs: Vec::new(), self_play: vec![None; t.players.len()] };
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
