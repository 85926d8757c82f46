//! The seats a manifest names (`south`, `north`): the players of a run, or the seats as played
//! of a match played from its moves (docs/data.md, "A match played from its moves"), where a
//! seat may be a person's.

use std::fmt;
use std::str::FromStr;

use crate::agents::{AgentSpec, SpecError};

/// Who played a seat of a dataset's matches: a player, or, only in a match played from its
/// recorded moves, a person (`human`), whose moves are given and never chosen by rajapasu.
/// Written as the player's canonical spec, or `human`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayedSeat {
    Human,
    Player(AgentSpec),
}

impl PlayedSeat {
    /// The seat's player; None for a person's seat.
    pub fn player(&self) -> Option<AgentSpec> {
        match self {
            PlayedSeat::Human => None,
            PlayedSeat::Player(spec) => Some(spec.clone()),
        }
    }
}

impl From<AgentSpec> for PlayedSeat {
    fn from(spec: AgentSpec) -> PlayedSeat {
        PlayedSeat::Player(spec)
    }
}

impl PartialEq<AgentSpec> for PlayedSeat {
    fn eq(&self, spec: &AgentSpec) -> bool {
        self.player().as_ref() == Some(spec)
    }
}

impl fmt::Display for PlayedSeat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayedSeat::Human => f.write_str("human"),
            PlayedSeat::Player(spec) => spec.fmt(f),
        }
    }
}

/// `human`, or a player spec (whose error lists the players).
impl FromStr for PlayedSeat {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<PlayedSeat, SpecError> {
        match s {
            "human" => Ok(PlayedSeat::Human),
            _ => s.parse().map(PlayedSeat::Player),
        }
    }
}

impl serde::Serialize for PlayedSeat {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for PlayedSeat {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<PlayedSeat, D::Error> {
        String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
    }
}
