//! The dataset's Frictionless Data Package descriptor, `datapackage.json` (Data Package v2),
//! for the repositories and tools that read that standard (`frictionless validate` checks a
//! dataset row by row against it). It is derived, never a source: the manifests and the
//! progress markers say everything it holds, so it is written once every shard is complete
//! and `rajapasu verify` compares it with what they say.
//!
//! One resource per table and format: the part files of a table are one resource with several
//! paths (in batch order). Each resource has its table schema (the columns' names, types,
//! meanings and allowed values, from [`crate::sim::schema`]), its keys, and each part file's
//! rows, bytes and SHA-256 (`parts`); a resource of one file also has the standard `bytes` and
//! `hash`. The package has the licence and citation of the data and the manifest's identity.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::dataset::{manifest_name, Dataset, DatasetError, Formats, Manifest};
use super::verify::{read_regular_file, Marker};
use super::{write_string_atomically, Format, IoError};
use crate::sim::schema::{table_spec, table_symbols, TableSpec};
use crate::sim::table::ColumnType;

/// The descriptor's file name in a dataset (or study) directory.
pub const DESCRIPTOR: &str = "datapackage.json";

/// The licence of the data in a descriptor: the rows are facts about seeded matches, free to
/// reuse with attribution, which is what the README's "Citing" asks for.
const LICENSE: (&str, &str, &str) = (
    "CC-BY-4.0",
    "https://creativecommons.org/licenses/by/4.0/",
    "Creative Commons Attribution 4.0",
);

/// The most bytes of a progress marker or descriptor read back (a descriptor lists every part).
const MAX_MARKER_BYTES: u64 = 1 << 20;
const MAX_DESCRIPTOR_BYTES: u64 = 1 << 30;

/// One part file of a resource, as its batch's progress marker records it.
struct Part {
    path: String,
    rows: u64,
    bytes: u64,
    sha256: String,
}

