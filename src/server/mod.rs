//! `rajapasu serve`: a local web application, one page and a JSON API (docs/serve.md), on axum
//! and tokio. The page and its scripts are compiled in; nothing is fetched from elsewhere. No
//! request names a path, reads or writes a file outside the tables directory, or starts a
//! program (external players are not offered).
//!
//! Load: request bodies and query strings are bounded; heavy work (solves, players, simulated
//! continuations) runs on blocking threads, at most [`HEAVY_AT_ONCE`] at a time with at most
//! [`HEAVY_QUEUED`] more waiting (further ones are told the server is busy, 503); a client that
//! disconnects while queued gives up its place. Exact values are kept between requests
//! ([`store::Store`]) within `--max-memory`.

mod api;
mod params;
mod store;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use tokio::sync::Semaphore;

pub use params::MAX_QUERY_BYTES;

use crate::exact::SolveOptions;

/// Heavy requests worked on at once.
pub const HEAVY_AT_ONCE: usize = 2;
/// Heavy requests waiting at most; more are refused with 503.
pub const HEAVY_QUEUED: usize = 256;
/// Largest request body (a record of 1 MiB, with room for its JSON).
pub const MAX_BODY_BYTES: usize = (1 << 20) + (64 << 10);

/// What `rajapasu serve` was asked.
#[derive(Clone, Debug)]
pub struct Config {
    pub addr: SocketAddr,
    pub tables: PathBuf,
    /// Memory of one solve, and of the values kept between requests.
    pub max_memory: u64,
    /// The most positions one solve may reach.
    pub max_positions: u64,
}

/// The server's shared state.
pub struct App {
    store: store::Store,
    heavy: Arc<Semaphore>,
    waiting: AtomicUsize,
}

/// An API error: status and JSON `{"error": ..., "field": ...}`.
pub struct ApiError {
    status: StatusCode,
    field: Option<String>,
    message: String,
}

impl ApiError {
    pub fn bad(field: &str, message: impl std::fmt::Display) -> ApiError {
        ApiError { status: StatusCode::BAD_REQUEST, field: Some(field.to_string()), message: message.to_string() }
    }
    fn status(status: StatusCode, message: impl std::fmt::Display) -> ApiError {
        ApiError { status, field: None, message: message.to_string() }
    }
}

impl From<params::BadRequest> for ApiError {
    fn from(e: params::BadRequest) -> ApiError {
        ApiError::bad(&e.field, e.message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, axum::Json(json!({ "error": self.message, "field": self.field }))).into_response()
    }
}

impl App {
    /// Runs `work` on a blocking thread once a heavy slot is free (503 when too many wait).
    async fn heavy<T: Send + 'static>(self: &Arc<Self>, work: impl FnOnce(&App) -> T + Send + 'static) -> Result<T, ApiError> {
        if self.waiting.fetch_add(1, Ordering::SeqCst) >= HEAVY_QUEUED {
            self.waiting.fetch_sub(1, Ordering::SeqCst);
            return Err(ApiError::status(StatusCode::SERVICE_UNAVAILABLE, format!("busy: {HEAVY_QUEUED} requests are waiting; try again")));
        }
        // Dropped (the client went away) while waiting: the place is given up.
        struct Waiting<'a>(&'a AtomicUsize);
        impl Drop for Waiting<'_> {
            fn drop(&mut self) {
                self.0.fetch_sub(1, Ordering::SeqCst);
            }
        }
        let waiting = Waiting(&self.waiting);
        let permit =
            self.heavy.clone().acquire_owned().await.map_err(|_| ApiError::status(StatusCode::SERVICE_UNAVAILABLE, "shutting down"))?;
        drop(waiting);
        let app = self.clone();
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            work(&app)
        })
        .await
        .map_err(|e| ApiError::status(StatusCode::INTERNAL_SERVER_ERROR, format!("the work failed: {e}")))
    }
}

/// Binds, tells `ready` the address, and serves until the process ends.
pub fn run(config: Config, ready: impl FnOnce(SocketAddr)) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_io().build()?;
    let opts = SolveOptions { max_memory: config.max_memory, keep_order: true, max_positions: config.max_positions };
    let app = Arc::new(App {
        store: store::Store::new(opts, config.tables.clone(), config.max_memory),
        heavy: Arc::new(Semaphore::new(HEAVY_AT_ONCE)),
        waiting: AtomicUsize::new(0),
    });
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(config.addr).await?;
        ready(listener.local_addr()?);
        axum::serve(listener, api::router(app)).await
    })
}
