//! `rajapasu serve`: a local web application, one page and a JSON API (docs/serve.md), on axum
//! and tokio. The page and its scripts are compiled in; nothing is fetched from elsewhere. No
//! request names a path, reads or writes a file outside the tables directory, or starts a
//! program (external players are not offered).
//!
//! Load: request bodies and query strings are bounded; heavy work (solves, players, simulated
//! continuations) runs as jobs ([`jobs`]) on blocking threads, at most [`HEAVY_AT_ONCE`] at a
//! time with at most [`HEAVY_QUEUED`] more waiting (further ones are told the server is busy,
//! 503); a client that disconnects gives up its place, or cancels its job if it is running.
//! Exact values come from the one [`crate::exact::ExactStore`] of the server, created from `--tables` and
//! `--max-memory`, which the analysis and the perfect players share.

mod api;
mod error;
mod export;
mod jobs;
mod params;
mod state;

use std::net::SocketAddr;
use std::sync::Arc;

pub use error::ApiError;
pub use params::MAX_QUERY_BYTES;
use state::App;
pub use state::{Config, HEAVY_AT_ONCE, HEAVY_QUEUED, MAX_BODY_BYTES};

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
