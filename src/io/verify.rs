//! Verified part files. When a batch is complete, its progress marker
//! (`.progress/batch-BATCH.json`) records, for every part file of the batch, the table, the file
//! name, the row count, the size and the SHA-256 of the bytes written (hashed as they are
//! written, [`HashingWriter`]). Before a dataset is trusted (summarize, plot, run, `--resume`,
//! `rajapasu verify`) its part files are checked against the markers: a missing, extra,
//! duplicated, truncated or altered file is a [`Problem`] naming the file.

use std::collections::{BTreeMap, HashMap};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::format::Format;

/// The size and SHA-256 (lowercase hex) of a file's bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileDigest {
    pub bytes: u64,
    pub sha256: String,
}

/// A writer that hashes what passes through it to the inner writer.
pub struct HashingWriter<W> {
    inner: W,
    hasher: Sha256,
    bytes: u64,
}

impl<W: Write> HashingWriter<W> {
    pub fn new(inner: W) -> HashingWriter<W> {
        HashingWriter { inner, hasher: Sha256::new(), bytes: 0 }
    }

    /// The digest of everything written so far.
    pub fn finish(self) -> FileDigest {
        FileDigest { bytes: self.bytes, sha256: hex(&self.hasher.finalize()) }
    }
}

impl<W: Write> Write for HashingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The digest of a file on disk. Only a regular file is read (a symlink to one too): a FIFO
/// or a device named like a part file is an error, never a wait or an endless read.
pub fn hash_file(path: &Path) -> std::io::Result<FileDigest> {
    let mut file = open_regular(path)?;
    let mut hashing = HashingWriter::new(std::io::sink());
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            return Ok(hashing.finish());
        }
        hashing.write_all(&buf[..n])?;
    }
}

/// Longest progress marker read, in bytes (a marker of five tables is well under 2 KB).
const MAX_MARKER_BYTES: u64 = 1 << 20;

pub use crate::files::{open_regular, read_bounded, read_regular_file};

/// One part file as its batch's marker records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartRecord {
    pub table: String,
    /// The file name inside the table's directory.
    pub file: String,
    pub rows: u64,
    pub bytes: u64,
    pub sha256: String,
}

/// A batch's progress marker: written after all its part files, it says the batch is complete
/// and what its files hold.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Marker {
    pub run_id: String,
    /// The digest of the manifest's identity when the batch was written (see
    /// [`super::dataset::Manifest::identity`]): an edit of the manifest no longer matches it.
    #[serde(default)]
    pub identity: String,
    pub batch: u64,
    /// Rows per table.
    pub rows: BTreeMap<String, u64>,
    /// Every part file of the batch (one per table and format).
    pub files: Vec<PartRecord>,
}

/// What is wrong with a file of a dataset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProblemKind {
    /// A part file a marker records is not there.
    Missing,
    /// A part file shorter than the marker records.
    Truncated,
    /// A part file whose size or SHA-256 differs from the marker's.
    Altered,
    /// A file in a table directory that no marker records (with the run's own name).
    Extra,
    /// An extra file that is a byte-for-byte copy of a recorded part file.
    Duplicate,
    /// A part file of another run.
    Foreign,
    /// A progress marker that is missing, unreadable or of another run or batch.
    Marker,
    /// Row counts of the markers and the manifest disagree.
    Rows,
    /// A progress marker written for a manifest of another identity: the manifest was edited,
    /// or the batch belongs to another run of the same rules, players and seed.
    Identity,
}

impl ProblemKind {
    /// Whether `--resume` repairs it by playing the file's batch again (the others are files
    /// the run did not write, which it leaves to the user).
    pub fn replayable(self) -> bool {
        matches!(
            self,
            ProblemKind::Missing
                | ProblemKind::Truncated
                | ProblemKind::Altered
                | ProblemKind::Marker
                | ProblemKind::Identity
        )
    }
}

/// A problem with one file; `file` is relative to the dataset directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub file: PathBuf,
    pub kind: ProblemKind,
    pub what: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.file.display(), self.what)
    }
}

