//! The quality tallies recomputed from a dataset's move and round rows (detail move or lap):
//! the check that what the simulator streams is what its rows say. Each position's reserves
//! are rebuilt from the round's kept counters (R12) plus the captures of the moves before it.

use std::collections::HashMap;

use crate::engine::{BySide, Outcome, Side};
use crate::sim::quality::{ByRound, QualityRecord, QualityTally};
use crate::sim::schema::{MatchColumns, MoveColumns, RoundColumns};

/// The quality record of every match of `matches` (in its order), and the sums by round
/// number, from the round and move rows. `pits_per_row` numbers the pits (R2).
pub fn from_rows(matches: &MatchColumns, rounds: &RoundColumns, moves: &MoveColumns, pits_per_row: u8) -> (Vec<QualityRecord>, ByRound) {
    let mut rounds_of: HashMap<u64, Vec<usize>> = HashMap::new();
    for i in 0..rounds.len() {
        rounds_of.entry(rounds.match_id[i]).or_default().push(i);
    }
    let mut moves_of: HashMap<(u64, i64), Vec<usize>> = HashMap::new();
    for i in 0..moves.len() {
        moves_of.entry((moves.match_id[i], moves.round[i])).or_default().push(i);
    }
    let mut by_round = ByRound::default();
    let mut leads = Vec::new();
    let mut out = Vec::new();
    for m in 0..matches.len() {
        let id = matches.match_id[m];
        let mut tally = QualityTally::new(id, &mut leads);
        let mut match_rounds = rounds_of.get(&id).cloned().unwrap_or_default();
        match_rounds.sort_by_key(|&r| rounds.round[r]);
        for &r in &match_rounds {
            let kept = BySide::new(rounds.south_kept[r] as u32, rounds.north_kept[r] as u32);
            let mut reserve = kept;
            let mut round_moves = moves_of.get(&(id, rounds.round[r])).cloned().unwrap_or_default();
            round_moves.sort_by_key(|&i| moves.ply[i]);
            for &i in &round_moves {
                let mover = moves.side[i];
                tally.position(moves.legal_moves[i] as u32, reserve);
                if let Some(pit) = crate::engine::Pit::new(moves.pit[i] as usize, pits_per_row) {
                    tally.moved(pit.global(mover, pits_per_row));
                }
                reserve[mover] += (moves.pussa[i] + moves.fours_mover[i]) as u32;
                reserve[mover.other()] += moves.fours_opponent[i] as u32;
            }
            let holdings = BySide::new(kept[Side::South] + rounds.south_total[r] as u32, kept[Side::North] + rounds.north_total[r] as u32);
            tally.round_ended(holdings);
            let open = BySide::new(rounds.south_open[r] as u8, rounds.north_open[r] as u8);
            by_round.add(matches.first[m], rounds.round[r] as u32, rounds.starter[r], open, rounds.winner[r].winner());
        }
        let outcome = matches.winner[m].map_or(Outcome::Unfinished, Outcome::Won);
        out.push(tally.finish(outcome));
    }
    (out, by_round)
}
