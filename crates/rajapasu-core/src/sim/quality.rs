//! Game-quality tallies (docs/metrics.md): what Ludii-style metrics need from every position of
//! a match, accumulated while the match is played, so that every metric is available at every
//! detail (a `quality` row per match, a `by_round` row per round number and part file) without
//! move rows. The metrics themselves are computed from these in `analysis::metrics`.
//!
//! The evaluation of a position is the holdings difference: South's reserve minus North's, a
//! reserve being the counters kept off the board plus those captured so far in the round
//! ([`crate::engine::Position::reserve`]), the quantity that decides rounds (R11) and the match
//! (R12, R14). Positions are those before each move, as Ludii evaluates them.

use std::collections::HashSet;

use crate::engine::{BySide, Outcome, Side};

/// One match's tallies (table `quality`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QualityRecord {
    pub match_id: u64,
    /// Positions (before a move) with more than one legal move.
    pub decision_moves: u32,
    /// Legal moves summed over the positions before each move.
    pub legal_sum: u64,
    pub legal_max: u32,
    /// Legal moves before the first and before the last move.
    pub legal_first: u32,
    pub legal_last: u32,
    /// Distinct pits (global numbering, R2) lifted by a move at least once.
    pub pits_played: u32,
    /// Times the leader (South, North or nobody) differs from the previous position's.
    pub lead_changes: u32,
    /// Sum and sum of squares of South's lead over the positions.
    pub lead_sum: i64,
    pub lead_squares: u64,
    /// Each side's largest lead at any position (0 at least: round 1 starts level).
    pub peak: BySide<u32>,
    /// Each side's deficit (the opponent's lead) summed over the positions where it trails, and
    /// the number of those positions.
    pub deficit_sum: BySide<u64>,
    pub behind: BySide<u32>,
    /// Positions before the winner's lead first exceeds the loser's peak (DecisivenessMoves);
    /// all the moves when it never does or the match is unfinished.
    pub decisive_ply: u32,
    /// Each side's largest holdings deficit after a round (0: never behind after a round).
    pub round_deficit: BySide<u32>,
    /// Positions equal (pit counts and reserves) to an earlier position of the same round
    /// (PositionalRepetition, docs/metrics.md).
    pub repeated_positions: u32,
}

/// A board as a fixed-size key (2P <= 18 pits).
type BoardKey = [u8; 24];

/// The positions seen since the last capture of the round, to count repeated ones (Ludii's
/// PositionalRepetition) in bounded memory: a position (pit counts and reserves) can only equal
/// one with the same counters off the board, and within a round the reserves only grow, so
/// once a capture has happened (or a round ended) the earlier positions can never recur and
/// are forgotten. Stretches without a capture are short; a long one spills into a hash set.
#[derive(Clone, Debug, PartialEq)]
pub struct Repeats {
    recent: Vec<BoardKey>,
    many: HashSet<BoardKey>,
    /// South's plus North's reserve of the positions kept (u32::MAX: none kept).
    reserves: u32,
}

/// Positions compared by a linear scan before the hash set is used.
const LINEAR: usize = 32;

impl Default for Repeats {
    fn default() -> Repeats {
        Repeats { recent: Vec::with_capacity(LINEAR), many: HashSet::new(), reserves: u32::MAX }
    }
}

impl Repeats {
    /// Forgets every position (a new round or match).
    #[inline]
    pub fn forget(&mut self) {
        self.recent.clear();
        if !self.many.is_empty() {
            self.many.clear();
        }
        self.reserves = u32::MAX;
    }

    /// Whether this position (board and reserves) was seen since the last [`Repeats::forget`];
    /// remembers it.
    #[inline(always)]
    pub fn seen(&mut self, board: &[u8], reserve: BySide<u32>) -> bool {
        let reserves = reserve[Side::South] + reserve[Side::North];
        if reserves != self.reserves {
            // A capture (or a new round): no earlier position can recur (see above).
            self.forget();
            self.reserves = reserves;
        }
        // The pit counts (2P <= 18) and South's reserve; North's is then the total's rest.
        let mut key = [0u8; 24];
        key[..board.len()].copy_from_slice(board);
        key[20..].copy_from_slice(&reserve[Side::South].to_le_bytes());
        if self.recent.contains(&key) {
            return true;
        }
        if self.recent.len() < LINEAR {
            self.recent.push(key);
            return false;
        }
        !self.many.insert(key)
    }
}