/// What a run's directory should hold: which tables, formats and batches, under which run id.
#[derive(Clone, Debug)]
pub struct Layout {
    pub dir: PathBuf,
    pub run_id: String,
    /// The digest of the manifest's identity, which every progress marker records.
    pub identity: String,
    pub tables: Vec<&'static str>,
    pub formats: Vec<Format>,
    /// Batches of the whole run (all shards): 0..batches.
    pub batches: u64,
}

impl Layout {
    pub fn marker_name(batch: u64) -> PathBuf {
        Path::new(".progress").join(format!("batch-{batch:08}.json"))
    }

    pub fn marker_path(&self, batch: u64) -> PathBuf {
        self.dir.join(Layout::marker_name(batch))
    }

    pub fn part_name(&self, batch: u64, format: Format) -> String {
        format!("part-{}-{batch:08}.{}", self.run_id, format.extension())
    }

    /// The (table, file name) of every part file of a batch.
    fn expected_parts(&self, batch: u64) -> Vec<(&'static str, String)> {
        self.tables
            .iter()
            .flat_map(|&t| self.formats.iter().map(move |&f| (t, self.part_name(batch, f))))
            .collect()
    }

    /// Checks one batch: its marker, and each part file against it. Returns the marker (when
    /// readable and of this batch) and the problems; a batch without problems is complete.
    pub fn check_batch(&self, batch: u64) -> (Option<Marker>, Vec<Problem>) {
        let marker_name = Layout::marker_name(batch);
        let marker_problem = |what: String| {
            vec![Problem { file: marker_name.clone(), kind: ProblemKind::Marker, what }]
        };
        let text = match read_regular_file(&self.dir.join(&marker_name), MAX_MARKER_BYTES) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return (
                    None,
                    marker_problem(format!(
                        "batch {batch} has no progress marker: the batch was never completed"
                    )),
                )
            }
            Err(e) => {
                return (
                    None,
                    marker_problem(format!(
                        "cannot read the progress marker of batch {batch}: {e}"
                    )),
                )
            }
        };
        let marker: Marker = match serde_json::from_str(&text) {
            Ok(m) => m,
            Err(e) => {
                return (
                    None,
                    marker_problem(format!(
                        "not a progress marker with checksums ({e}); a marker of an older rajapasu records none: \
                         `--resume` writes its batch again"
                    )),
                )
            }
        };
        if marker.run_id != self.run_id || marker.batch != batch {
            return (
                None,
                marker_problem(format!(
                    "records batch {} of run {}, not batch {batch} of run {}",
                    marker.batch, marker.run_id, self.run_id
                )),
            );
        }
        if marker.identity != self.identity {
            let what = if marker.identity.is_empty() {
                "records no manifest identity (written by an older rajapasu)".to_string()
            } else {
                format!(
                    "records manifest identity {}, not the manifest's {}",
                    marker.identity, self.identity
                )
            };
            return (None, vec![Problem { file: marker_name, kind: ProblemKind::Identity, what }]);
        }
        let mut problems = Vec::new();
        let expected = self.expected_parts(batch);
        for (table, name) in &expected {
            if !marker.files.iter().any(|r| r.table == *table && r.file == *name) {
                problems.push(Problem {
                    file: Path::new(table).join(name),
                    kind: ProblemKind::Marker,
                    what: format!("batch {batch}'s progress marker does not record this part file"),
                });
            }
        }
        for record in &marker.files {
            let relative = Path::new(&record.table).join(&record.file);
            if !expected.iter().any(|(t, n)| *t == record.table && *n == record.file) {
                problems.push(Problem {
                    file: marker_name.clone(),
                    kind: ProblemKind::Marker,
                    what: format!(
                        "records {}, which is not a part file of this dataset",
                        relative.display()
                    ),
                });
                continue;
            }
            problems.extend(check_file(&self.dir, &relative, record));
        }
        (Some(marker), problems)
    }

    /// Whether a batch is complete: its marker is there and every part file matches it.
    pub fn batch_is_intact(&self, batch: u64) -> bool {
        self.check_batch(batch).1.is_empty()
    }

    /// Files in the table directories that are not part files of this run's batches: another
    /// run's, extra batch numbers, other formats, other names. Hidden files are temporaries
    /// of writes, counted only with `temporaries` (a finished dataset should have none: a
    /// reader of `*.parquet` may read a half-written one). `recorded` maps SHA-256 to recorded
    /// files, to name the original of a copy.
    pub fn strays(
        &self,
        recorded: &HashMap<String, PathBuf>,
        temporaries: bool,
    ) -> Result<Vec<Problem>, std::io::Error> {
        let mut problems = Vec::new();
        for table in &self.tables {
            let table_dir = self.dir.join(table);
            let Ok(entries) = std::fs::read_dir(&table_dir) else { continue };
            let mut names: Vec<String> = entries
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            for name in names {
                let relative = Path::new(table).join(&name);
                if name.starts_with('.') {
                    if temporaries {
                        problems.push(Problem {
                            file: relative,
                            kind: ProblemKind::Extra,
                            what: "extra file: a temporary left by an interrupted write (a reader of *.parquet or *.csv may read it); remove it".into(),
                        });
                    }
                    continue;
                }
                if let Some(problem) = self.stray(&relative, &name, recorded) {
                    problems.push(problem);
                }
            }
        }
        Ok(problems)
    }

    fn stray(
        &self,
        relative: &Path,
        name: &str,
        recorded: &HashMap<String, PathBuf>,
    ) -> Option<Problem> {
        let problem =
            |kind, what: String| Some(Problem { file: relative.to_path_buf(), kind, what });
        let Some(rest) = name.strip_prefix("part-") else {
            return problem(
                ProblemKind::Extra,
                "extra file: not a part file (a table directory holds only part-RUN-BATCH files)"
                    .into(),
            );
        };
        let run = rest.split('-').next().unwrap_or("");
        if run != self.run_id {
            return problem(
                ProblemKind::Foreign,
                format!("part file of run {run} mixed into a dataset of run {} (different rules, players or seed)", self.run_id),
            );
        }
        let parsed = name
            .rsplit_once('.')
            .and_then(|(stem, ext)| Some((stem.rsplit_once('-')?.1.parse::<u64>().ok()?, ext)));
        let ours = |batch: u64, ext: &str| {
            self.formats.iter().any(|&f| f.extension() == ext && name == self.part_name(batch, f))
        };
        match parsed {
            Some((batch, ext)) if batch < self.batches && ours(batch, ext) => None,
            _ => {
                let copy_of =
                    hash_file(&self.dir.join(relative)).ok().and_then(|d| recorded.get(&d.sha256));
                match copy_of {
                    Some(original) => problem(
                        ProblemKind::Duplicate,
                        format!("extra file: a copy of {} that no progress marker records (counted twice if kept)", original.display()),
                    ),
                    None => problem(
                        ProblemKind::Extra,
                        format!(
                            "extra file: no progress marker records it (this run has batches 0..={} in {})",
                            self.batches.saturating_sub(1),
                            self.formats.iter().map(|f| format!(".{}", f.extension())).collect::<Vec<_>>().join(" and ")
                        ),
                    ),
                }
            }
        }
    }

    /// Checks every batch in `batches` (in parallel). Returns the problems, the rows per table
    /// the markers record, and the recorded files by SHA-256 (to name the original of a copy).
    /// Only the markers present are read: batches without one are reported as runs of missing
    /// batches, so a manifest claiming a huge number of batches costs nothing.
    pub fn check_batches(&self, batches: std::ops::Range<u64>) -> BatchesChecked {
        let present = self.present_markers(&batches);
        let checked: Vec<(Option<Marker>, Vec<Problem>)> =
            present.par_iter().map(|&b| self.check_batch(b)).collect();
        let mut out = BatchesChecked::default();
        let mut next = batches.start;
        for &b in present.iter().chain(std::iter::once(&batches.end)) {
            out.problems.extend(self.missing_markers(next..b));
            next = b + 1;
        }
        for (marker, problems) in checked {
            out.problems.extend(problems);
            for m in marker.iter() {
                for (t, n) in &m.rows {
                    *out.rows.entry(t.clone()).or_default() += n;
                }
                for r in &m.files {
                    out.recorded.insert(r.sha256.clone(), Path::new(&r.table).join(&r.file));
                }
            }
        }
        out
    }

    /// The batches of `range` with a progress marker file, sorted.
    fn present_markers(&self, range: &std::ops::Range<u64>) -> Vec<u64> {
        let Ok(entries) = std::fs::read_dir(self.dir.join(".progress")) else { return Vec::new() };
        let mut present: Vec<u64> = entries
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let batch: u64 =
                    name.strip_prefix("batch-")?.strip_suffix(".json")?.parse().ok()?;
                (Layout::marker_name(batch).file_name()? == e.file_name().as_os_str())
                    .then_some(batch)
            })
            .filter(|b| range.contains(b))
            .collect();
        present.sort_unstable();
        present
    }

    /// Problems for batches without a marker: one each for a few, one for a long run of them.
    fn missing_markers(&self, range: std::ops::Range<u64>) -> Vec<Problem> {
        const NAMED: u64 = 16;
        if range.end.saturating_sub(range.start) > NAMED {
            return vec![Problem {
                file: PathBuf::from(".progress"),
                kind: ProblemKind::Marker,
                what: format!(
                    "batches {}..={} ({} batches) have no progress marker: they were never completed",
                    range.start,
                    range.end - 1,
                    range.end - range.start
                ),
            }];
        }
        range
            .map(|batch| Problem {
                file: Layout::marker_name(batch),
                kind: ProblemKind::Marker,
                what: format!(
                    "batch {batch} has no progress marker: the batch was never completed"
                ),
            })
            .collect()
    }

    /// The tables whose directories are missing.
    pub fn missing_tables(&self) -> Vec<Problem> {
        self.tables
            .iter()
            .filter(|t| !self.dir.join(t).is_dir())
            .map(|t| Problem {
                file: PathBuf::from(t),
                kind: ProblemKind::Missing,
                what: format!("the directory of table `{t}` is missing"),
            })
            .collect()
    }
}

