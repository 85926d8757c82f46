//! `rajapasu serve` against other web pages, oversized and malformed requests, players that
//! would run a program, and slow or idle clients (docs/serve.md, "Who may talk to the server"
//! and "Limits and load"): every refusal is a JSON error naming what was wrong.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::serve::{rss, Server};

/// An answer: status, head (lower case) and body.
struct Answer {
    status: u16,
    head: String,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {} {}", self.head, self.body))
    }

    /// Asserts a JSON refusal of `status` naming `field`, its message holding `needle`.
    fn refused(&self, status: u16, field: &str, needle: &str) -> Value {
        let v = self.json();
        assert_eq!((self.status, v["field"].as_str()), (status, Some(field)), "{}\n{v}", self.head);
        assert!(v["error"].as_str().unwrap().contains(needle), "{v} lacks '{needle}'");
        assert!(self.head.contains("content-type: application/json"), "{}", self.head);
        v
    }
}

/// Sends `raw` as it is on a new connection (its write side closed after it if `close`) and
/// reads the answer to its end.
fn exchange(server: &Server, raw: &[u8], close: bool) -> Answer {
    let mut stream = TcpStream::connect(&server.addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    // The server may answer before reading all of a refused request.
    let _ = stream.write_all(raw);
    if close {
        stream.shutdown(Shutdown::Write).unwrap();
    }
    let mut bytes = Vec::new();
    let _ = stream.read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let (head, body) = text
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no answer to {:?}: {text:?}", &raw[..raw.len().min(200)]));
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    Answer { status, head: head.to_ascii_lowercase(), body: body.to_string() }
}

/// A GET with `Host: host` and more header lines.
fn get(server: &Server, target: &str, host: &str, more: &str) -> Answer {
    exchange(
        server,
        format!("GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n{more}\r\n")
            .as_bytes(),
        false,
    )
}

fn post(server: &Server, target: &str, more: &str, body: &str) -> Answer {
    let head =
        format!("POST {target} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Length: {}\r\n{more}\r\n", server.addr, body.len());
    exchange(server, format!("{head}{body}").as_bytes(), false)
}

const RECORD: &str = r#"{"moves": "2,1", "rules": ["pits_per_row=3", "seeds_per_pit=2"]}"#;

#[test]
fn requests_by_other_names_and_from_other_origins_are_refused() {
    let tables = tempfile::tempdir().unwrap();
    let server = Server::start_with(tables.path(), &["--allow-host", "box.lan"]);
    let port = server.addr.rsplit(':').next().unwrap().to_string();
    for host in [
        server.addr.clone(),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
        format!("BOX.lan:{port}"),
    ] {
        let a = get(&server, "/api/status", &host, "");
        assert_eq!(a.status, 200, "{host}: {}", a.body);
    }
    // A page of another site whose name now leads here (DNS rebinding) sends its own name.
    for host in [
        "evil.example:".to_string() + &port,
        "127.0.0.1:1".into(),
        "localhost".into(),
        "box.lan.evil:".to_string() + &port,
    ] {
        get(&server, "/api/analyse?rule=pits_per_row=3&rule=seeds_per_pit=2", &host, "").refused(
            403,
            "host",
            "not this server's name",
        );
        get(&server, "/", &host, "").refused(403, "host", "--allow-host");
    }
    let no_host = exchange(&server, b"GET /api/status HTTP/1.0\r\n\r\n", false);
    no_host.refused(403, "host", "no Host header");
    let absolute = format!("GET http://evil.example:{port}/api/status HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n", server.addr);
    exchange(&server, absolute.as_bytes(), false).refused(403, "host", "evil.example");
    // Another origin's requests: by Origin, by Sec-Fetch-Site.
    let own = format!("Origin: http://{}\r\n", server.addr);
    let game = "/api/game?rule=pits_per_row=3&rule=seeds_per_pit=2";
    assert_eq!(get(&server, game, &server.addr, &own).status, 200);
    for (more, field) in [
        ("Origin: http://evil.example\r\n", "origin"),
        ("Origin: null\r\n", "origin"),
        ("Sec-Fetch-Site: cross-site\r\n", "sec-fetch-site"),
        ("Sec-Fetch-Site: same-site\r\n", "sec-fetch-site"),
    ] {
        for target in [
            game,
            "/api/play?player=random",
            "/api/export/trace",
            "/api/statistics?matches=1",
            "/api/evaluate",
        ] {
            get(&server, target, &server.addr, more).refused(403, field, "another origin");
        }
        post(
            &server,
            "/api/check-record",
            &format!("{more}Content-Type: application/json\r\n"),
            RECORD,
        )
        .refused(403, field, "another origin");
    }
    for site in ["same-origin", "none"] {
        assert_eq!(
            get(&server, game, &server.addr, &format!("Sec-Fetch-Site: {site}\r\n")).status,
            200
        );
    }
    // The page itself may be opened from a link anywhere.
    let page = get(&server, "/", &server.addr, "Sec-Fetch-Site: cross-site\r\n");
    assert!(page.status == 200 && page.body.contains("Raja Pasu explorer"));
    // POST bodies are JSON, declared so.
    let json = "Content-Type: application/json; charset=utf-8\r\n";
    assert_eq!(post(&server, "/api/check-record", &format!("{own}{json}"), RECORD).status, 200);
    post(&server, "/api/check-record", "", RECORD).refused(415, "content-type", "none");
    for kind in
        ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]
    {
        post(&server, "/api/check-record", &format!("Content-Type: {kind}\r\n"), RECORD).refused(
            415,
            "content-type",
            kind,
        );
    }
    // No CORS header, even to a preflight.
    let preflight =
        "Origin: http://evil.example\r\nAccess-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: content-type\r\n";
    for a in [
        get(&server, game, &server.addr, ""),
        exchange(
            &server,
            format!("OPTIONS /api/check-record HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n{preflight}\r\n", server.addr).as_bytes(),
            false,
        ),
    ] {
        assert!(!a.head.contains("access-control-"), "{}", a.head);
    }
}

