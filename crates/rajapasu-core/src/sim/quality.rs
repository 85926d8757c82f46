//! Game-quality tallies (docs/metrics.md): what Ludii-style metrics need from every position of
//! a match, accumulated while the match is played, so that every metric is available at every
//! detail (a `quality` row per match, a `by_round` row per round number and part file) without
//! move rows. The metrics themselves are computed from these in `analysis::metrics`.
//!
//! The evaluation of a position is the holdings difference: South's reserve minus North's, a
//! reserve being the counters kept off the board plus those captured so far in the round
//! ([`crate::engine::Position::reserve`]), the quantity that decides rounds (R11) and the match
//! (R12, R14). Positions are those before each move, as Ludii evaluates them.

#[cfg(test)]
use std::collections::HashMap;
use std::collections::HashSet;

use crate::engine::{BySide, Outcome, Position, Side, MAX_PITS};

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

/// A position as a fixed-size key (what PositionalRepetition compares): the pit counts
/// (2P <= 18, in global order, zeros after them) in the first 18 bytes of three little-endian
/// words and South's reserve in the last word's upper half; North's reserve is then the
/// total's rest, which the comparison's caller keeps equal ([`Repeats`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PositionKey([u64; 3]);

impl PositionKey {
    /// The key of a position, from the engine's board words (no copy of a slice).
    #[inline(always)]
    pub fn of(position: &Position) -> PositionKey {
        let [a, b, c] = position.board_words();
        PositionKey([a, b, c | (position.reserve()[Side::South] as u64) << 32])
    }

    /// The key of a board (2P pit counts) and its reserves: the key of [`PositionKey::of`].
    pub fn new(board: &[u8], reserve: BySide<u32>) -> PositionKey {
        assert!(board.len() <= MAX_PITS, "a board has at most {MAX_PITS} pits");
        let mut bytes = [0u8; 24];
        bytes[..board.len()].copy_from_slice(board);
        let word =
            |i: usize| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().expect("eight bytes"));
        PositionKey([word(0), word(1), word(2) | (reserve[Side::South] as u64) << 32])
    }
}

/// The positions seen since the last capture of the round, to count repeated ones (Ludii's
/// PositionalRepetition) in bounded memory: a position (pit counts and reserves) can only equal
/// one with the same counters off the board, and within a round the reserves only grow, so
/// once a capture has happened (or a round ended) the earlier positions can never recur and
/// are forgotten. Stretches without a capture are short (two positions on average in random
/// play); a long one spills into a hash set.
#[derive(Clone, Debug)]
pub struct Repeats {
    /// The first `len` positions of the stretch, in a fixed array (no capacity to check).
    recent: [PositionKey; LINEAR],
    len: usize,
    many: HashSet<PositionKey>,
    /// South's plus North's reserve of the positions kept (u32::MAX: none kept).
    reserves: u32,
}

/// Positions compared by a linear scan before the hash set is used.
const LINEAR: usize = 32;

impl Default for Repeats {
    fn default() -> Repeats {
        Repeats {
            recent: [PositionKey([0; 3]); LINEAR],
            len: 0,
            many: HashSet::new(),
            reserves: u32::MAX,
        }
    }
}

/// The positions kept, not what the array holds past them.
impl PartialEq for Repeats {
    fn eq(&self, other: &Repeats) -> bool {
        self.recent[..self.len] == other.recent[..other.len]
            && self.many == other.many
            && self.reserves == other.reserves
    }
}

impl Repeats {
    /// Forgets every position (a new round or match).
    #[inline]
    pub fn forget(&mut self) {
        self.len = 0;
        if !self.many.is_empty() {
            self.many.clear();
        }
        self.reserves = u32::MAX;
    }

    /// Whether this position (its key, and South's plus North's reserve) was seen since the
    /// last [`Repeats::forget`]; remembers it.
    #[inline(always)]
    pub fn seen(&mut self, key: PositionKey, reserves: u32) -> bool {
        if reserves != self.reserves {
            // A capture (or a new round): no earlier position can recur (see above).
            self.forget();
            self.reserves = reserves;
        }
        // The first word (the first eight pits) tells most positions apart: one compare each.
        let [a, b, c] = key.0;
        if self.recent[..self.len].iter().any(|k| k.0[0] == a && k.0[1] == b && k.0[2] == c) {
            return true;
        }
        if self.len < LINEAR {
            self.recent[self.len] = key;
            self.len += 1;
            return false;
        }
        !self.many.insert(key)
    }
}