/// What [`Layout::check_batches`] found.
#[derive(Debug, Default)]
pub struct BatchesChecked {
    pub problems: Vec<Problem>,
    pub rows: BTreeMap<String, u64>,
    pub recorded: HashMap<String, PathBuf>,
}

/// Checks one recorded part file: present, of the recorded size and SHA-256.
fn check_file(dir: &Path, relative: &Path, record: &PartRecord) -> Option<Problem> {
    let problem = |kind, what: String| Some(Problem { file: relative.to_path_buf(), kind, what });
    let path = dir.join(relative);
    let bytes = match std::fs::metadata(&path) {
        Ok(m) if !m.is_file() => {
            return problem(
                ProblemKind::Altered,
                "not a regular file (a FIFO, device or directory)".into(),
            )
        }
        Ok(m) => m.len(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return problem(
                ProblemKind::Missing,
                format!(
                    "missing: the progress marker records it with {} rows, {} bytes",
                    record.rows, record.bytes
                ),
            )
        }
        Err(e) => return problem(ProblemKind::Missing, format!("cannot be read: {e}")),
    };
    if bytes < record.bytes {
        return problem(
            ProblemKind::Truncated,
            format!(
                "truncated or altered: {bytes} bytes, its progress marker records {}",
                record.bytes
            ),
        );
    }
    if bytes > record.bytes {
        return problem(
            ProblemKind::Altered,
            format!("altered: {bytes} bytes, its progress marker records {}", record.bytes),
        );
    }
    match hash_file(&path) {
        Ok(d) if d.sha256 == record.sha256 => None,
        Ok(_) => problem(
            ProblemKind::Altered,
            "altered: its SHA-256 differs from the one its progress marker records".into(),
        ),
        Err(e) => problem(ProblemKind::Missing, format!("cannot be read: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashing_writer_agrees_with_sha256_of_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let mut w = HashingWriter::new(std::fs::File::create(&path).unwrap());
        for i in 0..1000u32 {
            w.write_all(&i.to_le_bytes()).unwrap();
        }
        let d = w.finish();
        assert_eq!(d.bytes, 4000);
        assert_eq!(hash_file(&path).unwrap(), d);
        // The SHA-256 of "abc" (FIPS 180-2, appendix B.1).
        let mut w = HashingWriter::new(Vec::new());
        w.write_all(b"abc").unwrap();
        assert_eq!(
            w.finish().sha256,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