#[test]
fn off_the_loopback_the_api_needs_the_printed_token() {
    // ::ffff:127.0.0.1 is reached from this machine only, but it is not the loopback's own
    // address (::1 or 127.0.0.0/8): the server asks for its token there.
    let tables = tempfile::tempdir().unwrap();
    let server = Server::start_with(tables.path(), &["--bind", "::ffff:127.0.0.1"]);
    let token = server.token.clone().expect("the address printed holds the token");
    assert!(token.len() == 32 && token.bytes().all(|b| b.is_ascii_hexdigit()), "{token}");
    let host = server.addr.clone();
    get(&server, "/api/status", &host, "").refused(403, "token", "the token it printed");
    get(&server, "/api/status?token=0123", &host, "").refused(403, "token", "the token it printed");
    get(&server, "/api/status", &host, "Authorization: Bearer 0123\r\n").refused(
        403,
        "token",
        "the token it printed",
    );
    let game = "/api/game?rule=pits_per_row=3&rule=seeds_per_pit=2&moves=2";
    for (target, more) in [
        (format!("{game}&token={token}"), String::new()),
        (game.to_string(), format!("Authorization: Bearer {token}\r\n")),
        (game.to_string(), format!("Cookie: theme=dark; rajapasu_token={token}\r\n")),
    ] {
        let a = get(&server, &target, &host, &more);
        assert_eq!(
            (a.status, a.json()["ply"].as_u64()),
            (200, Some(1)),
            "{target} {more}: {}",
            a.body
        );
    }
    // The page opens without it; opened with it, it keeps it in a cookie for its requests.
    assert_eq!(get(&server, "/", &host, "").status, 200);
    let page = get(&server, &format!("/?token={token}"), &host, "");
    assert!(
        page.status == 200
            && page.head.contains(&format!(
                "set-cookie: rajapasu_token={token}; path=/; httponly; samesite=strict"
            )),
        "{}",
        page.head
    );
    assert!(!get(&server, "/?token=0123", &host, "").head.contains("set-cookie"));
}

#[test]
fn allow_host_takes_host_names_only() {
    for bad in ["box.lan:8080", "http://box.lan", "", "a b", "[::1"] {
        crate::common::usage_error(
            &["serve", "--allow-host", bad],
            &["--allow-host", "not a host name"],
        );
    }
}