/// Memory a batch reuses from match to match for its [`QualityTally`]s.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QualityScratch {
    /// The leads (South's) of the current match's positions: at most the counters of the game
    /// (2 x 9 x 255, R1), so they fit an i16.
    pub leads: Vec<i16>,
    /// The legal moves at each of them.
    pub legal: Vec<u8>,
    pub repeats: Repeats,
}

/// Accumulates a match's [`QualityRecord`] position by position. Per position only its lead
/// and its legal moves are stored (in buffers reused from match to match: no allocation per
/// move) and its repetition checked; the sums, extremes and counts are taken over the buffers
/// when the match ends, in tight loops away from the game loop's dependency chains.
pub struct QualityTally<'a> {
    record: QualityRecord,
    /// The scratch's buffers, held here while the match is played (their length and capacity
    /// in the game loop's frame, not behind the scratch's pointer) and given back by `finish`.
    leads: Vec<i16>,
    legal: Vec<u8>,
    repeats: Repeats,
    scratch: &'a mut QualityScratch,
    played: u32,
    /// What the tally held when the current round started, to forget a round cut before its
    /// end ([`QualityTally::round_cut`]).
    round_start: RoundMark,
}

/// Positions, repetitions and pits played at a round's start.
#[derive(Clone, Copy, Debug, Default)]
struct RoundMark {
    positions: usize,
    repeated: u32,
    played: u32,
}

