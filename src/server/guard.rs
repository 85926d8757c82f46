//! Who may talk to the server (docs/serve.md, "Who may talk to the server"): one middleware in
//! front of every route. A web page open in the same browser can make it send requests here, so
//! the server answers only requests addressed to itself by one of its own names (a page of
//! another site that rebinds its name to this machine still sends its own name as `Host`), and
//! refuses API requests that a page of another origin makes (`Origin`, `Sec-Fetch-Site`). POST
//! bodies must be JSON: a cross-site form cannot send that type without a preflight, which is
//! never granted (no CORS header is ever sent). Off the loopback, API requests need the token
//! printed at start.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::ApiError;
use super::head;
use super::params::Query;

/// The cookie the page's token is kept in, once the page was opened with `?token=`.
const COOKIE: &str = "rajapasu_token";

/// What the guard accepts: the server's own names and port, and the token (off the loopback).
#[derive(Clone, Debug)]
pub struct Guard {
    /// Host names and addresses (lower case, IPv6 in brackets) this server answers to.
    names: Vec<String>,
    port: u16,
    token: Option<String>,
}

impl Guard {
    /// The guard of a server listening on `addr`, also answering to `allow` (host names given
    /// with `--allow-host`), with `token` required for the API if given.
    pub fn new(addr: SocketAddr, allow: &[String], token: Option<String>) -> Guard {
        let mut names: Vec<String> =
            vec!["127.0.0.1".into(), "localhost".into(), "[::1]".into(), host_name(addr.ip())];
        names.extend(allow.iter().map(|n| n.to_ascii_lowercase()));
        Guard { names, port: addr.port(), token }
    }

    /// Whether `host` (a `Host` header's value, or an address's authority) is this server.
    fn is_own(&self, host: &str) -> bool {
        let host = host.to_ascii_lowercase();
        // A port after the last colon unless that colon is inside an IPv6 address's brackets.
        let (name, port) = match host.rsplit_once(':') {
            Some((name, port)) if !port.contains(']') => (name, port.parse::<u16>().ok()),
            _ => (host.as_str(), Some(80)),
        };
        port == Some(self.port) && self.names.iter().any(|n| n == name)
    }
}

/// An address as a `Host` header names it (IPv6 in brackets).
fn host_name(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(ip) => ip.to_string(),
        IpAddr::V6(ip) => format!("[{ip}]"),
    }
}

/// A random token: 16 bytes of the operating system's random source, in hexadecimal.
pub fn new_token() -> std::io::Result<String> {
    use std::io::Read;
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

fn forbidden(field: &str, message: impl std::fmt::Display) -> ApiError {
    ApiError::refused(StatusCode::FORBIDDEN, field, message)
}

fn text(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).map(|v| v.to_str().unwrap_or("\u{fffd}"))
}

/// The middleware: refusals of the connection layer ([`head`]) answered first, then the host,
/// the origin, the body's type and the token checked; the token taken out of the query.
pub async fn check(State(guard): State<Arc<Guard>>, mut request: Request, next: Next) -> Response {
    if let Some(refusal) = head::refusal(request.headers()) {
        return refusal.into_response();
    }
    let set_cookie = match guard.admit(&mut request) {
        Ok((_, set_cookie)) => set_cookie,
        Err(e) => return e.into_response(),
    };
    let mut response = next.run(request).await;
    if let Some(token) = set_cookie {
        let cookie = format!("{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict");
        response
            .headers_mut()
            .insert(header::SET_COOKIE, HeaderValue::from_str(&cookie).expect("a hex token"));
    }
    response
}

impl Guard {
    /// Checks a request; on success, whether it is an API request and the token to keep in a
    /// cookie (the page opened with a right `?token=`).
    fn admit(&self, request: &mut Request) -> Result<(bool, Option<String>), ApiError> {
        let headers = request.headers();
        let host = text(headers, header::HOST)
            .ok_or_else(|| forbidden("host", "no Host header: name this server as its address"))?;
        // An address in absolute form names the server too.
        let named = request.uri().authority().map_or(host, |a| a.as_str());
        for name in [host, named] {
            if !self.is_own(name) {
                return Err(forbidden(
                    "host",
                    format!(
                        "'{name}' is not this server's name: use 127.0.0.1:{0} or localhost:{0}, or start it with --allow-host NAME",
                        self.port
                    ),
                ));
            }
        }
        let api = request.uri().path().starts_with("/api/");
        let post = request.method() == Method::POST;
        if api || post {
            check_origin(headers, host)?;
        }
        if post {
            check_json(headers)?;
        }
        let query = head::take_query(request.headers_mut())
            .unwrap_or_else(|| request.uri().query().unwrap_or("").to_string());
        let Some(token) = &self.token else {
            request.extensions_mut().insert(Query(query));
            return Ok((api, None));
        };
        let (query_token, rest) = split_token(&query);
        let headers = request.headers();
        let given = query_token.as_deref().or(bearer(headers)).or(cookie(headers));
        let right = given.is_some_and(|g| same(g, token));
        if api && !right {
            return Err(forbidden(
                "token",
                "this server is off the loopback: give the token it printed at start (?token=, Authorization: Bearer, or open the page with ?token=)",
            ));
        }
        // The page opened with the right token keeps it for its own requests.
        let keep = (!api && right && query_token.is_some()).then(|| token.clone());
        request.extensions_mut().insert(Query(rest));
        Ok((api, keep))
    }
}

