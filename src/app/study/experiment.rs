//! Experiment files: a study made of arms, each a simulation run (TOML, `experiments/*.toml`).
//!
//! ```toml
//! name = "first_player"
//! description = "..."
//! [defaults]            # every arm inherits these fields and may override them
//! matches = 100000
//! seed = 1
//! first = "alternate"   # south, north or alternate
//! detail = "round"      # match, round, move or lap
//! format = "parquet"    # parquet, csv or both
//! south = "random"
//! north = "random"
//! [defaults.rules]      # rule switches (docs/rules.md), name = value
//! [[arms]]
//! name = "greedy-vs-random"
//! south = "greedy"
//! [arms.rules]
//! final_four = "stays"
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use crate::agents::AgentSpec;
use crate::engine::Ruleset;
use crate::io::Formats;
use crate::sim::{check_batch_size, check_matches, Detail, FirstPolicy, RunConfig, Shard};

use super::source_file::{line_of, parse_toml, set_rules, valid_name, StudyFileError};

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct File {
    name: Spanned<String>,
    #[serde(default)]
    description: String,
    #[serde(default)]
    defaults: Fields,
    arms: Vec<Fields>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
struct Fields {
    name: Option<Spanned<String>>,
    description: Option<String>,
    matches: Option<Spanned<u64>>,
    seed: Option<u64>,
    first: Option<FirstPolicy>,
    south: Option<AgentSpec>,
    north: Option<AgentSpec>,
    detail: Option<Detail>,
    format: Option<Formats>,
    batch_size: Option<Spanned<u64>>,
    rules: Option<Spanned<BTreeMap<String, toml::Value>>>,
}

/// One arm, complete and validated.
#[derive(Clone, Debug, PartialEq)]
pub struct Arm {
    pub name: String,
    pub description: String,
    pub matches: u64,
    pub seed: u64,
    pub first: FirstPolicy,
    pub south: AgentSpec,
    pub north: AgentSpec,
    pub detail: Detail,
    pub format: Formats,
    pub batch_size: u64,
    pub rules: Ruleset,
}

impl Arm {
    /// The run of this arm, with at most `matches` matches (a quick trial may play fewer).
    pub fn run_config(&self, matches: u64) -> RunConfig {
        RunConfig {
            rules: self.rules,
            south: self.south.clone(),
            north: self.north.clone(),
            first: self.first,
            seed: self.seed,
            matches: matches.min(self.matches),
            detail: self.detail,
            batch_size: self.batch_size,
            shard: Shard::WHOLE,
        }
    }
}

/// A validated experiment.
#[derive(Clone, Debug, PartialEq)]
pub struct Experiment {
    pub name: String,
    pub description: String,
    pub arms: Vec<Arm>,
    /// The file's text, kept with the study's results.
    pub source: String,
}

/// The names a study's directory gives its own files (its file, summaries, charts, metrics,
/// ratings, whether of `run` or of `tournament`): an arm named so would mix a dataset with them.
pub const STUDY_OUTPUTS: [&str; 15] = [
    "experiment.toml",
    "datapackage.json",
    "tournament.toml",
    "summary.json",
    "summary.csv",
    "summary_by_round.csv",
    "summary.txt",
    "charts",
    "metrics.json",
    "metrics.csv",
    "metrics.txt",
    "ratings.json",
    "ratings.csv",
    "ratings.txt",
    "pairs.csv",
];

impl Experiment {
    pub fn load(path: &Path) -> Result<Experiment, StudyFileError> {
        super::source_file::load(path, Experiment::parse)
    }

    /// Parses and validates; errors name the line and the field.
    pub fn parse(text: &str) -> Result<Experiment, String> {
        let hint = "(a list of players makes a tournament file: run it with `rajapasu tournament`)";
        let file: File = parse_toml(text, |l| l.starts_with("players"), hint)?;
        let at = |span: std::ops::Range<usize>, field: &str, what: String| {
            format!("line {}, field `{field}`: {what}", line_of(text, span.start))
        };
        if !valid_name(file.name.get_ref()) {
            return Err(at(
                file.name.span(),
                "name",
                format!("'{}' is not a valid name (letters, digits, _ - .)", file.name.get_ref()),
            ));
        }
        if file.arms.is_empty() {
            return Err("field `arms`: an experiment needs at least one [[arms]] table".into());
        }
        let d = &file.defaults;
        let mut arms: Vec<Arm> = Vec::new();
        for (i, a) in file.arms.iter().enumerate() {
            let name =
                a.name.as_ref().ok_or_else(|| format!("arm {}: field `name` is missing", i + 1))?;
            if !valid_name(name.get_ref()) {
                return Err(at(
                    name.span(),
                    "name",
                    format!(
                        "'{}' is not a valid arm name (letters, digits, _ - .)",
                        name.get_ref()
                    ),
                ));
            }
            if STUDY_OUTPUTS.contains(&name.get_ref().as_str()) {
                return Err(at(
                    name.span(),
                    "name",
                    format!(
                        "'{}' is the name of one of the study's own files ({}); give the arm another name",
                        name.get_ref(),
                        STUDY_OUTPUTS.join(", ")
                    ),
                ));
            }
            if arms.iter().any(|x| &x.name == name.get_ref()) {
                return Err(at(
                    name.span(),
                    "name",
                    format!("arm '{}' appears twice", name.get_ref()),
                ));
            }
            let matches = a.matches.as_ref().or(d.matches.as_ref()).ok_or_else(|| {
                at(name.span(), "matches", "missing (in the arm or in [defaults])".into())
            })?;
            check_matches(*matches.get_ref()).map_err(|e| at(matches.span(), "matches", e))?;
            let detail = a.detail.or(d.detail).unwrap_or(Detail::Round);
            let batch_size = match a.batch_size.as_ref().or(d.batch_size.as_ref()) {
                Some(b) => {
                    check_batch_size(*b.get_ref()).map_err(|e| at(b.span(), "batch_size", e))?
                }
                None => detail.default_batch_size(),
            };
            let mut rules = Ruleset::default();
            for table in [&d.rules, &a.rules].into_iter().flatten() {
                set_rules(&mut rules, table, text)?;
            }
            arms.push(Arm {
                name: name.get_ref().clone(),
                description: a.description.clone().unwrap_or_default(),
                matches: *matches.get_ref(),
                seed: a.seed.or(d.seed).unwrap_or(1),
                first: a.first.or(d.first).unwrap_or(FirstPolicy::Alternate),
                south: a.south.clone().or(d.south.clone()).unwrap_or(AgentSpec::Random),
                north: a.north.clone().or(d.north.clone()).unwrap_or(AgentSpec::Random),
                detail,
                format: a.format.or(d.format).unwrap_or(Formats::Parquet),
                batch_size,
                rules,
            });
        }
        Ok(Experiment {
            name: file.name.into_inner(),
            description: file.description,
            arms,
            source: text.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
name = "demo"
description = "two arms"
[defaults]
matches = 1000
seed = 7
north = "greedy"
[defaults.rules]
final_four = "stays"

[[arms]]
name = "a"

[[arms]]
name = "b"
south = "minimax:2"
first = "north"
[arms.rules]
pits_per_row = 5
final_four = "owner"
"#;

    #[test]
    fn arms_inherit_defaults_and_override_them() {
        let e = Experiment::parse(GOOD).unwrap();
        assert_eq!(e.name, "demo");
        assert_eq!(e.arms.len(), 2);
        let (a, b) = (&e.arms[0], &e.arms[1]);
        assert_eq!(
            (a.matches, a.seed, &a.north, &a.south),
            (1000, 7, &AgentSpec::Greedy, &AgentSpec::Random)
        );
        assert_eq!(a.rules, Ruleset::from_assignments(["final_four=stays"]).unwrap());
        assert_eq!(b.rules, Ruleset::from_assignments(["pits_per_row=5"]).unwrap());
        assert_eq!(
            (&b.south, b.first),
            (&"minimax:2".parse::<AgentSpec>().unwrap(), FirstPolicy::North)
        );
        assert_eq!(a.detail, Detail::Round);
    }

    #[test]
    fn errors_name_the_line_and_the_field() {
        let cases = [
            (GOOD.replace("matches = 1000", "matchs = 1000"), "matchs", 5),
            (GOOD.replace("south = \"minimax:2\"", "south = \"minimax:0\""), "minimax:0", 16),
            (GOOD.replace("first = \"north\"", "first = \"nord\""), "nord", 17),
            (GOOD.replace("pits_per_row = 5", "pits_per_row = 12"), "pits_per_row", 18),
            (GOOD.replace("name = \"b\"", "name = \"a\""), "appears twice", 15),
            (GOOD.replace("matches = 1000", "matches = 0"), "matches", 5),
            (GOOD.replace("seed = 7", "seed = \"seven\""), "seed", 6),
        ];
        for (text, needle, line) in cases {
            let e = Experiment::parse(&text).unwrap_err();
            assert!(e.contains(needle), "{needle}: {e}");
            assert!(e.contains(&format!("line {line}")), "line {line}: {e}");
        }
        assert!(Experiment::parse("name = \"x\"\narms = []\n")
            .unwrap_err()
            .contains("at least one"));
    }
}
