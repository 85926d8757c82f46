//! A dataset directory: part files per table, progress markers, and the manifest.
//!
//! ```text
//! DIR/manifest.json                  the run (shard 1/1), or manifest-shard-K-of-N.json per shard
//! DIR/matches/part-RUN-BATCH.parquet one part file per batch and table (and/or .csv)
//! DIR/rounds/..., moves/..., laps/..., histograms/...
//! DIR/.progress/batch-BATCH.json     written after a batch's part files: it is complete, and
//!                                    records each file's rows, size and SHA-256
//! DIR/.lock, .lock-shard-K-of-N      advisory locks: one writer per shard (see [`super::lock`])
//! ```
//! Part files carry the run id (a hash of what determines the rows) in their names, so files of
//! different runs mixed in one directory are detected. Every file is written atomically.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::atomic::temporary_target;
use super::atomic::Unsynced;
use super::lock::{is_lock_name, writer_lock_name, DirLock, SETUP_LOCK};
use super::verify::{Layout, Marker, PartRecord, Problem, ProblemKind};
use super::{read_table, write_string_atomically, write_table_unsynced, Format, IoError};
use crate::agents::AgentSpec;
use crate::engine::Ruleset;
use crate::sim::schema::{table_spec, TableSpec, ALL_TABLES};
use crate::sim::table::Table;
use crate::sim::{Batch, BatchSink, Detail, FirstPolicy, RunConfig, Shard};

/// Which formats a run writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Formats {
    Parquet,
    Csv,
    Both,
}

impl Formats {
    pub fn list(self) -> Vec<Format> {
        match self {
            Formats::Parquet => vec![Format::Parquet],
            Formats::Csv => vec![Format::Csv],
            Formats::Both => vec![Format::Parquet, Format::Csv],
        }
    }
}

impl std::fmt::Display for Formats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Formats::Parquet => "parquet",
            Formats::Csv => "csv",
            Formats::Both => "both",
        })
    }
}

impl std::str::FromStr for Formats {
    type Err = String;
    fn from_str(s: &str) -> Result<Formats, String> {
        match s {
            "parquet" => Ok(Formats::Parquet),
            "csv" => Ok(Formats::Csv),
            "both" => Ok(Formats::Both),
            _ => Err(format!("bad format '{s}': allowed values are parquet, csv, both")),
        }
    }
}

/// The manifest of a run (or of one shard of it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub tool: String,
    pub version: String,
    /// What else the rows and files depend on: the row format, the random generator, the
    /// Parquet writer.
    pub versions: BTreeMap<String, String>,
    pub status: RunStatus,
    pub run_id: String,
    pub rules: Ruleset,
    pub rules_hash: String,
    pub south: AgentSpec,
    pub north: AgentSpec,
    pub first: FirstPolicy,
    pub seed: u64,
    /// Matches of the whole run (all shards).
    pub matches: u64,
    /// This shard's match range, [start, end).
    pub match_range: [u64; 2],
    pub shard: Shard,
    pub batch_size: u64,
    pub detail: Detail,
    pub format: Formats,
    /// Rows written per table (complete batches).
    pub rows: BTreeMap<String, u64>,
    pub started: String,
    pub finished: Option<String>,
    /// Seconds spent by the invocations that wrote this shard, added up over resumes.
    pub seconds: f64,
    pub command: String,
    /// Every table written: its columns, their types and meanings.
    pub schema: serde_json::Value,
    /// What determines the dataset's rows and files, field by field: a short hash of each
    /// field named in [`Manifest::identity_fields`], recorded when the run was created. Every
    /// progress marker records the digest of this map ([`identity_digest`]): an edit of a
    /// field no longer matches its hash, an edit of the hashes no longer matches the markers.
    #[serde(default)]
    pub identity: BTreeMap<String, String>,
}

/// Where a run (or shard) stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// The run is writing, or was interrupted: resume it.
    Running,
    /// Every batch of the shard is written.
    Complete,
}

impl std::fmt::Display for RunStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RunStatus::Running => "running",
            RunStatus::Complete => "complete",
        })
    }
}

impl Manifest {
    pub fn is_complete(&self) -> bool {
        self.status == RunStatus::Complete
    }

    /// The fields that determine the rows and files (not status, rows, times or command), as
    /// (field, canonical text). The shard's index is left out (every shard's manifest has the
    /// same identity); its file name and match range are checked against it instead.
    pub fn identity_fields(&self) -> Vec<(&'static str, String)> {
        vec![
            ("tool", self.tool.clone()),
            ("version", self.version.clone()),
            ("versions", serde_json::to_string(&self.versions).expect("serializable")),
            ("run_id", self.run_id.clone()),
            ("rules", self.rules.to_json()),
            ("rules_hash", self.rules_hash.clone()),
            ("south", crate::sim::config::player_identity(&self.south)),
            ("north", crate::sim::config::player_identity(&self.north)),
            ("first", self.first.to_string()),
            ("seed", self.seed.to_string()),
            ("matches", self.matches.to_string()),
            ("batch_size", self.batch_size.to_string()),
            ("shard_count", self.shard.count.to_string()),
            ("detail", self.detail.to_string()),
            ("format", self.format.to_string()),
            ("schema", self.schema.to_string()),
        ]
    }

    /// The identity of this manifest's fields as they are now (see [`Manifest::identity`]).
    pub fn current_identity(&self) -> BTreeMap<String, String> {
        self.identity_fields().into_iter().map(|(k, v)| (k.to_string(), crate::engine::short_hash(&format!("{k}={v}")))).collect()
    }