/// A request from a page of another origin is refused: by its `Origin`, or by the browser's
/// own account of where it comes from (`Sec-Fetch-Site`).
fn check_origin(headers: &HeaderMap, host: &str) -> Result<(), ApiError> {
    if let Some(origin) = text(headers, header::ORIGIN) {
        if !origin.eq_ignore_ascii_case(&format!("http://{host}")) {
            return Err(forbidden(
                "origin",
                format!("a request from '{origin}', another origin than this server's"),
            ));
        }
    }
    match text(headers, header::HeaderName::from_static("sec-fetch-site")) {
        Some(site @ ("cross-site" | "same-site")) => Err(forbidden(
            "sec-fetch-site",
            format!("a {site} request, from a page of another origin"),
        )),
        _ => Ok(()),
    }
}

/// A POST body is JSON, declared so (415 otherwise, naming the header).
fn check_json(headers: &HeaderMap) -> Result<(), ApiError> {
    let kind = text(headers, header::CONTENT_TYPE).unwrap_or("");
    let essence = kind.split(';').next().unwrap_or("").trim();
    if essence.eq_ignore_ascii_case("application/json") {
        Ok(())
    } else {
        let given = if kind.is_empty() { "none".to_string() } else { format!("'{kind}'") };
        Err(ApiError::refused(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "content-type",
            format!("Content-Type {given}: send application/json"),
        ))
    }
}

/// The `token` of a query, and the query without it.
fn split_token(query: &str) -> (Option<String>, String) {
    let (tokens, rest): (Vec<&str>, Vec<&str>) =
        query.split('&').partition(|p| p.starts_with("token=") || *p == "token");
    let token =
        tokens.first().map(|t| t.trim_start_matches("token").trim_start_matches('=').to_string());
    (token, rest.join("&"))
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    text(headers, header::AUTHORIZATION)?.strip_prefix("Bearer ").map(str::trim)
}

fn cookie(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|c| c.trim().strip_prefix(COOKIE)?.strip_prefix('='))
}

/// Compares in time independent of where the texts differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_names_and_port_only() {
        let g = Guard::new("127.0.0.1:8080".parse().unwrap(), &["box.lan".into()], None);
        for ok in ["127.0.0.1:8080", "LOCALHOST:8080", "[::1]:8080", "box.lan:8080"] {
            assert!(g.is_own(ok), "{ok}");
        }
        for bad in [
            "evil.example:8080",
            "127.0.0.1:8081",
            "127.0.0.1",
            "localhost.evil:8080",
            "[::1]",
            "127.0.0.1:8080x",
        ] {
            assert!(!g.is_own(bad), "{bad}");
        }
        let v6 = Guard::new("[::1]:80".parse().unwrap(), &[], None);
        assert!(v6.is_own("[::1]") && v6.is_own("localhost") && !v6.is_own("[::2]"));
    }

    fn admitted(
        guard: &Guard,
        target: &str,
        more: &[(header::HeaderName, &str)],
    ) -> Result<(bool, Option<String>, String), ApiError> {
        let mut builder = Request::builder().uri(target).header(header::HOST, "10.0.0.1:8080");
        for (name, value) in more {
            builder = builder.header(name, *value);
        }
        let mut request = builder.body(axum::body::Body::empty()).unwrap();
        let (api, cookie) = guard.admit(&mut request)?;
        Ok((
            api,
            cookie,
            request.extensions().get::<Query>().map(|q| q.0.clone()).unwrap_or_default(),
        ))
    }

    #[test]
    fn off_the_loopback_the_api_needs_the_token() {
        let token = "00112233445566778899aabbccddeeff";
        let guard = Guard::new("10.0.0.1:8080".parse().unwrap(), &[], Some(token.into()));
        let field = |r: Result<(bool, Option<String>, String), ApiError>| {
            r.unwrap_err().json()["field"].clone()
        };
        assert_eq!(field(admitted(&guard, "/api/status", &[])), "token");
        assert_eq!(field(admitted(&guard, "/api/status?token=00", &[])), "token");
        assert_eq!(
            field(admitted(&guard, "/api/status", &[(header::AUTHORIZATION, "Bearer 0011")])),
            "token"
        );
        // By the query (taken out of it), by the header, by the page's cookie.
        let query = admitted(&guard, &format!("/api/game?moves=1&token={token}"), &[]).unwrap();
        assert_eq!(query, (true, None, "moves=1".to_string()));
        assert!(admitted(
            &guard,
            "/api/status",
            &[(header::AUTHORIZATION, &format!("Bearer {token}"))]
        )
        .is_ok());
        assert!(admitted(
            &guard,
            "/api/status",
            &[(header::COOKIE, &format!("theme=dark; {COOKIE}={token}"))]
        )
        .is_ok());
        // The page opens without it, and keeps the right one in a cookie.
        assert_eq!(admitted(&guard, "/", &[]).unwrap(), (false, None, String::new()));
        assert_eq!(
            admitted(&guard, &format!("/?token={token}"), &[]).unwrap(),
            (false, Some(token.to_string()), String::new())
        );
        assert_eq!(admitted(&guard, "/?token=bad", &[]).unwrap().1, None);
        // On the loopback there is none, and a token parameter is an unknown parameter.
        let open = Guard::new("127.0.0.1:8080".parse().unwrap(), &["10.0.0.1".into()], None);
        assert_eq!(admitted(&open, "/api/status?token=1", &[]).unwrap().2, "token=1");
        assert!(new_token().unwrap().len() == 32 && new_token().unwrap() != new_token().unwrap());
    }

    #[test]
    fn the_token_leaves_the_query() {
        assert_eq!(
            split_token("moves=1&token=ab&first=north"),
            (Some("ab".to_string()), "moves=1&first=north".to_string())
        );
        assert_eq!(split_token("moves=1"), (None, "moves=1".to_string()));
        assert!(same("abc", "abc") && !same("abc", "abd") && !same("abc", "ab"));
    }
}