impl<'a> QualityTally<'a> {
    pub fn new(match_id: u64, scratch: &'a mut QualityScratch) -> QualityTally<'a> {
        let (mut leads, mut legal) =
            (std::mem::take(&mut scratch.leads), std::mem::take(&mut scratch.legal));
        leads.clear();
        legal.clear();
        let mut repeats = std::mem::take(&mut scratch.repeats);
        repeats.forget();
        QualityTally {
            record: QualityRecord { match_id, ..QualityRecord::default() },
            leads,
            legal,
            repeats,
            scratch,
            played: 0,
            round_start: RoundMark::default(),
        }
    }

    /// The position before a move: its number of legal moves (R4, R9, at most 2P / 2), its key
    /// and reserves. Its evaluation is the holdings difference (see [`QualityTally::lead`]).
    #[inline(always)]
    pub fn position(&mut self, legal: u32, key: PositionKey, reserve: BySide<u32>) {
        self.legal_and_repeat(legal, key, reserve[Side::South] + reserve[Side::North]);
        self.lead(reserve[Side::South] as i32 - reserve[Side::North] as i32);
    }

    /// The move-counting part of a position: its legal moves (at most 2P / 2 <= 9) and whether it
    /// repeats one since the last capture of the round (its key, and the reserves' total).
    #[inline(always)]
    pub fn legal_and_repeat(&mut self, legal: u32, key: PositionKey, reserves: u32) {
        self.record.repeated_positions += self.repeats.seen(key, reserves) as u32;
        self.legal.push(legal as u8);
    }

    /// The evaluation part of a position: South's lead (any evaluation, e.g. the exact round
    /// value of `metrics --exact`).
    #[inline(always)]
    pub fn lead(&mut self, lead: i32) {
        debug_assert!(lead.unsigned_abs() <= 2 * 9 * 255, "a lead is at most the game's counters");
        self.leads.push(lead as i16);
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
        self.round_start = RoundMark {
            positions: self.legal.len().max(self.leads.len()),
            repeated: self.record.repeated_positions,
            played: self.played,
        };
    }

    /// The current round was cut before its end (play that never ends, R17, at the
    /// simulator's `MAX_ROUND_MOVES`): its positions are forgotten, as the matches row leaves
    /// its moves out of `moves` (docs/data.md), so that every per-position figure has the
    /// row's moves as its count.
    pub fn round_cut(&mut self) {
        let mark = self.round_start;
        self.legal.truncate(mark.positions);
        self.leads.truncate(mark.positions);
        self.record.repeated_positions = mark.repeated;
        self.played = mark.played;
        self.repeats.forget();
    }

    /// The match is over: the record, from the positions' legal moves and leads.
    pub fn finish(self, outcome: Outcome) -> QualityRecord {
        let mut r = self.record;
        r.pits_played = self.played.count_ones();
        let legal = &self.legal[..];
        r.legal_first = legal.first().map_or(0, |&n| n as u32);
        r.legal_last = legal.last().map_or(0, |&n| n as u32);
        // One fused pass in signed 16-bit lanes (it vectorizes: paddw, pcmpgtw, pmaxsw): a
        // block's sum stays under 2^15.
        for block in legal.chunks(2048) {
            let (mut sum, mut decisions, mut max) = (0i16, 0i16, 0i16);
            for &n in block {
                let n = n as i16;
                sum += n;
                decisions += (n > 1) as i16;
                max = max.max(n);
            }
            r.legal_sum += sum as u64;
            r.decision_moves += decisions as u32;
            r.legal_max = r.legal_max.max(max as u32);
        }
        let leads = &self.leads[..];
        let s = LeadSums::of(leads);
        r.lead_changes = s.changes;
        r.lead_sum = s.sum;
        r.lead_squares = s.squares;
        r.behind = BySide::new(s.below, s.above);
        // The leads start from 0 (round 1 starts level), so both peaks are at least 0.
        let (max_lead, min_lead, ahead_sum) = (s.max.max(0) as i32, s.min.min(0) as i32, s.ahead);
        r.peak = BySide::new(max_lead as u32, (-min_lead) as u32);
        let behind_sum = (ahead_sum as i64 - r.lead_sum) as u64;
        r.deficit_sum = BySide::new(behind_sum, ahead_sum);
        r.decisive_ply = leads.len() as u32;
        if let Outcome::Won(winner) = outcome {
            let threshold = r.peak[winner.other()] as i32;
            let sign = if winner == Side::South { 1 } else { -1 };
            // The first block holding such a lead, found without a branch per lead (it
            // vectorizes), then the lead within it.
            let beyond = |lead: i16| sign * lead as i32 > threshold;
            let mut blocks = leads.chunks(64).enumerate();
            if let Some((b, block)) =
                blocks.find(|(_, block)| block.iter().fold(false, |any, &lead| any | beyond(lead)))
            {
                r.decisive_ply = (b * 64
                    + block.iter().position(|&lead| beyond(lead)).expect("the block holds one"))
                    as u32;
            }
        }
        self.scratch.leads = self.leads;
        self.scratch.legal = self.legal;
        self.scratch.repeats = self.repeats;
        r
    }
}

/// What the evaluation metrics need from a match's leads, taken in one pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct LeadSums {
    /// Positions whose leader (the lead's sign) differs from the previous position's.
    changes: u32,
    sum: i64,
    squares: u64,
    /// Sum of the positive leads.
    ahead: u64,
    /// Positions with a negative and with a positive lead.
    below: u32,
    above: u32,
    max: i16,
    min: i16,
}