/// Memory a batch reuses from match to match for its [`QualityTally`]s.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QualityScratch {
    /// The leads of the current match's positions.
    pub leads: Vec<i32>,
    pub repeats: Repeats,
}

/// Accumulates a match's [`QualityRecord`] position by position. The leads of the positions
/// and the positions of the current capture-free stretch are kept in buffers reused from match
/// to match (no allocation per move); per position only sums, extremes and counts are updated,
/// and the record is assembled from them at the end.
pub struct QualityTally<'a> {
    record: QualityRecord,
    leads: &'a mut Vec<i32>,
    repeats: &'a mut Repeats,
    played: u32,
    /// Previous position's leader (sign of South's lead), 2 before the first position.
    leader: i32,
    max_lead: i32,
    min_lead: i32,
    /// South's lead summed over the positions where it is positive.
    ahead_sum: u64,
}

impl<'a> QualityTally<'a> {
    pub fn new(match_id: u64, scratch: &'a mut QualityScratch) -> QualityTally<'a> {
        scratch.leads.clear();
        scratch.repeats.forget();
        QualityTally {
            record: QualityRecord { match_id, ..QualityRecord::default() },
            leads: &mut scratch.leads,
            repeats: &mut scratch.repeats,
            played: 0,
            leader: 2,
            max_lead: 0,
            min_lead: 0,
            ahead_sum: 0,
        }
    }

    /// The position before a move: its number of legal moves (R4, R9), its board (the 2P pit
    /// counts) and reserves.
    #[inline(always)]
    pub fn position(&mut self, legal: u32, board: &[u8], reserve: BySide<u32>) {
        self.record.repeated_positions += self.repeats.seen(board, reserve) as u32;
        let lead = reserve[Side::South] as i32 - reserve[Side::North] as i32;
        let r = &mut self.record;
        if self.leader == 2 {
            r.legal_first = legal;
        } else {
            r.lead_changes += (self.leader != lead.signum()) as u32;
        }
        self.leader = lead.signum();
        r.legal_last = legal;
        r.decision_moves += (legal > 1) as u32;
        r.legal_sum += legal as u64;
        r.legal_max = r.legal_max.max(legal);
        r.lead_sum += lead as i64;
        r.lead_squares += (lead as i64 * lead as i64) as u64;
        self.max_lead = self.max_lead.max(lead);
        self.min_lead = self.min_lead.min(lead);
        self.ahead_sum += lead.max(0) as u64;
        r.behind[Side::South] += (lead < 0) as u32;
        r.behind[Side::North] += (lead > 0) as u32;
        self.leads.push(lead);
    }

    /// A move was played from global pit `pit` (R2).
    #[inline(always)]
    pub fn moved(&mut self, pit: usize) {
        self.played |= 1 << pit;
    }

    /// A round ended with these holdings (R12): each side's holdings deficit after it.
    #[inline]
    pub fn round_ended(&mut self, h: BySide<u32>) {
        self.repeats.forget();
        for side in Side::ALL {
            let deficit = h[side.other()].saturating_sub(h[side]);
            self.record.round_deficit[side] = self.record.round_deficit[side].max(deficit);
        }
    }

    /// The match is over: the record, with DecisivenessMoves found on the kept leads.
    pub fn finish(mut self, outcome: Outcome) -> QualityRecord {
        let r = &mut self.record;
        r.pits_played = self.played.count_ones();
        // Both peaks are at least 0: the leads start from max_lead = min_lead = 0.
        r.peak = BySide::new(self.max_lead as u32, (-self.min_lead) as u32);
        let behind_sum = (self.ahead_sum as i64 - r.lead_sum) as u64;
        r.deficit_sum = BySide::new(behind_sum, self.ahead_sum);
        r.decisive_ply = self.leads.len() as u32;
        if let Outcome::Won(winner) = outcome {
            let threshold = r.peak[winner.other()] as i32;
            let sign = if winner == Side::South { 1 } else { -1 };
            if let Some(i) = self.leads.iter().position(|&lead| sign * lead > threshold) {
                r.decisive_ply = i as u32;
            }
        }
        self.record
    }
}

/// Sums over the rounds numbered `round` (table `by_round`, one row per round number and part
/// file): what the per-round-number metrics need at every detail.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ByRoundRecord {
    pub round: u32,
    pub rounds: u64,
    pub starter_wins: u64,
    pub ties: u64,
    /// Rounds won by the match's first player (R13).
    pub first_player_wins: u64,
    /// Open pits of both sides at the round's start (R12), summed, and their squares summed.
    pub open_pits: u64,
    pub open_pits_squares: u64,
}

