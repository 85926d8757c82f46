//! Player specifications, parsed at the boundary and printed canonically.
//!
//! ```text
//! random
//! greedy
//! minimax[:depth=D][,nodes=N][,eval=E]     short form minimax:D
//! mcts[:playouts=N][,c=C][,eval=E][,reuse=B]  short form mcts:N
//! external:PROGRAM [ARGS...]               or external:timeout=S,cmd=PROGRAM [ARGS...]
//! ```
//!
//! [`AgentSpec`]'s `Display` prints every parameter that decides a choice
//! (`minimax:depth=2,nodes=unlimited,eval=match`), so a dataset's manifest and rows record what
//! each player really was. That canonical form is a player's identity: the run id, the
//! manifest, the rows' player columns and a tournament's pairing seeds are made from it. An
//! external player's timeout never changes a choice, so it is not part of it (nor of `==`).

use crate::exact::PerfectKind;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use super::heuristic::Eval;

/// Deepest minimax search (iterative deepening stops earlier when the round is solved).
pub const MAX_MINIMAX_DEPTH: u32 = 40;
/// Largest node budget of one minimax decision.
pub const MAX_MINIMAX_NODES: u64 = 1_000_000_000;
pub const MAX_MCTS_PLAYOUTS: u32 = 1_000_000;
/// The exploration constant is kept in thousandths (exact, printable, hashable).
pub const MAX_MCTS_C_MILLI: u32 = 100_000;
/// Longest per-move timeout of an external program, in milliseconds (ten minutes).
pub const MAX_TIMEOUT_MS: u32 = 600_000;
/// Shortest per-move timeout, in milliseconds: below it even a fast program is given up on
/// whenever the machine is busy.
pub const MIN_TIMEOUT_MS: u32 = 100;

/// Alpha-beta search with a transposition table and iterative deepening (see `minimax.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MinimaxParams {
    /// Deepest iteration, in plies.
    pub depth: u32,
    /// Moves played in search per decision before the deepening stops (None: no budget). The
    /// last completed iteration decides, so the choice never depends on the machine's speed.
    pub nodes: Option<u64>,
    pub eval: Eval,
}

impl MinimaxParams {
    pub const DEFAULT_DEPTH: u32 = 4;
    pub fn with_depth(depth: u32) -> MinimaxParams {
        MinimaxParams { depth, nodes: None, eval: Eval::DEFAULT }
    }
}

/// UCT with random playouts to the round's end (see `mcts.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MctsParams {
    /// New playouts per decision.
    pub playouts: u32,
    /// Exploration constant in thousandths (100: c = 0.1). The default was measured: rewards of
    /// a round's capture difference lie close to 1/2, so the classic sqrt 2 explores far too
    /// much (docs/players.md).
    pub c_milli: u32,
    pub eval: Eval,
    /// Keep the subtree of the position reached between two decisions.
    pub reuse: bool,
}

impl MctsParams {
    pub const DEFAULT_PLAYOUTS: u32 = 256;
    pub const DEFAULT_C_MILLI: u32 = 100;
    pub fn with_playouts(playouts: u32) -> MctsParams {
        MctsParams {
            playouts,
            c_milli: MctsParams::DEFAULT_C_MILLI,
            eval: Eval::DEFAULT,
            reuse: true,
        }
    }
    pub fn c(&self) -> f64 {
        self.c_milli as f64 / 1000.0
    }
}

/// A program speaking the JSON-lines protocol of docs/external-players.md.
///
/// The command is shared (`Arc<str>`): a spec stays cheap to clone, and the text is freed with
/// the last spec holding it (a server parses specs from every request).
#[derive(Clone, Debug)]
pub struct ExternalParams {
    /// Program and arguments, split and quoted as a POSIX shell splits words (no expansion of
    /// any kind): canonical, each word quoted only where it needs to be.
    pub command: Arc<str>,
    /// Wall-clock limit of one answer. It only decides when to give up on a program; it never
    /// changes a choice, so it is not part of the player's identity (see the module's note).
    pub timeout_ms: u32,
}

impl ExternalParams {
    pub const DEFAULT_TIMEOUT_MS: u32 = 10_000;
    /// The program and its arguments.
    pub fn argv(&self) -> Vec<String> {
        shlex::split(&self.command).expect("a parsed command splits")
    }
}

