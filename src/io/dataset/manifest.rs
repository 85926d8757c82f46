//! The manifest of a run: what determines its rows (its identity), and the versions recorded.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::seat::PlayedSeat;
use crate::engine::Ruleset;
use crate::io::Format;
use crate::sim::schema::ALL_TABLES;
use crate::sim::{Detail, FirstPolicy, RunConfig, Shard};

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
    /// The seats' players; `human` only in a match played from its moves (see [`Manifest::played`]).
    pub south: PlayedSeat,
    pub north: PlayedSeat,
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
    /// The SHA-256 of the match table (R17) the run's `perfect:match` players read
    /// ([`crate::exact::MatchTable::digest`]; the values files they read name it too); absent
    /// for runs without them. Part of the identity: other tables give other rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tables: Option<String>,
    /// A match played from its recorded moves rather than by `south` and `north` from `seed`
    /// (absent for the runs of `simulate`). Part of the identity: the moves give the rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub played: Option<Played>,
}

/// How a dataset of one match played from its moves was made (docs/data.md, "A match played
/// from its moves"): the manifest's `south` and `north` are its seats as played, `human` (a
/// person's moves) or a built-in player each of whose moves was its choice with the random
/// stream of (`seed`, the ply before the move, its seat), checked when the dataset was written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Played {
    /// The moves, local pits (R3) in ply order, comma-separated, as `replay --moves` takes them.
    pub moves: String,
    /// The sentence above, so that the manifest explains itself.
    pub how: String,
}

/// What [`Played::how`] says.
pub const PLAYED_HOW: &str = "one match replayed from `moves` (local pits in ply order); `south` and `north` are the seats as played: \
human (a person's moves), or a built-in player each of whose moves was its choice with the random stream of (seed, ply before the move, seat)";

impl Played {
    pub fn new(moves: &[usize]) -> Played {
        Played {
            moves: moves.iter().map(usize::to_string).collect::<Vec<_>>().join(","),
            how: PLAYED_HOW.to_string(),
        }
    }

    /// The moves as local pits; the error names the item that is not a pit number.
    pub fn pits(&self) -> Result<Vec<u32>, String> {
        let items = self.moves.split(',').filter(|m| !m.is_empty());
        items
            .enumerate()
            .map(|(i, m)| {
                m.parse::<u32>().map_err(|_| format!("item {}: '{m}' is not a local pit", i + 1))
            })
            .collect()
    }
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
    /// The manifest of a new run of `cfg`, running.
    pub fn new(cfg: &RunConfig<PlayedSeat>, format: Formats, command: &str) -> Manifest {
        let mut manifest = Manifest {
            tool: "rajapasu".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            versions: versions(),
            status: RunStatus::Running,
            run_id: cfg.run_id(),
            rules: cfg.rules,
            rules_hash: cfg.rules.hash(),
            south: cfg.south.clone(),
            north: cfg.north.clone(),
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
            schema: serde_json::to_value(
                ALL_TABLES
                    .iter()
                    .filter(|t| cfg.detail.tables().contains(&t.name))
                    .collect::<Vec<_>>(),
            )
            .expect("schemas serialize"),
            identity: BTreeMap::new(),
            tables: None,
            played: None,
        };
        manifest.identity = manifest.current_identity();
        manifest
    }

    /// The manifest with the digest of the tables its players read (see [`Manifest::tables`]).
    pub fn with_tables(mut self, tables: Option<String>) -> Manifest {
        self.tables = tables;
        self.identity = self.current_identity();
        self
    }

    /// The manifest of one match played from its moves (see [`Manifest::played`]).
    pub fn with_played(mut self, played: Played) -> Manifest {
        self.played = Some(played);
        self.run_id = self.expected_run_id();
        self.identity = self.current_identity();
        self
    }

