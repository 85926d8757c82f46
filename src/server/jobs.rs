//! Heavy requests as jobs: queued with a bound, run on blocking threads a few at a time, their
//! progress streamed to a client that asks for it (server-sent events), and cancelled when
//! their client goes away (the request's future is dropped: the job's [`Job`] is told, and the
//! work stops at its next check).

use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::{header, HeaderMap, StatusCode};
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use axum::Json;
use futures_util::stream::{self, Stream};
use serde_json::{json, Value};
use tokio::sync::Semaphore;

use super::error::ApiError;
use crate::app::job::Job;

/// How often a streamed job reports its progress.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

struct Running {
    id: u64,
    kind: &'static str,
    started: Instant,
    job: Arc<Job>,
    /// What bounds the job's work (its players' budgets, the solves' memory), for the status.
    bound: Value,
}

/// The jobs of the server: the bound on those running and waiting, those running now, and
/// how many finished or were cancelled.
pub struct Jobs {
    slots: Arc<Semaphore>,
    queued: usize,
    waiting: AtomicUsize,
    next: AtomicU64,
    running: Mutex<Vec<Running>>,
    finished: AtomicU64,
    cancelled: AtomicU64,
    /// Streamed answers open now (a client's stream held open counts until it is closed).
    streams: Arc<AtomicUsize>,
}

/// Counts a streamed answer open while it lives.
struct OpenStream(Arc<AtomicUsize>);

impl OpenStream {
    fn new(count: &Arc<AtomicUsize>) -> OpenStream {
        count.fetch_add(1, Ordering::SeqCst);
        OpenStream(count.clone())
    }
}

impl Drop for OpenStream {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Cancels its job when dropped armed: the request's future went away before the job's end.
struct CancelOnDrop(Option<Arc<Job>>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(job) = self.0.take() {
            job.cancel();
        }
    }
}

/// Gives up a place in the queue when dropped.
struct Waiting<'a>(&'a AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

pub type Work<T> = Box<dyn FnOnce(&Job) -> T + Send + 'static>;

