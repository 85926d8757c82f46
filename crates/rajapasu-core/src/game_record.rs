//! A game as a fieldworker records it (docs/records.md): the moves (local pits, R3) with
//! optional observations after any move, checked against a reading of the rules.
//!
//! The text is untrusted: it is parsed line by line within [`MAX_RECORD_BYTES`] and
//! [`MAX_RECORD_MOVES`], and every error names its line and what is allowed.

use crate::engine::{
    BySide, Capture, Endless, FinalFour, Game, GameError, IllegalReason, MoveObserver, NextStarter,
    Ruleset, Side,
};

/// The longest record read, in bytes.
pub const MAX_RECORD_BYTES: usize = 1 << 20;
/// The most moves a record may hold (the longest of a million random matches is about 5,000).
pub const MAX_RECORD_MOVES: usize = 100_000;

/// What was seen after a move (each part optional). Boards and reserves are as the move left
/// them, before a round's remainder is collected (R10).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Observation {
    /// The 2P pit counts in global order (R2); a closed pit counts 0.
    pub board: Option<Vec<u8>>,
    /// Each side's counters off the board (kept plus captured).
    pub reserve: BySide<Option<u32>>,
    /// Counters each side captured during the move (R6, R8).
    pub captures: BySide<Option<u32>>,
    /// Who starts the round in play after the move (the next round, when the move ended one).
    pub starter: Option<Side>,
}

impl Observation {
    pub fn is_empty(&self) -> bool {
        *self == Observation::default()
    }
}

/// One recorded move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedMove {
    pub pit: usize,
    /// The record's line (1-based; 0 for a bare move list).
    pub line: usize,
    pub seen: Observation,
}

/// A recorded game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub first: Side,
    /// `name=value` switches of the header's `rules:` line (the board, not the readings).
    pub rules: Vec<String>,
    pub moves: Vec<RecordedMove>,
}

/// A record that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct RecordError {
    pub line: usize,
    pub message: String,
}

/// The switches whose readings a record is checked against (docs/rules.md, "Variant switches").
pub const READING_SWITCHES: [&str; 5] =
    ["final_four", "skip_origin", "pussa_chain", "endless", "next_starter"];

impl Record {
    /// A bare move list.
    pub fn from_moves(first: Side, moves: &[usize]) -> Record {
        Record {
            first,
            rules: Vec::new(),
            moves: moves
                .iter()
                .map(|&pit| RecordedMove { pit, line: 0, seen: Observation::default() })
                .collect(),
        }
    }

    /// Parses a record (see docs/records.md).
    pub fn parse(text: &str) -> Result<Record, RecordError> {
        if text.len() > MAX_RECORD_BYTES {
            return Err(RecordError {
                line: 0,
                message: format!("{} bytes; a record holds at most {MAX_RECORD_BYTES}", text.len()),
            });
        }
        let mut record = Record { first: Side::South, rules: Vec::new(), moves: Vec::new() };
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let err = |message: String| RecordError { line, message };
            let body = raw.split('#').next().unwrap_or("").trim();
            if body.is_empty() {
                continue;
            }
            if let Some(rest) = body.strip_prefix("first:") {
                record.first = rest.trim().parse().map_err(err)?;
            } else if let Some(rest) = body.strip_prefix("rules:") {
                record.rules.extend(rest.split_whitespace().map(str::to_string));
            } else {
                parse_moves(body, line, &mut record.moves).map_err(err)?;
            }
        }
        Ok(record)
    }
}

