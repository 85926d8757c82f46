//! `rajapasu serve`: its API answers as the commands do, names the field of every bad
//! request, and survives a burst of requests and clients that go away.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::*;

/// A server on a free port of the loopback, stopped when dropped.
pub struct Server {
    child: Child,
    pub addr: String,
    /// The token of the address printed, if any (off the loopback).
    pub token: Option<String>,
}

impl Server {
    pub fn start(tables: &Path) -> Server {
        Server::start_with(tables, &[])
    }

    /// A server with more options.
    pub fn start_with(tables: &Path, extra: &[&str]) -> Server {
        let mut child = bin()
            .args(["serve", "--port", "0", "--max-memory", "1G", "--tables", s(tables)])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the server starts");
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().unwrap()).read_line(&mut line).unwrap();
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|r| r.split('/').next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_string();
        let token = line
            .split("?token=")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .map(str::to_string);
        Server { child, addr, token }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// One request (HTTP/1.1, the connection closed after it): status and body.
    pub fn request(&self, method: &str, target: &str, body: &[u8]) -> (u16, String) {
        let mut stream = TcpStream::connect(&self.addr).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(300))).unwrap();
        let head = format!(
            "{method} {target} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            self.addr,
            body.len()
        );
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body).unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).unwrap();
        let text = String::from_utf8_lossy(&raw).into_owned();
        let (head, rest) =
            text.split_once("\r\n\r\n").unwrap_or_else(|| panic!("no response head: {text:?}"));
        let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
        let body = if head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
            unchunk(rest)
        } else {
            rest.to_string()
        };
        (status, body)
    }

    pub fn get_json(&self, target: &str) -> (u16, Value) {
        let (status, body) = self.request("GET", target, b"");
        (
            status,
            serde_json::from_str(&body)
                .unwrap_or_else(|e| panic!("{target}: not JSON ({e}): {body}")),
        )
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn unchunk(mut rest: &str) -> String {
    let mut out = String::new();
    while let Some((size, tail)) = rest.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&tail[..n]);
        rest = &tail[n + 2..];
    }
    out
}

fn analyse_json(args: &[&str], tables: &Path) -> Value {
    let mut all = vec!["analyse", "--json", "--quiet", "--tables", s(tables)];
    all.extend_from_slice(args);
    serde_json::from_str(ok(&all).trim()).unwrap()
}

