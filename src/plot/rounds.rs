//! The round numbers the charts by round show (`plot --rounds FIRST..LAST`).

use crate::analysis::summary::StudySummary;

/// The round numbers the charts by round show (`plot --rounds FIRST..LAST`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundRange {
    pub first: u32,
    /// None: up to the study's last round, at most [`RoundRange::DEFAULT_LAST`].
    pub last: Option<u32>,
}

/// A [`RoundRange`] with both ends known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rounds {
    pub first: u32,
    pub last: u32,
}

impl Rounds {
    pub fn contains(self, round: u32) -> bool {
        (self.first..=self.last).contains(&round)
    }

    /// "rounds 1 to 30".
    pub fn describe(self) -> String {
        format!("rounds {} to {}", self.first, self.last)
    }
}

impl Default for RoundRange {
    fn default() -> RoundRange {
        RoundRange { first: 1, last: None }
    }
}

impl RoundRange {
    /// Without `--rounds`, the charts by round stop at round 30: the first rounds, where the
    /// rates change, stay wide enough to read when a study's matches run to round 200 or more.
    pub const DEFAULT_LAST: u32 = 30;

    /// Both ends: an open end is the study's last round with data (at most `DEFAULT_LAST` by
    /// default), never before `first`.
    pub(crate) fn resolve(self, study: &StudySummary) -> Rounds {
        let data_last = study
            .arms
            .iter()
            .flat_map(|a| {
                a.open_pits.iter().map(|p| p.round).chain(a.by_round.iter().map(|g| g.last_round))
            })
            .max()
            .unwrap_or(1);
        let last = self.last.unwrap_or_else(|| data_last.min(Self::DEFAULT_LAST.max(self.first)));
        Rounds { first: self.first, last: last.max(self.first) }
    }
}

impl std::str::FromStr for RoundRange {
    type Err = String;
    /// `A..B` (rounds A to B, both included), `A..` (from A) or `..B` (up to B); rounds from 1.
    fn from_str(s: &str) -> Result<RoundRange, String> {
        let bad = || {
            format!("bad round range '{s}': expected FIRST..LAST with round numbers from 1 and FIRST <= LAST, e.g. 1..30 (or 5.., ..40)")
        };
        let (a, b) = s.split_once("..").ok_or_else(bad)?;
        let number = |t: &str| -> Result<Option<u32>, String> {
            if t.is_empty() {
                return Ok(None);
            }
            t.parse::<u32>().ok().filter(|&n| n >= 1).map(Some).ok_or_else(bad)
        };
        let (first, last) = (number(a)?.unwrap_or(1), number(b.strip_prefix('=').unwrap_or(b))?);
        if last.is_some_and(|l| l < first) {
            return Err(bad());
        }
        Ok(RoundRange { first, last })
    }
}
