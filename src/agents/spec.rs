//! Player specifications: `random`, `greedy`, `minimax:D`, `mcts:N`.

use std::fmt;
use std::str::FromStr;

/// Which player, with its parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AgentSpec {
    /// Uniform over the legal moves.
    Random,
    /// Best immediate net gain (own captures minus the opponent's), ties at random.
    Greedy,
    /// Alpha-beta search `depth` plies deep on the round's capture difference, ties at random.
    Minimax { depth: u32 },
    /// UCT with `playouts` random playouts to the round's end per move.
    Mcts { playouts: u32 },
}

pub const MAX_MINIMAX_DEPTH: u32 = 10;
pub const MAX_MCTS_PLAYOUTS: u32 = 1_000_000;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad player '{spec}': {reason}; allowed: random, greedy, minimax:D (D in 1..={MAX_MINIMAX_DEPTH}), mcts:N (N in 1..={MAX_MCTS_PLAYOUTS})")]
pub struct SpecError {
    pub spec: String,
    pub reason: String,
}

impl FromStr for AgentSpec {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<AgentSpec, SpecError> {
        let err = |reason: &str| SpecError { spec: s.to_string(), reason: reason.to_string() };
        let (name, param) = match s.split_once(':') {
            Some((n, p)) => (n, Some(p)),
            None => (s, None),
        };
        let number = |max: u32| -> Result<u32, SpecError> {
            let p = param.ok_or_else(|| err(&format!("'{name}' needs a parameter, as {name}:N")))?;
            match p.parse::<u32>() {
                Ok(v) if (1..=max).contains(&v) => Ok(v),
                _ => Err(err(&format!("parameter '{p}' is not an integer in 1..={max}"))),
            }
        };
        match name {
            "random" | "greedy" if param.is_some() => Err(err(&format!("'{name}' takes no parameter"))),
            "random" => Ok(AgentSpec::Random),
            "greedy" => Ok(AgentSpec::Greedy),
            "minimax" => Ok(AgentSpec::Minimax { depth: number(MAX_MINIMAX_DEPTH)? }),
            "mcts" => Ok(AgentSpec::Mcts { playouts: number(MAX_MCTS_PLAYOUTS)? }),
            _ => Err(err(&format!("unknown player '{name}'"))),
        }
    }
}

impl fmt::Display for AgentSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentSpec::Random => f.write_str("random"),
            AgentSpec::Greedy => f.write_str("greedy"),
            AgentSpec::Minimax { depth } => write!(f, "minimax:{depth}"),
            AgentSpec::Mcts { playouts } => write!(f, "mcts:{playouts}"),
        }
    }
}

impl serde::Serialize for AgentSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for AgentSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<AgentSpec, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}
