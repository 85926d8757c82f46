//! The JSON file a solve job writes beside its tables (solve.json, solve_match.json, the
//! perfect_play study's summary.json): who wrote it and how (the tool, its version, the
//! command), then the job's own fields.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::io::write_string_atomically;

/// Writes `fields` (a JSON object) with the head every such file shares to `path`, as indented
/// JSON with a final newline, atomically; the path written, or why it was not.
pub fn write_meta(path: &Path, command: &str, fields: Value) -> Result<PathBuf, String> {
    let mut meta =
        json!({ "tool": "rajapasu", "version": env!("CARGO_PKG_VERSION"), "command": command });
    let Value::Object(fields) = fields else { panic!("a solve's meta fields are an object") };
    meta.as_object_mut().expect("an object").extend(fields);
    let text = serde_json::to_string_pretty(&meta).map_err(|e| e.to_string())? + "\n";
    write_string_atomically(path, &text).map_err(|e| e.to_string())?;
    Ok(path.to_path_buf())
}