/// One line of moves: local pits separated by spaces or commas, then `name=value`
/// observations, which belong to the line's last move.
fn parse_moves(body: &str, line: usize, moves: &mut Vec<RecordedMove>) -> Result<(), String> {
    let mut seen = Observation::default();
    let mut pits = Vec::new();
    for word in body.split_whitespace() {
        if let Some((name, value)) = word.split_once('=') {
            observe(&mut seen, name, value)?;
        } else if !seen.is_empty() {
            return Err(format!("'{word}': moves come before the observations of a line"));
        } else {
            for item in word.split(',').filter(|s| !s.is_empty()) {
                // A ply number written before the move ("12." or "12:") is a label, not a move.
                if item.ends_with(':') || item.ends_with('.') {
                    continue;
                }
                pits.push(item.parse::<usize>().map_err(|_| {
                    format!("'{item}' is not a local pit (0..pits_per_row-1) or name=value")
                })?);
            }
        }
    }
    if pits.is_empty() {
        return Err("observations without a move before them on the line".into());
    }
    if moves.len() + pits.len() > MAX_RECORD_MOVES {
        return Err(format!("more than {MAX_RECORD_MOVES} moves, the most a record may hold"));
    }
    let last = pits.len() - 1;
    for (i, pit) in pits.into_iter().enumerate() {
        moves.push(RecordedMove {
            pit,
            line,
            seen: if i == last { seen.clone() } else { Observation::default() },
        });
    }
    Ok(())
}

const OBSERVATIONS: &str = "board, reserve, captures, south_reserve, north_reserve, south_captures, north_captures, starter";

fn observe(seen: &mut Observation, name: &str, value: &str) -> Result<(), String> {
    let num = |x: &str| {
        x.trim().parse::<u32>().map_err(|_| format!("{name}: '{x}' is not a number of counters"))
    };
    let pair = |v: &str| -> Result<BySide<Option<u32>>, String> {
        match v.split(',').collect::<Vec<_>>().as_slice() {
            [s, n] => Ok(BySide::new(Some(num(s)?), Some(num(n)?))),
            _ => Err(format!("{name}: expected S,N (South's, then North's), got '{v}'")),
        }
    };
    match name {
        "board" => {
            let pits: Result<Vec<u8>, String> = value
                .split(',')
                .map(|x| match x.trim() {
                    "x" | "X" => Ok(0),
                    x => x.parse::<u8>().map_err(|_| {
                        format!("board: '{x}' is not a count of counters (0..=255) or x (closed)")
                    }),
                })
                .collect();
            seen.board = Some(pits?);
        }
        "reserve" => seen.reserve = pair(value)?,
        "captures" => seen.captures = pair(value)?,
        "south_reserve" => seen.reserve[Side::South] = Some(num(value)?),
        "north_reserve" => seen.reserve[Side::North] = Some(num(value)?),
        "south_captures" => seen.captures[Side::South] = Some(num(value)?),
        "north_captures" => seen.captures[Side::North] = Some(num(value)?),
        "starter" => seen.starter = Some(value.parse()?),
        _ => return Err(format!("unknown observation '{name}': known ones are {OBSERVATIONS}")),
    }
    Ok(())
}

/// Every reading of the rules: each combination of the values of [`READING_SWITCHES`] on top
/// of `base` (its board size and round limit), in a fixed order (defaults first).
pub fn readings(base: Ruleset) -> Vec<Ruleset> {
    let mut all = Vec::new();
    for final_four in [FinalFour::Owner, FinalFour::Stays, FinalFour::Sower] {
        for skip_origin in [false, true] {
            for pussa_chain in [false, true] {
                for endless in [Endless::Forbid, Endless::Stop] {
                    for next_starter in [NextStarter::Collector, NextStarter::RoundWinner] {
                        all.push(Ruleset {
                            final_four,
                            skip_origin,
                            pussa_chain,
                            endless,
                            next_starter,
                            ..base
                        });
                    }
                }
            }
        }
    }
    all
}

/// Where and how a reading disagrees with a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Disagreement {
    /// The record's move, the first counted 1.
    pub ply: usize,
    /// "illegal", "match_over", "board", "reserve", "captures" or "starter".
    pub kind: &'static str,
    pub what: String,
}

/// Counters each side captures during a move.
#[derive(Default)]
struct Captured(BySide<u32>);

impl MoveObserver for Captured {
    fn begin(&mut self) {
        self.0 = BySide::default();
    }
    fn capture(&mut self, c: Capture) {
        self.0[c.by] += c.n as u32;
    }
}

