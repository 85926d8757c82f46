//! Every request head is read here before hyper reads it (hyper refuses a request target of
//! 64 KiB or more with an empty 414, and its other refusals have no body either). Heads within
//! the server's limits pass on as they came, but a long query, which hyper would refuse, is
//! moved into a header of the server's own that the guard reads back; a head beyond the limits
//! or malformed becomes a made-up request the guard answers with the JSON error, and the
//! connection closes after it. Bodies pass on as they come, after their head, by their
//! `Content-Length`.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::http::{HeaderMap, StatusCode};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::watch;

use super::connections::Connection;
use super::error::ApiError;
use super::params::MAX_QUERY_BYTES;

/// Largest request head (request line and header fields): a query of [`MAX_QUERY_BYTES`] and
/// 64 KiB more.
pub const MAX_HEAD_BYTES: usize = MAX_QUERY_BYTES + (64 << 10);
/// Most header fields of a request.
pub const MAX_HEADERS: usize = 64;
/// Longest request target passed on as it came (hyper refuses 64 KiB).
const PLAIN_TARGET: usize = 16 << 10;
/// The headers of the server's own, which no client may send.
const OWN_PREFIX: &str = "x-rajapasu-";
const QUERY: &str = "x-rajapasu-query";
const REFUSAL: &str = "x-rajapasu-refusal";
const READ_CHUNK: usize = 64 << 10;

/// Why a head was refused, as the made-up request carries it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refusal {
    TargetTooLong,
    PathTooLong,
    HeadTooLarge,
    TooManyHeaders,
    Malformed,
    BadLength,
    Chunked,
    OwnHeader,
    BodyWithoutPost,
}

const REFUSALS: [(Refusal, &str); 9] = [
    (Refusal::TargetTooLong, "target-too-long"),
    (Refusal::PathTooLong, "path-too-long"),
    (Refusal::HeadTooLarge, "head-too-large"),
    (Refusal::TooManyHeaders, "too-many-headers"),
    (Refusal::Malformed, "malformed"),
    (Refusal::BadLength, "bad-length"),
    (Refusal::Chunked, "chunked"),
    (Refusal::OwnHeader, "own-header"),
    (Refusal::BodyWithoutPost, "body-without-post"),
];

impl Refusal {
    fn code(self) -> &'static str {
        REFUSALS.iter().find(|(r, _)| *r == self).expect("every refusal has a code").1
    }

    fn error(self, detail: &str) -> ApiError {
        let kib = MAX_HEAD_BYTES >> 10;
        let (status, field, message) = match self {
            Refusal::TargetTooLong => (
                StatusCode::URI_TOO_LONG,
                "query",
                format!("the request target is longer than {kib} KiB"),
            ),
            Refusal::PathTooLong => (
                StatusCode::URI_TOO_LONG,
                "path",
                format!("the request's path is longer than {} KiB", PLAIN_TARGET >> 10),
            ),
            Refusal::HeadTooLarge => (
                StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
                "headers",
                format!("the request head is larger than {kib} KiB"),
            ),
            Refusal::TooManyHeaders => (
                StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
                "headers",
                format!("more than {MAX_HEADERS} header fields"),
            ),
            Refusal::Malformed => {
                (StatusCode::BAD_REQUEST, "head", format!("a malformed request head ({detail})"))
            }
            Refusal::BadLength => (
                StatusCode::BAD_REQUEST,
                "content-length",
                "Content-Length is not one whole number of bytes".into(),
            ),
            Refusal::Chunked => (
                StatusCode::LENGTH_REQUIRED,
                "transfer-encoding",
                "a body sent with Transfer-Encoding: send it with a Content-Length".into(),
            ),
            Refusal::OwnHeader => (
                StatusCode::BAD_REQUEST,
                "headers",
                format!("header fields named {OWN_PREFIX}* are the server's own"),
            ),
            Refusal::BodyWithoutPost => {
                (StatusCode::BAD_REQUEST, "body", "a body is only read with POST".into())
            }
        };
        ApiError::refused(status, field, message)
    }
}

/// The refusal a made-up request carries, as the JSON error to answer.
pub fn refusal(headers: &HeaderMap) -> Option<ApiError> {
    let text = headers.get(REFUSAL)?.to_str().unwrap_or("malformed");
    let (code, detail) = text.split_once(' ').unwrap_or((text, ""));
    let refusal = REFUSALS.iter().find(|(_, c)| *c == code).map_or(Refusal::Malformed, |(r, _)| *r);
    Some(refusal.error(detail))
}

