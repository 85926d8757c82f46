//! A match under perfect round play: every round is played by both sides with best moves
//! (R15), so a match is a chain over round starts (holdings, starter) (R12-R14). The chain
//! ends when a player cannot open a pit (R14), or it cycles: a round start recurs, or a round
//! itself never ends (a position recurs under the chosen moves, endless play worth 0).

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

use crate::engine::{BySide, Game, Outcome, Pit, Position, Ruleset, Side};
use crate::exact::round::solver::{Solution, SolveError, SolveOptions, TieBreak};
use crate::exact::round_start;

/// How a match under perfect round play ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChainOutcome {
    /// A player could not open a pit at a round's start (R14).
    Won(Side),
    /// The round start (holdings, starter) of round `to` repeats that of round `from`.
    Cycle { from: u32, to: u32 },
    /// Round `round` never ends: a position recurs under perfect play (R15: worth 0).
    EndlessRound { round: u32 },
    /// `max_rounds` rounds were played (R14).
    Unfinished,
}

impl ChainOutcome {
    /// "first", "second" (the match winner relative to the round-1 starter), "cycle",
    /// "endless_round" or "unfinished".
    pub fn label(self, first: Side) -> &'static str {
        match self {
            ChainOutcome::Won(s) if s == first => "first",
            ChainOutcome::Won(_) => "second",
            ChainOutcome::Cycle { .. } => "cycle",
            ChainOutcome::EndlessRound { .. } => "endless_round",
            ChainOutcome::Unfinished => "unfinished",
        }
    }
}

/// One round of a match under perfect play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundRecord {
    pub round: u32,
    pub starter: Side,
    pub open: BySide<u8>,
    /// Holdings at the round's start (R12).
    pub holdings: BySide<u32>,
    /// The round's value for its starter (R15).
    pub value: i32,
    /// Captured in the round, remainder included (zero for both in an endless round).
    pub captured: BySide<u32>,
    pub moves: u32,
}

/// A match played by perfect round play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerfectMatch {
    pub first: Side,
    pub tie: TieBreak,
    pub rounds: Vec<RoundRecord>,
    pub outcome: ChainOutcome,
}

/// A solved round as the chain plays it: the values, and a perfect player's move.
pub trait ChainRound {
    type Error;
    /// The value of a position of the round's play (a root) for its side to move (R15).
    fn round_value(&self, pos: &Position) -> Result<i32, Self::Error>;
    /// The move a perfect player makes ([`Solution::choose`]); None when there is no legal
    /// move. `&mut`: a round may keep what one choice computed for the next.
    fn choose_move(&mut self, pos: &Position, tie: TieBreak) -> Result<Option<Pit>, Self::Error>;
}

impl ChainRound for Solution {
    type Error = SolveError;
    fn round_value(&self, pos: &Position) -> Result<i32, SolveError> {
        Ok(self.value(pos).expect("the round's start is a root"))
    }
    fn choose_move(&mut self, pos: &Position, tie: TieBreak) -> Result<Option<Pit>, SolveError> {
        Ok(self.choose(pos, tie))
    }
}

/// The rounds of a chain, each solved (both starters as roots) when the chain first reaches
/// its open pits.
pub trait ChainRounds {
    type Round: ChainRound;
    fn round(
        &mut self,
        open: BySide<u8>,
    ) -> Result<&mut Self::Round, <Self::Round as ChainRound>::Error>;
}

/// Rounds solved in memory, kept in a cache by open pits.
struct MemoryRounds<'a> {
    rules: Ruleset,
    opts: SolveOptions,
    cache: &'a mut HashMap<BySide<u8>, Solution>,
}

impl ChainRounds for MemoryRounds<'_> {
    type Round = Solution;
    fn round(&mut self, open: BySide<u8>) -> Result<&mut Solution, SolveError> {
        match self.cache.entry(open) {
            Entry::Occupied(e) => Ok(e.into_mut()),
            Entry::Vacant(e) => {
                let roots = [
                    round_start(self.rules, open, Side::South),
                    round_start(self.rules, open, Side::North),
                ];
                Ok(e.insert(Solution::solve(&roots, self.opts, &mut |_| {})?))
            }
        }
    }
}

/// Plays a match from round 1 (`first` to start) with both players choosing by
/// [`Solution::choose`] and `tie`, each round solved within `opts`. `cache` holds the solved rounds by open pits (both starters
/// as roots), reused between calls.
pub fn perfect_match(
    rules: Ruleset,
    first: Side,
    tie: TieBreak,
    opts: SolveOptions,
    cache: &mut HashMap<BySide<u8>, Solution>,
) -> Result<PerfectMatch, SolveError> {
    let opts = SolveOptions { keep_layers: true, ..opts };
    play_chain(rules, first, tie, &mut MemoryRounds { rules, opts, cache })
}

/// Plays a match from round 1 (`first` to start), each round's moves chosen by `rounds` with
/// `tie`.
pub fn play_chain<R: ChainRounds>(
    rules: Ruleset,
    first: Side,
    tie: TieBreak,
    rounds: &mut R,
) -> Result<PerfectMatch, <R::Round as ChainRound>::Error> {
    let mut game = Game::new(rules, first);
    let mut records = Vec::new();
    let mut starts: HashMap<(u32, Side), u32> = HashMap::new();
    let done = |rounds, outcome| PerfectMatch { first, tie, rounds, outcome };
    loop {
        let rs = *game.round_start();
        let holdings = game.holdings();
        if let Some(&from) = starts.get(&(holdings[Side::South], rs.starter)) {
            return Ok(done(records, ChainOutcome::Cycle { from, to: rs.round }));
        }
        starts.insert((holdings[Side::South], rs.starter), rs.round);
        let round = rounds.round(rs.open)?;
        let value = round.round_value(&rs.position)?;
        let mut record = RoundRecord {
            round: rs.round,
            starter: rs.starter,
            open: rs.open,
            holdings,
            value,
            captured: BySide::splat(0),
            moves: 0,
        };
        let mut seen = HashSet::new();
        let end = loop {
            if let Some(end) = game.settle() {
                break end;
            }
            let pos = *game.position();
            if !seen.insert((pos.board().to_vec(), pos.turn())) {
                records.push(record);
                return Ok(done(records, ChainOutcome::EndlessRound { round: rs.round }));
            }
            let pit = round
                .choose_move(&pos, tie)?
                .expect("a position with a legal move has a best move");
            let (_, end) = game.play(pit.index()).expect("a best move is legal");
            record.moves += 1;
            if let Some(end) = end {
                break end;
            }
        };
        record.captured = end.captured;
        records.push(record);
        match end.outcome {
            Some(Outcome::Won(side)) => return Ok(done(records, ChainOutcome::Won(side))),
            Some(Outcome::Unfinished) => return Ok(done(records, ChainOutcome::Unfinished)),
            None => {}
        }
    }
}
