//! The writer of a run's batches into a dataset directory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::admission;
use super::error::DatasetError;
use super::manifest::{manifest_name, now, Formats, Manifest, Played, RunStatus};
use super::manifest_io::to_json;
use super::seat::PlayedSeat;
use super::syncer::{PendingBatch, Syncer};
use crate::agents::AgentSpec;
use crate::io::lock::{writer_lock_name, DirLock, SETUP_LOCK};
use crate::io::verify::{Layout, Marker, PartRecord};
use crate::io::{write_string_atomically, write_table_unsynced, Format};
use crate::sim::{Batch, BatchSink, RunConfig};

/// Writes a run's batches into a dataset directory; the sink of [`crate::sim::run`].
pub struct DatasetWriter {
    dir: PathBuf,
    /// The run as its manifest records it.
    cfg: RunConfig<PlayedSeat>,
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

/// The digest of the match table a run's `perfect:match` players read (None without them): the
/// table is read (or solved) now, as the players' first move would.
pub fn tables_digest<P: PartialEq<AgentSpec>>(
    cfg: &RunConfig<P>,
) -> Result<Option<String>, DatasetError> {
    let perfect = AgentSpec::Perfect(crate::exact::PerfectKind::Match);
    if cfg.south != perfect && cfg.north != perfect {
        return Ok(None);
    }
    // The default tables directory, as the players' store reads it.
    let store = crate::exact::ExactStore::new(crate::exact::StoreSettings::default());
    let table = store
        .match_table(cfg.rules)
        .map_err(|e| DatasetError::Tables(format!("perfect:match: {e}")))?;
    Ok(Some(table.digest()))
}

impl DatasetWriter {
    /// Prepares `dir` for the run. Refuses a directory that holds anything but this run's
    /// dataset (another run, the same run split in another number of shards, a manifest edited
    /// since its batches were written), one that already holds this shard unless `resume` is
    /// set, and one whose shard another process is writing (the lock is held until the writer
    /// is dropped).
    pub fn create(
        dir: &Path,
        cfg: &RunConfig,
        format: Formats,
        resume: bool,
        command: &str,
    ) -> Result<DatasetWriter, DatasetError> {
        let manifest = Manifest::new(&cfg.clone().map_seats(PlayedSeat::Player), format, command)
            .with_tables(tables_digest(cfg)?);
        DatasetWriter::create_with(dir, manifest, resume)
    }

    /// Prepares `dir` (a new dataset, refused if it holds one) for one match played from its
    /// moves (`played`); `tables` is the digest of the match table its perfect:match seats
    /// read, from the store they read it from.
    pub fn create_played(
        dir: &Path,
        cfg: &RunConfig<PlayedSeat>,
        played: Played,
        tables: Option<String>,
        format: Formats,
        command: &str,
    ) -> Result<DatasetWriter, DatasetError> {
        let manifest = Manifest::new(cfg, format, command).with_tables(tables).with_played(played);
        DatasetWriter::create_with(dir, manifest, false)
    }

    fn create_with(
        dir: &Path,
        mut manifest: Manifest,
        resume: bool,
    ) -> Result<DatasetWriter, DatasetError> {
        let cfg = manifest.config();
        admission::open_destination(dir)?;
        // Writers check the directory and write their manifest one at a time; each shard has
        // one writer for the whole run.
        let setup = DirLock::acquire(dir, SETUP_LOCK)?;
        // Not recorded until the run is admitted: a refused writer leaves the last one's details.
        let mut lock = DirLock::try_acquire_unrecorded(
            dir,
            &writer_lock_name(cfg.shard),
            &format!("shard {} of this dataset", cfg.shard),
        )?;
        let format = manifest.format;
        let manifest_path = dir.join(manifest_name(cfg.shard));
        let resumed = admission::admit(dir, &mut manifest, &manifest_path, resume)?;
        let layout = Layout {
            dir: dir.to_path_buf(),
            run_id: manifest.run_id.clone(),
            identity: manifest.identity_digest(),
            tables: cfg.detail.tables(),
            formats: format.list(),
            batches: cfg.batches(),
        };
        admission::prepare(&layout, &cfg, &manifest_path, resumed)?;
        lock.record()?;
        write_string_atomically(&manifest_path, &to_json(&manifest))?;
        drop(setup);
        Ok(DatasetWriter {
            dir: dir.to_path_buf(),
            cfg,
            formats: format.list(),
            run_id: manifest.run_id.clone(),
            manifest,
            manifest_path,
            started: Instant::now(),
            layout,
            syncer: Syncer::start(),
            _lock: lock,
        })
    }

    pub(super) fn marker(&self, batch: u64) -> PathBuf {
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
            let marker: Marker = serde_json::from_str(&text)
                .map_err(|e| DatasetError::Marker { path: path.clone(), what: e.to_string() })?;
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
        if complete {
            // The last shard to complete writes the package descriptor (one writer at a time).
            let _setup = DirLock::acquire(&self.dir, SETUP_LOCK)?;
            crate::io::datapackage::write_if_complete(&self.dir)?;
        }
        Ok(self.manifest)
    }
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
        let marker = Marker {
            run_id: self.run_id.clone(),
            identity: self.layout.identity.clone(),
            batch: index,
            rows,
            files,
        };
        // Durable later, on the syncing thread; the tables' memory goes back to the workers now.
        self.syncer.push(PendingBatch {
            parts,
            marker: self.marker(index),
            text: to_json(&marker),
        })?;
        Ok(Batch::recycle(tables))
    }
}