#[test]
fn refusals_of_the_http_layer_are_json_naming_what_was_wrong() {
    let tables = tempfile::tempdir().unwrap();
    let server = Server::start(tables.path());
    let host = server.addr.clone();
    let small = "rule=pits_per_row=3&rule=seeds_per_pit=2";
    // A query of 200 KB reaches the API (hyper alone answered 414 with no body).
    let moves = vec!["0"; 100_000].join(",");
    get(&server, &format!("/api/game?{small}&moves={moves}"), &host, "").refused(
        400,
        "moves",
        "cannot be played",
    );
    get(&server, &format!("/api/game?{small}&moves={moves},0"), &host, "").refused(
        400,
        "moves",
        "at most 100000",
    );
    // A query of exactly 1 MiB is read; one byte more is refused naming the query.
    // Moves "9" then '+'s (spaces, trimmed): the query read whole, the move then refused.
    let pad = |n: usize| format!("{small}&moves=9{}", "+".repeat(n - small.len() - 8));
    assert_eq!(pad(1 << 20).len(), 1 << 20);
    get(&server, &format!("/api/game?{}", pad(1 << 20)), &host, "").refused(400, "moves", "move 1");
    get(&server, &format!("/api/game?{}", pad((1 << 20) + 1)), &host, "").refused(
        400,
        "query",
        "at most 1048576",
    );
    get(&server, &format!("/api/game?{}", pad(2 << 20)), &host, "").refused(
        414,
        "query",
        "longer than",
    );
    // The request's head: too many fields, too large, malformed.
    let many: String = (0..70).map(|i| format!("X-Field-{i}: {i}\r\n")).collect();
    get(&server, "/api/status", &host, &many).refused(431, "headers", "more than 64 header fields");
    let large = format!("X-Large: {}\r\n", "a".repeat(1200 << 10));
    get(&server, "/api/status", &host, &large).refused(431, "headers", "larger than");
    exchange(
        &server,
        format!("GET /api/status HTTP/1.1\r\nHost: {host}\r\nNo colon here\r\n\r\n").as_bytes(),
        false,
    )
    .refused(400, "head", "malformed");
    exchange(&server, b"GET /api/status HTTP/9.9\r\n\r\n", false).refused(400, "head", "malformed");
    get(&server, "/api/status", &host, "X-Rajapasu-Query: moves=1\r\n").refused(
        400,
        "headers",
        "server's own",
    );
    // Targets hyper's URI parser refuses, short or long, and a path beyond its limit.
    for target in [
        "/api/status?a\"b".to_string(),
        format!("/api/game?moves=0&x={}<", "+".repeat(40_000)),
        "/api/<game>".into(),
    ] {
        get(&server, &target, &host, "").refused(400, "head", "the request target");
    }
    get(&server, &format!("/api/{}", "a".repeat(20_000)), &host, "").refused(
        414,
        "path",
        "path is longer than 16 KiB",
    );
    // Wrong method, unknown path, unknown parameters (the status and the page included).
    exchange(
        &server,
        format!("DELETE /api/status HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n")
            .as_bytes(),
        false,
    )
    .refused(405, "method", "DELETE");
    post(&server, "/api/game", "Content-Type: application/json\r\n", "{}")
        .refused(405, "method", "POST");
    assert_eq!(get(&server, "/no/such/page", &host, "").json()["status"], 404);
    get(&server, "/api/status?verbose=1", &host, "").refused(
        400,
        "verbose",
        "unknown parameter 'verbose': this takes none",
    );
    get(&server, "/?x=1", &host, "").refused(400, "x", "unknown parameter");
    post(&server, "/api/check-record?token=1", "Content-Type: application/json\r\n", RECORD)
        .refused(400, "token", "unknown parameter");
    // Bodies: their length, a cut-short one, one on a GET, one in chunks.
    let json = "Content-Type: application/json\r\n";
    for length in ["abc", "-1", "5, 6", "99999999999999999999999"] {
        let raw = format!("POST /api/check-record HTTP/1.1\r\nHost: {host}\r\n{json}Content-Length: {length}\r\n\r\n{RECORD}");
        exchange(&server, raw.as_bytes(), false).refused(400, "content-length", "whole number");
    }
    let two = format!("POST /api/check-record HTTP/1.1\r\nHost: {host}\r\n{json}Content-Length: 5\r\nContent-Length: 6\r\n\r\n{RECORD}");
    exchange(&server, two.as_bytes(), false).refused(400, "content-length", "whole number");
    let cut = format!("POST /api/check-record HTTP/1.1\r\nHost: {host}\r\n{json}Content-Length: 100\r\n\r\n{{\"moves\": ");
    let v = exchange(&server, cut.as_bytes(), true).refused(
        400,
        "body",
        "ended before its Content-Length",
    );
    assert!(!v["error"].as_str().unwrap().contains("large"), "{v}");
    get(&server, "/api/status", &host, "Content-Length: 3\r\n").refused(
        400,
        "body",
        "only read with POST",
    );
    let chunked =
        format!("POST /api/check-record HTTP/1.1\r\nHost: {host}\r\n{json}Transfer-Encoding: chunked\r\n\r\n5\r\n{{\"a\":\r\n0\r\n\r\n");
    exchange(&server, chunked.as_bytes(), false).refused(
        411,
        "transfer-encoding",
        "Content-Length",
    );
    post(&server, "/api/check-record", json, "{\"record\": ").refused(400, "body", "not JSON");
    // Still serving, on a connection kept alive between two requests.
    let mut stream = TcpStream::connect(&server.addr).unwrap();
    let twice = format!(
        "GET /api/status HTTP/1.1\r\nHost: {host}\r\n\r\nGET /api/status?{} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n",
        "x".repeat(40_000)
    );
    stream.write_all(twice.as_bytes()).unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).unwrap();
    assert!(
        text.starts_with("HTTP/1.1 200")
            && text.contains("HTTP/1.1 400")
            && text.contains("\"field\":\"x"),
        "{text:.300}"
    );
}

