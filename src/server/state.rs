//! What `rajapasu serve` was asked, and the state its requests share: the exact store and the
//! jobs.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::http::HeaderMap;
use axum::response::Response;
use serde_json::{json, Value};

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
/// Bytes of request bodies being read at once, over all requests: beyond it a request with a
/// body is told the server is busy (503) before its body is read.
pub const MAX_BODIES_BYTES: usize = 64 << 20;
/// Moves one decision of a minimax player of the server may play in its search (every
/// endpoint's: a spec with no node budget, or a larger one, gets this one).
pub const MAX_SEARCH_NODES: u64 = crate::app::explore::evaluate::MAX_EVALUATION_NODES;
/// Playouts one decision of an MCTS player of the server may play (a larger count is lowered
/// to it).
pub const MAX_SEARCH_PLAYOUTS: u32 = 100_000;
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
    /// What this server measured of its solves, for the estimates of analyses to come.
    pub estimates: super::estimate::Estimates,
    /// The bytes of request bodies being read now ([`MAX_BODIES_BYTES`] permits).
    pub bodies: Arc<tokio::sync::Semaphore>,
    /// The tables directory: the only place requests write (the exact store's files, and a
    /// dataset being archived for a download).
    pub tables: PathBuf,
}

impl App {
    pub fn new(config: &Config) -> App {
        let solve = SolveOptions {
            max_memory: config.max_memory,
            keep_layers: true,
            max_positions: config.max_positions,
        };
        let store = ExactStore::new(StoreSettings {
            tables: config.tables.clone(),
            cache_bytes: config.max_memory,
            solve,
            spill: None,
        });
        App {
            resources: Resources::new(Arc::new(store)),
            jobs: Arc::new(Jobs::new(HEAVY_AT_ONCE, HEAVY_QUEUED)),
            estimates: Default::default(),
            bodies: Arc::new(tokio::sync::Semaphore::new(MAX_BODIES_BYTES)),
            tables: config.tables.clone(),
        }
    }

    pub fn store(&self) -> &ExactStore {
        &self.resources.exact
    }

    /// Runs `work` as a job of the server's ([`Jobs::heavy`]), `bound` saying what bounds it.
    pub async fn heavy<T: Send + 'static>(
        self: &Arc<Self>,
        (kind, bound): (&'static str, Value),
        work: impl FnOnce(&App, &Job) -> T + Send + 'static,
    ) -> Result<T, ApiError> {
        let app = self.clone();
        self.jobs.heavy(kind, bound, move |job| work(&app, job)).await
    }

    /// What bounds an exact solve of the server's: its memory and positions.
    pub fn solve_bound(&self) -> Value {
        let solve = self.store().settings().solve;
        json!({ "max_memory": solve.max_memory, "max_positions": solve.max_positions })
    }

    /// Answers with `work`'s JSON, streamed with its progress if asked ([`Jobs::answer`]).
    pub async fn answer(
        self: &Arc<Self>,
        headers: &HeaderMap,
        kind: (&'static str, Value),
        work: impl FnOnce(&App, &Job) -> Result<Value, ApiError> + Send + 'static,
    ) -> Response {
        let app = self.clone();
        self.jobs.answer(headers, kind, move |job| work(&app, job)).await
    }
}