#[test]
fn the_api_answers_what_the_commands_print() {
    let tables = tempfile::tempdir().unwrap();
    let server = Server::start(tables.path());
    let (status, page) = server.request("GET", "/", b"");
    assert_eq!(status, 200);
    assert!(page.contains("<title>Raja Pasu explorer</title>") && page.contains("/api/analyse"));
    let small = ["--rule=pits_per_row=3", "--rule=seeds_per_pit=3"];
    let cases: [(&str, Vec<&str>); 5] = [
        ("", vec![]),
        ("&moves=2", vec!["--moves=2"]),
        ("&moves=0&first=north", vec!["--moves=0", "--first=north"]),
        ("&holdings=12,6&first=north", vec!["--holdings=12,6", "--first=north"]),
        (
            "&position=x,3,3,0,1,5&reserve=4,2&to_move=north",
            vec!["--position=x,3,3,0,1,5", "--reserve=4,2", "--to-move=north"],
        ),
    ];
    for (query, args) in cases {
        let mut all: Vec<&str> = small.to_vec();
        all.extend(args);
        let want = analyse_json(&all, tables.path());
        let (status, got) = server
            .get_json(&format!("/api/analyse?rule=pits_per_row%3D3&rule=seeds_per_pit=3{query}"));
        assert_eq!(status, 200, "{got}");
        assert_eq!(got, want, "{query}");
    }
    // check-record over the API is check-record --json.
    let want: Value = serde_json::from_str(
        ok(&[
            "check-record",
            "--json",
            "--moves",
            "2,1",
            "--rule=pits_per_row=3",
            "--rule=seeds_per_pit=2",
        ])
        .trim(),
    )
    .unwrap();
    let (status, got) = server.request(
        "POST",
        "/api/check-record",
        json!({ "moves": "2,1", "rules": ["pits_per_row=3", "seeds_per_pit=2"] })
            .to_string()
            .as_bytes(),
    );
    assert_eq!((status, serde_json::from_str::<Value>(&got).unwrap()), (200, want));
    // A player's move is legal; perfect:match never lets a won match go.
    let (_, game) = server.get_json("/api/game?rule=pits_per_row=3&rule=seeds_per_pit=2&moves=2");
    for player in ["random", "greedy", "minimax:3", "mcts:32", "perfect:round", "perfect:match"] {
        let (status, v) = server.get_json(&format!(
            "/api/play?rule=pits_per_row=3&rule=seeds_per_pit=2&moves=2&player={player}"
        ));
        assert_eq!(status, 200, "{v}");
        assert!(
            game["legal"].as_array().unwrap().contains(&v["pit"]),
            "{player}: {v} not in {game}"
        );
    }
    let (status, stats) = server.get_json("/api/statistics?rule=pits_per_row=3&rule=seeds_per_pit=3&matches=50&south=random&north=greedy");
    assert_eq!(status, 200, "{stats}");
    let legal =
        server.get_json("/api/game?rule=pits_per_row=3&rule=seeds_per_pit=3").1["legal"].clone();
    let pits: Vec<Value> =
        stats["moves"].as_array().unwrap().iter().map(|m| m["pit"].clone()).collect();
    assert_eq!(Value::from(pits), legal);
    for m in stats["moves"].as_array().unwrap() {
        let (rate, lo, hi) = (
            m["mover"]["rate"].as_f64().unwrap(),
            m["mover"]["interval"][0].as_f64().unwrap(),
            m["mover"]["interval"][1].as_f64().unwrap(),
        );
        assert!(lo <= rate && rate <= hi && (0.0..=1.0).contains(&lo) && hi <= 1.0, "{m}");
        assert!(m["mover"]["wins"].as_u64().unwrap() + m["undecided"].as_u64().unwrap() <= 50);
    }
    // The replay page of the moves.
    let (status, html) = server.request(
        "GET",
        "/api/show?rule=pits_per_row=3&rule=seeds_per_pit=2&moves=2,1&ply=1",
        b"",
    );
    assert_eq!(status, 200);
    assert!(html.contains("<svg") && html.contains("data-pit="));
}

#[test]
fn bad_requests_get_a_400_naming_the_field() {
    let tables = tempfile::tempdir().unwrap();
    let server = Server::start(tables.path());
    let huge = vec!["0"; 100_001].join(",");
    let cases = [
        ("/api/analyse?rule=colour=red".to_string(), "rule", "colour"),
        ("/api/analyse?rule=pits_per_row=3&rule=pits_per_row=4".into(), "rule", "twice"),
        ("/api/analyse?moves=0,9".into(), "moves", "pit 9"),
        ("/api/analyse?moves=0,a".into(), "moves", "'a'"),
        ("/api/analyse?rule=pits_per_row=3&rule=seeds_per_pit=2&position=2,2,2,2,2,3&reserve=0,0&to_move=south".into(), "position", "13"),
        ("/api/analyse?rule=pits_per_row=3&position=2,2&reserve=0,0&to_move=south".into(), "position", "2 pits given"),
        ("/api/analyse?holdings=1,97".into(), "holdings", "fewer than"),
        ("/api/analyse?first=east".into(), "first", "south, north"),
        ("/api/analyse?colour=red".into(), "colour", "known ones are"),
        ("/api/analyse?moves=%zz".into(), "moves", "hexadecimal"),
        ("/api/play?player=external:ls".into(), "player", "not offered"),
        ("/api/play?player=wizard".into(), "player", "allowed"),
        ("/api/statistics?matches=100000".into(), "matches", "1..=20000"),
        ("/api/show?moves=0,9".into(), "moves", "move 2 (pit 9)"),
    ];
    for (target, field, needle) in &cases {
        let (status, v) = server.get_json(target);
        assert_eq!(status, 400, "{target}: {v}");
        assert_eq!(v["field"], *field, "{target}: {v}");
        assert!(v["error"].as_str().unwrap().contains(needle), "{target}: {v}");
    }
    let posts: [(&[u8], &str, &str); 5] = [
        (b"{\"record\": ", "body", "not JSON"),
        (b"[1, 2]", "body", "not a JSON object"),
        (b"{\"record\": \"0 colour=red\"}", "record", "unknown observation"),
        (
            b"{\"moves\": \"0\", \"rules\": [\"endless=stop\"]}",
            "rules",
            "every value of it is tried",
        ),
        (b"{\"moves\": \"0\", \"colour\": 1}", "colour", "unknown field"),
    ];
    for (body, field, needle) in posts {
        let (status, text) = server.request("POST", "/api/check-record", body);
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!((status, v["field"].as_str()), (400, Some(field)), "{v}");
        assert!(v["error"].as_str().unwrap().contains(needle), "{v}");
    }
    let (status, text) = server.request(
        "POST",
        "/api/check-record",
        format!("{{\"moves\": \"{huge}\"}}").as_bytes(),
    );
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!((status, v["field"].as_str()), (400, Some("moves")), "{v}");
    assert!(v["error"].as_str().unwrap().contains("at most 100000"), "{v}");
    let big = format!("{{\"record\": \"{}\"}}", "0 ".repeat(700_000));
    let (status, text) = server.request("POST", "/api/check-record", big.as_bytes());
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!((status, v["field"].as_str()), (400, Some("body")), "{v}");
    let (status, v) = server.get_json("/no/such/page");
    assert_eq!((status, v["error"].is_string()), (404, true));
}

