//! Evaluations of a position for the search players (docs/players.md).
//!
//! Each is an absolute score of a position for one side, so a search compares positions by it
//! and a transposition table can store it (the key includes the reserves). `round` is the
//! round's capture difference; `match` values what the round leaves for the match (R12, R14).

use std::fmt;
use std::str::FromStr;

use crate::engine::{BySide, Position, Side};

/// Which evaluation a search player uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Eval {
    /// Counters captured in the round, own minus the opponent's (R10, R11). Counters still on
    /// the board count for nobody until the round ends.
    Round,
    /// The match: a round that leaves the opponent unable to open a pit wins the match (R14);
    /// otherwise each side's projected holdings plus S per pit it can open next round (R12),
    /// own minus the opponent's. Mid-round, a side's projected holdings are its reserve plus
    /// the counters on its own row.
    Match,
}

impl Eval {
    /// The default of `minimax` and `mcts`, chosen by measurement (docs/players.md).
    pub const DEFAULT: Eval = Eval::Match;
    pub const NAMES: &'static str = "round, match";
}

impl FromStr for Eval {
    type Err = String;
    fn from_str(s: &str) -> Result<Eval, String> {
        match s {
            "round" => Ok(Eval::Round),
            "match" => Ok(Eval::Match),
            _ => Err(format!("unknown evaluation '{s}'; allowed: {}", Eval::NAMES)),
        }
    }
}

impl fmt::Display for Eval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Eval::Round => "round",
            Eval::Match => "match",
        })
    }
}

/// Score of a match won (or, negated, lost) at a round's end: more than any other score.
pub const MATCH_WIN: i32 = 1 << 16;

/// A side's worth for the match from its (projected) holdings: the holdings plus S for each
/// pit it can open next round (R12: floor(holdings / S), at most P).
#[inline]
fn match_worth(holdings: u32, seeds: u32, pits: u32) -> i32 {
    (holdings + seeds * (holdings / seeds).min(pits)) as i32
}

impl Eval {
    /// Score of a position inside the round for `me` (the side to move may still move).
    #[inline]
    pub fn leaf(self, pos: &Position, me: Side) -> i32 {
        let reserve = pos.reserve();
        match self {
            Eval::Round => reserve[me] as i32 - reserve[me.other()] as i32,
            Eval::Match => {
                let p = pos.rules().pits_per_row as usize;
                let board = pos.board();
                let row = |side: Side| board[side.index() * p..side.index() * p + p].iter().map(|&n| n as u32).sum::<u32>();
                let projected = BySide::new(reserve[Side::South] + row(Side::South), reserve[Side::North] + row(Side::North));
                self.holdings(pos, projected, me)
            }
        }
    }

    /// Score for `me` of a round's end: `end` is the position after the remainder was collected
    /// (R10), so its reserves are the holdings for the next round.
    #[inline]
    pub fn round_end(self, end: &Position, me: Side) -> i32 {
        let holdings = end.reserve();
        match self {
            Eval::Round => holdings[me] as i32 - holdings[me.other()] as i32,
            Eval::Match => {
                let seeds = end.rules().seeds_per_pit as u32;
                if holdings[me.other()] < seeds {
                    MATCH_WIN
                } else if holdings[me] < seeds {
                    -MATCH_WIN
                } else {
                    self.holdings(end, holdings, me)
                }
            }
        }
    }

    fn holdings(self, pos: &Position, holdings: BySide<u32>, me: Side) -> i32 {
        let (s, p) = (pos.rules().seeds_per_pit as u32, pos.rules().pits_per_row as u32);
        match_worth(holdings[me], s, p) - match_worth(holdings[me.other()], s, p)
    }

    /// Score for `me` of a position whose side to move has no legal move: the round ends (R10).
    #[inline]
    pub fn stuck(self, pos: &Position, me: Side) -> i32 {
        let mut end = *pos;
        end.collect_remainder();
        self.round_end(&end, me)
    }

    /// A round's end as a playout reward in [0, 1] for `me` (MCTS): 1 and 0 for a match won
    /// and lost, otherwise the score scaled into the range between.
    pub fn reward(self, end: &Position, me: Side) -> f64 {
        let rules = end.rules();
        let total = rules.total_counters() as f64;
        let score = self.round_end(end, me);
        match self {
            // The capture difference lies in [-total, total].
            Eval::Round => 0.5 + score as f64 / (2.0 * total),
            Eval::Match if score == MATCH_WIN => 1.0,
            Eval::Match if score == -MATCH_WIN => 0.0,
            Eval::Match => {
                let most = total + (rules.seeds_per_pit as u32 * rules.pits_per_row as u32) as f64;
                0.5 + 0.4 * score as f64 / most
            }
        }
    }
}