impl LeadSums {
    fn of(leads: &[i16]) -> LeadSums {
        let max = leads.iter().copied().max().unwrap_or(0);
        let min = leads.iter().copied().min().unwrap_or(0);
        let mut s = LeadSums { max, min, ..LeadSums::default() };
        // Summed per block in 32-bit lanes, so that the loops vectorize (pmaddwd, pmaxsw): a
        // block's squares stay under 2^31 (|lead| <= 2 x 9 x 255 = 4,590, and 216 under the
        // largest rules of Ruleset's bounds).
        let largest = (max as i64).abs().max((min as i64).abs()).max(1) as usize;
        let block = (i32::MAX as usize / (largest * largest)).min(1 << 16);
        let sign = |l: i16| (l > 0) as i8 - (l < 0) as i8;
        let mut previous = leads.first().map_or(0, |&l| sign(l));
        for block in leads.chunks(block) {
            let (mut sum, mut squares, mut ahead, mut below, mut above) =
                (0i32, 0i32, 0i32, 0u32, 0u32);
            for &lead in block {
                sum += lead as i32;
                squares += lead as i32 * lead as i32;
                ahead += lead.max(0) as i32;
                below += (lead < 0) as u32;
                above += (lead > 0) as u32;
            }
            // The leader changes when the sign does: compared on the block and itself shifted
            // by one (two loads, no shuffles).
            let mut changes = (sign(block[0]) != previous) as u32;
            for (&a, &b) in block.iter().zip(&block[1..]) {
                changes += (((a > 0) != (b > 0)) | ((a < 0) != (b < 0))) as u32;
            }
            previous = sign(block[block.len() - 1]);
            s.sum += sum as i64;
            s.squares += squares as u64;
            s.ahead += ahead as u64;
            s.below += below;
            s.above += above;
            s.changes += changes;
        }
        s
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
    pub fn add(
        &mut self,
        first: Side,
        round: u32,
        starter: Side,
        open: BySide<u8>,
        winner: Option<Side>,
    ) {
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

    /// A position given as its board and reserves.
    fn at(t: &mut QualityTally, legal: u32, board: &[u8], r: BySide<u32>) {
        t.position(legal, PositionKey::new(board, r), r);
    }

    /// A match of five positions: level, South ahead by 4, level, North ahead by 6, North ahead by 10;
    /// North wins. Every field worked out by hand.
    #[test]
    fn a_match_with_lead_changes_gives_its_tallies() {
        let mut scratch = QualityScratch::default();
        let mut t = QualityTally::new(7, &mut scratch);
        for (legal, r, pit) in [
            (7, reserve(0, 0), 3),
            (1, reserve(4, 0), 9),
            (3, reserve(4, 4), 3),
            (2, reserve(2, 8), 12),
            (5, reserve(0, 10), 0),
        ] {
            at(&mut t, legal, &[7; 14], r);
            t.moved(pit);
        }
        let r = t.finish(Outcome::Won(Side::North));
        assert_eq!(r.match_id, 7);
        assert_eq!(
            (r.decision_moves, r.legal_sum, r.legal_max, r.legal_first, r.legal_last),
            (4, 18, 7, 7, 5)
        );
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
        at(&mut t, 2, &[1; 4], reserve(0, 0));
        at(&mut t, 2, &[1; 4], reserve(5, 0));
        assert_eq!(t.finish(Outcome::Unfinished).decisive_ply, 2);
        let mut t = QualityTally::new(0, &mut scratch);
        at(&mut t, 2, &[1; 4], reserve(0, 0));
        at(&mut t, 2, &[1; 4], reserve(5, 0));
        assert_eq!(
            t.finish(Outcome::Won(Side::North)).decisive_ply,
            2,
            "North never leads by more than 5"
        );
    }

    /// Boards A, B, A, A, then a capture (reserves 0+0 -> 1+0) and A again (not a repeat: the
    /// reserves differ), B, B; a new round and B again (not a repeat: positions are compared
    /// within a round). Repeats: the third and fourth positions and the seventh: 3 of 9.
    #[test]
    fn repeated_positions_are_counted_within_a_round_between_captures() {
        let (a, b) = ([3u8, 0, 2, 1], [2u8, 1, 0, 3]);
        let mut scratch = QualityScratch::default();
        let mut t = QualityTally::new(0, &mut scratch);
        for (board, r) in
            [(a, reserve(0, 0)), (b, reserve(0, 0)), (a, reserve(0, 0)), (a, reserve(0, 0))]
        {
            at(&mut t, 2, &board, r);
        }
        assert_eq!(t.record.repeated_positions, 2);
        for (board, r) in [(a, reserve(1, 0)), (b, reserve(1, 0)), (b, reserve(1, 0))] {
            at(&mut t, 2, &board, r);
        }
        assert_eq!(t.record.repeated_positions, 3);
        t.round_ended(BySide::new(1, 0));
        at(&mut t, 2, &b, reserve(1, 0));
        at(&mut t, 2, &a, reserve(1, 0));
        assert_eq!(t.finish(Outcome::Unfinished).repeated_positions, 3);
        // A new match forgets the last one's positions.
        let mut t = QualityTally::new(1, &mut scratch);
        at(&mut t, 2, &a, reserve(1, 0));
        assert_eq!(t.finish(Outcome::Unfinished).repeated_positions, 0);
    }

    #[test]
    fn a_long_stretch_without_captures_spills_into_the_hash_set_and_still_counts_repeats() {
        let mut repeats = Repeats::default();
        let boards: Vec<[u8; 3]> = (0..100u8).map(|i| [i, 99 - i, 1]).collect();
        // 100 distinct boards, then each of them again: 100 repeats, found by the scan for the
        // first LINEAR and by the hash set for the rest.
        let key = |b: &[u8; 3], r: BySide<u32>| PositionKey::new(b, r);
        assert!(boards.iter().all(|b| !repeats.seen(key(b, reserve(2, 3)), 5)));
        assert!(boards.iter().all(|b| repeats.seen(key(b, reserve(2, 3)), 5)));
        assert!(repeats.many.len() == 100 - LINEAR);
        assert!(!repeats.seen(key(&boards[0], reserve(3, 3)), 6), "a capture forgets them");
        assert!(repeats.many.is_empty() && repeats.len == 1);
    }

    /// A position's key from the engine's board words is the key of its board and reserves,
    /// and two positions have the same key exactly when their boards and South's reserves
    /// are equal: checked at every position of random matches on 14 and on 18 pits (keys
    /// are compared within a round, so under one set of rules).
    #[test]
    fn position_keys_from_the_engine_equal_those_of_the_board_and_tell_positions_apart() {
        use crate::agents::{seat_rng, Agent, AgentSpec};
        use crate::engine::{Game, Ruleset};
        for rules in [
            Ruleset::default(),
            Ruleset { pits_per_row: 9, seeds_per_pit: 12, ..Ruleset::default() },
        ] {
            let mut seen: HashMap<PositionKey, (Vec<u8>, u32)> = HashMap::new();
            let mut positions = 0;
            for i in 0..20 {
                let mut game = Game::new(rules, Side::from_index(i % 2));
                let mut agents = Side::ALL
                    .map(|side| Agent::new(AgentSpec::Random, seat_rng(5, i as u64, side)));
                while !game.is_over() {
                    let pos = *game.position();
                    let key = PositionKey::of(&pos);
                    assert_eq!(key, PositionKey::new(pos.board(), pos.reserve()));
                    let here = (pos.board().to_vec(), pos.reserve()[Side::South]);
                    assert_eq!(
                        seen.entry(key).or_insert_with(|| here.clone()),
                        &here,
                        "one key, one position"
                    );
                    positions += 1;
                    if agents[pos.turn().index()].play(&mut game, &mut ()).unwrap().is_none() {
                        game.end_round();
                    }
                }
            }
            assert!(
                seen.len() > 1000 && positions > seen.len(),
                "{} keys of {positions} positions",
                seen.len()
            );
        }
    }

    /// The record as the tally computed it before its sums moved to the match's end: every
    /// field updated position by position.
    fn one_pass(legal: &[u8], leads: &[i32], outcome: Outcome) -> QualityRecord {
        let mut r = QualityRecord::default();
        for (i, &n) in legal.iter().enumerate() {
            let n = n as u32;
            if i == 0 {
                r.legal_first = n;
            }
            r.legal_last = n;
            r.decision_moves += (n > 1) as u32;
            r.legal_sum += n as u64;
            r.legal_max = r.legal_max.max(n);
        }
        let (mut leader, mut max_lead, mut min_lead, mut ahead_sum) = (2, 0, 0, 0u64);
        for &lead in leads {
            if leader != 2 {
                r.lead_changes += (leader != lead.signum()) as u32;
            }
            leader = lead.signum();
            r.lead_sum += lead as i64;
            r.lead_squares += (lead as i64 * lead as i64) as u64;
            max_lead = max_lead.max(lead);
            min_lead = min_lead.min(lead);
            ahead_sum += lead.max(0) as u64;
            r.behind[Side::South] += (lead < 0) as u32;
            r.behind[Side::North] += (lead > 0) as u32;
        }
        r.peak = BySide::new(max_lead as u32, (-min_lead) as u32);
        r.deficit_sum = BySide::new((ahead_sum as i64 - r.lead_sum) as u64, ahead_sum);
        r.decisive_ply = leads.len() as u32;
        if let Outcome::Won(winner) = outcome {
            let threshold = r.peak[winner.other()] as i32;
            let sign = if winner == Side::South { 1 } else { -1 };
            if let Some(i) = leads.iter().position(|&lead| sign * lead > threshold) {
                r.decisive_ply = i as u32;
            }
        }
        r
    }

    /// The sums, extremes and counts taken over the buffers at the match's end (in blocks, so
    /// that they vectorize) equal those of one pass per position: for matches shorter and
    /// longer than a block, small and extreme leads (|lead| up to 2 x 9 x 255), and every
    /// outcome.
    #[test]
    fn the_sums_taken_at_the_end_equal_those_of_one_pass_per_position() {
        let mut rng = crate::engine::Rng::from_seed(11);
        let mut scratch = QualityScratch::default();
        let mut draw = |n: u32| rng.below(n) as i32;
        for (len, spread) in [
            (0, 3),
            (1, 3),
            (63, 5),
            (64, 5),
            (65, 5),
            (129, 1),
            (5_000, 12),
            (70_000, 216),
            (3_000, 4_590),
        ] {
            // Leads that drift, as a match's do, with runs of equal ones; legal moves 0..=9.
            let mut lead = 0i32;
            let leads: Vec<i32> = (0..len)
                .map(|_| {
                    if draw(2) == 0 {
                        lead = (lead + draw(2 * spread + 1) - spread as i32).clamp(-4_590, 4_590);
                    }
                    lead
                })
                .collect();
            let legal: Vec<u8> = (0..len).map(|_| draw(10) as u8).collect();
            for outcome in
                [Outcome::Won(Side::South), Outcome::Won(Side::North), Outcome::Unfinished]
            {
                let mut t = QualityTally::new(3, &mut scratch);
                for (i, (&lead, &n)) in leads.iter().zip(&legal).enumerate() {
                    t.legal_and_repeat(n as u32, PositionKey([i as u64, 0, 0]), 0);
                    t.lead(lead);
                }
                let got = t.finish(outcome);
                let want = QualityRecord { match_id: 3, ..one_pass(&legal, &leads, outcome) };
                assert_eq!(got, want, "{len} positions, spread {spread}, {outcome:?}");
            }
        }
        // The winner's lead first beyond the loser's peak at the first position of a block.
        let mut leads = vec![0; 200];
        leads[10] = -3;
        leads[128] = 4;
        let mut t = QualityTally::new(0, &mut scratch);
        leads.iter().for_each(|&l| t.lead(l));
        assert_eq!(t.finish(Outcome::Won(Side::South)).decisive_ply, 128);
    }

    /// A round cut before its end (R17) leaves the tally as it was at the round's start: its
    /// positions, repetitions and pits played forgotten, the rounds before it kept whole.
    #[test]
    fn a_round_cut_before_its_end_is_forgotten_whole() {
        let mut scratch = QualityScratch::default();
        let round1 = |t: &mut QualityTally| {
            for (i, (lead, legal, pit)) in
                [(0, 3, 2), (4, 1, 5), (4, 2, 7), (-2, 3, 1)].into_iter().enumerate()
            {
                // Positions 2 and 3 repeat positions 0 and 1.
                t.legal_and_repeat(legal, PositionKey([(i % 2) as u64, 0, 0]), 10);
                t.lead(lead);
                t.moved(pit);
            }
            t.round_ended(BySide::new(40, 58));
        };
        let mut plain = QualityTally::new(1, &mut scratch);
        round1(&mut plain);
        let want = plain.finish(Outcome::Unfinished);
        assert_eq!((want.repeated_positions, want.pits_played, want.decisive_ply), (2, 4, 4));
        let mut cut = QualityTally::new(1, &mut scratch);
        round1(&mut cut);
        // A round of many repeating positions, leads and pits of its own, then cut.
        for i in 0..500u64 {
            cut.legal_and_repeat(9, PositionKey([i % 3, 1, 0]), 20);
            cut.lead(-30);
            cut.moved(11);
        }
        cut.round_cut();
        assert_eq!(cut.finish(Outcome::Unfinished), want);
        // A cut in round 1 leaves nothing.
        let mut first = QualityTally::new(1, &mut scratch);
        first.legal_and_repeat(2, PositionKey([0, 0, 0]), 0);
        first.lead(5);
        first.round_cut();
        assert_eq!(
            first.finish(Outcome::Unfinished),
            QualityRecord { match_id: 1, ..QualityRecord::default() }
        );
    }
}
