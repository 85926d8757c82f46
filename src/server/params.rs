//! Query strings and JSON bodies of the API into the jobs' typed requests; every error names
//! its field and what is allowed.

use crate::app::explore::analyse::{AnalyseRequest, PositionSpec, MAX_MOVES};
use crate::app::explore::game::{GameSpec, Start};
use crate::engine::{BySide, Ruleset, Side};

/// The parameters naming a game: its rules, its start (a match's, or a set-up) and its moves.
pub const GAME_PARAMS: [&str; 7] =
    ["rule", "first", "moves", "holdings", "position", "reserve", "to_move"];

/// The parameters naming a game and `extra` ones: the names an endpoint knows.
pub fn game_params(extra: &[&'static str]) -> Vec<&'static str> {
    GAME_PARAMS.iter().chain(extra).copied().collect()
}

/// Longest query string read, in bytes.
pub const MAX_QUERY_BYTES: usize = 1 << 20;
/// The most `rule` parameters of a request (there are 8 switches).
const MAX_RULES: usize = 16;

/// The query string of a request as the guard hands it on: a long one moved out of the request
/// target by the connection layer put back, the token taken out.
#[derive(Clone, Debug, Default)]
pub struct Query(pub String);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for Query {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _: &S,
    ) -> Result<Query, Self::Rejection> {
        Ok(parts
            .extensions
            .remove::<Query>()
            .unwrap_or_else(|| Query(parts.uri.query().unwrap_or("").to_string())))
    }
}

/// A bad request: the field and what is wrong (HTTP 400).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadRequest {
    pub field: String,
    pub message: String,
}

pub fn bad(field: &str, message: impl std::fmt::Display) -> BadRequest {
    BadRequest { field: field.to_string(), message: message.to_string() }
}

/// The parameters of a query string, in order, decoded.
pub struct Params {
    pairs: Vec<(String, String)>,
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// Decodes `%XX` and `+` (application/x-www-form-urlencoded).
fn decode(text: &str, field: &str) -> Result<String, BadRequest> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let pair = bytes
                    .get(i + 1)
                    .and_then(|&a| hex(a))
                    .zip(bytes.get(i + 2).and_then(|&b| hex(b)));
                let (a, b) =
                    pair.ok_or_else(|| bad(field, "a % not followed by two hexadecimal digits"))?;
                out.push(a << 4 | b);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).map_err(|_| bad(field, "not UTF-8 text"))
}

impl Params {
    /// Parses a query string; every name must be one of `known`.
    pub fn parse(query: &str, known: &[&str]) -> Result<Params, BadRequest> {
        if query.len() > MAX_QUERY_BYTES {
            return Err(bad("query", format!("{} bytes; at most {MAX_QUERY_BYTES}", query.len())));
        }
        let mut pairs = Vec::new();
        for item in query.split('&').filter(|s| !s.is_empty()) {
            let (name, value) = item.split_once('=').unwrap_or((item, ""));
            let name = decode(name, "query")?;
            if !known.contains(&name.as_str()) {
                let known = if known.is_empty() {
                    "this takes none".to_string()
                } else {
                    format!("known ones are {}", known.join(", "))
                };
                return Err(bad(&name, format!("unknown parameter '{name}': {known}")));
            }
            let value = decode(value, &name)?;
            pairs.push((name, value));
        }
        Ok(Params { pairs })
    }

    /// Every value of `name`.
    pub fn all(&self, name: &str) -> Vec<&str> {
        self.pairs.iter().filter(|(n, _)| n == name).map(|(_, v)| v.as_str()).collect()
    }

    /// The one value of `name`, if given (twice is an error).
    pub fn one(&self, name: &str) -> Result<Option<&str>, BadRequest> {
        match self.all(name).as_slice() {
            [] => Ok(None),
            [v] => Ok(Some(v)),
            _ => Err(bad(name, format!("given more than once; give {name} at most once"))),
        }
    }

    /// The ruleset: `rule=name=value` parameters on top of the defaults.
    pub fn rules(&self) -> Result<Ruleset, BadRequest> {
        rules_of(&self.all("rule"))
    }

    /// A side (`south` or `north`), default `default`.
    pub fn side(&self, name: &str, default: Side) -> Result<Side, BadRequest> {
        self.one(name)?.map_or(Ok(default), |v| v.parse().map_err(|e| bad(name, e)))
    }

    /// Local pits, comma-separated.
    pub fn moves(&self) -> Result<Vec<usize>, BadRequest> {
        self.one("moves")?.map_or(Ok(Vec::new()), moves_of)
    }

    /// A boolean, default `default`.
    pub fn flag(&self, name: &str, default: bool) -> Result<bool, BadRequest> {
        match self.one(name)? {
            None => Ok(default),
            Some("true") => Ok(true),
            Some("false") => Ok(false),
            Some(v) => Err(bad(name, format!("'{v}': allowed values are true, false"))),
        }
    }

