//! What `rajapasu serve` was asked, and the state its requests share: the exact store and the
//! jobs.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::http::HeaderMap;
use axum::response::Response;
use serde_json::Value;

use super::error::ApiError;
use super::jobs::Jobs;
use crate::agents::Resources;
use crate::app::job::Job;
use crate::exact::{ExactStore, SolveOptions, StoreSettings};

/// Heavy requests worked on at once.
pub const HEAVY_AT_ONCE: usize = 2;
/// Heavy requests waiting at most; more are refused with 503.
pub const HEAVY_QUEUED: usize = 256;
/// Largest request body (a record of 1 MiB, with room for its JSON).
pub const MAX_BODY_BYTES: usize = (1 << 20) + (64 << 10);
/// Time for a request's body to arrive once its head has.
pub const BODY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// What `rajapasu serve` was asked.
#[derive(Clone, Debug)]
pub struct Config {
    pub addr: SocketAddr,
    pub tables: PathBuf,
    /// Memory of one solve, and of the values kept between requests.
    pub max_memory: u64,
    /// The most positions one solve may reach.
    pub max_positions: u64,
    /// More names the server answers to (`--allow-host`) besides its address and the loopback's.
    pub allow_hosts: Vec<String>,
    /// The token the API requires (off the loopback), if any.
    pub token: Option<String>,
}

/// The server's shared state.
pub struct App {
    /// The players' resources, whose exact store the analysis reads too.
    pub resources: Resources,
    pub jobs: Arc<Jobs>,
    /// The tables directory: the only place requests write (the exact store's files, and a
    /// dataset being archived for a download).
    pub tables: PathBuf,
}

impl App {
    pub fn new(config: &Config) -> App {
        let solve = SolveOptions { max_memory: config.max_memory, keep_order: true, max_positions: config.max_positions };
        let store = ExactStore::new(StoreSettings { tables: config.tables.clone(), cache_bytes: config.max_memory, solve, spill: None });
        App {
            resources: Resources::new(Arc::new(store)),
            jobs: Arc::new(Jobs::new(HEAVY_AT_ONCE, HEAVY_QUEUED)),
            tables: config.tables.clone(),
        }
    }

    pub fn store(&self) -> &ExactStore {
        &self.resources.exact
    }

    /// Runs `work` as a job of the server's ([`Jobs::heavy`]).
    pub async fn heavy<T: Send + 'static>(
        self: &Arc<Self>,
        kind: &'static str,
        work: impl FnOnce(&App, &Job) -> T + Send + 'static,
    ) -> Result<T, ApiError> {
        let app = self.clone();
        self.jobs.heavy(kind, move |job| work(&app, job)).await
    }

    /// Answers with `work`'s JSON, streamed with its progress if asked ([`Jobs::answer`]).
    pub async fn answer(
        self: &Arc<Self>,
        headers: &HeaderMap,
        kind: &'static str,
        work: impl FnOnce(&App, &Job) -> Result<Value, ApiError> + Send + 'static,
    ) -> Response {
        let app = self.clone();
        self.jobs.answer(headers, kind, move |job| work(&app, job)).await
    }
}