/// A long query moved out of the request target, taken out of the headers.
pub fn take_query(headers: &mut HeaderMap) -> Option<String> {
    let value = headers.remove(QUERY)?;
    Some(String::from_utf8_lossy(value.as_bytes()).into_owned())
}

/// Whether a request's body was cut short: the client closed its side before sending all of
/// its `Content-Length` (hyper is not told, so that the handler can say so).
#[derive(Clone, Debug)]
pub struct BodyCut(pub watch::Receiver<bool>);

impl BodyCut {
    /// Ends once the body is known to be cut short.
    pub async fn wait(mut self) {
        if self.0.wait_for(|cut| *cut).await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

enum Phase {
    Head,
    Body(u64),
    /// A made-up request was passed on; nothing more is read from this connection.
    Refused,
}

/// A connection's stream, its request heads read first (see the module's note).
pub struct HeadStream<S> {
    inner: S,
    input: Vec<u8>,
    /// `input` searched for the end of a head up to here.
    scanned: usize,
    output: Vec<u8>,
    given: usize,
    phase: Phase,
    eof: bool,
    cut: watch::Sender<bool>,
    /// Told when a head begins and ends.
    connection: Arc<Connection>,
}

impl<S> HeadStream<S> {
    pub fn into_inner(self) -> S {
        self.inner
    }

    pub fn new(inner: S, connection: Arc<Connection>) -> (HeadStream<S>, BodyCut) {
        let (cut, watched) = watch::channel(false);
        let stream = HeadStream {
            inner,
            input: Vec::new(),
            scanned: 0,
            output: Vec::new(),
            given: 0,
            phase: Phase::Head,
            eof: false,
            cut,
            connection,
        };
        (stream, BodyCut(watched))
    }

    /// Moves what can be moved from `input` to `output`; whether anything changed.
    fn advance(&mut self) -> bool {
        match self.phase {
            Phase::Body(0) => {
                self.phase = Phase::Head;
                true
            }
            Phase::Body(left) if !self.input.is_empty() => {
                let n = (left.min(self.input.len() as u64)) as usize;
                self.output.extend(self.input.drain(..n));
                self.phase = Phase::Body(left - n as u64);
                true
            }
            Phase::Head if !self.input.is_empty() => self.head(),
            _ => false,
        }
    }

    /// A head, if all of it has come: passed on (rewritten if its query is long) or refused.
    fn head(&mut self) -> bool {
        // Empty lines before a request line are allowed (RFC 9112, 2.2).
        let blank = self.input.iter().take_while(|b| **b == b'\r' || **b == b'\n').count();
        if blank > 0 {
            self.input.drain(..blank);
            self.scanned = 0;
            return true;
        }
        let from = self.scanned.saturating_sub(3);
        let Some(end) =
            self.input[from..].windows(4).position(|w| w == b"\r\n\r\n").map(|i| from + i + 4)
        else {
            self.scanned = self.input.len();
            if self.input.len() > MAX_HEAD_BYTES {
                let line_ended = self.input.windows(2).any(|w| w == b"\r\n");
                self.refuse(
                    if line_ended { Refusal::HeadTooLarge } else { Refusal::TargetTooLong },
                    "",
                );
                return true;
            }
            return false;
        };
        self.scanned = 0;
        self.connection.set_waiting(false);
        let head: Vec<u8> = self.input.drain(..end).collect();
        // A connection kept alive after a large head does not keep its room.
        self.input.shrink_to(2 * READ_CHUNK);
        match examine(&head) {
            Ok((bytes, body)) => {
                self.output.extend(bytes);
                self.phase = Phase::Body(body);
            }
            Err((refusal, detail)) => self.refuse(refusal, &detail),
        }
        true
    }

    fn refuse(&mut self, refusal: Refusal, detail: &str) {
        let made_up =
            format!("GET /refused HTTP/1.1\r\nHost: refused\r\nConnection: close\r\n{REFUSAL}: {} {detail}\r\n\r\n", refusal.code());
        self.output.extend(made_up.as_bytes());
        self.input.clear();
        self.phase = Phase::Refused;
    }
}

/// A complete head as passed on, and the length of its body; or why it is refused.
fn examine(head: &[u8]) -> Result<(Vec<u8>, u64), (Refusal, String)> {
    let mut fields = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut request = httparse::Request::new(&mut fields);
    match request.parse(head) {
        Ok(httparse::Status::Complete(_)) => {}
        Ok(httparse::Status::Partial) => return Err((Refusal::Malformed, "incomplete".into())),
        Err(httparse::Error::TooManyHeaders) => {
            return Err((Refusal::TooManyHeaders, String::new()))
        }
        Err(e) => return Err((Refusal::Malformed, e.to_string())),
    }
    let (method, target) = (request.method.unwrap_or(""), request.path.unwrap_or(""));
    if head.len() > MAX_HEAD_BYTES {
        return Err((
            if target.len() > MAX_HEAD_BYTES / 2 {
                Refusal::TargetTooLong
            } else {
                Refusal::HeadTooLarge
            },
            String::new(),
        ));
    }
    let body = body_length(request.headers)?;
    if body > 0 && method != "POST" {
        return Err((Refusal::BodyWithoutPost, String::new()));
    }
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    if path.len() > PLAIN_TARGET {
        return Err((Refusal::PathTooLong, String::new()));
    }
    if let Some(e) = target_error(path, query) {
        return Err((Refusal::Malformed, format!("the request target: {e}")));
    }
    if target.len() <= PLAIN_TARGET {
        return Ok((head.to_vec(), body));
    }
    let mut out =
        format!("{method} {path} HTTP/1.{}\r\n", request.version.unwrap_or(1)).into_bytes();
    for field in request.headers.iter() {
        out.extend_from_slice(field.name.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(field.value);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(format!("{QUERY}: {query}\r\n\r\n").as_bytes());
    Ok((out, body))
}

/// Why hyper (the `http` crate) would not read a request target, if it would not. A long query
/// is checked in pieces: each of its bytes is allowed or not by itself.
fn target_error(path: &str, query: &str) -> Option<String> {
    let check = |target: &str| axum::http::Uri::try_from(target).err().map(|e| e.to_string());
    check(path).or_else(|| {
        query
            .as_bytes()
            .chunks(PLAIN_TARGET)
            .find_map(|piece| check(&format!("/?{}", String::from_utf8_lossy(piece))))
    })
}

/// The body's length by its `Content-Length` (0 without one); no chunked bodies, no fields of
/// the server's own.
fn body_length(fields: &[httparse::Header]) -> Result<u64, (Refusal, String)> {
    let mut length = None;
    for field in fields {
        let name = field.name.to_ascii_lowercase();
        if name.starts_with(OWN_PREFIX) {
            return Err((Refusal::OwnHeader, String::new()));
        }
        if name == "transfer-encoding" {
            return Err((Refusal::Chunked, String::new()));
        }
        if name == "content-length" {
            let digits = std::str::from_utf8(field.value)
                .ok()
                .map(str::trim)
                .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()));
            let value = digits
                .and_then(|v| v.parse::<u64>().ok())
                .ok_or((Refusal::BadLength, String::new()))?;
            if length.is_some_and(|l| l != value) {
                return Err((Refusal::BadLength, String::new()));
            }
            length = Some(value);
        }
    }
    Ok(length.unwrap_or(0))
}

impl<S: AsyncRead + Unpin> AsyncRead for HeadStream<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if this.given < this.output.len() {
                let n = buf.remaining().min(this.output.len() - this.given);
                buf.put_slice(&this.output[this.given..this.given + n]);
                this.given += n;
                if this.given == this.output.len() {
                    this.output.clear();
                    this.given = 0;
                }
                return Poll::Ready(Ok(()));
            }
            if this.advance() {
                continue;
            }
            match this.phase {
                // Hyper closes the connection once it has answered.
                Phase::Refused => return Poll::Pending,
                Phase::Body(left) if this.eof && left > 0 => {
                    let _ = this.cut.send(true);
                    return Poll::Pending;
                }
                _ if this.eof => return Poll::Ready(Ok(())),
                _ => {}
            }
            let start = this.input.len();
            this.input.resize(start + READ_CHUNK, 0);
            let mut chunk = ReadBuf::new(&mut this.input[start..]);
            let polled = Pin::new(&mut this.inner).poll_read(cx, &mut chunk);
            let got = chunk.filled().len();
            this.input.truncate(start + got);
            if got > 0 && matches!(this.phase, Phase::Head) {
                this.connection.set_waiting(true);
            }
            match polled {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Ready(Ok(())) => this.eof |= got == 0,
            }
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for HeadStream<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }
    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }
    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}
