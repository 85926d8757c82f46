//! Tournament files (TOML, `experiments/*.toml`): the players of a round robin and how much
//! they play.
//!
//! ```toml
//! name = "ladder"
//! description = "..."
//! players = ["random", "greedy", "minimax:3", { name = "deep", player = "minimax:5" },
//!            { player = "perfect:match", matches_per_pair = 50 }]   # fewer matches for a costly player
//! matches_per_pair = 200   # per seat order: a pair plays 2 x this many matches
//! seed = 1
//! self_play = true         # each player also plays itself (2 x matches_per_pair matches)
//! anchor = "random"        # the player rated 0; without it the ratings average 0
//! virtual_draws = 1.0      # virtual unfinished matches added to every pair (keeps ratings finite)
//! bootstrap = 1000         # bootstrap replicates for the 95% intervals
//! detail = "match"         # match, round, move or lap
//! [rules]                  # rule switches (docs/rules.md), name = value
//! max_rounds = 1000
//! ```

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use crate::agents::AgentSpec;
use crate::engine::Ruleset;
use crate::sim::config::player_identity;
use crate::sim::{check_matches, Detail, FirstPolicy, RunConfig, Shard};

use crate::app::study::source_file::{line_of, parse_toml, set_rules, valid_name, StudyFileError};

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct File {
    name: Spanned<String>,
    #[serde(default)]
    description: String,
    players: Spanned<Vec<Spanned<toml::Value>>>,
    matches_per_pair: Spanned<u64>,
    seed: u64,
    self_play: Option<bool>,
    anchor: Option<Spanned<String>>,
    virtual_draws: Option<Spanned<f64>>,
    bootstrap: Option<Spanned<u32>>,
    detail: Option<Detail>,
    rules: Option<Spanned<BTreeMap<String, toml::Value>>>,
}

/// A player of the tournament.
#[derive(Clone, Debug, PartialEq)]
pub struct Player {
    /// As given (`name = ...`), or the specification as written.
    pub name: String,
    pub spec: AgentSpec,
    /// The name as a directory-name part: letters, digits, `_`, `-` and `.`.
    pub slug: String,
    /// Fewer matches for this player's pairings than the tournament's `matches_per_pair`
    /// (a player whose matches are costly); None: the tournament's.
    pub matches_per_pair: Option<u64>,
}

/// A validated tournament.
#[derive(Clone, Debug, PartialEq)]
pub struct Tournament {
    pub name: String,
    pub description: String,
    pub players: Vec<Player>,
    pub matches_per_pair: u64,
    pub seed: u64,
    pub self_play: bool,
    /// Index of the player rated 0; None: the ratings average 0.
    pub anchor: Option<usize>,
    pub virtual_draws: f64,
    pub bootstrap: u32,
    pub detail: Detail,
    pub rules: Ruleset,
    /// The file's text, kept with the results.
    pub source: String,
}

/// Most matches per pair and seat order (the bootstrap draws match indices as 32-bit numbers).
pub const MAX_MATCHES_PER_PAIR: u64 = 1_000_000_000;
pub const DEFAULT_BOOTSTRAP: u32 = 1000;
pub const MAX_BOOTSTRAP: u32 = 100_000;
pub const DEFAULT_VIRTUAL_DRAWS: f64 = 1.0;

/// `minimax:depth=4,eval=match` as `minimax-depth-4-eval-match`.
fn slug(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() || "_.".contains(c) { c } else { '-' })
        .collect()
}

impl Tournament {
    pub fn load(path: &Path) -> Result<Tournament, StudyFileError> {
        crate::app::study::source_file::load(path, Tournament::parse)
    }