    /// The digest of the recorded identity, as the progress markers record it.
    pub fn identity_digest(&self) -> String {
        identity_digest(&self.identity)
    }

    /// Checks a manifest read from `file_name`: every field in range, the fields derived from
    /// others consistent, and the identity fields as recorded at the run's creation. The error
    /// names the field.
    pub fn check(&self, file_name: &str) -> Result<(), String> {
        let field = |name: &str, what: String| Err(format!("field `{name}`: {what}"));
        if self.tool != "rajapasu" {
            return field("tool", format!("'{}' is not rajapasu", self.tool));
        }
        // An older row format is named first: its manifest may predate the identity too.
        let rows_version = self.versions.get("rows").map_or("none", String::as_str);
        if rows_version != ROWS_VERSION {
            return Err(format!(
                "versions.rows is {rows_version}: this rajapasu reads row format {ROWS_VERSION} only (docs/data.md, \"Row format\"); \
                 regenerate the dataset with its manifest's command"
            ));
        }
        if self.identity.is_empty() {
            return field(
                "identity",
                "missing: written by an older rajapasu, which recorded no identity to check the manifest against; \
                 write the dataset again with this version"
                    .into(),
            );
        }
        let current = self.current_identity();
        let edited: Vec<&str> = current.iter().filter(|(k, v)| self.identity.get(*k) != Some(v)).map(|(k, _)| k.as_str()).collect();
        let unknown: Vec<&str> = self.identity.keys().filter(|k| !current.contains_key(*k)).map(String::as_str).collect();
        if !edited.is_empty() {
            return Err(format!(
                "{file_name} was edited: field{} {} no longer match{} the identity recorded when the run was created \
                 (the rows were made with other values); restore the manifest or write the dataset again",
                if edited.len() == 1 { "" } else { "s" },
                edited.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", "),
                if edited.len() == 1 { "es" } else { "" }
            ));
        }
        if !unknown.is_empty() {
            return field("identity", format!("records fields that no manifest has: {}", unknown.join(", ")));
        }
        if let Err(e) = crate::sim::check_matches(self.matches) {
            return field("matches", e);
        }
        if let Err(e) = crate::sim::check_batch_size(self.batch_size) {
            return field("batch_size", e);
        }
        if manifest_name(self.shard) != file_name {
            return field("shard", format!("shard {} has the manifest {}, not {file_name}", self.shard, manifest_name(self.shard)));
        }
        if self.rules_hash != self.rules.hash() {
            return field("rules_hash", format!("{} is not the hash of the manifest's rules ({})", self.rules_hash, self.rules.hash()));
        }
        let cfg = self.config();
        if self.run_id != cfg.run_id() {
            return field(
                "run_id",
                format!("{} is not the run of the manifest's rules, players, first player and seed ({})", self.run_id, cfg.run_id()),
            );
        }
        if self.match_range != match_range(&cfg) {
            let [a, b] = match_range(&cfg);
            return field("match_range", format!("{:?} is not the range of shard {} ([{a}, {b}])", self.match_range, self.shard));
        }
        Ok(())
    }

    /// The run this manifest records (what `simulate` was given).
    pub fn config(&self) -> RunConfig {
        RunConfig {
            rules: self.rules,
            south: self.south,
            north: self.north,
            first: self.first,
            seed: self.seed,
            matches: self.matches,
            detail: self.detail,
            batch_size: self.batch_size,
            shard: self.shard,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    #[error(transparent)]
    Io(#[from] IoError),
    #[error("{}: {what}", path.display())]
    Invalid { path: PathBuf, what: String },
}

fn invalid(path: &Path, what: impl Into<String>) -> DatasetError {
    DatasetError::Invalid { path: path.to_path_buf(), what: what.into() }
}

fn io_err(path: &Path, action: &str, error: std::io::Error) -> DatasetError {
    DatasetError::Io(IoError::File { path: path.to_path_buf(), action: action.into(), error })
}

/// The digest of a manifest's identity (see [`Manifest::identity`]).
pub fn identity_digest(identity: &BTreeMap<String, String>) -> String {
    crate::engine::short_hash(&format!("identity-v1|{}", serde_json::to_string(identity).expect("serializable")))
}

/// The matches of a shard, [start, end).
fn match_range(cfg: &RunConfig) -> [u64; 2] {
    let range = cfg.shard_batches();
    if range.is_empty() {
        [0, 0]
    } else {
        [cfg.batch_range(range.start).start, cfg.batch_range(range.end - 1).end]
    }
}

/// The most bytes of a manifest (its schema is a few KB).
pub const MAX_MANIFEST_BYTES: u64 = 1 << 20;

pub fn manifest_name(shard: crate::sim::Shard) -> String {
    if shard.count == 1 {
        "manifest.json".into()
    } else {
        format!("manifest-shard-{}-of-{}.json", shard.index, shard.count)
    }
}

fn is_manifest_name(name: &str) -> bool {
    name == "manifest.json" || (name.starts_with("manifest-shard-") && name.ends_with(".json"))
}

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
    let entries = std::fs::read_dir(dir).map_err(|e| io_err(dir, "cannot read the directory", e))?;
    let mut names: Vec<String> =
        entries.filter_map(|e| e.ok()).filter_map(|e| e.file_name().into_string().ok()).filter(|n| is_manifest_name(n)).collect();
    names.sort();
    Ok(names)
}

/// Reads one manifest: someone else's file, so bounded in size, and every field checked
/// ([`Manifest::check`]); a malformed field is an error naming it.
pub fn read_manifest(path: &Path) -> Result<Manifest, DatasetError> {
    let text = super::verify::read_regular_file(path, MAX_MANIFEST_BYTES).map_err(|e| io_err(path, "cannot read", e))?;
    let not_manifest = |what: String| invalid(path, format!("not a rajapasu manifest: {what}"));
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| not_manifest(e.to_string()))?;
    let manifest: Manifest = match serde_json::from_value(value.clone()) {
        Ok(m) => m,
        Err(e) => {
            let what = match culprit_field(&value, &e.to_string()) {
                Some(field) if !e.to_string().contains(&format!("`{field}`")) => format!("field `{field}`: {e}"),
                _ => e.to_string(),
            };
            return Err(not_manifest(what));
        }
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    manifest.check(&name).map_err(|e| invalid(path, e))?;
    Ok(manifest)
}

/// The top-level field of a manifest's JSON that makes it fail to read with `error`: the
/// first whose removal changes the error (fields are read in order and the first bad one
/// stops the reading; a removed good field is only missed at the end).
fn culprit_field(value: &serde_json::Value, error: &str) -> Option<String> {
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

/// What must agree between a new invocation and a dataset it writes into, and between the
/// manifests of one dataset: (what, there, here) of the first difference.
fn identity_mismatch(a: &Manifest, b: &Manifest) -> Option<(&'static str, String, String)> {
    let versions = |m: &Manifest| m.versions.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ");
    let rows_version = |m: &Manifest| m.versions.get("rows").cloned().unwrap_or_else(|| "none".into());
    let checks: [(&str, String, String); 9] = [
        ("run (rules, players, first player, seed)", a.run_id.clone(), b.run_id.clone()),
        ("row format version", rows_version(a), rows_version(b)),
        ("rules hash", a.rules_hash.clone(), b.rules_hash.clone()),
        ("matches", a.matches.to_string(), b.matches.to_string()),
        ("batch size", a.batch_size.to_string(), b.batch_size.to_string()),
        ("shard count", a.shard.count.to_string(), b.shard.count.to_string()),
        ("detail", a.detail.to_string(), b.detail.to_string()),
        ("format", a.format.to_string(), b.format.to_string()),
        ("versions", versions(a), versions(b)),
    ];
    checks
        .into_iter()
        .find(|c| c.1 != c.2)
        .or_else(|| (a.identity != b.identity).then(|| ("identity", identity_digest(&a.identity), identity_digest(&b.identity))))
}

fn describe_mismatch((what, there, here): &(&'static str, String, String)) -> String {
    format!("{what} is {there} there, {here} here")
}

/// The row format: 3 gave counts signed 64-bit types and the rounds table the match's first
/// player and each side's holdings and closed pits at the round's start.
pub const ROWS_VERSION: &str = "4";

/// Versions recorded in every manifest. `rows` changes whenever the same run would give other
/// rows; polars is pinned exactly in Cargo.toml.
pub fn versions() -> BTreeMap<String, String> {
    [("rajapasu", env!("CARGO_PKG_VERSION")), ("rows", ROWS_VERSION), ("rng", crate::engine::GENERATOR), ("polars", "0.55.2")]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .chain([("parquet_compression".to_string(), format!("zstd level {}", super::parquet::ENCODINGS.zstd_level))])
        .collect()
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Writes a run's batches into a dataset directory; the sink of [`crate::sim::run`].
pub struct DatasetWriter {
    dir: PathBuf,
    cfg: RunConfig,
    formats: Vec<Format>,
    run_id: String,
    manifest: Manifest,
    manifest_path: PathBuf,
    started: Instant,
    layout: Layout,
    /// Makes the written batches durable while the next ones are played (before the lock goes:
    /// fields drop in order).
    syncer: Syncer,
    /// This shard's writer lock, held until the writer is dropped.
    _lock: DirLock,
}

/// A batch whose part files are written in full but not yet durable, and its progress marker.
struct PendingBatch {
    parts: Vec<Unsynced>,
    marker: PathBuf,
    text: String,
}

/// A thread that syncs each written batch's part files, renames them to their names and only
/// then writes the batch's progress marker, while the workers play on: an `fsync` takes 5 to
/// 20 ms on a disk, six of them a batch, which the workers used to wait for (docs/performance.md).
/// A batch counts as done only once its marker is there, so a crash or an error loses nothing
/// finished and leaves no part file under its name that is not on disk. The first error is kept,
/// stops the syncing (the later batches' files are removed), and is returned by the next write
/// or by [`Syncer::finish`]. Dropped, the syncer finishes the batches it holds.
struct Syncer {
    queue: Option<std::sync::mpsc::SyncSender<PendingBatch>>,
    thread: Option<std::thread::JoinHandle<()>>,
    failed: std::sync::Arc<std::sync::Mutex<Option<DatasetError>>>,
}

impl Syncer {
    /// Batches waiting at most: a writer waits when the disk falls this far behind.
    const QUEUE: usize = 4;

    fn start() -> Syncer {
        let (queue, pending) = std::sync::mpsc::sync_channel::<PendingBatch>(Syncer::QUEUE);
        let failed = std::sync::Arc::new(std::sync::Mutex::new(None));
        let slot = failed.clone();
        let thread = std::thread::Builder::new()
            .name("rajapasu-sync".into())
            .spawn(move || {
                for batch in pending {
                    if slot.lock().unwrap_or_else(|e| e.into_inner()).is_some() {
                        continue;
                    }
                    let committed = batch
                        .parts
                        .into_iter()
                        .try_for_each(Unsynced::commit)
                        .and_then(|()| write_string_atomically(&batch.marker, &batch.text));
                    if let Err(e) = committed {
                        *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(e.into());
                    }
                }
            })
            .expect("a thread for syncing");
        Syncer { queue: Some(queue), thread: Some(thread), failed }
    }

    fn failure(&self) -> Option<DatasetError> {
        self.failed.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    fn push(&self, batch: PendingBatch) -> Result<(), DatasetError> {
        if let Some(e) = self.failure() {
            return Err(e);
        }
        // The thread ends only when the queue closes, so sending cannot fail while it runs.
        self.queue.as_ref().expect("the queue is open until finish").send(batch).expect("the syncing thread runs");
        Ok(())
    }

    /// Waits until every batch handed over is durable; the first error, if any.
    fn finish(&mut self) -> Result<(), DatasetError> {
        drop(self.queue.take());
        if let Some(thread) = self.thread.take() {
            if let Err(panic) = thread.join() {
                std::panic::resume_unwind(panic);
            }
        }
        self.failure().map_or(Ok(()), Err)
    }
}

impl Drop for Syncer {
    fn drop(&mut self) {
        drop(self.queue.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// How errors name the directory a run writes into, and what to do instead of writing there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Destination {
    /// `simulate --out DIR`.
    Out,
    /// One dataset of a study (`run`, `tournament`); `what` names it, e.g. "arm `greedy`".
    Study { what: String },
}

impl Destination {
    fn subject(&self) -> String {
        match self {
            Destination::Out => "--out".into(),
            Destination::Study { what } => format!("the directory of {what}"),
        }
    }

    /// What to do instead.
    fn elsewhere(&self, dir: &Path) -> String {
        match self {
            Destination::Out => "choose another --out".into(),
            Destination::Study { what } => format!("move {} away to play {what} again", dir.display()),
        }
    }
}

/// Where an existing shard stands, for messages: complete, being written (by whom), or interrupted.
fn shard_state(dir: &Path, m: &Manifest) -> String {
    if m.is_complete() {
        return "complete".into();
    }
    match DirLock::holder(dir, &writer_lock_name(m.shard)) {
        Some(holder) => format!("being written by {holder}"),
        None => "interrupted".into(),
    }
}

impl DatasetWriter {
    /// Prepares `dir` for the run. Refuses a directory that holds anything but this run's
    /// dataset (another run, the same run split in another number of shards, a manifest edited
    /// since its batches were written), one that already holds this shard unless `resume` is
    /// set, and one whose shard another process is writing (the lock is held until the writer
    /// is dropped). `dest` says how errors name the directory.
    pub fn create(
        dir: &Path,
        cfg: &RunConfig,
        format: Formats,
        resume: bool,
        command: &str,
        dest: &Destination,
    ) -> Result<DatasetWriter, DatasetError> {
        let subject = dest.subject();
        if dir.exists() && !dir.is_dir() {
            return Err(invalid(dir, format!("{subject} exists and is not a directory")));
        }
        std::fs::create_dir_all(dir).map_err(|e| io_err(dir, "cannot create the output directory", e))?;
        // Writers check the directory and write their manifest one at a time; each shard has
        // one writer for the whole run.
        // A directory of someone else's files is refused before anything is written into it
        // (and again under the lock).
        if manifest_names(dir)?.is_empty() {
            refuse_foreign(dir, dest)?;
        }
        let setup = DirLock::acquire(dir, SETUP_LOCK)?;
        let lock = DirLock::try_acquire(dir, &writer_lock_name(cfg.shard), &format!("shard {} of this dataset", cfg.shard))?;
        let run_id = cfg.run_id();
        let mut manifest = Manifest {
            tool: "rajapasu".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            versions: versions(),
            status: RunStatus::Running,
            run_id: run_id.clone(),
            rules: cfg.rules,
            rules_hash: cfg.rules.hash(),
            south: cfg.south,
            north: cfg.north,
            first: cfg.first,
            seed: cfg.seed,
            matches: cfg.matches,
            match_range: match_range(cfg),
            shard: cfg.shard,
            batch_size: cfg.batch_size,
            detail: cfg.detail,
            format,
            rows: BTreeMap::new(),
            started: now(),
            finished: None,
            seconds: 0.0,
            command: command.into(),
            schema: serde_json::to_value(ALL_TABLES.iter().filter(|t| cfg.detail.tables().contains(&t.name)).collect::<Vec<_>>())
                .expect("schemas serialize"),
            identity: BTreeMap::new(),
        };
        manifest.identity = manifest.current_identity();
        let manifests = read_manifests(dir).map_err(|e| match e {
            DatasetError::Invalid { path, what } => {
                invalid(&path, format!("{what}\n({subject} holds a dataset whose manifest cannot be trusted; {})", dest.elsewhere(dir)))
            }
            other => other,
        })?;
        let manifest_path = dir.join(manifest_name(cfg.shard));
        if manifests.is_empty() {
            refuse_foreign(dir, dest)?;
        }
        for (path, other) in &manifests {
            let file = path.file_name().unwrap().to_string_lossy().into_owned();
            if let Some(diff) = identity_mismatch(other, &manifest) {
                let state = shard_state(dir, other);
                let what = if diff.0 == "shard count" {
                    format!(
                        "{subject} holds a run split into {} shard{} ({file}: shard {}, {state}); this is shard {} of {}: \
                         all shards of a dataset split the run the same way; {}, or play --shard K/{}",
                        other.shard.count,
                        if other.shard.count == 1 { "" } else { "s" },
                        other.shard,
                        cfg.shard.index,
                        cfg.shard.count,
                        dest.elsewhere(dir),
                        other.shard.count
                    )
                } else {
                    format!("{subject} holds a different dataset ({file}, {state}): {}; {}", describe_mismatch(&diff), dest.elsewhere(dir))
                };
                return Err(invalid(dir, what));
            }
            if *path == manifest_path {
                if !resume {
                    let what = if other.is_complete() { "a complete" } else { "an interrupted" };
                    return Err(invalid(
                        dir,
                        format!(
                            "{subject} already holds {what} run of shard {}; pass --resume to continue it, or {}",
                            other.shard,
                            dest.elsewhere(dir)
                        ),
                    ));
                }
                manifest.started = other.started.clone();
                manifest.seconds = other.seconds;
            }
        }
        let layout = Layout {
            dir: dir.to_path_buf(),
            run_id: run_id.clone(),
            identity: manifest.identity_digest(),
            tables: cfg.detail.tables(),
            formats: format.list(),
            batches: cfg.batches(),
        };
        if manifests.iter().any(|(path, _)| *path == manifest_path) {
            refuse_edited_manifest(&layout, cfg, &manifest_path, dest)?;
        }
        for table in cfg.detail.tables() {
            let table_dir = dir.join(table);
            std::fs::create_dir_all(&table_dir).map_err(|e| io_err(&table_dir, "cannot create", e))?;
            remove_temporaries(&table_dir, cfg)?;
        }
        let progress = dir.join(".progress");
        std::fs::create_dir_all(&progress).map_err(|e| io_err(&progress, "cannot create", e))?;
        remove_temporaries(&progress, cfg)?;
        remove_manifest_temporaries(dir, &manifest_path)?;
        // Files this run would not write are the user's to sort out: resuming around them
        // would give a dataset that differs from an uninterrupted run's.
        let strays = layout.strays(&Default::default(), false).map_err(|e| io_err(dir, "cannot read", e))?;
        if !strays.is_empty() {
            return Err(invalid(
                dir,
                format!(
                    "{subject} holds files that are not part of this run; move them away, then run the command again:\n{}",
                    problem_list(&strays)
                ),
            ));
        }
        write_string_atomically(&manifest_path, &to_json(&manifest))?;
        drop(setup);
        Ok(DatasetWriter {
            dir: dir.to_path_buf(),
            cfg: cfg.clone(),
            formats: format.list(),
            run_id,
            manifest,
            manifest_path,
            started: Instant::now(),
            layout,
            syncer: Syncer::start(),
            _lock: lock,
        })
    }

    fn marker(&self, batch: u64) -> PathBuf {
        self.layout.marker_path(batch)
    }

    pub fn part_path(&self, table: &str, batch: u64, format: Format) -> PathBuf {
        self.dir.join(table).join(self.layout.part_name(batch, format))
    }

    /// Marks the manifest complete, with the rows of all the shard's batches.
    pub fn finish(mut self, complete: bool) -> Result<Manifest, DatasetError> {
        self.syncer.finish()?;
        let mut rows: BTreeMap<String, u64> = BTreeMap::new();
        for b in self.cfg.shard_batches() {
            let path = self.marker(b);
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            let marker: Marker = serde_json::from_str(&text).map_err(|e| invalid(&path, e.to_string()))?;
            for (t, n) in marker.rows {
                *rows.entry(t).or_default() += n;
            }
        }
        self.manifest.rows = rows;
        self.manifest.seconds += self.started.elapsed().as_secs_f64();
        if complete {
            self.manifest.status = RunStatus::Complete;
            self.manifest.finished = Some(now());
        }
        write_string_atomically(&self.manifest_path, &to_json(&self.manifest))?;
        Ok(self.manifest)
    }
}

/// Refuses to resume a shard whose manifest no longer has the identity its batches were
/// written under (the manifest agrees with itself, but not with its progress markers).
fn refuse_edited_manifest(layout: &Layout, cfg: &RunConfig, manifest_path: &Path, dest: &Destination) -> Result<(), DatasetError> {
    let checked = layout.check_batches(cfg.shard_batches());
    let other: Vec<&Problem> = checked.problems.iter().filter(|p| p.kind == ProblemKind::Identity).collect();
    if other.is_empty() {
        return Ok(());
    }
    Err(invalid(
        manifest_path,
        format!("{}; restore the manifest, or {}", edited_identity("the manifest", &other), dest.elsewhere(&layout.dir)),
    ))
}

/// "`what` was edited: ...", from the progress markers (at least one) that record another identity.
fn edited_identity<P: std::borrow::Borrow<Problem>>(what: &str, markers: &[P]) -> String {
    let example = markers[0].borrow();
    format!(
        "{what} was edited: its identity no longer matches the digest recorded by the batches \
         ({} progress marker{} record another, e.g. {}: {})",
        markers.len(),
        if markers.len() == 1 { "" } else { "s" },
        example.file.display(),
        example.what
    )
}

fn to_json<T: Serialize>(v: &T) -> String {
    serde_json::to_string_pretty(v).expect("serializable") + "\n"
}

/// Removes files left under temporary names by an interrupted write of one of this shard's
/// batches. Other shards may be writing into the same directory at the same time: their
/// temporaries are theirs.
fn remove_temporaries(dir: &Path, cfg: &RunConfig) -> Result<(), DatasetError> {
    let ours = cfg.shard_batches();
    for entry in std::fs::read_dir(dir).map_err(|e| io_err(dir, "cannot read", e))?.filter_map(|e| e.ok()) {
        let name = entry.file_name().to_string_lossy().into_owned();
        if temporary_target(&name).and_then(batch_of).is_some_and(|b| ours.contains(&b)) {
            std::fs::remove_file(entry.path()).map_err(|e| io_err(&entry.path(), "cannot remove a stale temporary file", e))?;
        }
    }
    Ok(())
}

/// Refuses a directory without a manifest that holds anything but a dataset's own files.
fn refuse_foreign(dir: &Path, dest: &Destination) -> Result<(), DatasetError> {
    // A shard starting at the same time as another may find the table directories before any
    // manifest: those are the dataset's own, anything else is foreign. So are the lock files
    // and a manifest under its temporary name (a run killed before its manifest was in place).
    let own = |name: &str| {
        ALL_TABLES.iter().any(|t| t.name == name)
            || name == ".progress"
            || is_lock_name(name)
            || temporary_target(name).is_some_and(is_manifest_name)
    };
    let foreign: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| io_err(dir, "cannot read the directory", e))?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| !own(name))
        .collect();
    if foreign.is_empty() {
        Ok(())
    } else {
        let instead = match dest {
            Destination::Out => "choose an empty or new directory".to_string(),
            Destination::Study { .. } => dest.elsewhere(dir),
        };
        Err(invalid(
            dir,
            format!("{} is not empty and holds no rajapasu dataset (found {}); {instead}", dest.subject(), foreign.join(", ")),
        ))
    }
}

/// Removes this shard's manifest left under a temporary name by a run killed while writing it
/// (the writer lock is held: no other process writes this manifest).
fn remove_manifest_temporaries(dir: &Path, manifest_path: &Path) -> Result<(), DatasetError> {
    let ours = manifest_path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    for entry in std::fs::read_dir(dir).map_err(|e| io_err(dir, "cannot read", e))?.filter_map(|e| e.ok()) {
        let name = entry.file_name().to_string_lossy().into_owned();
        if temporary_target(&name) == Some(ours.as_str()) {
            std::fs::remove_file(entry.path()).map_err(|e| io_err(&entry.path(), "cannot remove a stale temporary file", e))?;
        }
    }
    Ok(())
}

/// Problems one per line, indented.
pub fn problem_list(problems: &[Problem]) -> String {
    problems.iter().map(|p| format!("  {p}")).collect::<Vec<_>>().join("\n")
}

/// The batch of a part file (`part-RUN-BATCH.EXT`) or progress marker (`batch-BATCH.json`).
fn batch_of(file_name: &str) -> Option<u64> {
    let (stem, _extension) = file_name.rsplit_once('.')?;
    stem.rsplit_once('-')?.1.parse().ok()
}

impl BatchSink for DatasetWriter {
    type Error = DatasetError;

    /// A batch is done when its marker is there and every part file matches it: a missing,
    /// truncated or altered file makes its batch be played again.
    fn is_done(&self, batch: u64) -> bool {
        self.layout.batch_is_intact(batch)
    }

    fn write(&self, batch: Batch) -> Result<Batch, DatasetError> {
        let index = batch.index;
        let mut rows = BTreeMap::new();
        let mut files = Vec::new();
        let tables = batch.into_tables(self.cfg.detail);
        let mut parts = Vec::new();
        for table in &tables {
            rows.insert(table.name.to_string(), table.rows() as u64);
            for &format in &self.formats {
                let path = self.part_path(table.name, index, format);
                let (unsynced, digest) = write_table_unsynced(table, &path, format)?;
                parts.push(unsynced);
                files.push(PartRecord {
                    table: table.name.to_string(),
                    file: self.layout.part_name(index, format),
                    rows: table.rows() as u64,
                    bytes: digest.bytes,
                    sha256: digest.sha256,
                });
            }
        }
        let marker = Marker { run_id: self.run_id.clone(), identity: self.layout.identity.clone(), batch: index, rows, files };
        // Durable later, on the syncing thread; the tables' memory goes back to the workers now.
        self.syncer.push(PendingBatch { parts, marker: self.marker(index), text: to_json(&marker) })?;
        Ok(Batch::recycle(tables))
    }
}

/// A dataset opened for reading: its manifests and its part files, checked for consistency.
pub struct Dataset {
    pub dir: PathBuf,
    pub manifests: Vec<Manifest>,
    pub run_id: String,
}

impl Dataset {
    /// Opens `dir`: it must hold at least one manifest, all of one run, all complete, and part
    /// files of that run only, each as its batch's progress marker records it.
    pub fn open(dir: &Path) -> Result<Dataset, DatasetError> {
        let dataset = Dataset::open_unverified(dir)?;
        let problems = dataset.verify()?;
        if !problems.is_empty() {
            return Err(invalid(
                dir,
                format!(
                    "{} of the dataset's files do not match its progress markers; its figures would be wrong:\n{}\n\
                     (`--resume` with the run's command plays missing, truncated or altered batches again; remove extra files)",
                    problems.len(),
                    problem_list(&problems)
                ),
            ));
        }
        Ok(dataset)
    }

    /// Opens `dir` checking its manifests (one run, complete, every shard), not its files:
    /// [`Dataset::verify`] checks those.
    pub fn open_unverified(dir: &Path) -> Result<Dataset, DatasetError> {
        if !dir.is_dir() {
            return Err(invalid(dir, "no such directory"));
        }
        let manifests = read_manifests(dir)?;
        let Some((first_path, first)) = manifests.first() else {
            return Err(invalid(dir, "not a rajapasu dataset: no manifest.json (run `rajapasu simulate --out DIR` to make one)"));
        };
        // Each manifest's own fields, the row format among them, are checked by read_manifest.
        for (path, m) in &manifests {
            if let Some(diff) = identity_mismatch(first, m) {
                return Err(invalid(
                    dir,
                    format!(
                        "mixes datasets: {} and {} differ ({})",
                        first_path.file_name().unwrap().to_string_lossy(),
                        path.file_name().unwrap().to_string_lossy(),
                        describe_mismatch(&diff)
                    ),
                ));
            }
            if !m.is_complete() {
                let shard = m.shard;
                if let Some(holder) = DirLock::holder(dir, &writer_lock_name(shard)) {
                    return Err(invalid(
                        path,
                        format!("shard {} is incomplete: it is being written by {holder}; wait for it to end", m.shard),
                    ));
                }
                return Err(invalid(path, format!("shard {} is incomplete (status {}); finish it with --resume first", m.shard, m.status)));
            }
        }
        // Every shard of the run must be there: a study never summarizes part of a run unawares.
        let shards: Vec<Shard> = manifests.iter().map(|(_, m)| m.shard).collect();
        let count = shards[0].count;
        if shards.iter().any(|s| s.count != count) {
            return Err(invalid(dir, "mixes shards of runs split in different numbers of shards"));
        }
        let missing: Vec<String> = (1..=count).filter(|k| !shards.iter().any(|s| s.index == *k)).map(|k| k.to_string()).collect();
        if !missing.is_empty() {
            return Err(invalid(
                dir,
                format!("shards {} of {count} are missing; run them (--shard K/{count}) before summarizing", missing.join(", ")),
            ));
        }
        Ok(Dataset { dir: dir.to_path_buf(), run_id: first.run_id.clone(), manifests: manifests.into_iter().map(|m| m.1).collect() })
    }

    /// What the dataset's directory should hold.
    pub fn layout(&self) -> Layout {
        let m = self.manifest();
        Layout {
            dir: self.dir.clone(),
            run_id: self.run_id.clone(),
            identity: m.identity_digest(),
            tables: m.detail.tables(),
            formats: m.format.list(),
            batches: m.matches.div_ceil(m.batch_size.max(1)),
        }
    }

    /// Checks every part file against the progress markers, and the markers' row counts
    /// against the manifests; returns every problem found (none: the dataset holds).
    pub fn verify(&self) -> Result<Vec<Problem>, DatasetError> {
        let layout = self.layout();
        let mut problems = layout.missing_tables();
        let mut recorded = std::collections::HashMap::new();
        for m in &self.manifests {
            let shard = m.shard;
            let checked = layout.check_batches(shard.batches(layout.batches));
            // Markers of another identity: one problem for the manifest, not one per batch.
            let (other, rest): (Vec<Problem>, Vec<Problem>) = checked.problems.into_iter().partition(|p| p.kind == ProblemKind::Identity);
            problems.extend(rest);
            if !other.is_empty() {
                problems.push(Problem {
                    file: PathBuf::from(manifest_name(shard)),
                    kind: ProblemKind::Identity,
                    what: edited_identity(&manifest_name(shard), &other),
                });
            }
            recorded.extend(checked.recorded);
            if checked.rows != m.rows {
                let show = |r: &BTreeMap<String, u64>| r.iter().map(|(t, n)| format!("{n} {t}")).collect::<Vec<_>>().join(", ");
                problems.push(Problem {
                    file: PathBuf::from(manifest_name(shard)),
                    kind: ProblemKind::Rows,
                    what: format!("the manifest records {} rows; the progress markers record {}", show(&m.rows), show(&checked.rows)),
                });
            }
        }
        problems.extend(layout.strays(&recorded, true).map_err(|e| io_err(&self.dir, "cannot read", e))?);
        problems.sort_by(|a, b| (&a.file, a.kind).cmp(&(&b.file, b.kind)));
        Ok(problems)
    }

    pub fn manifest(&self) -> &Manifest {
        &self.manifests[0]
    }

    pub fn detail(&self) -> Detail {
        self.manifest().detail
    }

    /// The part files of a table (one format: Parquet when both exist), sorted. Every part
    /// must belong to this run.
    pub fn parts(&self, table: &str) -> Result<Vec<PathBuf>, DatasetError> {
        let table_dir = self.dir.join(table);
        if !table_dir.is_dir() {
            return Err(invalid(&table_dir, format!("missing table directory '{table}' for detail {}", self.detail())));
        }
        let format = if self.manifest().format == Formats::Csv { Format::Csv } else { Format::Parquet };
        let mut parts = Vec::new();
        for entry in std::fs::read_dir(&table_dir).map_err(|e| io_err(&table_dir, "cannot read", e))?.filter_map(|e| e.ok()) {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let Some(rest) = name.strip_prefix("part-") else {
                return Err(invalid(&entry.path(), "unexpected file in a table directory (expected part-RUN-BATCH files)"));
            };
            let run = rest.split('-').next().unwrap_or("");
            if run != self.run_id {
                return Err(invalid(
                    &entry.path(),
                    format!("part file of run {run} mixed into a dataset of run {} (different rules, players or seed)", self.run_id),
                ));
            }
            if name.ends_with(&format!(".{}", format.extension())) {
                parts.push(entry.path());
            }
        }
        parts.sort();
        Ok(parts)
    }

    /// Reads a table's part files one at a time (bounded memory), in order.
    pub fn for_each_part(&self, table: &str, mut f: impl FnMut(Table) -> Result<(), DatasetError>) -> Result<u64, DatasetError> {
        let spec: &TableSpec = table_spec(table).ok_or_else(|| invalid(&self.dir, format!("unknown table '{table}'")))?;
        let mut rows = 0;
        for part in self.parts(table)? {
            let t = read_table(&part, spec)?;
            rows += t.rows() as u64;
            f(t)?;
        }
        Ok(rows)
    }

    /// Reads a whole table (for small datasets and tests).
    pub fn read_all(&self, table: &str) -> Result<Table, DatasetError> {
        let spec = table_spec(table).ok_or_else(|| invalid(&self.dir, format!("unknown table '{table}'")))?;
        let mut all = crate::sim::schema::empty_table(spec);
        self.for_each_part(table, |t| {
            all.append(&t);
            Ok(())
        })?;
        Ok(all)
    }
}

#[cfg(test)]
mod manifest_tests {
    use super::*;
    use crate::agents::AgentSpec;

    fn config() -> RunConfig {
        RunConfig {
            rules: Ruleset::from_assignments(["final_four=stays"]).unwrap(),
            south: "minimax:2".parse().unwrap(),
            north: AgentSpec::Random,
            first: FirstPolicy::North,
            seed: 9,
            matches: 10,
            detail: Detail::Match,
            batch_size: 4,
            shard: Shard { index: 2, count: 3 },
        }
    }

    #[test]
    fn the_manifest_holds_the_typed_run_and_reads_back_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = config();
        let writer = DatasetWriter::create(dir.path(), &cfg, Formats::Csv, false, "test", &Destination::Out).unwrap();
        let manifest = writer.finish(true).unwrap();
        assert_eq!(manifest.status, RunStatus::Complete);
        assert_eq!(manifest.config(), cfg);
        let text = std::fs::read_to_string(dir.path().join("manifest-shard-2-of-3.json")).unwrap();
        // Typed in memory, the same words in the file.
        for field in [
            r#""status": "complete""#,
            r#""south": "minimax:depth=2,nodes=unlimited,eval=match""#,
            r#""first": "north""#,
            r#""shard": "2/3""#,
        ] {
            assert!(text.contains(field), "{field} in {text}");
        }
        let (_, back) = read_manifests(dir.path()).unwrap().pop().unwrap();
        assert_eq!(back, manifest);
    }

    #[test]
    fn a_manifest_with_an_unknown_status_or_shard_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        DatasetWriter::create(dir.path(), &config(), Formats::Csv, false, "test", &Destination::Out).unwrap().finish(true).unwrap();
        let path = dir.path().join("manifest-shard-2-of-3.json");
        let good = std::fs::read_to_string(&path).unwrap();
        for (from, to, says) in [
            (r#""status": "complete""#, r#""status": "done""#, "unknown variant `done`, expected `running` or `complete`"),
            (r#""shard": "2/3""#, r#""shard": "4/3""#, "bad shard '4/3'"),
            (r#""first": "north""#, r#""first": "west""#, "unknown variant `west`"),
        ] {
            std::fs::write(&path, good.replace(from, to)).unwrap();
            let err = read_manifests(dir.path()).map(|_| ()).unwrap_err().to_string();
            assert!(err.contains("manifest-shard-2-of-3.json") && err.contains(says), "{err}");
        }
    }

    /// A batch is made durable on the syncing thread: its marker is written only after its part
    /// files are synced under their names. A failure there (here a part's name taken by a
    /// directory, so that its rename fails) is returned by `finish`, naming the file; that batch
    /// gets no marker (a resumed run plays it again) and leaves no temporary file, and the
    /// batch before it is whole.
    #[test]
    fn a_failure_while_syncing_is_returned_naming_the_file_and_its_batch_is_not_marked_done() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = RunConfig { shard: Shard::WHOLE, matches: 8, batch_size: 4, ..config() };
        let writer = DatasetWriter::create(dir.path(), &cfg, Formats::Csv, false, "test", &Destination::Out).unwrap();
        let blocked = writer.part_path("matches", 1, Format::Csv);
        std::fs::create_dir_all(&blocked).unwrap();
        let markers = [writer.marker(0), writer.marker(1)];
        for b in 0..2 {
            // The failure is found on the syncing thread: a write may not see it yet.
            let _ = writer.write(crate::sim::simulate_batch(&cfg, b).unwrap());
        }
        let err = writer.finish(true).unwrap_err().to_string();
        assert!(err.contains(&*blocked.to_string_lossy()), "{err}");
        assert!(markers[0].is_file() && !markers[1].exists(), "batch 0 is done, batch 1 is not");
        let layout_dir = dir.path().join("matches");
        let left: Vec<String> = std::fs::read_dir(&layout_dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| super::super::atomic::temporary_target(name).is_some())
            .collect();
        assert!(left.is_empty(), "temporary files left: {left:?}");
        // The syncing stopped at the failure: batch 1's other tables were not renamed either.
        assert!(writer_batch_files(dir.path(), 1).iter().all(|f| f.is_dir()), "only the blocking directory has batch 1's name");
    }

    /// The files of every table named as batch `batch`'s part files.
    fn writer_batch_files(dir: &Path, batch: u64) -> Vec<PathBuf> {
        let suffix = format!("-{batch:08}.csv");
        let mut out = Vec::new();
        for table in std::fs::read_dir(dir).unwrap() {
            let table = table.unwrap().path();
            if table.is_dir() {
                for f in std::fs::read_dir(&table).unwrap() {
                    let f = f.unwrap().path();
                    if f.file_name().unwrap().to_string_lossy().ends_with(&suffix) {
                        out.push(f);
                    }
                }
            }
        }
        out
    }
}
