//! `rajapasu serve`: a local web application, one page and a JSON API (docs/serve.md), on axum
//! and tokio. The page and its scripts are compiled in; nothing is fetched from elsewhere. No
//! request names a path, reads or writes a file outside the tables directory, or starts a
//! program (external players are not offered).
//!
//! Who may talk to it: [`guard`] (its own names only, no other origin's pages, the token off
//! the loopback). Load: connections are bounded in number and time, request heads read first
//! and bounded ([`head`]), bodies and query strings bounded; heavy work (solves, players,
//! simulated continuations) runs as jobs ([`jobs`]) on blocking threads, at most
//! [`HEAVY_AT_ONCE`] at a time with at most [`HEAVY_QUEUED`] more waiting (further ones are told
//! the server is busy, 503); a client that disconnects gives up its place, or cancels its job if
//! it is running. Exact values come from the one [`crate::exact::ExactStore`] of the server,
//! created from `--tables` and `--max-memory`, which the analysis and the perfect players share.

mod api;
mod connections;
mod error;
mod estimate;
mod export;
mod guard;
mod head;
mod jobs;
mod page;
mod params;
mod players;
mod readings;
mod set_up_play;
mod state;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper::service::Service as _;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;

pub use error::ApiError;
pub use guard::new_token;
pub use head::{MAX_HEADERS, MAX_HEAD_BYTES};
pub use params::MAX_QUERY_BYTES;
use state::App;
pub use state::{
    Config, BODY_TIMEOUT, HEAVY_AT_ONCE, HEAVY_QUEUED, MAX_BODIES_BYTES, MAX_BODY_BYTES,
};

/// Connections open at once; beyond them the oldest one still waiting for a request's head is
/// closed to let a new one in, or the new one is closed at once when none is ([`connections`]).
/// Each holds at most about two copies of the largest head (its reader's and hyper's), so heads
/// in flight stay under 600 MB.
pub const MAX_CONNECTIONS: usize = 256;
/// Time for a request's head to arrive, from the connection's opening or the previous answer
/// (so also how long an idle connection is kept).
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// How long what a client sends after its connection's last answer is read and dropped.
const LINGER: Duration = Duration::from_secs(2);

/// Binds, tells `ready` the address, and serves until the process ends.
pub fn run(config: Config, ready: impl FnOnce(SocketAddr)) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_io()
        .enable_time()
        .build()?;
    let app = Arc::new(App::new(&config));
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(config.addr).await?;
        let addr = listener.local_addr()?;
        ready(addr);
        let guard = Arc::new(guard::Guard::new(addr, &config.allow_hosts, config.token.clone()));
        let router =
            api::router(app).layer(axum::middleware::from_fn_with_state(guard, guard::check));
        let connections = connections::Connections::new(MAX_CONNECTIONS);
        loop {
            let stream = match listener.accept().await {
                Ok((stream, _)) => stream,
                // Out of file descriptors, or a connection reset before it was accepted.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            };
            let Some(place) = connections.admit() else { continue };
            tokio::spawn(serve_connection(stream, router.clone(), place));
        }
    })
}

/// One connection: its heads read first ([`head::HeadStream`]), then hyper's HTTP/1 with the
/// head timeout and a buffer that holds the largest head; closed early if the registry needs
/// its place.
async fn serve_connection(
    stream: tokio::net::TcpStream,
    router: axum::Router,
    place: connections::Place,
) {
    let (stream, cut) = head::HeadStream::new(stream, place.connection().clone());
    let service = TowerToHyperService::new(router);
    let service =
        hyper::service::service_fn(move |mut request: hyper::Request<hyper::body::Incoming>| {
            request.extensions_mut().insert(cut.clone());
            service.call(request)
        });
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEAD_TIMEOUT)
        .max_buf_size(MAX_HEAD_BYTES + (64 << 10))
        .max_headers(MAX_HEADERS + 1)
        .serve_connection(TokioIo::new(stream), service)
        .without_shutdown();
    tokio::select! {
        served = connection => {
            if let Ok(parts) = served {
                linger(parts.io.into_inner().into_inner()).await;
            }
        }
        () = place.connection().closed() => {}
    }
}

/// Closes a connection whose client may still be sending (a request refused before it was all
/// read): the answer is followed by the end of the stream, and what comes after is read and
/// dropped for a while, since closing with unread data would reset the connection and lose the
/// answer.
async fn linger(mut stream: tokio::net::TcpStream) {
    use tokio::io::AsyncWrite;
    if std::future::poll_fn(|cx| std::pin::Pin::new(&mut stream).poll_shutdown(cx)).await.is_err() {
        return;
    }
    let mut sink = vec![0u8; 64 << 10];
    let mut left = 2 * MAX_HEAD_BYTES;
    let drain = async {
        while left > 0 && stream.readable().await.is_ok() {
            match stream.try_read(&mut sink) {
                Ok(0) => break,
                Ok(n) => left = left.saturating_sub(n),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
                Err(_) => break,
            }
        }
    };
    let _ = tokio::time::timeout(LINGER, drain).await;
}
