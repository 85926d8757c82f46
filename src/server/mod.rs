//! `rajapasu serve`: a local web application, one page and a JSON API (docs/serve.md), on axum
//! and tokio. The page and its scripts are compiled in; nothing is fetched from elsewhere. No
//! request names a path, reads or writes a file outside the tables directory, or starts a
//! program (external players are not offered).
//!
//! Load: request bodies and query strings are bounded; heavy work (solves, players, simulated
//! continuations) runs as jobs ([`jobs`]) on blocking threads, at most [`HEAVY_AT_ONCE`] at a
//! time with at most [`HEAVY_QUEUED`] more waiting (further ones are told the server is busy,
//! 503); a client that disconnects gives up its place, or cancels its job if it is running.
//! Exact values come from the one [`ExactStore`] of the server, created from `--tables` and
//! `--max-memory`, which the analysis and the perfect players share.

mod api;
mod jobs;
mod params;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

pub use params::MAX_QUERY_BYTES;

use crate::agents::Resources;
use crate::exact::{ExactStore, SolveOptions, StoreSettings};

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
    /// The players' resources, whose exact store the analysis reads too.
    resources: Resources,
    jobs: jobs::Jobs,
}

impl App {
    pub fn new(config: &Config) -> App {
        let solve = SolveOptions { max_memory: config.max_memory, keep_order: true, max_positions: config.max_positions };
        let store = ExactStore::new(StoreSettings { tables: config.tables.clone(), cache_bytes: config.max_memory, solve });
        App { resources: Resources::new(Arc::new(store)), jobs: jobs::Jobs::new(HEAVY_AT_ONCE, HEAVY_QUEUED) }
    }

    fn store(&self) -> &ExactStore {
        &self.resources.exact
    }
}

/// An API error: status and JSON `{"error": ..., "field": ..., "kind": ...}`.
#[derive(Clone, Debug)]
pub struct ApiError {
    status: StatusCode,
    field: Option<String>,
    message: String,
    /// What kind of refusal, for the page: "budget" (the board is beyond the budget),
    /// "cancelled", or none.
    kind: Option<&'static str>,
}

impl ApiError {
    pub fn bad(field: &str, message: impl std::fmt::Display) -> ApiError {
        ApiError { status: StatusCode::BAD_REQUEST, field: Some(field.to_string()), message: message.to_string(), kind: None }
    }
    fn status(status: StatusCode, message: impl std::fmt::Display) -> ApiError {
        ApiError { status, field: None, message: message.to_string(), kind: None }
    }
    fn budget(field: &str, message: impl std::fmt::Display) -> ApiError {
        ApiError { kind: Some("budget"), ..ApiError::bad(field, message) }
    }
    fn cancelled() -> ApiError {
        ApiError { kind: Some("cancelled"), ..ApiError::status(StatusCode::SERVICE_UNAVAILABLE, "the job was cancelled") }
    }
    fn json(&self) -> Value {
        json!({ "error": self.message, "field": self.field, "kind": self.kind, "status": self.status.as_u16() })
    }
}

impl From<params::BadRequest> for ApiError {
    fn from(e: params::BadRequest) -> ApiError {
        ApiError::bad(&e.field, e.message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, axum::Json(self.json())).into_response()
    }
}

/// Binds, tells `ready` the address, and serves until the process ends.
pub fn run(config: Config, ready: impl FnOnce(SocketAddr)) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_io().enable_time().build()?;
    let app = Arc::new(App::new(&config));
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(config.addr).await?;
        ready(listener.local_addr()?);
        axum::serve(listener, api::router(app)).await
    })
}