/// Equal programs are the same player whatever their timeouts.
impl PartialEq for ExternalParams {
    fn eq(&self, other: &ExternalParams) -> bool {
        self.command == other.command
    }
}

impl Eq for ExternalParams {}

impl std::hash::Hash for ExternalParams {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.command.hash(state);
    }
}

/// Which player, with its parameters.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AgentSpec {
    /// Uniform over the legal moves.
    Random,
    /// Best immediate net gain (own captures minus the opponent's), ties at random.
    Greedy,
    Minimax(MinimaxParams),
    Mcts(MctsParams),
    External(ExternalParams),
    /// Perfect play from exact tables (`exact::PerfectPlayer`): `perfect:match` (R17) or
    /// `perfect:round` (R15 in each round). The spec names it; `exact` builds and plays it.
    Perfect(PerfectKind),
    /// A callable of the embedding host (`python:NAME`, the Python package), see `host.rs`.
    Host(super::host::HostParams),
}

/// The grammar, for error messages.
pub const ALLOWED: &str = "random, greedy, minimax[:depth=D,nodes=N,eval=E] (or minimax:D), \
mcts[:playouts=N,c=C,eval=E,reuse=B] (or mcts:N), external:PROGRAM [ARGS] (or external:timeout=S,cmd=PROGRAM [ARGS]), perfect:match, perfect:round";

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad player '{spec}': {reason}; allowed: {ALLOWED}")]
pub struct SpecError {
    pub spec: String,
    pub reason: String,
}

fn integer<T: FromStr + PartialOrd + fmt::Display + Copy>(
    key: &str,
    value: &str,
    min: T,
    max: T,
) -> Result<T, String> {
    match value.parse::<T>() {
        Ok(v) if v >= min && v <= max => Ok(v),
        _ => Err(format!("{key}={value}: {key} must be an integer in {min}..={max}")),
    }
}

/// The value of a short form (`minimax:D`, `mcts:N`).
fn short(key: &str, text: &str, min: u32, max: u32, form: &str) -> Result<u32, String> {
    if text.trim_start_matches('-').bytes().all(|b| b.is_ascii_digit()) && !text.is_empty() {
        integer(key, text, min, max)
    } else {
        Err(format!("'{text}' is not key=value, nor the short form {form} with an integer {key}"))
    }
}

/// A decimal with at most three places, in thousandths ("1.2" -> 1200).
fn thousandths(key: &str, value: &str, max_milli: u32, unit: &str) -> Result<u32, String> {
    let bad = || {
        format!(
            "{key}={value}: {key} must be a number{unit} in 0..={} with at most 3 decimals",
            max_milli / 1000
        )
    };
    let (whole, frac) = value.split_once('.').unwrap_or((value, ""));
    if whole.is_empty()
        || !whole.bytes().all(|b| b.is_ascii_digit())
        || frac.len() > 3
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(bad());
    }
    let whole: u64 = whole.parse().map_err(|_| bad())?;
    let frac: u64 = format!("{frac:0<3}").parse().map_err(|_| bad())?;
    let milli = whole.saturating_mul(1000).saturating_add(frac);
    if milli > max_milli as u64 {
        return Err(bad());
    }
    Ok(milli as u32)
}

/// Prints thousandths as the shortest decimal ("1200" -> "1.2", "2000" -> "2").
fn decimal(milli: u32) -> String {
    let (whole, frac) = (milli / 1000, milli % 1000);
    if frac == 0 {
        whole.to_string()
    } else {
        format!("{whole}.{}", format!("{frac:03}").trim_end_matches('0'))
    }
}

/// `key=value` pairs separated by commas; each key at most once and one of `keys`.
fn pairs<'a>(
    player: &str,
    text: &'a str,
    keys: &[&str],
) -> Result<Vec<(&'a str, &'a str)>, String> {
    let mut out: Vec<(&str, &str)> = Vec::new();
    for item in text.split(',') {
        let Some((k, v)) = item.split_once('=') else {
            return Err(format!("'{item}' is not key=value; {player} takes {}", keys.join(", ")));
        };
        let (k, v) = (k.trim(), v.trim());
        if !keys.contains(&k) {
            return Err(format!(
                "unknown key '{k}' for {player}; allowed keys: {}",
                keys.join(", ")
            ));
        }
        if out.iter().any(|(seen, _)| *seen == k) {
            return Err(format!("key '{k}' is given twice"));
        }
        out.push((k, v));
    }
    Ok(out)
}

