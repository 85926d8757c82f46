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
//!
//! One file per job: `manifest` (what a run is, its identity, its file names), `manifest_io`
//! (finding and reading manifests), `admission` (whether a run may write into a directory), `writer` (the
//! sink of a run) with its `syncer` thread, `reader` (a dataset opened to read), `seat` (the
//! manifest's seats: players, or as played), `played` (the rows of a match played from its
//! moves checked against them), and `error`.

mod admission;
mod error;
mod manifest;
mod manifest_io;
mod played;
mod reader;
mod seat;
mod syncer;
#[cfg(test)]
mod tests;
mod writer;

pub use error::{problem_list, DatasetError, Refusal, ShardState, Wording};
pub use manifest::{
    identity_digest, manifest_name, versions, Formats, Manifest, ManifestProblem, Mismatch, Played,
    RunStatus, ROWS_VERSION,
};
pub use manifest_io::{manifest_names, read_manifest, read_manifests, MAX_MANIFEST_BYTES};
pub use played::played_problems;
pub use reader::Dataset;
pub use seat::PlayedSeat;
pub use writer::{tables_digest, DatasetWriter};
