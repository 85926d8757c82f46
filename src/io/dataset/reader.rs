//! A dataset opened for reading.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::error::{edited_identity, io_err, DatasetError};
use super::manifest::{identity_mismatch, manifest_name, Formats, Manifest};
use super::manifest_io::read_manifests;
use crate::io::lock::{writer_lock_name, DirLock};
use crate::io::verify::{Layout, Problem, ProblemKind};
use crate::io::{read_table, rows, Format};
use crate::sim::schema::{table_spec, TableSpec};
use crate::sim::table::Table;
use crate::sim::{Detail, Shard};

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
            return Err(DatasetError::Damaged { dir: dir.to_path_buf(), problems });
        }
        dataset.check_rows()?;
        Ok(dataset)
    }

    /// Opens `dir` checking its manifests (one run, complete, every shard), not its files:
    /// [`Dataset::verify`] checks those.
    pub fn open_unverified(dir: &Path) -> Result<Dataset, DatasetError> {
        if !dir.is_dir() {
            return Err(DatasetError::NoDirectory { path: dir.to_path_buf() });
        }
        let manifests = read_manifests(dir)?;
        let Some((first_path, first)) = manifests.first() else {
            return Err(DatasetError::NoManifest { dir: dir.to_path_buf() });
        };
        // Each manifest's own fields, the row format among them, are checked by read_manifest.
        for (path, m) in &manifests {
            if let Some(mismatch) = identity_mismatch(first, m) {
                let file = |p: &Path| p.file_name().unwrap().to_string_lossy().into_owned();
                return Err(DatasetError::Mixed {
                    dir: dir.to_path_buf(),
                    first: file(first_path),
                    other: file(path),
                    mismatch: Box::new(mismatch),
                });
            }
            if !m.is_complete() {
                let writer = DirLock::holder(dir, &writer_lock_name(m.shard));
                return Err(DatasetError::Incomplete {
                    path: path.clone(),
                    shard: m.shard,
                    status: m.status,
                    writer,
                });
            }
        }
        // Every shard of the run must be there: a study never summarizes part of a run unawares.
        let shards: Vec<Shard> = manifests.iter().map(|(_, m)| m.shard).collect();
        let count = shards[0].count;
        if shards.iter().any(|s| s.count != count) {
            return Err(DatasetError::MixedShardCounts { dir: dir.to_path_buf() });
        }
        let missing: Vec<_> =
            (1..=count).filter(|k| !shards.iter().any(|s| s.index == *k)).collect();
        if !missing.is_empty() {
            return Err(DatasetError::MissingShards { dir: dir.to_path_buf(), missing, count });
        }
        Ok(Dataset {
            dir: dir.to_path_buf(),
            run_id: first.run_id.clone(),
            manifests: manifests.into_iter().map(|m| m.1).collect(),
        })
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
            problems.extend(manifest_problems(shard, checked.problems));
            recorded.extend(checked.recorded);
            if checked.rows != m.rows {
                let show = |r: &BTreeMap<String, u64>| {
                    r.iter().map(|(t, n)| format!("{n} {t}")).collect::<Vec<_>>().join(", ")
                };
                problems.push(Problem {
                    file: PathBuf::from(manifest_name(shard)),
                    kind: ProblemKind::Rows,
                    what: format!(
                        "the manifest records {} rows; the progress markers record {}",
                        show(&m.rows),
                        show(&checked.rows)
                    ),
                });
            }
        }
        problems.extend(
            layout.strays(&recorded, true).map_err(|e| io_err(&self.dir, "cannot read", e))?,
        );
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
            return Err(DatasetError::MissingTable {
                path: table_dir,
                table: table.to_string(),
                detail: self.detail(),
            });
        }
        let format = self.read_format();
        let mut parts = Vec::new();
        for entry in std::fs::read_dir(&table_dir)
            .map_err(|e| io_err(&table_dir, "cannot read", e))?
            .filter_map(|e| e.ok())
        {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let Some(rest) = name.strip_prefix("part-") else {
                return Err(DatasetError::UnexpectedFile { path: entry.path() });
            };
            let run = rest.split('-').next().unwrap_or("");
            if run != self.run_id {
                return Err(DatasetError::ForeignPart {
                    path: entry.path(),
                    run: run.to_string(),
                    dataset_run: self.run_id.clone(),
                });
            }
            if name.ends_with(&format!(".{}", format.extension())) {
                parts.push(entry.path());
            }
        }
        parts.sort();
        Ok(parts)
    }

    /// Reads a table's part files one at a time (bounded memory), in order.
    pub fn for_each_part(
        &self,
        table: &str,
        mut f: impl FnMut(Table) -> Result<(), DatasetError>,
    ) -> Result<u64, DatasetError> {
        let spec: &TableSpec = table_spec(table).ok_or_else(|| self.unknown_table(table))?;
        let mut rows = 0;
        for part in self.parts(table)? {
            let t = read_table(&part, spec)?;
            rows::check_part(&t, &rows::Limits::new(&self.manifest().rules))
                .map_err(|e| DatasetError::content(&part, e))?;
            rows += t.rows() as u64;
            f(t)?;
        }
        Ok(rows)
    }

    fn unknown_table(&self, table: &str) -> DatasetError {
        DatasetError::UnknownTable { dir: self.dir.clone(), table: table.to_string() }
    }

    /// Checks the values of each batch's matches, quality, by_round, histograms and rounds
    /// parts against the rules' limits and against each other ([`crate::io::rows`]): the first
    /// violation is an error naming its file, table, match and column.
    pub fn check_rows(&self) -> Result<(), DatasetError> {
        for mp in self.parts("matches")? {
            self.check_batch_rows(&mp, false)?;
        }
        Ok(())
    }

    /// [`Dataset::check_rows`] for the batch of the matches part `mp`; with `every_table`, the
    /// row invariants of its moves and laps parts too. Those are left out of the whole
    /// dataset's check: its readers use neither table, and they are its largest.
    fn check_batch_rows(&self, mp: &Path, every_table: bool) -> Result<(), DatasetError> {
        let limits = rows::Limits::new(&self.manifest().rules);
        let read = |path: &Path, spec: &TableSpec| -> Result<Table, DatasetError> {
            let t = read_table(path, spec)?;
            rows::check_part(&t, &limits).map_err(|e| DatasetError::content(path, e))?;
            Ok(t)
        };
        let m = read(mp, &crate::sim::schema::MATCHES)?;
        let tables = self.detail().tables();
        for table in rows::BATCH_TABLES.into_iter().filter(|t| tables.contains(t)) {
            let path = self.dir.join(table).join(mp.file_name().expect("a part file has a name"));
            let t = read(&path, table_spec(table).expect("a table of the schema"))?;
            rows::check_batch(&m, &t, &limits).map_err(|e| DatasetError::content(&path, e))?;
        }
        for table in ["moves", "laps"].into_iter().filter(|t| every_table && tables.contains(t)) {
            read(
                &self.dir.join(table).join(mp.file_name().expect("a part file has a name")),
                table_spec(table).expect("a table of the schema"),
            )?;
        }
        Ok(())
    }

    /// The part file of `table` that holds batch `batch`, if there is one (in the format
    /// [`Dataset::parts`] reads).
    pub fn batch_part(&self, table: &str, batch: u64) -> Result<Option<PathBuf>, DatasetError> {
        let path = self.dir.join(table).join(self.layout().part_name(batch, self.read_format()));
        Ok(path.is_file().then_some(path))
    }

    /// The format the parts are read in: Parquet when both were written.
    fn read_format(&self) -> Format {
        if self.manifest().format == Formats::Csv {
            Format::Csv
        } else {
            Format::Parquet
        }
    }

    /// Checks what a reader of one batch alone needs, on a dataset opened with
    /// [`Dataset::open_unverified`]: the batch's part files against its progress marker
    /// (present, their SHA-256) and its rows ([`Dataset::check_rows`], its moves and laps parts'
    /// too), in the time of one batch rather than of the whole dataset. The other batches are
    /// not read.
    pub fn verify_batch(&self, batch: u64) -> Result<(), DatasetError> {
        let layout = self.layout();
        let shard = self
            .manifests
            .iter()
            .map(|m| m.shard)
            .find(|s| s.batches(layout.batches).contains(&batch))
            .unwrap_or(Shard::WHOLE);
        let mut problems = layout.missing_tables();
        problems.extend(manifest_problems(shard, layout.check_batches(batch..batch + 1).problems));
        if !problems.is_empty() {
            return Err(DatasetError::Damaged { dir: self.dir.clone(), problems });
        }
        match self.batch_part("matches", batch)? {
            Some(mp) => self.check_batch_rows(&mp, true),
            None => Err(DatasetError::Damaged {
                dir: self.dir.clone(),
                problems: vec![Problem {
                    file: PathBuf::from("matches"),
                    kind: ProblemKind::Missing,
                    what: format!("no part file of batch {batch}"),
                }],
            }),
        }
    }

    /// Reads a whole table (for small datasets and tests).
    pub fn read_all(&self, table: &str) -> Result<Table, DatasetError> {
        let spec = table_spec(table).ok_or_else(|| self.unknown_table(table))?;
        let mut all = crate::sim::schema::empty_table(spec);
        self.for_each_part(table, |t| {
            all.append(&t);
            Ok(())
        })?;
        Ok(all)
    }
}

/// The problems found in the batches of `shard`'s manifest, those of markers of another
/// identity as one problem of the manifest (it was edited), not one per batch.
fn manifest_problems(shard: Shard, problems: Vec<Problem>) -> Vec<Problem> {
    let (other, mut rest): (Vec<Problem>, Vec<Problem>) =
        problems.into_iter().partition(|p| p.kind == ProblemKind::Identity);
    if !other.is_empty() {
        rest.push(Problem {
            file: PathBuf::from(manifest_name(shard)),
            kind: ProblemKind::Identity,
            what: edited_identity(&manifest_name(shard), &other),
        });
    }
    rest
}