/// Asks for a player that would run a program of 60,000 bytes (or a host's callable): a 400.
fn ask_external(server: &Server, i: usize) {
    let name = format!("{}{i}", "a".repeat(60_000));
    let player =
        if i.is_multiple_of(2) { format!("external:{name}") } else { format!("python:{name}") };
    let (status, v) = server.get_json(&format!("/api/play?player={player}"));
    assert_eq!((status, v["field"].as_str()), (400, Some("player")), "{v}");
    assert!(
        v["error"].as_str().unwrap().contains("not offered")
            && v["error"].as_str().unwrap().len() < 200,
        "{v}"
    );
}

#[test]
fn players_that_would_run_a_program_are_refused_and_leave_no_memory() {
    let tables = tempfile::tempdir().unwrap();
    let server = std::sync::Arc::new(Server::start(tables.path()));
    (0..200).for_each(|i| ask_external(&server, i));
    let before = rss(server.pid());
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let server = server.clone();
            std::thread::spawn(move || {
                (0..5000).for_each(|i| ask_external(&server, t * 10_000 + i))
            })
        })
        .collect();
    threads.into_iter().for_each(|t| t.join().unwrap());
    let after = rss(server.pid());
    eprintln!("RSS before {before} bytes, after 20,000 refused players of 60 KB: {after} bytes");
    assert!(after < before + (10 << 20), "RSS grew from {before} to {after} bytes");
}

#[test]
fn stalled_clients_are_closed_while_others_are_served() {
    let tables = tempfile::tempdir().unwrap();
    let server = Server::start(tables.path());
    let status = |server: &Server| {
        let started = Instant::now();
        let (code, _) = server.get_json("/api/status");
        (code, started.elapsed())
    };
    // 500 clients that send part of a head and stall: more than the 256 connections held at
    // once, so the oldest stalled ones are closed to let the later ones in.
    let partial = format!("GET /api/status HTTP/1.1\r\nHost: {}\r\nX-Slow: ", server.addr);
    let opened = Instant::now();
    let mut stalled: Vec<TcpStream> = (0..500)
        .map(|_| {
            let mut s = TcpStream::connect(&server.addr).unwrap();
            s.write_all(partial.as_bytes()).unwrap();
            s
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    // A new client among them is served at once.
    let mut took = Vec::new();
    for _ in 0..5 {
        let (code, t) = status(&server);
        assert_eq!(code, 200, "after {t:?}");
        took.push(t);
    }
    eprintln!("/api/status beside 500 stalled clients: {took:?}");
    assert!(took.iter().all(|t| *t < Duration::from_secs(2)), "{took:?}");
    // Every stalled one is closed: the oldest to make room, the rest once their head is 10 s late.
    let mut closed_early = 0;
    for s in &mut stalled {
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let mut rest = Vec::new();
        let _ = s.read_to_end(&mut rest);
        closed_early += usize::from(opened.elapsed() < Duration::from_secs(5));
    }
    let closed = opened.elapsed();
    eprintln!(
        "{closed_early} stalled connections closed to make room, all 500 closed after {closed:?}"
    );
    assert!(closed_early >= 244, "only {closed_early} closed to make room");
    assert!(closed < Duration::from_secs(16), "the stalled connections closed after {closed:?}");
    let (code, took) = status(&server);
    assert!(code == 200 && took < Duration::from_secs(2), "{code} after {took:?}");
}
