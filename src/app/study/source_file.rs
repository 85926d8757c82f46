//! What experiment files (`run`) and tournament files (`tournament`) share: reading one
//! (bounded, regular files only), the names they give, and where an error is.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use toml::Spanned;

use crate::engine::Ruleset;

/// The largest experiment or tournament file read (the real ones are a few KB).
pub const MAX_STUDY_FILE_BYTES: u64 = 1 << 20;

/// A study file that could not be read or is not a valid one (bad input): the file, and what
/// is wrong with it (with the line and the field where there is one).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", path.display())]
pub struct StudyFileError {
    pub path: PathBuf,
    pub message: String,
}

impl crate::app::BadInput for StudyFileError {
    fn is_bad_input(&self) -> bool {
        true
    }
}

/// The text of an experiment or tournament file: a regular file (a FIFO or device is refused,
/// never waited on or read without end) of at most [`MAX_STUDY_FILE_BYTES`].
pub fn read_study_file(path: &Path) -> Result<String, StudyFileError> {
    crate::files::read_regular_file(path, MAX_STUDY_FILE_BYTES)
        .map_err(|e| StudyFileError { path: path.to_path_buf(), message: e.to_string() })
}

/// The file at `path` read and parsed by `parse`.
pub fn load<T>(
    path: &Path,
    parse: impl FnOnce(&str) -> Result<T, String>,
) -> Result<T, StudyFileError> {
    let text = read_study_file(path)?;
    parse(&text).map_err(|message| StudyFileError { path: path.to_path_buf(), message })
}

/// The line (1-based) of byte `offset` in `text`.
pub fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// A study's, arm's or player's name: letters, digits, `_ - .`, not starting with a dot, at
/// most 64 characters (it names a directory).
pub fn valid_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.chars().all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c))
        && !s.starts_with('.')
}

/// `text` parsed as a study file's TOML; a file that `other_kind` recognizes as the other kind
/// of study file gets `hint` after the parser's message.
pub fn parse_toml<T: serde::de::DeserializeOwned>(
    text: &str,
    other_kind: impl Fn(&str) -> bool,
    hint: &str,
) -> Result<T, String> {
    toml::from_str(text).map_err(|e| {
        let message = e.to_string().trim_end().to_string();
        if text.lines().any(other_kind) {
            format!("{message}\n{hint}")
        } else {
            message
        }
    })
}

/// Sets the switches of a `[rules]` table of `text` in `rules`; an error names the line and
/// the switch.
pub fn set_rules(
    rules: &mut Ruleset,
    table: &Spanned<BTreeMap<String, toml::Value>>,
    text: &str,
) -> Result<(), String> {
    for (k, v) in table.get_ref() {
        let value = match v {
            toml::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        rules.set(k, &value).map_err(|e| {
            format!("line {}, field `rules.{k}`: {e}", line_of(text, table.span().start))
        })?;
    }
    Ok(())
}