impl Jobs {
    pub fn new(at_once: usize, queued: usize) -> Jobs {
        Jobs {
            slots: Arc::new(Semaphore::new(at_once)),
            queued,
            waiting: AtomicUsize::new(0),
            next: AtomicU64::new(1),
            running: Mutex::new(Vec::new()),
            finished: AtomicU64::new(0),
            cancelled: AtomicU64::new(0),
            streams: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// What runs and what ran: `GET /api/status`.
    pub fn status(&self) -> Value {
        let running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        let jobs: Vec<Value> = running
            .iter()
            .map(|r| {
                json!({ "id": r.id, "kind": r.kind, "seconds": r.started.elapsed().as_secs_f64(), "progress": r.job.progress(), "bound": r.bound })
            })
            .collect();
        json!({
            "running": jobs,
            "waiting": self.waiting.load(Ordering::SeqCst),
            "finished": self.finished.load(Ordering::SeqCst),
            "cancelled": self.cancelled.load(Ordering::SeqCst),
            "streams": self.streams.load(Ordering::SeqCst),
        })
    }

    fn forget(&self, id: u64) {
        self.running.lock().unwrap_or_else(|e| e.into_inner()).retain(|r| r.id != id);
    }
}

impl Jobs {
    /// Runs `work` as a job once a slot is free (503 when too many wait); the job is cancelled
    /// if this future is dropped before it ends.
    pub async fn heavy<T: Send + 'static>(
        self: &Arc<Self>,
        kind: &'static str,
        bound: Value,
        work: impl FnOnce(&Job) -> T + Send + 'static,
    ) -> Result<T, ApiError> {
        let job = Arc::new(Job::default());
        let mut guard = CancelOnDrop(Some(job.clone()));
        let result = self.run_job(job, (kind, bound), Box::new(work)).await;
        guard.0 = None;
        result
    }

    async fn run_job<T: Send + 'static>(
        self: &Arc<Self>,
        job: Arc<Job>,
        (kind, bound): (&'static str, Value),
        work: Work<T>,
    ) -> Result<T, ApiError> {
        let jobs = self;
        if jobs.waiting.fetch_add(1, Ordering::SeqCst) >= jobs.queued {
            jobs.waiting.fetch_sub(1, Ordering::SeqCst);
            return Err(ApiError::status(
                StatusCode::SERVICE_UNAVAILABLE,
                format!("busy: {} requests are waiting; try again", jobs.queued),
            ));
        }
        let waiting = Waiting(&jobs.waiting);
        let permit = jobs
            .slots
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| ApiError::status(StatusCode::SERVICE_UNAVAILABLE, "shutting down"))?;
        drop(waiting);
        if job.is_cancelled() {
            jobs.cancelled.fetch_add(1, Ordering::SeqCst);
            return Err(ApiError::cancelled());
        }
        let id = jobs.next.fetch_add(1, Ordering::SeqCst);
        let entry = Running { id, kind, started: Instant::now(), job: job.clone(), bound };
        jobs.running.lock().unwrap_or_else(|e| e.into_inner()).push(entry);
        let jobs = self.clone();
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let out = work(&job);
            jobs.forget(id);
            let counter = if job.is_cancelled() { &jobs.cancelled } else { &jobs.finished };
            counter.fetch_add(1, Ordering::SeqCst);
            out
        })
        .await
        .map_err(|e| {
            ApiError::status(StatusCode::INTERNAL_SERVER_ERROR, format!("the work failed: {e}"))
        })
    }

    /// Answers with `work`'s JSON: at its end, or, when the client accepts
    /// `text/event-stream`, as a stream of `progress` events ending with a `result` or an
    /// `error` event (closing the stream cancels the job).
    pub async fn answer(
        self: &Arc<Self>,
        headers: &HeaderMap,
        (kind, bound): (&'static str, Value),
        work: impl FnOnce(&Job) -> Result<Value, ApiError> + Send + 'static,
    ) -> Response {
        let streamed = headers
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.contains("text/event-stream"));
        if streamed {
            return Sse::new(self.stream((kind, bound), Box::new(work))).into_response();
        }
        match self.heavy(kind, bound, work).await {
            Ok(Ok(v)) => Json(v).into_response(),
            Ok(Err(e)) | Err(e) => e.into_response(),
        }
    }

    fn stream(
        self: &Arc<Self>,
        kind: (&'static str, Value),
        work: Work<Result<Value, ApiError>>,
    ) -> impl Stream<Item = Result<Event, Infallible>> {
        let job = Arc::new(Job::default());
        let jobs = self.clone();
        let worker = job.clone();
        let task =
            tokio::spawn(async move { jobs.run_job(worker, kind, work).await.and_then(|r| r) });
        let started = Instant::now();
        // The guard lives in the stream's state: dropped with the stream, it cancels the job.
        let state = (Some(task), CancelOnDrop(Some(job)), OpenStream::new(&self.streams));
        stream::unfold(state, move |(task, mut guard, open)| async move {
            let mut task = task?;
            let job = guard.0.clone().expect("armed until the end");
            tokio::select! {
                done = &mut task => {
                    guard.0 = None;
                    let event = match done {
                        Ok(Ok(v)) => Event::default().event("result").data(v.to_string()),
                        Ok(Err(e)) => Event::default().event("error").data(e.json().to_string()),
                        Err(e) => Event::default().event("error").data(json!({ "error": format!("the work failed: {e}"), "status": 500 }).to_string()),
                    };
                    Some((Ok(event), (None, guard, open)))
                }
                _ = tokio::time::sleep(PROGRESS_EVERY) => {
                    let data = json!({ "progress": job.progress(), "seconds": started.elapsed().as_secs_f64() });
                    Some((Ok(Event::default().event("progress").data(data.to_string())), (Some(task), guard, open)))
                }
            }
        })
    }
}