/// Adds the sums of `other` (its round number is not looked at).
impl std::ops::AddAssign<&ByRoundRecord> for ByRoundRecord {
    fn add_assign(&mut self, other: &ByRoundRecord) {
        self.rounds += other.rounds;
        self.starter_wins += other.starter_wins;
        self.ties += other.ties;
        self.first_player_wins += other.first_player_wins;
        self.open_pits += other.open_pits;
        self.open_pits_squares += other.open_pits_squares;
    }
}

/// [`ByRoundRecord`]s indexed by round number - 1.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ByRound {
    pub rounds: Vec<ByRoundRecord>,
}

impl ByRound {
    /// Round `round` of a match whose first player is `first`: its starter, open pits at its
    /// start and winner (None: tied).
    #[inline]
    pub fn add(&mut self, first: Side, round: u32, starter: Side, open: BySide<u8>, winner: Option<Side>) {
        let i = round as usize - 1;
        if i >= self.rounds.len() {
            self.rounds.resize_with(i + 1, Default::default);
        }
        let r = &mut self.rounds[i];
        let open = (open[Side::South] + open[Side::North]) as u64;
        r.round = round;
        r.rounds += 1;
        r.starter_wins += (winner == Some(starter)) as u64;
        r.ties += winner.is_none() as u64;
        r.first_player_wins += (winner == Some(first)) as u64;
        r.open_pits += open;
        r.open_pits_squares += open * open;
    }

    pub fn merge(&mut self, other: &ByRound) {
        if self.rounds.len() < other.rounds.len() {
            self.rounds.resize_with(other.rounds.len(), Default::default);
        }
        for (i, (mine, theirs)) in self.rounds.iter_mut().zip(&other.rounds).enumerate() {
            mine.round = i as u32 + 1;
            *mine += theirs;
        }
    }

