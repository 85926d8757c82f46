//! The perfect-match job (`solve --perfect-match`): a match from round 1 with every round
//! played perfectly (R15), once with ties broken by the lowest local pit and once by the
//! highest, the rounds solved once for both: in memory, or with their levels on disk in the
//! tables directory (`--spill`), each where `solve --spill --starter both` puts it.

use std::collections::HashMap;
use std::path::Path;

use serde_json::json;

use crate::engine::{BySide, Ruleset, Side};
use crate::exact::{
    perfect_match, ChainOutcome, PerfectMatch, Progress, Solution, SolveError, SolveOptions,
    SpillError, SpillOptions, SpilledRounds, TieBreak,
};

use super::spill::spill_dir;

/// The two matches (lowest, then highest tie-break) of `rules` with `first` starting round 1,
/// each played when it is asked for.
pub fn play(
    rules: Ruleset,
    first: Side,
    opts: SolveOptions,
) -> impl Iterator<Item = Result<PerfectMatch, SolveError>> {
    let mut solved: HashMap<BySide<u8>, Solution> = HashMap::new();
    [TieBreak::Lowest, TieBreak::Highest]
        .into_iter()
        .map(move |tie| perfect_match(rules, first, tie, opts, &mut solved))
}

/// The two matches (lowest, then highest tie-break) of `rules` with `first` starting round 1,
/// every round reached solved with its levels on disk under `tables` (both starters, the files
/// already there reused) within `opts`, whose memory also bounds each choice of a move;
/// `progress` hears each round's solve by its open pits.
pub fn play_spilled(
    rules: Ruleset,
    first: Side,
    opts: SpillOptions,
    tables: &Path,
    progress: &mut dyn FnMut(BySide<u8>, Progress),
) -> Result<Vec<PerfectMatch>, SpillError> {
    let dir_of = |open| spill_dir(tables, &rules, open, &Side::ALL);
    let mut rounds = SpilledRounds::new(rules, opts, &dir_of, progress);
    [TieBreak::Lowest, TieBreak::Highest].into_iter().map(|tie| rounds.play(first, tie)).collect()
}

/// How a match of perfectly played rounds ended, in words.
pub fn describe_chain(outcome: ChainOutcome, first: Side) -> String {
    match outcome {
        ChainOutcome::Won(side) => format!(
            "{side} wins ({} player)",
            if side == first { "the first" } else { "the second" }
        ),
        ChainOutcome::Cycle { from, to } => {
            format!("a cycle: round {to} starts as round {from} did (same holdings and starter)")
        }
        ChainOutcome::EndlessRound { round } => {
            format!("round {round} never ends (a position recurs under perfect play)")
        }
        ChainOutcome::Unfinished => "unfinished at max_rounds (R14)".to_string(),
    }
}

/// The JSON answer of the matches (`solve --perfect-match --json`).
pub fn matches_json(rules: &Ruleset, matches: &[PerfectMatch]) -> serde_json::Value {
    let v: Vec<serde_json::Value> = matches
        .iter()
        .map(|m| {
            json!({
                "tie_break": m.tie.name(),
                "first": m.first,
                "outcome": m.outcome.label(m.first),
                "description": describe_chain(m.outcome, m.first),
                "rounds": m.rounds.iter().map(|r| json!({
                    "round": r.round,
                    "starter": r.starter,
                    "open": [r.open[Side::South], r.open[Side::North]],
                    "holdings": [r.holdings[Side::South], r.holdings[Side::North]],
                    "value": r.value,
                    "captured": [r.captured[Side::South], r.captured[Side::North]],
                    "moves": r.moves,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({ "rules": rules, "rules_hash": rules.hash(), "matches": v })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both tie-breaks are played, in order, and agree with a match played on its own (an
    /// independent cache of rounds).
    #[test]
    fn both_tie_breaks_are_played_with_one_cache_of_rounds() {
        let rules = crate::app::solve::board(3, 2);
        let opts = SolveOptions::default();
        let matches: Vec<PerfectMatch> =
            play(rules, Side::North, opts).collect::<Result<_, _>>().unwrap();
        assert_eq!(matches.iter().map(|m| m.tie.name()).collect::<Vec<_>>(), ["lowest", "highest"]);
        for m in &matches {
            let alone =
                perfect_match(rules, Side::North, m.tie, opts, &mut HashMap::new()).unwrap();
            assert_eq!(
                (m.outcome.label(Side::North), m.rounds.len()),
                (alone.outcome.label(Side::North), alone.rounds.len())
            );
        }
        let json = matches_json(&rules, &matches);
        assert_eq!(json["matches"][1]["tie_break"], "highest");
        assert_eq!(
            json["matches"][0]["rounds"].as_array().map(Vec::len),
            Some(matches[0].rounds.len())
        );
    }

    /// The matches over spilled rounds are the in-memory ones, and a second play reads the
    /// rounds' files the first wrote (where `solve --spill --starter both` puts them).
    #[test]
    fn spilled_matches_are_the_in_memory_ones_and_reuse_the_rounds_files() {
        let rules = crate::app::solve::board(3, 3);
        let dir = tempfile::tempdir().unwrap();
        let opts = SpillOptions { max_memory: 1 << 28, max_disk: u64::MAX, max_levels: None };
        let memory: Vec<PerfectMatch> =
            play(rules, Side::South, SolveOptions::default()).collect::<Result<_, _>>().unwrap();
        let mut solved = 0;
        let spilled =
            play_spilled(rules, Side::South, opts, dir.path(), &mut |_, _| solved += 1).unwrap();
        assert_eq!(spilled, memory);
        assert!(solved > 0);
        let round_1 = spill_dir(dir.path(), &rules, BySide::splat(3), &Side::ALL);
        assert!(round_1.join("state.json").exists(), "{}", round_1.display());
        let mut again = 0;
        let replayed =
            play_spilled(rules, Side::South, opts, dir.path(), &mut |_, _| again += 1).unwrap();
        assert_eq!(replayed, memory);
        assert!(again < solved, "{again} progress reports replaying, {solved} solving");
    }

    #[test]
    fn a_won_chain_names_the_winner_and_its_seat() {
        assert_eq!(
            describe_chain(ChainOutcome::Won(Side::North), Side::South),
            "north wins (the second player)"
        );
    }
}