    /// The run id of the manifest's rules, players, first player and seed, and of its moves
    /// when it was played from them.
    pub fn expected_run_id(&self) -> String {
        let run = self.config().run_id();
        match &self.played {
            Some(p) => crate::engine::short_hash(&format!("played-v1|{run}|{}", p.moves)),
            None => run,
        }
    }

    pub fn is_complete(&self) -> bool {
        self.status == RunStatus::Complete
    }

    /// The fields that determine the rows and files (not status, rows, times or command), as
    /// (field, canonical text). The shard's index is left out (every shard's manifest has the
    /// same identity); its file name and match range are checked against it instead.
    pub fn identity_fields(&self) -> Vec<(&'static str, String)> {
        let mut fields = vec![
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
        ];
        // Only runs with perfect:match players have it: the others' identity is as before.
        fields.extend(self.tables.clone().map(|t| ("tables", t)));
        fields.extend(
            self.played
                .as_ref()
                .map(|p| ("played", serde_json::to_string(p).expect("serializable"))),
        );
        fields
    }

    /// The identity of this manifest's fields as they are now (see [`Manifest::identity`]).
    pub fn current_identity(&self) -> BTreeMap<String, String> {
        self.identity_fields()
            .into_iter()
            .map(|(k, v)| (k.to_string(), crate::engine::short_hash(&format!("{k}={v}"))))
            .collect()
    }

    /// The digest of the recorded identity, as the progress markers record it.
    pub fn identity_digest(&self) -> String {
        identity_digest(&self.identity)
    }

    /// Checks a manifest read from `file_name`: every field in range, the fields derived from
    /// others consistent, and the identity fields as recorded at the run's creation. The error
    /// names the field.
    pub fn check(&self, file_name: &str) -> Result<(), ManifestProblem> {
        let field = |field: &'static str, what: String| Err(ManifestProblem::Field { field, what });
        if self.tool != "rajapasu" {
            return field("tool", format!("'{}' is not rajapasu", self.tool));
        }
        // An older row format is named first: its manifest may predate the identity too.
        let rows_version = self.versions.get("rows").map_or("none", String::as_str);
        if rows_version != ROWS_VERSION {
            return Err(ManifestProblem::RowsVersion { found: rows_version.to_string() });
        }
        self.check_identity(file_name)?;
        if let Err(e) = crate::sim::check_matches(self.matches) {
            return field("matches", e);
        }
        if let Err(e) = crate::sim::check_batch_size(self.batch_size) {
            return field("batch_size", e);
        }
        if manifest_name(self.shard) != file_name {
            return field(
                "shard",
                format!(
                    "shard {} has the manifest {}, not {file_name}",
                    self.shard,
                    manifest_name(self.shard)
                ),
            );
        }
        self.check_derived()
    }

    /// The identity recorded at the run's creation against the fields as they are now.
    fn check_identity(&self, file_name: &str) -> Result<(), ManifestProblem> {
        if self.identity.is_empty() {
            return Err(ManifestProblem::Field {
                field: "identity",
                what: "missing: written by an older rajapasu, which recorded no identity to check the manifest against; \
                       write the dataset again with this version"
                    .into(),
            });
        }
        let current = self.current_identity();
        let edited: Vec<String> = current
            .iter()
            .filter(|(k, v)| self.identity.get(*k) != Some(v))
            .map(|(k, _)| k.clone())
            .collect();
        let unknown: Vec<&str> = self
            .identity
            .keys()
            .filter(|k| !current.contains_key(*k))
            .map(String::as_str)
            .collect();
        if !edited.is_empty() {
            return Err(ManifestProblem::Edited { file: file_name.to_string(), fields: edited });
        }
        if !unknown.is_empty() {
            return Err(ManifestProblem::Field {
                field: "identity",
                what: format!("records fields that no manifest has: {}", unknown.join(", ")),
            });
        }
        Ok(())
    }