    /// The round numbers that were played, in order.
    pub fn played(&self) -> impl Iterator<Item = &ByRoundRecord> {
        self.rounds.iter().filter(|r| r.rounds > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reserve(south: u32, north: u32) -> BySide<u32> {
        BySide::new(south, north)
    }

    /// A match of five positions: level, South ahead by 4, level, North ahead by 6, North ahead by 10;
    /// North wins. Every field worked out by hand.
    #[test]
    fn a_match_with_lead_changes_gives_its_tallies() {
        let mut scratch = QualityScratch::default();
        let mut t = QualityTally::new(7, &mut scratch);
        for (legal, r, pit) in
            [(7, reserve(0, 0), 3), (1, reserve(4, 0), 9), (3, reserve(4, 4), 3), (2, reserve(2, 8), 12), (5, reserve(0, 10), 0)]
        {
            t.position(legal, &[7; 14], r);
            t.moved(pit);
        }
        let r = t.finish(Outcome::Won(Side::North));
        assert_eq!(r.match_id, 7);
        assert_eq!((r.decision_moves, r.legal_sum, r.legal_max, r.legal_first, r.legal_last), (4, 18, 7, 7, 5));
        assert_eq!(r.pits_played, 4, "pits 3, 9, 12 and 0");
        // Leaders: none, South, none, North, North: three changes.
        assert_eq!(r.lead_changes, 3);
        assert_eq!((r.lead_sum, r.lead_squares), (4 - 6 - 10, 16 + 36 + 100));
        assert_eq!(r.peak, BySide::new(4, 10));
        assert_eq!(r.deficit_sum, BySide::new(16, 4));
        assert_eq!(r.behind, BySide::new(2, 1));
        // South's peak is 4; North's lead first exceeds it at the fourth position (index 3).
        assert_eq!(r.decisive_ply, 3);
        assert_eq!(r.repeated_positions, 0, "the reserves differ at every position");
        assert_eq!(scratch.leads, [0, 4, 0, -6, -10], "the buffer holds the leads");
    }

    #[test]
    fn an_unfinished_match_or_a_winner_never_ahead_of_the_peak_counts_every_move() {
        let mut scratch = QualityScratch::default();
        let mut t = QualityTally::new(0, &mut scratch);
        t.position(2, &[1; 4], reserve(0, 0));
        t.position(2, &[1; 4], reserve(5, 0));
        assert_eq!(t.finish(Outcome::Unfinished).decisive_ply, 2);
        let mut t = QualityTally::new(0, &mut scratch);
        t.position(2, &[1; 4], reserve(0, 0));
        t.position(2, &[1; 4], reserve(5, 0));
        assert_eq!(t.finish(Outcome::Won(Side::North)).decisive_ply, 2, "North never leads by more than 5");
    }

    /// Boards A, B, A, A, then a capture (reserves 0+0 -> 1+0) and A again (not a repeat: the
    /// reserves differ), B, B; a new round and B again (not a repeat: positions are compared
    /// within a round). Repeats: the third and fourth positions and the seventh: 3 of 9.
    #[test]
    fn repeated_positions_are_counted_within_a_round_between_captures() {
        let (a, b) = ([3u8, 0, 2, 1], [2u8, 1, 0, 3]);
        let mut scratch = QualityScratch::default();
        let mut t = QualityTally::new(0, &mut scratch);
        for (board, r) in [(a, reserve(0, 0)), (b, reserve(0, 0)), (a, reserve(0, 0)), (a, reserve(0, 0))] {
            t.position(2, &board, r);
        }
        assert_eq!(t.record.repeated_positions, 2);
        for (board, r) in [(a, reserve(1, 0)), (b, reserve(1, 0)), (b, reserve(1, 0))] {
            t.position(2, &board, r);
        }
        assert_eq!(t.record.repeated_positions, 3);
        t.round_ended(BySide::new(1, 0));
        t.position(2, &b, reserve(1, 0));
        t.position(2, &a, reserve(1, 0));
        assert_eq!(t.finish(Outcome::Unfinished).repeated_positions, 3);
        // A new match forgets the last one's positions.
        let mut t = QualityTally::new(1, &mut scratch);
        t.position(2, &a, reserve(1, 0));
        assert_eq!(t.finish(Outcome::Unfinished).repeated_positions, 0);
    }

    #[test]
    fn a_long_stretch_without_captures_spills_into_the_hash_set_and_still_counts_repeats() {
        let mut repeats = Repeats::default();
        let boards: Vec<[u8; 3]> = (0..100u8).map(|i| [i, 99 - i, 1]).collect();
        // 100 distinct boards, then each of them again: 100 repeats, found by the scan for the
        // first LINEAR and by the hash set for the rest.
        assert!(boards.iter().all(|b| !repeats.seen(b, reserve(2, 3))));
        assert!(boards.iter().all(|b| repeats.seen(b, reserve(2, 3))));
        assert!(repeats.many.len() == 100 - LINEAR);
        assert!(!repeats.seen(&boards[0], reserve(3, 3)), "a capture forgets them");
        assert!(repeats.many.is_empty() && repeats.recent.len() == 1);
    }
}
