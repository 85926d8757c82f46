//! The quality tallies recomputed from a dataset's move and round rows (detail move or lap):
//! the check that what the simulator streams is what its rows say. Each position's reserves
//! are rebuilt from the round's kept counters (R12) plus the captures of the moves before it;
//! its board, for PositionalRepetition, by replaying the recorded moves, and its repeats
//! counted naively against every earlier position of the round.

use std::collections::HashMap;

use crate::engine::{BySide, Game, Outcome, Ruleset, Side};
use crate::sim::quality::{ByRound, PositionKey, QualityRecord, QualityScratch, QualityTally};
use crate::sim::schema::{MatchColumns, MoveColumns, RoundColumns};

/// The quality record of every match of `matches` (in its order), and the sums by round
/// number, from the round and move rows of a dataset played under `rules`. Fails when a
/// recorded move cannot be replayed.
pub fn from_rows(
    matches: &MatchColumns,
    rounds: &RoundColumns,
    moves: &MoveColumns,
    rules: &Ruleset,
) -> Result<(Vec<QualityRecord>, ByRound), String> {
    let pits_per_row = rules.pits_per_row;
    let mut rounds_of: HashMap<u64, Vec<usize>> = HashMap::new();
    for i in 0..rounds.len() {
        rounds_of.entry(rounds.match_id[i]).or_default().push(i);
    }
    let mut moves_of: HashMap<(u64, i64), Vec<usize>> = HashMap::new();
    for i in 0..moves.len() {
        moves_of.entry((moves.match_id[i], moves.round[i])).or_default().push(i);
    }
    let mut by_round = ByRound::default();
    let mut scratch = QualityScratch::default();
    let mut out = Vec::new();
    for m in 0..matches.len() {
        let id = matches.match_id[m];
        let mut game = Game::new(*rules, matches.first[m]);
        let mut repeated = 0;
        let mut tally = QualityTally::new(id, &mut scratch);
        let mut match_rounds = rounds_of.get(&id).cloned().unwrap_or_default();
        match_rounds.sort_by_key(|&r| rounds.round[r]);
        for &r in &match_rounds {
            let kept = BySide::new(rounds.south_kept[r] as u32, rounds.north_kept[r] as u32);
            let mut reserve = kept;
            let mut round_moves = moves_of.get(&(id, rounds.round[r])).cloned().unwrap_or_default();
            round_moves.sort_by_key(|&i| moves.ply[i]);
            let mut seen: Vec<(Vec<u8>, BySide<u32>)> = Vec::new();
            for &i in &round_moves {
                let mover = moves.side[i];
                let engine_legal = game.position().candidates().len() as i64;
                if moves.legal_moves[i] != engine_legal {
                    return Err(format!(
                        "match {id}, ply {}: legal_moves {} but the position has {engine_legal} moves of R4",
                        moves.ply[i], moves.legal_moves[i]
                    ));
                }
                let board = game.position().board().to_vec();
                let here = (board, reserve);
                repeated += seen.contains(&here) as u32;
                tally.position(
                    moves.legal_moves[i] as u32,
                    PositionKey::new(&here.0, reserve),
                    reserve,
                );
                seen.push(here);
                game.play(moves.pit[i] as usize)
                    .map_err(|e| format!("match {id}, ply {}: {e}", moves.ply[i]))?;
                if let Some(pit) = crate::engine::Pit::new(moves.pit[i] as usize, pits_per_row) {
                    tally.moved(pit.global(mover, pits_per_row));
                }
                reserve[mover] += (moves.pussa[i] + moves.fours_mover[i]) as u32;
                reserve[mover.other()] += moves.fours_opponent[i] as u32;
            }
            let holdings = BySide::new(
                kept[Side::South] + rounds.south_total[r] as u32,
                kept[Side::North] + rounds.north_total[r] as u32,
            );
            tally.round_ended(holdings);
            let open = BySide::new(rounds.south_open[r] as u8, rounds.north_open[r] as u8);
            by_round.add(
                matches.first[m],
                rounds.round[r] as u32,
                rounds.starter[r],
                open,
                rounds.winner[r].winner(),
            );
        }
        let outcome = matches.winner[m].map_or(Outcome::Unfinished, Outcome::Won);
        out.push(QualityRecord { repeated_positions: repeated, ..tally.finish(outcome) });
    }
    Ok((out, by_round))
}