    /// A count in `lo..=hi`, default `default`.
    pub fn count(&self, name: &str, default: u64, lo: u64, hi: u64) -> Result<u64, BadRequest> {
        match self.one(name)? {
            None => Ok(default),
            Some(v) => match v.trim().parse::<u64>() {
                Ok(n) if (lo..=hi).contains(&n) => Ok(n),
                _ => Err(bad(name, format!("'{v}': allowed values are the integers {lo}..={hi}"))),
            },
        }
    }

    /// Where the game begins: `holdings=S,N` (a round's start, `first` starting it), or
    /// `position=PITS&reserve=S,N&to_move=SIDE` (inside a round), or else the match's start.
    pub fn start(&self) -> Result<Start, BadRequest> {
        let first = self.side("first", Side::South)?;
        match (self.one("holdings")?, self.one("position")?) {
            (Some(_), Some(_)) => Err(bad(
                "position",
                "give holdings (a round's start) or position (inside a round), not both",
            )),
            (Some(h), None) => {
                Ok(Start::RoundStart { holdings: pair(h, "holdings")?, starter: first })
            }
            (None, Some(text)) => {
                let reserve = pair(
                    self.one("reserve")?
                        .ok_or_else(|| bad("reserve", "a position needs reserve=S,N"))?,
                    "reserve",
                )?;
                let to_move = self
                    .one("to_move")?
                    .ok_or_else(|| bad("to_move", "a position needs to_move=south or north"))?;
                Ok(Start::Board {
                    pits: pits_of(text)?,
                    reserve,
                    to_move: to_move.parse().map_err(|e| bad("to_move", e))?,
                })
            }
            (None, None) => {
                for name in ["reserve", "to_move"] {
                    if self.one(name)?.is_some() {
                        return Err(bad(
                            name,
                            format!("{name} belongs to a set-up position: give position=PITS too"),
                        ));
                    }
                }
                Ok(Start::Match { first })
            }
        }
    }

    /// The game of the request: its rules, start and moves.
    pub fn game_spec(&self) -> Result<GameSpec, BadRequest> {
        Ok(GameSpec { rules: self.rules()?, start: self.start()?, moves: self.moves()? })
    }

    /// An analysis request (the parameters of `analyse`, see docs/serve.md).
    pub fn analyse_request(&self) -> Result<AnalyseRequest, BadRequest> {
        let GameSpec { rules, start, moves } = self.game_spec()?;
        Ok(AnalyseRequest {
            rules,
            position: PositionSpec { start, moves },
            with_match: self.flag("match", true)?,
        })
    }
}

/// The ruleset of `name=value` texts on top of the defaults (field `rule`).
pub fn rules_of(items: &[&str]) -> Result<Ruleset, BadRequest> {
    if items.len() > MAX_RULES {
        return Err(bad("rule", format!("{} rules; at most {MAX_RULES}", items.len())));
    }
    let mut seen = Vec::new();
    for item in items {
        let name = item.split_once('=').map_or(*item, |(n, _)| n).trim();
        if seen.contains(&name) {
            return Err(bad(
                "rule",
                format!("switch `{name}` is given twice; give each switch at most once"),
            ));
        }
        seen.push(name);
    }
    Ruleset::from_assignments(items.iter().copied()).map_err(|e| bad("rule", e))
}

/// Local pits, comma-separated (field `moves`), at most [`MAX_MOVES`].
pub fn moves_of(text: &str) -> Result<Vec<usize>, BadRequest> {
    let items: Vec<&str> = text.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
    if items.len() > MAX_MOVES {
        return Err(bad("moves", format!("{} moves; at most {MAX_MOVES}", items.len())));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, m)| {
            m.parse::<usize>().map_err(|_| {
                bad(
                    "moves",
                    format!("item {}: '{m}' is not a local pit (0..pits_per_row-1)", i + 1),
                )
            })
        })
        .collect()
}

/// "S,N" as two counts.
pub fn pair(text: &str, field: &str) -> Result<BySide<u32>, BadRequest> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let num = |x: &str| {
        x.parse::<u32>().map_err(|_| bad(field, format!("'{x}' is not a number of counters")))
    };
    match parts.as_slice() {
        [s, n] => Ok(BySide::new(num(s)?, num(n)?)),
        _ => Err(bad(field, format!("'{text}': expected S,N (South's, then North's)"))),
    }
}

/// Pit counts in global order, x for a closed pit (field `position`).
pub fn pits_of(text: &str) -> Result<Vec<Option<u8>>, BadRequest> {
    text.split(',')
        .map(str::trim)
        .enumerate()
        .map(|(i, x)| match x {
            "x" | "X" => Ok(None),
            _ => x.parse::<u8>().map(Some).map_err(|_| {
                bad(
                    "position",
                    format!("item {}: '{x}' is neither a count (0..=255) nor x (closed)", i + 1),
                )
            }),
        })
        .collect()
}
