//! Manifest files: finding them in a directory and reading them (someone else's files: bounded,
//! checked).

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::error::{io_err, DatasetError};
use super::manifest::{is_manifest_name, Manifest, ManifestProblem};

/// The most bytes of a manifest (its schema is a few KB).
pub const MAX_MANIFEST_BYTES: u64 = 1 << 20;

/// Reads every manifest in `dir` (sorted by file name), each checked ([`read_manifest`]).
pub fn read_manifests(dir: &Path) -> Result<Vec<(PathBuf, Manifest)>, DatasetError> {
    let mut out = Vec::new();
    for name in manifest_names(dir)? {
        let path = dir.join(&name);
        let manifest = read_manifest(&path)?;
        out.push((path, manifest));
    }
    Ok(out)
}

/// The names of the manifest files in `dir`, sorted (whether or not they can be read).
pub fn manifest_names(dir: &Path) -> Result<Vec<String>, DatasetError> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| io_err(dir, "cannot read the directory", e))?;
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| is_manifest_name(n))
        .collect();
    names.sort();
    Ok(names)
}

/// Reads one manifest: someone else's file, so bounded in size, and every field checked
/// ([`Manifest::check`]); a malformed field is an error naming it.
pub fn read_manifest(path: &Path) -> Result<Manifest, DatasetError> {
    let text = crate::io::verify::read_regular_file(path, MAX_MANIFEST_BYTES)
        .map_err(|e| io_err(path, "cannot read", e))?;
    let problem =
        |problem: ManifestProblem| DatasetError::Manifest { path: path.to_path_buf(), problem };
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| problem(ManifestProblem::Unreadable { field: None, what: e.to_string() }))?;
    let manifest: Manifest = serde_json::from_value(value.clone()).map_err(|e| {
        let what = e.to_string();
        problem(ManifestProblem::Unreadable { field: culprit_field(&value, &what), what })
    })?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    manifest.check(&name).map_err(problem)?;
    Ok(manifest)
}

/// The top-level field of a manifest's JSON that makes it fail to read with `error`: the
/// first whose removal changes the error (fields are read in order and the first bad one
/// stops the reading; a removed good field is only missed at the end).
pub(super) fn culprit_field(value: &serde_json::Value, error: &str) -> Option<String> {
    let object = value.as_object()?;
    object.keys().find_map(|key| {
        let mut without = object.clone();
        without.remove(key);
        match serde_json::from_value::<Manifest>(serde_json::Value::Object(without)) {
            Ok(_) => Some(key.clone()),
            Err(e) if e.to_string() != error => Some(key.clone()),
            Err(_) => None,
        }
    })
}

pub(super) fn to_json<T: Serialize>(v: &T) -> String {
    serde_json::to_string_pretty(v).expect("serializable") + "\n"
}
