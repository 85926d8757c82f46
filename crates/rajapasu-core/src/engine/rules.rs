//! The ruleset: every variant switch of the rules as a value (R1, R5, R6, R8, R9, R12, R13, R14).

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// R6 for the last counter of a lap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinalFour {
    /// The row's owner captures it, like every other four (default).
    Owner,
    /// It stays on the board.
    Stays,
    /// The sower captures it.
    Sower,
}

/// R9: what an endless move is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Endless {
    /// An endless move is not legal (default).
    Forbid,
    /// The move stops at the repeat, without a pussa.
    Stop,
}

/// R13: who starts the next round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NextStarter {
    /// The player who collected the remainder (default).
    Collector,
    /// The round's winner; the previous starter on a tied round.
    RoundWinner,
}

/// A complete ruleset. Field order is the canonical order of the switches (docs/rules.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Ruleset {
    pub final_four: FinalFour,
    pub skip_origin: bool,
    pub pussa_chain: bool,
    pub endless: Endless,
    pub next_starter: NextStarter,
    pub pits_per_row: u8,
    pub seeds_per_pit: u8,
    pub max_rounds: u32,
}

impl Default for Ruleset {
    fn default() -> Ruleset {
        Ruleset {
            final_four: FinalFour::Owner,
            skip_origin: false,
            pussa_chain: false,
            endless: Endless::Forbid,
            next_starter: NextStarter::Collector,
            pits_per_row: 7,
            seeds_per_pit: 7,
            max_rounds: 1000,
        }
    }
}

/// Every switch with the values it allows, for error messages and documentation.
pub const SWITCHES: [(&str, &str); 8] = [
    ("final_four", "owner, stays, sower"),
    ("skip_origin", "false, true"),
    ("pussa_chain", "false, true"),
    ("endless", "forbid, stop"),
    ("next_starter", "collector, round_winner"),
    ("pits_per_row", "an integer in 2..=9"),
    ("seeds_per_pit", "an integer in 1..=12"),
    ("max_rounds", "an integer in 1..=1000000"),
];

pub const MAX_ROUNDS_LIMIT: u32 = 1_000_000;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    #[error("unknown rule switch '{name}': known switches are {}", SWITCHES.iter().map(|s| s.0).collect::<Vec<_>>().join(", "))]
    UnknownSwitch { name: String },
    #[error("bad value '{value}' for rule switch '{name}': allowed values are {allowed}")]
    BadValue { name: String, value: String, allowed: &'static str },
    #[error("malformed rule '{text}': expected name=value, e.g. final_four=stays")]
    Malformed { text: String },
}

fn allowed(name: &str) -> &'static str {
    SWITCHES.iter().find(|s| s.0 == name).map(|s| s.1).unwrap_or("")
}

fn parse_int<T: std::str::FromStr + PartialOrd>(
    name: &str,
    value: &str,
    lo: T,
    hi: T,
) -> Result<T, RuleError> {
    match value.trim().parse::<T>() {
        Ok(v) if v >= lo && v <= hi => Ok(v),
        _ => Err(RuleError::BadValue {
            name: name.into(),
            value: value.into(),
            allowed: allowed(name),
        }),
    }
}