/// The part files of every table and format, in batch order, from the progress markers of
/// every batch of the run. A missing or unreadable marker is an error naming it.
fn parts(dataset: &Dataset) -> Result<BTreeMap<(String, &'static str), Vec<Part>>, DatasetError> {
    let layout = dataset.layout();
    let mut out: BTreeMap<(String, &'static str), Vec<Part>> = BTreeMap::new();
    for batch in 0..layout.batches {
        let path = layout.marker_path(batch);
        let text = read_regular_file(&path, MAX_MARKER_BYTES)
            .map_err(|e| IoError::file(&path, "cannot read", e))?;
        let marker: Marker = serde_json::from_str(&text).map_err(|e| DatasetError::Marker {
            path: path.clone(),
            what: format!("not a progress marker: {e}"),
        })?;
        for f in marker.files {
            let format =
                Format::ALL.into_iter().find(|x| f.file.ends_with(&format!(".{}", x.extension())));
            let Some(format) = format else { continue };
            out.entry((f.table.clone(), format.extension())).or_default().push(Part {
                path: format!("{}/{}", f.table, f.file),
                rows: f.rows,
                bytes: f.bytes,
                sha256: f.sha256,
            });
        }
    }
    Ok(out)
}

/// A column's Table Schema field: type, description and constraints.
fn field(
    name: &str,
    ty: ColumnType,
    meaning: &str,
    symbols: Option<&Vec<Option<&'static str>>>,
) -> Value {
    let (kind, minimum) = match ty {
        // Identifiers are unsigned; every other integer column is a count, never negative.
        ColumnType::U32
        | ColumnType::U64
        | ColumnType::I64
        | ColumnType::NullU32
        | ColumnType::NullI64 => ("integer", Some(0)),
        ColumnType::F64 | ColumnType::NullF64 => ("number", None),
        ColumnType::Bool => ("boolean", None),
        ColumnType::Sym | ColumnType::Text | ColumnType::NullText => ("string", None),
    };
    let mut constraints = Map::new();
    let nullable =
        symbols.is_some_and(|s| s.contains(&None)) || (ty != ColumnType::Sym && ty.nullable());
    constraints.insert("required".into(), json!(!nullable));
    if let Some(min) = minimum {
        constraints.insert("minimum".into(), json!(min));
    }
    if let Some(names) = symbols {
        constraints.insert("enum".into(), json!(names.iter().flatten().collect::<Vec<_>>()));
    }
    json!({ "name": name, "type": kind, "description": meaning, "constraints": constraints })
}

/// Primary key and foreign keys of a table: a match is `match_id`, a round (`match_id`,
/// `round`), a move (`match_id`, `ply`), a lap (`match_id`, `ply`, `lap`). Moves refer to
/// their match, not their round: a round cut at 10,000 moves (R17) has moves but no row.
/// Histograms and by-round sums are per part file: no key.
fn keys(
    table: &str,
    resource_of: &dyn Fn(&str) -> String,
) -> (Option<Vec<&'static str>>, Vec<Value>) {
    let refer = |fields: &[&str], table: &str| json!({ "fields": fields, "reference": { "resource": resource_of(table), "fields": fields } });
    match table {
        "matches" => (Some(vec!["match_id"]), vec![]),
        "rounds" => (Some(vec!["match_id", "round"]), vec![refer(&["match_id"], "matches")]),
        "moves" => (Some(vec!["match_id", "ply"]), vec![refer(&["match_id"], "matches")]),
        "laps" => {
            (Some(vec!["match_id", "ply", "lap"]), vec![refer(&["match_id", "ply"], "moves")])
        }
        "quality" => (Some(vec!["match_id"]), vec![refer(&["match_id"], "matches")]),
        _ => (None, vec![]),
    }
}

/// A table's Table Schema.
fn schema(spec: &TableSpec, resource_of: &dyn Fn(&str) -> String) -> Value {
    let symbols = table_symbols(spec.name);
    let fields: Vec<Value> = spec
        .columns
        .iter()
        .map(|c| {
            field(c.name, c.ty, c.meaning, symbols.iter().find(|s| s.0 == c.name).map(|s| &s.1))
        })
        .collect();
    let mut out = json!({ "fields": fields, "missingValues": [""] });
    let (primary, foreign) = keys(spec.name, resource_of);
    if let Some(p) = primary {
        out["primaryKey"] = json!(p);
    }
    if !foreign.is_empty() {
        out["foreignKeys"] = json!(foreign);
    }
    out
}

/// The resource name of a table in `format`: the table's name for the dataset's main format
/// (Parquet when it has both, as readers take it), `TABLE-csv` for the CSV copy.
fn resource_name(table: &str, format: &str, formats: Formats) -> String {
    if formats == Formats::Both && format == "csv" {
        format!("{table}-csv")
    } else {
        table.to_string()
    }
}

/// One resource: a table in one format, its part files as one path or several.
fn resource(spec: &TableSpec, format: &str, parts: &[Part], formats: Formats) -> Value {
    let resource_of = |table: &str| resource_name(table, format, formats);
    let paths: Vec<&str> = parts.iter().map(|p| p.path.as_str()).collect();
    let mut r = json!({
        "name": resource_of(spec.name),
        "type": "table",
        "path": if paths.len() == 1 { json!(paths[0]) } else { json!(paths) },
        "title": spec.name,
        "description": format!("One row per {}.", spec.row),
        "format": format,
        "mediatype": if format == "csv" { "text/csv" } else { "application/vnd.apache.parquet" },
    });
    if format == "csv" {
        r["encoding"] = json!("utf-8");
    }
    if let [one] = parts {
        // frictionless-py hashes the bytes it reads: Parquet is read by pyarrow, whose bytes it
        // does not count, so a Parquet resource's size would be reported as differing.
        if format == "csv" {
            r["bytes"] = json!(one.bytes);
        }
        r["hash"] = json!(format!("sha256:{}", one.sha256));
    }
    r["schema"] = schema(spec, &resource_of);
    r["parts"] =
        parts.iter().map(|p| json!({ "path": p.path, "rows": p.rows, "bytes": p.bytes, "hash": format!("sha256:{}", p.sha256) })).collect();
    r
}

/// The run as the manifests record it: what regenerates the rows (README, "Citing").
fn identity(dataset: &Dataset) -> Value {
    let m = dataset.manifest();
    let shards: Vec<Value> = dataset
        .manifests
        .iter()
        .map(|s| json!({ "manifest": manifest_name(s.shard), "shard": s.shard.to_string(), "command": s.command, "started": s.started, "finished": s.finished, "rows": s.rows }))
        .collect();
    json!({
        "tool": m.tool,
        "version": m.version,
        "versions": m.versions,
        "run_id": m.run_id,
        "identity": m.identity_digest(),
        "rules": m.rules,
        "rules_hash": m.rules_hash,
        "south": m.south.to_string(),
        "north": m.north.to_string(),
        "first": m.first.to_string(),
        "seed": m.seed,
        "matches": m.matches,
        "batch_size": m.batch_size,
        "detail": m.detail.to_string(),
        "format": m.format.to_string(),
        "command": m.command,
        "shards": shards,
    })
}

/// How to cite the data: the software's version and what regenerates the rows.
fn citation(m: &Manifest) -> String {
    format!(
        "{} matches of Raja Pasu, {} (South) against {} (North), first player {}, rules hash {}{}, seed {}, \
         made with rajapasu {} (row format {}) by `{}`",
        m.matches,
        m.south,
        m.north,
        m.first,
        m.rules_hash,
        if m.rules.non_default().is_empty() { String::new() } else { format!(" ({})", m.rules.non_default().join(", ")) },
        m.seed,
        m.version,
        m.versions.get("rows").map_or("?", String::as_str),
        m.command
    )
}

/// The descriptor of a dataset whose shards are all complete.
pub fn describe(dataset: &Dataset) -> Result<Value, DatasetError> {
    let m = dataset.manifest();
    let mut resources = Vec::new();
    let parts = parts(dataset)?;
    for table in m.detail.tables() {
        let Some(spec) = table_spec(table) else { continue };
        for format in m.format.list() {
            let files =
                parts.get(&(table.to_string(), format.extension())).map_or(&[][..], Vec::as_slice);
            resources.push(resource(spec, format.extension(), files, m.format));
        }
    }
    let finished = dataset.manifests.iter().filter_map(|s| s.finished.clone()).max();
    let mut package = json!({
        "$schema": "https://datapackage.org/profiles/2.0/datapackage.json",
        "name": format!("rajapasu-{}", m.run_id),
        "title": format!("Raja Pasu: {} matches, {} against {}, seed {}", m.matches, m.south, m.north, m.seed),
        "description": format!(
            "Seeded matches of the mancala Raja Pasu played by the rajapasu simulator, one table per level of detail \
             (docs/data.md describes every column). The rows are a pure function of the rules, players, first player \
             and seed below: `rajapasu simulate` with the same arguments writes them again bit for bit, and \
             `rajapasu verify` checks every file against its SHA-256. Cite as: {}.",
            citation(m)
        ),
        "version": format!("{}+rows.{}", m.version, m.versions.get("rows").map_or("0", String::as_str)),
        "keywords": ["mancala", "Raja Pasu", "game simulation", "ethnomathematics"],
        "licenses": [{ "name": LICENSE.0, "path": LICENSE.1, "title": LICENSE.2 }],
        "sources": [{ "title": format!("rajapasu {}, rules hash {}, seed {}", m.version, m.rules_hash, m.seed) }],
        "citation": citation(m),
        "rajapasu": identity(dataset),
        "resources": resources,
    });
    if let Some(created) = finished {
        package["created"] = json!(created);
    }
    Ok(package)
}

/// Writes the descriptor of the dataset in `dir` (atomically) once its shards are all
/// complete; a dataset still being written, or one whose manifests do not form a run, gets
/// none. Returns whether it was written.
pub fn write_if_complete(dir: &Path) -> Result<bool, DatasetError> {
    let Ok(dataset) = Dataset::open_unverified(dir) else { return Ok(false) };
    let text = serde_json::to_string_pretty(&describe(&dataset)?).expect("serializable") + "\n";
    write_string_atomically(&dir.join(DESCRIPTOR), &text)?;
    Ok(true)
}

/// A resource name of the allowed characters (lowercase letters, digits, `-`, `_`, `.`).
fn slug(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

/// A dataset's resource seen from its study's directory: paths under `arm_dir`, names (and the
/// names its foreign keys refer to) prefixed by the arm's.
fn arm_resource(mut r: Value, arm: &str, arm_dir: &str) -> Value {
    let prefix = |v: &mut Value| {
        if let Some(s) = v.as_str() {
            *v = json!(format!("{arm_dir}/{s}"));
        }
    };
    match &mut r["path"] {
        Value::Array(paths) => paths.iter_mut().for_each(prefix),
        other => prefix(other),
    }
    // `pointer_mut`, not indexing: indexing a missing key would add it as null, which the
    // Table Schema refuses (`foreignKeys` must be an array).
    if let Some(parts) = r.pointer_mut("/parts").and_then(Value::as_array_mut) {
        parts.iter_mut().for_each(|p| prefix(&mut p["path"]));
    }
    let rename = |v: &mut Value| *v = json!(format!("{arm}-{}", v.as_str().unwrap_or_default()));
    rename(&mut r["name"]);
    if let Some(keys) = r.pointer_mut("/schema/foreignKeys").and_then(Value::as_array_mut) {
        keys.iter_mut().for_each(|k| rename(&mut k["reference"]["resource"]));
    }
    r
}

/// The descriptor of a study (`run`, `tournament`): every resource of every arm's dataset
/// (`arms`: name and directory, inside `dir`), each arm's identity under `rajapasu.arms`, the
/// arms in their directories' order.
pub fn describe_study(dir: &Path, arms: &[(String, PathBuf)]) -> Result<Value, DatasetError> {
    // By directory, so that the study's writer (in its file's order) and `verify` (which finds
    // the arms on disk) describe the same study alike.
    let mut arms: Vec<&(String, PathBuf)> = arms.iter().collect();
    arms.sort_by(|a, b| a.1.cmp(&b.1));
    let mut resources = Vec::new();
    let mut identities = Vec::new();
    let mut citations = Vec::new();
    for (name, arm_dir) in arms.iter().copied() {
        let dataset = Dataset::open_unverified(arm_dir)?;
        let package = describe(&dataset)?;
        let relative =
            arm_dir.strip_prefix(dir).unwrap_or(arm_dir).to_string_lossy().replace('\\', "/");
        for r in package["resources"].as_array().into_iter().flatten() {
            resources.push(arm_resource(r.clone(), &slug(name), &relative));
        }
        identities.push(json!({ "arm": name, "path": relative, "run": package["rajapasu"] }));
        citations.push(format!("{name}: {}", citation(dataset.manifest())));
    }
    let title = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    Ok(json!({
        "$schema": "https://datapackage.org/profiles/2.0/datapackage.json",
        "name": format!("rajapasu-study-{}", slug(&title)),
        "title": format!("Raja Pasu study {title}: {} datasets", arms.len()),
        "description": format!(
            "A study of the mancala Raja Pasu made with the rajapasu simulator: one dataset per arm, each a pure function of \
             its rules, players, first player and seed (docs/data.md). Cite as: {}.",
            citations.join("; ")
        ),
        "keywords": ["mancala", "Raja Pasu", "game simulation", "ethnomathematics"],
        "licenses": [{ "name": LICENSE.0, "path": LICENSE.1, "title": LICENSE.2 }],
        "citation": citations.join("; "),
        "rajapasu": { "arms": identities },
        "resources": resources,
    }))
}

/// Writes a study's descriptor (atomically) once every arm's dataset is complete.
pub fn write_study(dir: &Path, arms: &[(String, PathBuf)]) -> Result<(), DatasetError> {
    let text =
        serde_json::to_string_pretty(&describe_study(dir, arms)?).expect("serializable") + "\n";
    write_string_atomically(&dir.join(DESCRIPTOR), &text)?;
    Ok(())
}

/// Where a study's descriptor disagrees with its arms' datasets (see [`check`]).
pub fn check_study(dir: &Path, arms: &[(String, PathBuf)]) -> Option<String> {
    compare(
        &dir.join(DESCRIPTOR),
        || describe_study(dir, arms),
        "run the study's command again to write it anew",
    )
}

/// Where the dataset's descriptor disagrees with its manifests and progress markers (which
/// `verify` checks against the files): a problem naming the first differing field, or None
/// when it agrees. A dataset without a descriptor (written before there was one) has none.
pub fn check(dataset: &Dataset) -> Option<String> {
    compare(
        &dataset.dir.join(DESCRIPTOR),
        || describe(dataset),
        "run the manifest's command again with --resume to write it anew",
    )
}

/// The first difference between the descriptor at `path` and the one `expected` gives, as a
/// problem; None when they agree or there is no descriptor.
fn compare(
    path: &Path,
    expected: impl FnOnce() -> Result<Value, DatasetError>,
    redo: &str,
) -> Option<String> {
    let text = match read_regular_file(path, MAX_DESCRIPTOR_BYTES) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => return Some(format!("{DESCRIPTOR}: cannot be read: {e}")),
    };
    let found: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => return Some(format!("{DESCRIPTOR}: not JSON ({e}); {redo}")),
    };
    let expected = match expected() {
        Ok(v) => v,
        Err(e) => return Some(format!("{DESCRIPTOR}: cannot be checked: {e}")),
    };
    let (at, there, here) = first_difference(&found, &expected, String::new())?;
    Some(format!("{DESCRIPTOR}: `{at}` is {there}, the dataset's files give {here}; {redo}"))
}

