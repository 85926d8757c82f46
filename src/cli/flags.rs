//! What the subcommands share of the command line's own syntax: a request's field or a
//! solver's setting as its flag, the `--rule` options, the command line as typed.

use std::path::{Path, PathBuf};

use crate::engine::Ruleset;
use crate::exact::Setting;

use super::error::CliError;

/// A request's field as the command line names it: its flag, and what follows the flag in a
/// message about it (the one place where the application layer's fields become flags).
const FLAGS: [(&str, &str, &str); 22] = [
    ("matches", "--matches", " "),
    ("batch_size", "--batch-size", " "),
    ("threads", "--threads", ": "),
    ("rules", "--rule", ": "),
    ("open", "--open", ": "),
    ("holdings", "--holdings", ": "),
    ("starter", "--starter", ": "),
    ("max_memory", "--max-memory", ": "),
    ("max_iterations", "--max-iterations", ": "),
    ("format", "--format", ": "),
    ("out_root", "--out-root", ": "),
    ("resamples", "--resamples", ": "),
    ("max_positions", "--max-positions", ": "),
    ("south", "--south", ": "),
    ("north", "--north", ": "),
    ("moves", "--moves", ": "),
    ("position", "--position", ": "),
    ("reserve", "--reserve", ": "),
    ("max_disk", "--max-disk", ": "),
    ("max_levels", "--max-levels", ": "),
    ("max_pits_per_row", "--study-pits", ": "),
    ("max_seeds_per_pit", "--study-seeds", ": "),
];

/// The command line's flag for a request's field (the field itself if it has none).
pub(crate) fn flag(field: &str) -> &str {
    FLAGS.iter().find(|(f, _, _)| *f == field).map_or(field, |(_, flag, _)| flag)
}

/// A bad request as the command line reports it: the flag in place of the field (exit 2).
pub(crate) fn field_error(e: crate::app::FieldError) -> CliError {
    let separator = FLAGS.iter().find(|(f, _, _)| *f == e.field).map_or(": ", |(_, _, sep)| sep);
    CliError::Usage(format!("{}{separator}{}", flag(e.field), e.message))
}

/// A bad request: the flag in place of the field (exit 2).
impl From<crate::app::FieldError> for CliError {
    fn from(e: crate::app::FieldError) -> CliError {
        field_error(e)
    }
}

/// A solver's setting as the command line names it in a message: its flag (the tables
/// directory with its argument, as what to pass).
/// Only `solve` offers `--spill` ([`solve_setting`]).
pub(crate) fn setting(s: Setting) -> String {
    match s {
        Setting::Tables => "--tables DIR".to_string(),
        Setting::Spill => String::new(),
        s => flag(s.field()).to_string(),
    }
}

/// [`setting`] for the modes of `solve` that can solve with their levels on disk (`--spill`).
pub(crate) fn solve_setting(s: Setting) -> String {
    match s {
        Setting::Spill => "--spill".to_string(),
        s => setting(s),
    }
}

/// The tables directory of `--tables`, else the default one (`exact::default_tables_dir`).
pub(crate) fn tables_dir(given: Option<&Path>) -> Result<PathBuf, CliError> {
    crate::exact::tables_dir(given).map_err(|e| CliError::usage(e.describe(&setting)))
}

/// A bad request about a value the user typed as `given` (e.g. `--open 4,1: ...`).
pub(crate) fn given_field_error(e: crate::app::FieldError, given: &str) -> CliError {
    CliError::Usage(format!("{} {given}: {}", flag(e.field), e.message))
}

/// The `--rule name=value` options shared by the subcommands that play.
#[derive(clap::Args, Debug)]
pub struct RuleArgs {
    /// A rule switch, name=value (repeatable), e.g. --rule final_four=stays (see docs/rules.md).
    #[arg(long = "rule", value_name = "NAME=VALUE")]
    rules: Vec<String>,
}

impl RuleArgs {
    /// The ruleset: the switches given on top of the default ones.
    pub fn ruleset(&self) -> Result<Ruleset, CliError> {
        check_distinct_rules(&self.rules).map_err(|e| CliError::usage(format!("--rule: {e}")))?;
        Ruleset::from_assignments(self.rules.iter().map(String::as_str))
            .map_err(|e| CliError::usage(format!("--rule: {e}")))
    }
}

/// A switch given twice is an error (the last one would silently win).
fn check_distinct_rules(assignments: &[String]) -> Result<(), String> {
    let name = |a: &str| a.split_once('=').map_or(a, |(n, _)| n).trim().to_string();
    for (i, a) in assignments.iter().enumerate() {
        if let Some(earlier) = assignments[..i].iter().find(|b| name(b) == name(a)) {
            return Err(format!(
                "switch `{}` is given twice ({earlier} and {a}); give each switch at most once",
                name(a)
            ));
        }
    }
    Ok(())
}

/// The command line as typed, for manifests.
pub(crate) fn command_line() -> String {
    std::env::args().collect::<Vec<_>>().join(" ")
}
