//! What a run is: ruleset, players, seeds, match range, detail, batching and sharding.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::agents::AgentSpec;
use crate::engine::{Ruleset, Side};

/// Who starts round 1 of each match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FirstPolicy {
    South,
    North,
    /// South in even-numbered matches, North in odd ones: both seats start equally often.
    Alternate,
}

impl FirstPolicy {
    #[inline]
    pub fn for_match(self, index: u64) -> Side {
        match self {
            FirstPolicy::South => Side::South,
            FirstPolicy::North => Side::North,
            FirstPolicy::Alternate => Side::from_index((index % 2) as usize),
        }
    }
}

impl FromStr for FirstPolicy {
    type Err = String;
    fn from_str(s: &str) -> Result<FirstPolicy, String> {
        match s {
            "south" => Ok(FirstPolicy::South),
            "north" => Ok(FirstPolicy::North),
            "alternate" => Ok(FirstPolicy::Alternate),
            _ => Err(format!("bad first player '{s}': allowed values are south, north, alternate")),
        }
    }
}

impl fmt::Display for FirstPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FirstPolicy::South => "south",
            FirstPolicy::North => "north",
            FirstPolicy::Alternate => "alternate",
        })
    }
}

/// How much is recorded. Each level includes the ones before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Detail {
    Match,
    Round,
    Move,
    Lap,
}

impl Detail {
    /// Matches per batch (one part file per table): rows per batch stay in the hundreds of
    /// thousands at every detail, which bounds memory.
    pub fn default_batch_size(self) -> u64 {
        match self {
            Detail::Match => 20_000,
            Detail::Round => 5_000,
            Detail::Move => 500,
            Detail::Lap => 200,
        }
    }

    /// The tables written at this detail.
    pub fn tables(self) -> Vec<&'static str> {
        let mut t = vec!["matches", "histograms"];
        if self >= Detail::Round {
            t.push("rounds");
        }
        if self >= Detail::Move {
            t.push("moves");
        }
        if self >= Detail::Lap {
            t.push("laps");
        }
        // Game-quality tallies (docs/metrics.md), at every detail.
        t.extend(["quality", "by_round"]);
        t
    }
}

impl FromStr for Detail {
    type Err = String;
    fn from_str(s: &str) -> Result<Detail, String> {
        match s {
            "match" => Ok(Detail::Match),
            "round" => Ok(Detail::Round),
            "move" => Ok(Detail::Move),
            "lap" => Ok(Detail::Lap),
            _ => Err(format!("bad detail '{s}': allowed values are match, round, move, lap")),
        }
    }
}

impl fmt::Display for Detail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Detail::Match => "match",
            Detail::Round => "round",
            Detail::Move => "move",
            Detail::Lap => "lap",
        })
    }
}

/// Shard K of N (1-based): a contiguous block of a run's batches. Written as "K/N".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    pub const WHOLE: Shard = Shard { index: 1, count: 1 };

    /// The batches of this shard out of `batches`.
    pub fn batches(self, batches: u64) -> std::ops::Range<u64> {
        let k = self.index as u64 - 1;
        let n = self.count as u64;
        (k * batches / n)..((k + 1) * batches / n)
    }
}

impl FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad =
            || format!("bad shard '{s}': expected K/N with 1 <= K <= N <= {}, e.g. 3/8", u32::MAX);
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            k.trim().parse::<u32>().map_err(|_| bad())?,
            n.trim().parse::<u32>().map_err(|_| bad())?,
        );
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Serialize for Shard {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Shard {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Shard, D::Error> {
        String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
    }
}

/// A player (or a seat as played) as it determines the rows: the one text that run ids, dataset
/// identities and a tournament's pairing seeds and duplicate check are made of.
pub fn player_identity(player: &impl fmt::Display) -> String {
    player.to_string()
}

/// Most matches in one run.
pub const MAX_MATCHES: u64 = 1 << 40;
/// Most matches in one batch (a batch's rows are held in memory).
pub const MAX_BATCH_SIZE: u64 = 10_000_000;

/// Checks a run's match count; the error says what is allowed.
pub fn check_matches(matches: u64) -> Result<u64, String> {
    if (1..=MAX_MATCHES).contains(&matches) {
        Ok(matches)
    } else {
        Err(format!("{matches} is not in 1..={MAX_MATCHES}"))
    }
}

/// Checks a batch size; the error says what is allowed.
pub fn check_batch_size(batch_size: u64) -> Result<u64, String> {
    if (1..=MAX_BATCH_SIZE).contains(&batch_size) {
        Ok(batch_size)
    } else {
        Err(format!("{batch_size} is not in 1..={MAX_BATCH_SIZE}"))
    }
}

/// A complete description of a run. A match's rows are a pure function of
/// (rules, south, north, first, seed, match index). The seats are the players that play the
/// matches (`P` = [`AgentSpec`]), or any other naming of them for matches replayed from their
/// recorded moves, whose rows need only the seats' names ([`super::replay_match`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunConfig<P = AgentSpec> {
    pub rules: Ruleset,
    pub south: P,
    pub north: P,
    pub first: FirstPolicy,
    pub seed: u64,
    pub matches: u64,
    pub detail: Detail,
    pub batch_size: u64,
    pub shard: Shard,
}

impl<P> RunConfig<P> {
    /// The same run with each seat mapped by `seat`.
    pub fn map_seats<Q>(self, mut seat: impl FnMut(P) -> Q) -> RunConfig<Q> {
        let RunConfig { rules, south, north, first, seed, matches, detail, batch_size, shard } =
            self;
        RunConfig {
            rules,
            south: seat(south),
            north: seat(north),
            first,
            seed,
            matches,
            detail,
            batch_size,
            shard,
        }
    }

    pub fn batches(&self) -> u64 {
        self.matches.div_ceil(self.batch_size)
    }

    /// Matches of batch `b`.
    pub fn batch_range(&self, b: u64) -> std::ops::Range<u64> {
        b * self.batch_size..((b + 1) * self.batch_size).min(self.matches)
    }

    /// The batches this shard plays.
    pub fn shard_batches(&self) -> std::ops::Range<u64> {
        self.shard.batches(self.batches())
    }

    /// Matches this shard plays.
    pub fn shard_matches(&self) -> u64 {
        let r = self.shard_batches();
        if r.is_empty() {
            0
        } else {
            self.batch_range(r.end - 1).end - self.batch_range(r.start).start
        }
    }
}

impl<P: fmt::Display> RunConfig<P> {
    /// Identifies the generator of the rows (not the match count, detail, batching or shard):
    /// part files of one run carry it in their names, so mixed runs are detected.
    pub fn run_id(&self) -> String {
        let (south, north) = (player_identity(&self.south), player_identity(&self.north));
        let key = format!(
            "rows-v2|{}|{south}|{north}|{}|{}",
            self.rules.to_json(),
            self.first,
            self.seed
        );
        crate::engine::short_hash(&key)
    }
}