/// Peak resident memory of a process (Linux VmHWM), in bytes.
pub fn peak_rss(pid: u32) -> u64 {
    status_bytes(pid, "VmHWM:")
}

/// Resident memory of a process (Linux VmRSS), in bytes.
pub fn rss(pid: u32) -> u64 {
    status_bytes(pid, "VmRSS:")
}

/// A figure in KiB of the process's /proc status, in bytes.
fn status_bytes(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        .unwrap()
        * 1024
}

#[test]
fn a_burst_of_requests_and_clients_that_disconnect_are_served() {
    let tables = tempfile::tempdir().unwrap();
    let server = std::sync::Arc::new(Server::start(tables.path()));
    // Clients that go away mid-request, while solves are queued or running.
    for i in 0..16 {
        let mut stream = TcpStream::connect(&server.addr).unwrap();
        let target =
            format!("/api/analyse?rule=pits_per_row=3&rule=seeds_per_pit={}&moves=2", 3 + i % 3);
        let _ = stream.write_all(
            format!("GET {target} HTTP/1.1\r\nHost: {}\r\n\r\n", server.addr).as_bytes(),
        );
        drop(stream);
    }
    // 2,000 requests from 32 clients at once, of every kind.
    let targets = [
        "/api/analyse?rule=pits_per_row=3&rule=seeds_per_pit=2&moves=2",
        "/api/analyse?rule=pits_per_row=3&rule=seeds_per_pit=3",
        "/api/game?rule=pits_per_row=4&rule=seeds_per_pit=3&moves=1,2",
        "/api/play?rule=pits_per_row=3&rule=seeds_per_pit=3&player=greedy",
        "/api/analyse?moves=9",
    ];
    let threads: Vec<_> = (0..32)
        .map(|t| {
            let server = server.clone();
            std::thread::spawn(move || {
                let mut statuses = Vec::new();
                for i in 0..63 {
                    if (t + i) % 10 == 0 {
                        let (status, _) = server.request(
                            "POST",
                            "/api/check-record",
                            br#"{"moves": "2,1,0", "rules": ["pits_per_row=3", "seeds_per_pit=2"]}"#,
                        );
                        statuses.push((status, 200));
                    } else {
                        let target = targets[(t * 7 + i) % targets.len()];
                        let (status, _) = server.request("GET", target, b"");
                        statuses.push((status, if target.ends_with("moves=9") { 400 } else { 200 }));
                    }
                }
                statuses
            })
        })
        .collect();
    let mut served = 0;
    for t in threads {
        for (got, want) in t.join().unwrap() {
            assert_eq!(got, want);
            served += 1;
        }
    }
    assert_eq!(served, 32 * 63);
    // Still serving, in bounded memory.
    let (status, _) = server.get_json("/api/analyse?rule=pits_per_row=3&rule=seeds_per_pit=2");
    assert_eq!(status, 200);
    assert!(peak_rss(server.pid()) < 1 << 30, "peak {} bytes", peak_rss(server.pid()));
}