/// Replays `record` under `rules`: None if every move is legal and every observation holds,
/// else the first move where the reading disagrees.
pub fn check(record: &Record, rules: Ruleset) -> Option<Disagreement> {
    let mut game = Game::new(rules, record.first);
    game.settle();
    for (i, mv) in record.moves.iter().enumerate() {
        let ply = i + 1;
        let at = |kind: &'static str, what: String| Some(Disagreement { ply, kind, what });
        let mut captured = Captured::default();
        match game.play_checked_observed(mv.pit, &mut captured) {
            Ok(_) => {}
            Err(over @ GameError::Over(_)) => {
                return at("match_over", format!("no move is left to play: {over}"))
            }
            Err(GameError::Illegal(e)) => {
                let why = match e.reason {
                    IllegalReason::NoSuchPit => "no such pit on the row",
                    IllegalReason::Closed => "the pit is closed this round (R12)",
                    IllegalReason::Empty => "the pit is empty (R4)",
                    IllegalReason::Endless => {
                        "the move is endless, which this reading forbids (R9)"
                    }
                };
                return at("illegal", format!("{} cannot play pit {}: {why}", e.side, mv.pit));
            }
        }
        if let Some(d) = compare(&mv.seen, &game, &captured.0) {
            return at(d.0, d.1);
        }
        game.settle();
        if let Some(want) = mv.seen.starter {
            let got = game.round_start().starter;
            if got != want {
                return at(
                    "starter",
                    format!("the round in play is started by {got}, not {want} (R13)"),
                );
            }
        }
    }
    None
}

/// The first observation that the position after the move contradicts.
fn compare(
    seen: &Observation,
    game: &Game,
    captured: &BySide<u32>,
) -> Option<(&'static str, String)> {
    let pos = game.position();
    if let Some(board) = &seen.board {
        if board.as_slice() != pos.board() {
            let list = |b: &[u8]| b.iter().map(u8::to_string).collect::<Vec<_>>().join(",");
            return Some((
                "board",
                format!("the board is {}, not {}", list(pos.board()), list(board)),
            ));
        }
    }
    for side in Side::ALL {
        if let Some(want) = seen.reserve[side] {
            let got = pos.reserve()[side];
            if got != want {
                return Some(("reserve", format!("{side} holds {got} off the board, not {want}")));
            }
        }
        if let Some(want) = seen.captures[side] {
            let got = captured[side];
            if got != want {
                return Some((
                    "captures",
                    format!("{side} captures {got} in the move, not {want}"),
                ));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_parse_with_their_observations() {
        let r = Record::parse(
            "# a game\nfirst: north\nrules: pits_per_row=3 seeds_per_pit=2\n1. 2, 0 board=0,1,x,3,3,3 reserve=1,1\n2 starter=south\n",
        )
        .unwrap();
        assert_eq!(r.first, Side::North);
        assert_eq!(r.rules, ["pits_per_row=3", "seeds_per_pit=2"]);
        assert_eq!(r.moves.iter().map(|m| m.pit).collect::<Vec<_>>(), [2, 0, 2]);
        assert!(r.moves[0].seen.is_empty());
        assert_eq!(r.moves[1].seen.board, Some(vec![0, 1, 0, 3, 3, 3]));
        assert_eq!(r.moves[1].seen.reserve, BySide::new(Some(1), Some(1)));
        assert_eq!(r.moves[2].seen.starter, Some(Side::South));
        assert_eq!(r.moves[2].line, 5);
        for (bad, needle) in [
            ("0 colour=red", "unknown observation 'colour'"),
            ("a", "'a' is not a local pit"),
            ("reserve=1,2", "without a move"),
            ("0 reserve=1", "expected S,N"),
            ("first: east", "east"),
            ("0 board=1,y", "'y'"),
        ] {
            let e = Record::parse(&format!("\n{bad}\n")).unwrap_err();
            assert_eq!(e.line, 2, "{bad}");
            assert!(e.message.contains(needle), "{bad}: {e}");
        }
    }

    #[test]
    fn there_are_48_distinct_readings_keeping_the_board() {
        let base = Ruleset { pits_per_row: 4, seeds_per_pit: 3, ..Ruleset::default() };
        let all = readings(base);
        assert_eq!(all.len(), 48);
        assert_eq!(all[0], base);
        assert_eq!(
            all.iter().map(Ruleset::hash).collect::<std::collections::HashSet<_>>().len(),
            48
        );
        assert!(all.iter().all(|r| r.pits_per_row == 4
            && r.seeds_per_pit == 3
            && r.max_rounds == base.max_rounds));
    }
}