fn parse_minimax(param: Option<&str>) -> Result<MinimaxParams, String> {
    let mut p = MinimaxParams::with_depth(MinimaxParams::DEFAULT_DEPTH);
    let Some(text) = param else { return Ok(p) };
    if !text.contains('=') {
        // Short form minimax:D.
        p.depth = short("depth", text, 1, MAX_MINIMAX_DEPTH, "minimax:D")?;
        return Ok(p);
    }
    let given = pairs("minimax", text, &["depth", "nodes", "eval"])?;
    let mut depth = None;
    for (k, v) in given {
        match k {
            "depth" => depth = Some(integer("depth", v, 1, MAX_MINIMAX_DEPTH)?),
            "nodes" if v == "unlimited" => p.nodes = None,
            "nodes" => {
                p.nodes = Some(
                    integer("nodes", v, 1, MAX_MINIMAX_NODES)
                        .map_err(|e| format!("{e} (or unlimited)"))?,
                )
            }
            _ => p.eval = v.parse().map_err(|e| format!("eval={v}: {e}"))?,
        }
    }
    // A node budget without a depth deepens as far as the budget allows.
    p.depth = depth.unwrap_or(if p.nodes.is_some() {
        MAX_MINIMAX_DEPTH
    } else {
        MinimaxParams::DEFAULT_DEPTH
    });
    Ok(p)
}

fn parse_mcts(param: Option<&str>) -> Result<MctsParams, String> {
    let mut p = MctsParams::with_playouts(MctsParams::DEFAULT_PLAYOUTS);
    let Some(text) = param else { return Ok(p) };
    if !text.contains('=') {
        p.playouts = short("playouts", text, 1, MAX_MCTS_PLAYOUTS, "mcts:N")?;
        return Ok(p);
    }
    for (k, v) in pairs("mcts", text, &["playouts", "c", "eval", "reuse"])? {
        match k {
            "playouts" => p.playouts = integer("playouts", v, 1, MAX_MCTS_PLAYOUTS)?,
            "c" => p.c_milli = thousandths("c", v, MAX_MCTS_C_MILLI, "")?,
            "eval" => p.eval = v.parse().map_err(|e| format!("eval={v}: {e}"))?,
            _ => {
                p.reuse = match v {
                    "true" => true,
                    "false" => false,
                    _ => return Err(format!("reuse={v}: reuse must be true or false")),
                }
            }
        }
    }
    Ok(p)
}

fn parse_external(param: Option<&str>) -> Result<ExternalParams, String> {
    let text = param.map(str::trim).unwrap_or("");
    let mut timeout_ms = ExternalParams::DEFAULT_TIMEOUT_MS;
    let first_word = text.split_whitespace().next().unwrap_or("");
    let command = if first_word.starts_with("timeout=")
        || first_word.starts_with("cmd=")
        || first_word.contains(",cmd=")
    {
        // Keyed form: `cmd` comes last and takes the rest, commas included.
        let mut rest = text;
        loop {
            if let Some(cmd) = rest.strip_prefix("cmd=") {
                break cmd;
            }
            let Some((item, after)) = rest.split_once(',') else {
                return Err(format!("'{rest}' must be followed by ,cmd=PROGRAM [ARGS]"));
            };
            match item.split_once('=') {
                Some(("timeout", v)) => {
                    timeout_ms = thousandths("timeout", v.trim(), MAX_TIMEOUT_MS, "")
                        .map_err(|_| timeout_error(v.trim()))?
                }
                _ => {
                    return Err(format!(
                        "unknown key in '{item}' for external; allowed keys: timeout, cmd (last)"
                    ))
                }
            }
            rest = after.trim_start();
        }
    } else {
        text
    };
    let command = canonical_command(command)?;
    if timeout_ms < MIN_TIMEOUT_MS {
        return Err(timeout_error(&decimal(timeout_ms)));
    }
    Ok(ExternalParams { command: command.into(), timeout_ms })
}

