//! The search players' static evaluations of a position (docs/players.md): a score read off
//! the position itself, with no search.
//!
//! Each is an absolute score of a position for one side, so a search compares positions by it
//! and a transposition table can store it (the table's key includes the reserves).

use std::fmt;
use std::str::FromStr;

use crate::engine::{Position, Side};

/// Which evaluation a search player uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Eval {
    /// Counters captured, own minus the opponent's (R10, R11): the round's capture difference,
    /// the same as the difference of next round's holdings (R12). Counters still on the board
    /// count for nobody until the round ends.
    Round,
    /// The match: as `round`, except that a round's end that leaves a side unable to open a
    /// pit (holdings below S, R14) is the match won or lost, worth more than any capture.
    Match,
    /// As `match`, with each side's counters on its own row counted as its own mid-round
    /// (projected holdings: at a round's end the remainder goes to the side that can still
    /// move, whose row holds it). Weaker in head-to-head play, but its self-play finishes
    /// matches at depth 2 where the others stalemate (docs/players.md).
    Rows,
}

impl Eval {
    /// The default of `minimax` and `mcts`, chosen by measurement (docs/players.md).
    pub const DEFAULT: Eval = Eval::Match;
    pub const NAMES: &'static str = "round, match, rows";
}

impl FromStr for Eval {
    type Err = String;
    fn from_str(s: &str) -> Result<Eval, String> {
        match s {
            "round" => Ok(Eval::Round),
            "match" => Ok(Eval::Match),
            "rows" => Ok(Eval::Rows),
            _ => Err(format!("unknown evaluation '{s}'; allowed: {}", Eval::NAMES)),
        }
    }
}

impl fmt::Display for Eval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Eval::Round => "round",
            Eval::Match => "match",
            Eval::Rows => "rows",
        })
    }
}

/// Score of a match won (or, negated, lost) at a round's end: more than any other score.
pub const MATCH_WIN: i32 = 1 << 16;

/// Counters on `side`'s row.
#[inline]
fn row(pos: &Position, side: Side) -> i32 {
    let p = pos.rules().pits_per_row as usize;
    pos.board()[side.index() * p..side.index() * p + p].iter().map(|&n| n as i32).sum()
}

impl Eval {
    /// Score of a position inside the round for `me` (the side to move may still move).
    #[inline]
    pub fn leaf(self, pos: &Position, me: Side) -> i32 {
        let reserve = pos.reserve();
        let captured = reserve[me] as i32 - reserve[me.other()] as i32;
        match self {
            Eval::Round | Eval::Match => captured,
            Eval::Rows => captured + row(pos, me) - row(pos, me.other()),
        }
    }

    /// Score for `me` of a round's end: `end` is the position after the remainder was collected
    /// (R10), so its reserves are the holdings for the next round.
    #[inline]
    pub fn round_end(self, end: &Position, me: Side) -> i32 {
        let holdings = end.reserve();
        let seeds = end.rules().seeds_per_pit as u32;
        let difference = holdings[me] as i32 - holdings[me.other()] as i32;
        match self {
            Eval::Round => difference,
            // R14: the side that cannot open a pit next round has lost the match.
            Eval::Match | Eval::Rows if holdings[me.other()] < seeds => MATCH_WIN,
            Eval::Match | Eval::Rows if holdings[me] < seeds => -MATCH_WIN,
            Eval::Match | Eval::Rows => difference,
        }
    }

    /// Score for `me` of a position whose side to move has no legal move: the round ends (R10).
    #[inline]
    pub fn stuck(self, pos: &Position, me: Side) -> i32 {
        let mut end = *pos;
        end.collect_remainder();
        self.round_end(&end, me)
    }

    /// A round's end as a playout reward in [0, 1] for `me` (MCTS): the capture difference
    /// mapped from [-T, T] (T counters in all) to [0, 1], and with `match` and `rows` 1 and 0
    /// for a match won and lost.
    pub fn reward(self, end: &Position, me: Side) -> f64 {
        let total = end.rules().total_counters() as f64;
        match self.round_end(end, me) {
            MATCH_WIN => 1.0,
            score if score == -MATCH_WIN => 0.0,
            score => 0.5 + score as f64 / (2.0 * total),
        }
    }
}