/// The first place where `a` and `b` differ: (path, a's value, b's value), values shortened.
fn first_difference(a: &Value, b: &Value, at: String) -> Option<(String, String, String)> {
    let show = |v: Option<&Value>| match v {
        None => "missing".to_string(),
        Some(v) => {
            let s = v.to_string();
            if s.chars().count() > 80 {
                format!("{}...", s.chars().take(77).collect::<String>())
            } else {
                s
            }
        }
    };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|k| {
                let path = if at.is_empty() { k.clone() } else { format!("{at}.{k}") };
                match (x.get(k), y.get(k)) {
                    (Some(p), Some(q)) => first_difference(p, q, path),
                    (p, q) => Some((path, show(p), show(q))),
                }
            })
        }
        (Value::Array(x), Value::Array(y)) => {
            let n = x.len().max(y.len());
            (0..n).find_map(|i| {
                let path = format!("{at}[{i}]");
                match (x.get(i), y.get(i)) {
                    (Some(p), Some(q)) => first_difference(p, q, path),
                    (p, q) => Some((path, show(p), show(q))),
                }
            })
        }
        _ if a == b => None,
        _ => Some((at, show(Some(a)), show(Some(b)))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::dataset::DatasetWriter;
    use crate::sim::{BatchSink, Detail, FirstPolicy, RunConfig, Shard};

    fn run(dir: &Path, matches: u64, batch_size: u64, detail: Detail, format: Formats) -> Dataset {
        let cfg = RunConfig {
            rules: crate::engine::Ruleset::from_assignments(["pits_per_row=4", "seeds_per_pit=3"])
                .unwrap(),
            south: crate::agents::AgentSpec::Random,
            north: "greedy".parse().unwrap(),
            first: FirstPolicy::Alternate,
            seed: 5,
            matches,
            detail,
            batch_size,
            shard: Shard::WHOLE,
        };
        let writer = DatasetWriter::create(dir, &cfg, format, false, "test").unwrap();
        for b in 0..cfg.batches() {
            writer
                .write(crate::sim::simulate_batch(&cfg, &Default::default(), b).unwrap())
                .unwrap();
        }
        writer.finish(true).unwrap();
        Dataset::open(dir).unwrap()
    }

    #[test]
    fn the_descriptor_lists_every_part_file_with_its_size_and_hash() {
        let dir = tempfile::tempdir().unwrap();
        let dataset = run(dir.path(), 10, 4, Detail::Lap, Formats::Both);
        let text = std::fs::read_to_string(dir.path().join(DESCRIPTOR))
            .expect("written with the manifest");
        let package: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(package, describe(&dataset).unwrap());
        let resources = package["resources"].as_array().unwrap();
        // Seven tables at detail lap, in two formats.
        assert_eq!(resources.len(), 14);
        let laps = resources.iter().find(|r| r["name"] == "laps-csv").unwrap();
        assert_eq!(
            laps["path"].as_array().unwrap().len(),
            3,
            "three batches of 4, 4 and 2 matches"
        );
        assert_eq!(laps["schema"]["primaryKey"], json!(["match_id", "ply", "lap"]));
        assert_eq!(laps["schema"]["foreignKeys"][0]["reference"]["resource"], "moves-csv");
        for part in laps["parts"].as_array().unwrap() {
            let digest =
                super::super::verify::hash_file(&dir.path().join(part["path"].as_str().unwrap()))
                    .unwrap();
            assert_eq!(part["bytes"], digest.bytes);
            assert_eq!(part["hash"], format!("sha256:{}", digest.sha256));
        }
        let matches = resources.iter().find(|r| r["name"] == "matches").unwrap();
        let winner = matches["schema"]["fields"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == "winner")
            .unwrap();
        assert_eq!(winner["constraints"], json!({"required": false, "enum": ["south", "north"]}));
        assert_eq!(package["rajapasu"]["seed"], 5);
        assert_eq!(package["rajapasu"]["north"], "greedy");
        assert!(package["citation"].as_str().unwrap().contains("rules hash"));
        assert_eq!(check(&dataset), None);
    }

    #[test]
    fn a_descriptor_that_disagrees_with_the_files_is_a_problem_naming_the_field() {
        let dir = tempfile::tempdir().unwrap();
        let dataset = run(dir.path(), 6, 6, Detail::Match, Formats::Csv);
        let path = dir.path().join(DESCRIPTOR);
        let mut package: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        package["resources"][0]["bytes"] = json!(1);
        std::fs::write(&path, serde_json::to_string(&package).unwrap()).unwrap();
        let problem = check(&dataset).expect("an edited size is found");
        assert!(problem.contains("`resources[0].bytes` is 1"), "{problem}");
        std::fs::write(&path, "{").unwrap();
        assert!(check(&dataset).unwrap().contains("not JSON"));
        std::fs::remove_file(&path).unwrap();
        assert_eq!(check(&dataset), None, "a dataset from before descriptors has none to check");
    }

    #[test]
    fn an_incomplete_dataset_gets_no_descriptor() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = RunConfig {
            rules: crate::engine::Ruleset::default(),
            south: crate::agents::AgentSpec::Random,
            north: crate::agents::AgentSpec::Random,
            first: FirstPolicy::Alternate,
            seed: 1,
            matches: 4,
            detail: Detail::Match,
            batch_size: 2,
            shard: Shard { index: 1, count: 2 },
        };
        let writer = DatasetWriter::create(dir.path(), &cfg, Formats::Csv, false, "test").unwrap();
        writer.write(crate::sim::simulate_batch(&cfg, &Default::default(), 0).unwrap()).unwrap();
        writer.finish(true).unwrap();
        assert!(!dir.path().join(DESCRIPTOR).exists(), "shard 2 of 2 is missing");
    }

    #[test]
    fn a_study_descriptor_lists_every_arm_s_resources_under_its_directory() {
        let dir = tempfile::tempdir().unwrap();
        let arms: Vec<(String, PathBuf)> = ["Greedy:2", "random"]
            .iter()
            .map(|name| (name.to_string(), dir.path().join(name.replace(':', "_"))))
            .collect();
        for (_, arm_dir) in &arms {
            run(arm_dir, 4, 2, Detail::Round, Formats::Parquet);
        }
        write_study(dir.path(), &arms).unwrap();
        let package: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join(DESCRIPTOR)).unwrap())
                .unwrap();
        let resources = package["resources"].as_array().unwrap();
        assert_eq!(resources.len(), 2 * 5, "five tables at detail round, for each arm");
        let rounds = resources.iter().find(|r| r["name"] == "greedy-2-rounds").unwrap();
        assert_eq!(
            rounds["path"][0].as_str().unwrap().split('/').take(2).collect::<Vec<_>>(),
            ["Greedy_2", "rounds"]
        );
        assert_eq!(rounds["schema"]["foreignKeys"][0]["reference"]["resource"], "greedy-2-matches");
        // A resource without foreign keys or parts gets none (a null is not a valid schema).
        for r in package["resources"].as_array().unwrap() {
            for key in ["/schema/foreignKeys", "/parts"] {
                assert!(
                    r.pointer(key).is_none_or(|v| !v.is_null()),
                    "{key} is null in {}",
                    r["name"]
                );
            }
        }
        assert_eq!(package["rajapasu"]["arms"][1]["path"], "random");
        assert_eq!(check_study(dir.path(), &arms), None);
        // Checked with the arms in another order (as `verify` finds them on disk): the same.
        let reversed: Vec<(String, PathBuf)> = arms.iter().rev().cloned().collect();
        assert_eq!(check_study(dir.path(), &reversed), None);
        std::fs::remove_file(arms[1].1.join("manifest.json")).unwrap();
        let problem = check_study(dir.path(), &arms).unwrap();
        assert!(problem.contains("cannot be checked"), "{problem}");
    }
}