fn timeout_error(value: &str) -> String {
    format!(
        "timeout={value}: timeout must be a number of seconds in {}..={} with at most 3 decimals",
        decimal(MIN_TIMEOUT_MS),
        decimal(MAX_TIMEOUT_MS)
    )
}

/// The words of a command, split as a POSIX shell splits them (quotes and backslashes group,
/// nothing is expanded) and joined again with each word quoted only where needed, so a program
/// path with spaces is written `'/my players/bot' --level 2`.
pub fn canonical_command(text: &str) -> Result<String, String> {
    let words = shlex::split(text)
        .ok_or_else(|| format!("'{text}': an unclosed quote or a trailing backslash"))?;
    if words.is_empty() {
        return Err("external needs a program, as external:PROGRAM [ARGS]".into());
    }
    if words.iter().any(|w| w.contains('\0')) {
        return Err(format!("'{text}': a command cannot hold a NUL character"));
    }
    Ok(words.iter().map(|w| quote_word(w)).collect::<Vec<_>>().join(" "))
}

/// A word as `shlex::split` reads it back: as it is unless it holds what splitting reads
/// specially (blanks, quotes, a backslash, a leading `#`), then in quotes. `$` and the like are
/// not special: nothing is expanded.
fn quote_word(word: &str) -> String {
    let plain = !word.is_empty()
        && !word.starts_with('#')
        && !word.chars().any(|c| c.is_whitespace() || "'\"\\".contains(c));
    if plain {
        word.to_string()
    } else if !word.contains('\'') {
        format!("'{word}'")
    } else {
        let escaped: String = word
            .chars()
            .flat_map(|c| if "\"\\$`".contains(c) { vec!['\\', c] } else { vec![c] })
            .collect();
        format!("\"{escaped}\"")
    }
}

impl FromStr for AgentSpec {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<AgentSpec, SpecError> {
        let err = |reason: String| SpecError { spec: s.to_string(), reason };
        let (name, param) = match s.split_once(':') {
            Some((n, p)) => (n, Some(p)),
            None => (s, None),
        };
        match name {
            "random" | "greedy" if param.is_some() => Err(err(format!("'{name}' takes no parameter"))),
            "random" => Ok(AgentSpec::Random),
            "greedy" => Ok(AgentSpec::Greedy),
            "minimax" => parse_minimax(param).map(AgentSpec::Minimax).map_err(err),
            "mcts" => parse_mcts(param).map(AgentSpec::Mcts).map_err(err),
            "external" => parse_external(param).map(AgentSpec::External).map_err(err),
            "perfect" => match param {
                Some("match") => Ok(AgentSpec::Perfect(PerfectKind::Match)),
                Some("round") => Ok(AgentSpec::Perfect(PerfectKind::Round)),
                _ => Err(err(
                    "perfect takes match (perfect match play, R17) or round (perfect round play, R15): perfect:match, perfect:round".into(),
                )),
            },
            "python" => super::host::check_name(param.unwrap_or(""))
                .map(|n| AgentSpec::Host(super::host::HostParams { name: n.into() }))
                .map_err(err),
            _ => Err(err(format!("unknown player '{name}'"))),
        }
    }
}

impl fmt::Display for AgentSpec {
    /// The canonical form, which is the player's identity: every parameter that decides a choice,
    /// keyed, in a fixed order (an external player's timeout is left out). Parsing it gives an
    /// equal spec.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentSpec::Random => f.write_str("random"),
            AgentSpec::Greedy => f.write_str("greedy"),
            AgentSpec::Minimax(p) => {
                write!(f, "minimax:depth={},nodes=", p.depth)?;
                match p.nodes {
                    Some(n) => write!(f, "{n}")?,
                    None => f.write_str("unlimited")?,
                }
                write!(f, ",eval={}", p.eval)
            }
            AgentSpec::Mcts(p) => write!(
                f,
                "mcts:playouts={},c={},eval={},reuse={}",
                p.playouts,
                decimal(p.c_milli),
                p.eval,
                p.reuse
            ),
            // Without the timeout: it is not part of the player's identity.
            AgentSpec::External(p) => write!(f, "external:cmd={}", p.command),
            AgentSpec::Perfect(k) => write!(f, "perfect:{}", k.name()),
            AgentSpec::Host(p) => write!(f, "python:{}", p.name),
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