    /// Parses and validates; errors name the line and the field.
    pub fn parse(text: &str) -> Result<Tournament, String> {
        let hint = "(arms make an experiment file: run it with `rajapasu run`)";
        let file: File =
            parse_toml(text, |l| l.starts_with("[[arms]]") || l.starts_with("[defaults"), hint)?;
        let at = |span: Range<usize>, field: &str, what: String| {
            format!("line {}, field `{field}`: {what}", line_of(text, span.start))
        };
        if !valid_name(file.name.get_ref()) {
            return Err(at(
                file.name.span(),
                "name",
                format!("'{}' is not a valid name (letters, digits, _ - .)", file.name.get_ref()),
            ));
        }
        let mut players: Vec<Player> = Vec::new();
        for entry in file.players.get_ref() {
            let player =
                parse_player(entry, &players, *file.matches_per_pair.get_ref(), &|what| {
                    at(entry.span(), "players", what)
                })?;
            players.push(player);
        }
        if players.len() < 2 {
            return Err(at(
                file.players.span(),
                "players",
                format!("a tournament needs at least 2 players, not {}", players.len()),
            ));
        }
        let matches = &file.matches_per_pair;
        check_matches(*matches.get_ref()).map_err(|e| at(matches.span(), "matches_per_pair", e))?;
        if *matches.get_ref() > MAX_MATCHES_PER_PAIR {
            return Err(at(
                matches.span(),
                "matches_per_pair",
                format!("{} is not in 1..={MAX_MATCHES_PER_PAIR}", matches.get_ref()),
            ));
        }
        let (anchor, virtual_draws, bootstrap) = rating_options(&file, &players, &at)?;
        let mut rules = Ruleset::default();
        if let Some(table) = &file.rules {
            set_rules(&mut rules, table, text)?;
        }
        let tournament = Tournament {
            name: file.name.into_inner(),
            description: file.description,
            players,
            matches_per_pair: *matches.get_ref(),
            seed: file.seed,
            self_play: file.self_play.unwrap_or(true),
            anchor,
            virtual_draws,
            bootstrap,
            detail: file.detail.unwrap_or(Detail::Match),
            rules,
            source: text.to_string(),
        };
        check_pairing_names(&tournament).map_err(|e| at(file.players.span(), "players", e))?;
        Ok(tournament)
    }
}

/// A player of the list `players = [...]`, checked against those before it (`earlier`) and the
/// tournament's `matches_per_pair`; `bad` words an error at the entry.
fn parse_player(
    entry: &Spanned<toml::Value>,
    earlier: &[Player],
    matches_per_pair: u64,
    bad: &dyn Fn(String) -> String,
) -> Result<Player, String> {
    let (name, spec_text) = name_and_spec(entry.get_ref(), bad)?;
    let spec: AgentSpec =
        spec_text.parse().map_err(|e: crate::agents::SpecError| bad(e.to_string()))?;
    let slug = slug(&name);
    if let Some(other) = earlier.iter().find(|p| p.name == name || p.slug == slug) {
        return Err(bad(format!(
            "player '{name}' appears twice (as '{}'); give one of them another name, as {{ name = \"...\", player = \"{spec_text}\" }}",
            other.name
        )));
    }
    // Pairing seeds derive from the specifications: two names for one specification
    // would play byte-identical datasets, counted as if they were independent.
    if let Some(other) = earlier.iter().find(|p| player_identity(&p.spec) == player_identity(&spec))
    {
        return Err(bad(format!(
            "players '{}' and '{name}' have the same specification ({spec}): they are one player, and their \
             pairings would play identical matches; list each player once (self-play already plays a player against itself)",
            other.name
        )));
    }
    let own_matches = match entry.get_ref().get("matches_per_pair") {
        None => None,
        Some(toml::Value::Integer(m)) if (1..=matches_per_pair as i64).contains(m) => Some(*m as u64),
        Some(other) => {
            return Err(bad(format!(
                "`matches_per_pair` of player '{name}' is {other}: a player's own count lowers the tournament's, \
                 so it is a whole number in 1..={matches_per_pair}"
            )))
        }
    };
    Ok(Player { name, spec, slug, matches_per_pair: own_matches })
}