impl Ruleset {
    /// Sets one switch from its textual value.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), RuleError> {
        let bad = || RuleError::BadValue {
            name: name.into(),
            value: value.into(),
            allowed: allowed(name),
        };
        let v = value.trim();
        let parse_bool = |v: &str| match v {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(bad()),
        };
        match name.trim() {
            "final_four" => {
                self.final_four = match v {
                    "owner" => FinalFour::Owner,
                    "stays" => FinalFour::Stays,
                    "sower" => FinalFour::Sower,
                    _ => return Err(bad()),
                }
            }
            "skip_origin" => self.skip_origin = parse_bool(v)?,
            "pussa_chain" => self.pussa_chain = parse_bool(v)?,
            "endless" => {
                self.endless = match v {
                    "forbid" => Endless::Forbid,
                    "stop" => Endless::Stop,
                    _ => return Err(bad()),
                }
            }
            "next_starter" => {
                self.next_starter = match v {
                    "collector" => NextStarter::Collector,
                    "round_winner" => NextStarter::RoundWinner,
                    _ => return Err(bad()),
                }
            }
            "pits_per_row" => self.pits_per_row = parse_int(name, value, 2, 9)?,
            "seeds_per_pit" => self.seeds_per_pit = parse_int(name, value, 1, 12)?,
            "max_rounds" => self.max_rounds = parse_int(name, value, 1, MAX_ROUNDS_LIMIT)?,
            _ => return Err(RuleError::UnknownSwitch { name: name.into() }),
        }
        Ok(())
    }

    /// Applies `name=value` texts (as given to `--rule`) on top of `self`.
    pub fn with_assignments<'a>(
        mut self,
        items: impl IntoIterator<Item = &'a str>,
    ) -> Result<Ruleset, RuleError> {
        for text in items {
            let (name, value) =
                text.split_once('=').ok_or_else(|| RuleError::Malformed { text: text.into() })?;
            self.set(name, value)?;
        }
        Ok(self)
    }

    /// Parses `name=value` texts on top of the default ruleset.
    pub fn from_assignments<'a>(
        items: impl IntoIterator<Item = &'a str>,
    ) -> Result<Ruleset, RuleError> {
        Ruleset::default().with_assignments(items)
    }

    /// Canonical JSON: every switch, in canonical order.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a ruleset always serializes")
    }

    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a ruleset always serializes")
    }

    pub fn from_json(text: &str) -> Result<Ruleset, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }

    pub fn from_toml(text: &str) -> Result<Ruleset, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }

    /// A short stable hash: the first 12 hex digits of SHA-256 of the canonical JSON.
    /// Every switch is in the JSON, so changing any switch changes the hash.
    pub fn hash(&self) -> String {
        short_hash(&self.to_json())
    }

    /// The switches that differ from the default, as `name=value` (for labels).
    pub fn non_default(&self) -> Vec<String> {
        let mine = self.as_pairs();
        let default = Ruleset::default().as_pairs();
        mine.into_iter()
            .zip(default)
            .filter(|(a, b)| a != b)
            .map(|(a, _)| format!("{}={}", a.0, a.1))
            .collect()
    }

    /// Every switch as (name, value text), in canonical order.
    pub fn as_pairs(&self) -> Vec<(&'static str, String)> {
        let json: BTreeMap<String, serde_json::Value> =
            serde_json::from_str(&self.to_json()).unwrap();
        SWITCHES
            .iter()
            .map(|(name, _)| {
                let v = &json[*name];
                (*name, v.as_str().map(str::to_owned).unwrap_or_else(|| v.to_string()))
            })
            .collect()
    }

    /// Number of pits on the board, 2P (R1).
    #[inline]
    pub const fn pits(&self) -> usize {
        2 * self.pits_per_row as usize
    }

    /// Counters in play, 2PS (R1).
    #[inline]
    pub const fn total_counters(&self) -> u32 {
        2 * self.pits_per_row as u32 * self.seeds_per_pit as u32
    }
}

impl fmt::Display for Ruleset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pairs: Vec<String> =
            self.as_pairs().into_iter().map(|(n, v)| format!("{n}={v}")).collect();
        f.write_str(&pairs.join(" "))
    }
}

/// A switch value as written in JSON or TOML: a string, a boolean or an integer.
#[derive(Deserialize)]
#[serde(untagged)]
enum SwitchValue {
    Bool(bool),
    Int(i64),
    Text(String),
}

