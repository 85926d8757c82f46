//! The thread that makes a writer's batches durable while the next ones are played.

use std::path::PathBuf;

use super::error::DatasetError;
use crate::io::atomic::Unsynced;
use crate::io::write_string_atomically;

/// A batch whose part files are written in full but not yet durable, and its progress marker.
pub(super) struct PendingBatch {
    pub(super) parts: Vec<Unsynced>,
    pub(super) marker: PathBuf,
    pub(super) text: String,
}

/// A thread that syncs each written batch's part files, renames them to their names and only
/// then writes the batch's progress marker, while the workers play on: an `fsync` takes 5 to
/// 20 ms on a disk, six of them a batch, which the workers used to wait for (docs/performance.md).
/// A batch counts as done only once its marker is there, so a crash or an error loses nothing
/// finished and leaves no part file under its name that is not on disk. The first error is kept,
/// stops the syncing (the later batches' files are removed), and is returned by the next write
/// or by [`Syncer::finish`]. Dropped, the syncer finishes the batches it holds.
pub(super) struct Syncer {
    queue: Option<std::sync::mpsc::SyncSender<PendingBatch>>,
    thread: Option<std::thread::JoinHandle<()>>,
    failed: std::sync::Arc<std::sync::Mutex<Option<DatasetError>>>,
}

impl Syncer {
    /// Batches waiting at most: a writer waits when the disk falls this far behind.
    const QUEUE: usize = 4;

    pub(super) fn start() -> Syncer {
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

    pub(super) fn push(&self, batch: PendingBatch) -> Result<(), DatasetError> {
        if let Some(e) = self.failure() {
            return Err(e);
        }
        // The thread ends only when the queue closes, so sending cannot fail while it runs.
        self.queue
            .as_ref()
            .expect("the queue is open until finish")
            .send(batch)
            .expect("the syncing thread runs");
        Ok(())
    }

    /// Waits until every batch handed over is durable; the first error, if any.
    pub(super) fn finish(&mut self) -> Result<(), DatasetError> {
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