/// The name and the specification's text of a player entry: a specification, or a table
/// `{ name = ..., player = ..., matches_per_pair = ... }` (named by its specification when it has
/// no name).
fn name_and_spec(
    entry: &toml::Value,
    bad: &dyn Fn(String) -> String,
) -> Result<(String, String), String> {
    let t = match entry {
        toml::Value::String(s) => return Ok((s.clone(), s.clone())),
        toml::Value::Table(t) => t,
        other => {
            return Err(bad(format!(
                "a player is a specification such as \"minimax:3\" or a table {{ name = ..., player = ... }}, not {}",
                other.type_str()
            )))
        }
    };
    if let Some(key) =
        t.keys().find(|k| !["name", "player", "matches_per_pair"].contains(&k.as_str()))
    {
        return Err(bad(format!("unknown key `{key}` in a player table: allowed keys are name, player, matches_per_pair")));
    }
    let get = |key: &str| match t.get(key) {
        Some(toml::Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(bad(format!("`{key}` of a player table must be a string"))),
        None => Ok(None),
    };
    let spec_text = get("player")?.ok_or_else(|| {
        bad("a player table needs `player`, as { name = \"deep\", player = \"minimax:5\" }".into())
    })?;
    let name = match get("name")? {
        Some(name) if !valid_name(&name) => {
            return Err(bad(format!(
                "'{name}' is not a valid player name (letters, digits, _ - .)"
            )))
        }
        Some(name) => name,
        None => spec_text.clone(),
    };
    Ok((name, spec_text))
}

/// The ratings' options of the file: the anchor (an index of `players`), the virtual draws and
/// the bootstrap replicates; `at` words an error at a field.
fn rating_options(
    file: &File,
    players: &[Player],
    at: &dyn Fn(Range<usize>, &str, String) -> String,
) -> Result<(Option<usize>, f64, u32), String> {
    let anchor = match &file.anchor {
        None => None,
        Some(a) => Some(players.iter().position(|p| &p.name == a.get_ref()).ok_or_else(|| {
            let names: Vec<&str> = players.iter().map(|p| p.name.as_str()).collect();
            at(
                a.span(),
                "anchor",
                format!("'{}' is not a player; the players are {}", a.get_ref(), names.join(", ")),
            )
        })?),
    };
    let virtual_draws = match &file.virtual_draws {
        None => DEFAULT_VIRTUAL_DRAWS,
        Some(v) if v.get_ref().is_finite() && (0.0..=1000.0).contains(v.get_ref()) => *v.get_ref(),
        Some(v) => {
            return Err(at(
                v.span(),
                "virtual_draws",
                format!("{} is not a number in 0..=1000", v.get_ref()),
            ))
        }
    };
    let bootstrap = match &file.bootstrap {
        None => DEFAULT_BOOTSTRAP,
        Some(b) if (1..=MAX_BOOTSTRAP).contains(b.get_ref()) => *b.get_ref(),
        Some(b) => {
            return Err(at(
                b.span(),
                "bootstrap",
                format!("{} is not in 1..={MAX_BOOTSTRAP}", b.get_ref()),
            ))
        }
    };
    Ok((anchor, virtual_draws, bootstrap))
}

/// Two pairings whose directory names coincide (players `a` and `b_vs_c`, `a_vs_b` and `c`)
/// would write into one dataset: an error naming both.
fn check_pairing_names(t: &Tournament) -> Result<(), String> {
    let pairings = schedule(t);
    for (i, p) in pairings.iter().enumerate() {
        if let Some(q) = pairings[..i].iter().find(|q| q.dir == p.dir) {
            let pair = |x: &Pairing| {
                format!("'{}' vs '{}'", t.players[x.south].name, t.players[x.north].name)
            };
            return Err(format!(
                "the pairings {} and {} would both be written to the directory {}; rename one of these players \
                 (as {{ name = \"...\", player = \"...\" }})",
                pair(q),
                pair(p),
                p.dir
            ));
        }
    }
    Ok(())
}

/// One dataset of the round robin: `south` against `north` (player indices; equal for self-play).
#[derive(Clone, Debug, PartialEq)]
pub struct Pairing {
    pub south: usize,
    pub north: usize,
    /// The dataset's directory name under the tournament's directory.
    pub dir: String,
    pub seed: u64,
    pub matches: u64,
}

impl Pairing {
    pub fn is_self_play(&self) -> bool {
        self.south == self.north
    }

    pub fn run_config(&self, t: &Tournament, matches: u64) -> RunConfig {
        RunConfig {
            rules: t.rules,
            south: t.players[self.south].spec.clone(),
            north: t.players[self.north].spec.clone(),
            // Alternating: in every dataset each seat starts half of the matches.
            first: FirstPolicy::Alternate,
            seed: self.seed,
            matches,
            detail: t.detail,
            // Small batches, so that both seat orders' few costly matches spread over the
            // threads; from the pairing's full count, so that a trial with fewer matches batches
            // the same way.
            batch_size: (self.matches / 16).clamp(1, t.detail.default_batch_size()),
            shard: Shard::WHOLE,
        }
    }
}

/// The seed of the dataset of `south` against `north`: a function of the tournament's seed and
/// the two specifications only, so that adding a player to a tournament leaves the datasets of
/// the others as they are (a rerun keeps them), and the datasets' random streams differ.
pub fn pairing_seed(seed: u64, south: &str, north: &str) -> u64 {
    let hash = crate::engine::short_hash(&format!("tournament-v1|{seed}|{south}|{north}"));
    u64::from_str_radix(&hash, 16).expect("a short hash is hexadecimal")
}

/// Every ordered pair of distinct players (both seat orders, `matches_per_pair` matches each)
/// and, with self-play, every player against itself (2 x `matches_per_pair` matches, as many as
/// a pair plays), in the order of the players' list. A pairing plays the fewest of the
/// tournament's count and its players' own (`Player::matches_per_pair`).
pub fn schedule(t: &Tournament) -> Vec<Pairing> {
    let mut out = Vec::new();
    for (i, a) in t.players.iter().enumerate() {
        for (j, b) in t.players.iter().enumerate() {
            if i == j && !t.self_play {
                continue;
            }
            let per_seat_order = [a.matches_per_pair, b.matches_per_pair]
                .into_iter()
                .flatten()
                .fold(t.matches_per_pair, u64::min);
            out.push(Pairing {
                south: i,
                north: j,
                dir: format!("{}_vs_{}", a.slug, b.slug),
                seed: pairing_seed(t.seed, &player_identity(&a.spec), &player_identity(&b.spec)),
                matches: if i == j { 2 * per_seat_order } else { per_seat_order },
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
name = "mini"
description = "three players"
players = ["random", "greedy", { name = "mm2", player = "minimax:2" }]
matches_per_pair = 20
seed = 5
anchor = "random"
[rules]
max_rounds = 200
"#;

    #[test]
    fn a_tournament_file_with_defaults() {
        let t = Tournament::parse(GOOD).unwrap();
        assert_eq!(
            t.players.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
            ["random", "greedy", "mm2"]
        );
        assert_eq!(t.players[2].spec, "minimax:2".parse().unwrap());
        assert_eq!((t.matches_per_pair, t.seed, t.self_play, t.anchor), (20, 5, true, Some(0)));
        assert_eq!(
            (t.virtual_draws, t.bootstrap, t.detail),
            (DEFAULT_VIRTUAL_DRAWS, DEFAULT_BOOTSTRAP, Detail::Match)
        );
        assert_eq!(t.rules, Ruleset::from_assignments(["max_rounds=200"]).unwrap());
        assert_eq!(slug("minimax:depth=4,eval=match"), "minimax-depth-4-eval-match");
    }

    #[test]
    fn errors_name_the_line_and_the_field() {
        let cases = [
            (GOOD.replace("\"greedy\"", "\"greedie\""), "greedie", 4),
            (GOOD.replace("\"greedy\"", "\"random\""), "appears twice", 4),
            (GOOD.replace("player = \"minimax:2\"", "plyer = \"minimax:2\""), "plyer", 4),
            (GOOD.replace("matches_per_pair = 20", "matches_per_pair = 0"), "matches_per_pair", 5),
            (
                GOOD.replace("matches_per_pair = 20", "matches_per_pair = \"20\""),
                "matches_per_pair",
                5,
            ),
            (GOOD.replace("seed = 5", "seeds = 5"), "seeds", 6),
            (GOOD.replace("anchor = \"random\"", "anchor = \"rnd\""), "'rnd' is not a player", 7),
            (GOOD.replace("max_rounds = 200", "max_rounds = 0"), "max_rounds", 8),
            (GOOD.replace("seed = 5", "seed = 5\nvirtual_draws = -1"), "virtual_draws", 7),
            (GOOD.replace("seed = 5", "seed = 5\nbootstrap = 0"), "bootstrap", 7),
            (GOOD.replace("[\"random\", ", "[\"random\"]\n#"), "at least 2 players", 4),
            (
                GOOD.replace(
                    "player = \"minimax:2\"",
                    "player = \"minimax:2\", matches_per_pair = 0",
                ),
                "in 1..=20",
                4,
            ),
            (
                GOOD.replace(
                    "player = \"minimax:2\"",
                    "player = \"minimax:2\", matches_per_pair = 21",
                ),
                "lowers the tournament's",
                4,
            ),
            (
                GOOD.replace(
                    "player = \"minimax:2\"",
                    "player = \"minimax:2\", matches_per_pair = \"5\"",
                ),
                "matches_per_pair` of player 'mm2'",
                4,
            ),
            (
                GOOD.replace("{ name = \"mm2\", player = \"minimax:2\" }", "{ name = \"mm2\" }"),
                "needs `player`",
                4,
            ),
        ];
        for (text, needle, line) in cases {
            let e = Tournament::parse(&text).unwrap_err();
            assert!(e.contains(needle), "{needle}: {e}");
            assert!(e.contains(&format!("line {line}")), "line {line}: {e}");
        }
        // Missing required fields are named.
        let e = Tournament::parse(&GOOD.replace("seed = 5\n", "")).unwrap_err();
        assert!(e.contains("seed"), "{e}");
    }

    #[test]
    fn every_pair_in_both_seats_and_self_play() {
        let text = "name = \"t\"\nplayers = [\"random\", \"greedy\", \"mcts:8\"]\nmatches_per_pair = 10\nseed = 3\n";
        let t = Tournament::parse(text).unwrap();
        let s = schedule(&t);
        assert_eq!(s.len(), 9);
        let dirs: Vec<&str> = s.iter().map(|p| p.dir.as_str()).collect();
        assert!(
            dirs.contains(&"greedy_vs_mcts-8")
                && dirs.contains(&"mcts-8_vs_greedy")
                && dirs.contains(&"random_vs_random")
        );
        assert_eq!(
            s.iter().filter(|p| p.is_self_play()).map(|p| p.matches).collect::<Vec<_>>(),
            [20, 20, 20]
        );
        assert!(s.iter().filter(|p| !p.is_self_play()).all(|p| p.matches == 10));
        // Seeds differ between datasets and do not depend on the other players.
        let mut seeds: Vec<u64> = s.iter().map(|p| p.seed).collect();
        seeds.sort_unstable();
        seeds.dedup();
        assert_eq!(seeds.len(), 9);
        let fewer = Tournament::parse(&text.replace("\"random\", ", "")).unwrap();
        let g = schedule(&fewer).into_iter().find(|p| p.dir == "greedy_vs_mcts-8").unwrap();
        assert_eq!(g.seed, s.iter().find(|p| p.dir == "greedy_vs_mcts-8").unwrap().seed);
        let no_self = Tournament::parse(&format!("{text}self_play = false\n")).unwrap();
        assert_eq!(schedule(&no_self).len(), 6);
    }

    #[test]
    fn a_player_with_fewer_matches_plays_them_in_each_of_its_pairings() {
        let text = "name = \"t\"\nplayers = [\"random\", { player = \"mcts:8\", matches_per_pair = 3 }, \
                    { name = \"g\", player = \"greedy\", matches_per_pair = 5 }]\nmatches_per_pair = 10\nseed = 3\n";
        let t = Tournament::parse(text).unwrap();
        assert_eq!(
            t.players[1].name, "mcts:8",
            "a table without a name is named by its specification"
        );
        let count = |dir: &str| schedule(&t).into_iter().find(|p| p.dir == dir).unwrap().matches;
        assert_eq!(
            (count("random_vs_random"), count("mcts-8_vs_mcts-8"), count("g_vs_g")),
            (20, 6, 10)
        );
        assert_eq!(
            (
                count("random_vs_mcts-8"),
                count("mcts-8_vs_random"),
                count("random_vs_g"),
                count("g_vs_random")
            ),
            (3, 3, 5, 5)
        );
        // Two capped players: the fewer.
        assert_eq!((count("mcts-8_vs_g"), count("g_vs_mcts-8")), (3, 3));
        // The seeds do not depend on the counts: the datasets of a full run begin with the capped run's matches.
        let plain = Tournament::parse(
            "name = \"t\"\nplayers = [\"random\", \"mcts:8\"]\nmatches_per_pair = 10\nseed = 3\n",
        )
        .unwrap();
        let seed = |t: &Tournament| {
            schedule(t).into_iter().find(|p| p.dir == "random_vs_mcts-8").unwrap().seed
        };
        assert_eq!(seed(&t), seed(&plain));
    }
}