    /// The fields derived from others: the rules' hash, the run id and the shard's range.
    fn check_derived(&self) -> Result<(), ManifestProblem> {
        let field = |field: &'static str, what: String| Err(ManifestProblem::Field { field, what });
        if self.rules_hash != self.rules.hash() {
            return field(
                "rules_hash",
                format!(
                    "{} is not the hash of the manifest's rules ({})",
                    self.rules_hash,
                    self.rules.hash()
                ),
            );
        }
        let cfg = self.config();
        if self.run_id != self.expected_run_id() {
            return field(
                "run_id",
                format!(
                    "{} is not the run of the manifest's rules, players, first player, seed and played moves ({})",
                    self.run_id,
                    self.expected_run_id()
                ),
            );
        }
        self.check_played()?;
        if self.match_range != match_range(&cfg) {
            let [a, b] = match_range(&cfg);
            return field(
                "match_range",
                format!(
                    "{:?} is not the range of shard {} ([{a}, {b}])",
                    self.match_range, self.shard
                ),
            );
        }
        Ok(())
    }

    /// A match played from its moves: one match, its moves local pits. Only such a match has a
    /// person's seat (its moves are given, no player chose them).
    fn check_played(&self) -> Result<(), ManifestProblem> {
        let field = |field: &'static str, what: String| Err(ManifestProblem::Field { field, what });
        let Some(played) = &self.played else {
            return match [("south", &self.south), ("north", &self.north)]
                .into_iter()
                .find(|(_, seat)| **seat == PlayedSeat::Human)
            {
                Some((seat, _)) => field(
                    seat,
                    "human: a person's seat is only in a match played from its moves (`played`)"
                        .into(),
                ),
                None => Ok(()),
            };
        };
        if self.matches != 1 {
            return field(
                "matches",
                format!("{}: a dataset played from its moves holds one match", self.matches),
            );
        }
        if let Err(e) = played.pits() {
            return field("played", format!("moves: {e}"));
        }
        Ok(())
    }

    /// The run this manifest records (what `simulate` was given), its seats as played.
    pub fn config(&self) -> RunConfig<PlayedSeat> {
        self.config_seated(self.south.clone(), self.north.clone())
    }

    /// The run with its seats' players, which can play its matches again; None when a seat is a
    /// person's (a match played from its moves).
    pub fn player_config(&self) -> Option<RunConfig> {
        Some(self.config_seated(self.south.player()?, self.north.player()?))
    }

    fn config_seated<P>(&self, south: P, north: P) -> RunConfig<P> {
        RunConfig {
            rules: self.rules,
            south,
            north,
            first: self.first,
            seed: self.seed,
            matches: self.matches,
            detail: self.detail,
            batch_size: self.batch_size,
            shard: self.shard,
        }
    }
}

/// The digest of a manifest's identity (see [`Manifest::identity`]).
pub fn identity_digest(identity: &BTreeMap<String, String>) -> String {
    crate::engine::short_hash(&format!(
        "identity-v1|{}",
        serde_json::to_string(identity).expect("serializable")
    ))
}

/// The matches of a shard, [start, end).
pub(super) fn match_range<P>(cfg: &RunConfig<P>) -> [u64; 2] {
    let range = cfg.shard_batches();
    if range.is_empty() {
        [0, 0]
    } else {
        [cfg.batch_range(range.start).start, cfg.batch_range(range.end - 1).end]
    }
}