impl<'de> Deserialize<'de> for Ruleset {
    /// Any subset of the switches; missing ones take their default; unknown ones are errors.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Ruleset, D::Error> {
        let map = BTreeMap::<String, SwitchValue>::deserialize(d)?;
        let mut rules = Ruleset::default();
        for (name, value) in map {
            let text = match value {
                SwitchValue::Bool(b) => b.to_string(),
                SwitchValue::Int(i) => i.to_string(),
                SwitchValue::Text(s) => s,
            };
            rules.set(&name, &text).map_err(serde::de::Error::custom)?;
        }
        Ok(rules)
    }
}

/// The first 12 hex digits of the SHA-256 of `text`: the project's short identifiers
/// (ruleset hashes, run ids).
pub fn short_hash(text: &str) -> String {
    Sha256::digest(text.as_bytes()).iter().take(6).map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_round_trips_through_json_and_toml() {
        let r = Ruleset::default();
        assert_eq!(Ruleset::from_json(&r.to_json()).unwrap(), r);
        assert_eq!(Ruleset::from_toml(&r.to_toml()).unwrap(), r);
        assert_eq!(
            r.to_json(),
            r#"{"final_four":"owner","skip_origin":false,"pussa_chain":false,"endless":"forbid","next_starter":"collector","pits_per_row":7,"seeds_per_pit":7,"max_rounds":1000}"#
        );
    }

    #[test]
    fn every_switch_changes_the_hash() {
        let base = Ruleset::default();
        let variants = [
            "final_four=stays",
            "final_four=sower",
            "skip_origin=true",
            "pussa_chain=true",
            "endless=stop",
            "next_starter=round_winner",
            "pits_per_row=6",
            "seeds_per_pit=6",
            "max_rounds=999",
        ];
        let mut hashes = std::collections::HashSet::new();
        hashes.insert(base.hash());
        for v in variants {
            let r = Ruleset::from_assignments([v]).unwrap();
            assert_ne!(r, base, "{v}");
            assert!(hashes.insert(r.hash()), "{v} did not change the hash");
            assert_eq!(Ruleset::from_toml(&r.to_toml()).unwrap(), r);
            assert_eq!(Ruleset::from_json(&r.to_json()).unwrap(), r);
            assert_eq!(r.non_default(), vec![v.to_string()]);
        }
        assert_eq!(base.hash().len(), 12);
        assert_eq!(base.hash(), Ruleset::default().hash());
    }

    #[test]
    fn bad_switches_name_the_switch_and_allowed_values() {
        let e = Ruleset::from_assignments(["final_fours=owner"]).unwrap_err().to_string();
        assert!(e.contains("final_fours") && e.contains("final_four, skip_origin"), "{e}");
        let e = Ruleset::from_assignments(["pits_per_row=10"]).unwrap_err().to_string();
        assert!(e.contains("pits_per_row") && e.contains("2..=9") && e.contains("'10'"), "{e}");
        let e = Ruleset::from_assignments(["seeds_per_pit=0"]).unwrap_err().to_string();
        assert!(e.contains("1..=12"), "{e}");
        let e = Ruleset::from_assignments(["endless=maybe"]).unwrap_err().to_string();
        assert!(e.contains("forbid, stop"), "{e}");
        let e = Ruleset::from_assignments(["skip_origin"]).unwrap_err().to_string();
        assert!(e.contains("name=value"), "{e}");
        assert!(Ruleset::from_assignments(["max_rounds=0"]).is_err());
        assert!(Ruleset::from_json(r#"{"pits_per_row":1}"#).is_err());
        assert!(Ruleset::from_toml("colour = \"red\"").unwrap_err().contains("colour"));
    }

    #[test]
    fn partial_files_take_defaults() {
        let r = Ruleset::from_toml("final_four = \"stays\"\npits_per_row = 5\n").unwrap();
        assert_eq!(r.final_four, FinalFour::Stays);
        assert_eq!(r.pits_per_row, 5);
        assert_eq!(r.seeds_per_pit, 7);
    }
}