/// What must agree between a new invocation and a dataset it writes into, and between the
/// manifests of one dataset: (what, there, here) of the first difference.
pub(super) fn identity_mismatch(a: &Manifest, b: &Manifest) -> Option<Mismatch> {
    let versions = |m: &Manifest| {
        m.versions.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ")
    };
    let rows_version =
        |m: &Manifest| m.versions.get("rows").cloned().unwrap_or_else(|| "none".into());
    let tables = |m: &Manifest| m.tables.clone().unwrap_or_else(|| "none".into());
    let checks: [(&str, String, String); 10] = [
        ("run (rules, players, first player, seed)", a.run_id.clone(), b.run_id.clone()),
        ("row format version", rows_version(a), rows_version(b)),
        ("rules hash", a.rules_hash.clone(), b.rules_hash.clone()),
        ("matches", a.matches.to_string(), b.matches.to_string()),
        ("batch size", a.batch_size.to_string(), b.batch_size.to_string()),
        ("shard count", a.shard.count.to_string(), b.shard.count.to_string()),
        ("detail", a.detail.to_string(), b.detail.to_string()),
        ("format", a.format.to_string(), b.format.to_string()),
        ("versions", versions(a), versions(b)),
        ("the match tables' sha256", tables(a), tables(b)),
    ];
    checks
        .into_iter()
        .find(|c| c.1 != c.2)
        .or_else(|| {
            (a.identity != b.identity)
                .then(|| ("identity", identity_digest(&a.identity), identity_digest(&b.identity)))
        })
        .map(|(what, there, here)| Mismatch { what, there, here })
}

/// The row format: 3 gave counts signed 64-bit types and the rounds table the match's first
/// player and each side's holdings and closed pits at the round's start.
pub const ROWS_VERSION: &str = "4";

/// Versions recorded in every manifest. `rows` changes whenever the same run would give other
/// rows; polars is pinned exactly in Cargo.toml.
pub fn versions() -> BTreeMap<String, String> {
    [
        ("rajapasu", env!("CARGO_PKG_VERSION")),
        ("rows", ROWS_VERSION),
        ("rng", crate::engine::GENERATOR),
        ("polars", "0.55.2"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .chain([(
        "parquet_compression".to_string(),
        format!("zstd level {}", crate::io::parquet::ENCODINGS.zstd_level),
    )])
    .collect()
}

pub(super) fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// What a manifest file gets wrong.
#[derive(Debug, Clone, PartialEq)]
pub enum ManifestProblem {
    /// Not JSON, or not a manifest's fields; `field` is the first field found at fault.
    Unreadable { field: Option<String>, what: String },
    /// A row format this version does not read.
    RowsVersion { found: String },
    /// A field out of range or inconsistent with the others.
    Field { field: &'static str, what: String },
    /// Fields that no longer match the identity recorded when the run was created.
    Edited { file: String, fields: Vec<String> },
}

impl std::fmt::Display for ManifestProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ManifestProblem::Unreadable { field: Some(field), what } if !what.contains(&format!("`{field}`")) => {
                write!(f, "not a rajapasu manifest: field `{field}`: {what}")
            }
            ManifestProblem::Unreadable { what, .. } => write!(f, "not a rajapasu manifest: {what}"),
            ManifestProblem::RowsVersion { found } => write!(
                f,
                "versions.rows is {found}: this rajapasu reads row format {} only (docs/data.md, \"Row format\"); \
                 regenerate the dataset with its manifest's command",
                ROWS_VERSION
            ),
            ManifestProblem::Field { field, what } => write!(f, "field `{field}`: {what}"),
            ManifestProblem::Edited { file, fields } => write!(
                f,
                "{file} was edited: field{} {} no longer match{} the identity recorded when the run was created \
                 (the rows were made with other values); restore the manifest or write the dataset again",
                if fields.len() == 1 { "" } else { "s" },
                fields.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", "),
                if fields.len() == 1 { "es" } else { "" }
            ),
        }
    }
}

/// The first difference between two manifests that must agree: what differs, its value there
/// (the manifest found) and here (the run or the other manifest).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    pub what: &'static str,
    pub there: String,
    pub here: String,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} is {} there, {} here", self.what, self.there, self.here)
    }
}

/// The file name of a shard's manifest.
pub fn manifest_name(shard: crate::sim::Shard) -> String {
    if shard.count == 1 {
        "manifest.json".into()
    } else {
        format!("manifest-shard-{}-of-{}.json", shard.index, shard.count)
    }
}

pub(super) fn is_manifest_name(name: &str) -> bool {
    name == "manifest.json" || (name.starts_with("manifest-shard-") && name.ends_with(".json"))
}
