//! `rajapasu serve`'s exact values and jobs: one store of exact values in the tables directory
//! it was given, shared by the analysis and the perfect players; long solves streamed with
//! their progress; a client that goes away cancels its job and the server goes on serving.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::serve::Server;

/// The events of a server-sent event stream: (event, data).
fn events(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for block in text.split("\n\n") {
        let event = block.lines().find_map(|l| l.strip_prefix("event: ")).unwrap_or("message");
        let data: Vec<&str> = block.lines().filter_map(|l| l.strip_prefix("data: ")).collect();
        if !data.is_empty() {
            out.push((event.to_string(), data.join("\n")));
        }
    }
    out
}

/// Sends a GET asking for an event stream, on a connection left open for the caller.
fn open_stream(server: &Server, target: &str) -> TcpStream {
    let mut stream = TcpStream::connect(&server.addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(600))).unwrap();
    let head = format!("GET {target} HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n", server.addr);
    stream.write_all(head.as_bytes()).unwrap();
    stream
}

/// Reads `stream` until `needle` has arrived (or the stream ends); what was read.
fn read_until(stream: &mut TcpStream, needle: &str) -> String {
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&raw).contains(needle) {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => raw.extend_from_slice(&buf[..n]),
        }
    }
    String::from_utf8_lossy(&raw).into_owned()
}

/// Polls `/api/status` until `done` holds (at most two minutes).
fn wait_status(server: &Server, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let end = Instant::now() + Duration::from_secs(120);
    loop {
        let (status, v) = server.get_json("/api/status");
        assert_eq!(status, 200, "{v}");
        if done(&v) {
            return v;
        }
        assert!(Instant::now() < end, "{what}: still {v}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The match table files of a directory.
fn match_tables(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("match-"))
        .collect();
    v.sort();
    v
}

#[test]
fn the_server_keeps_its_exact_values_in_the_tables_directory_it_was_given() {
    let tables = tempfile::tempdir().unwrap();
    let server = Server::start(tables.path());
    let small = "rule=pits_per_row=3&rule=seeds_per_pit=2";
    // The perfect player solves the match table into the server's tables directory ...
    let (status, v) = server.get_json(&format!("/api/play?{small}&player=perfect:match"));
    assert_eq!(status, 200, "{v}");
    let written = match_tables(tables.path());
    assert_eq!(written.len(), 1, "{written:?}");
    // ... and the analysis reads the same table from the same store: solved once.
    let (status, a) = server.get_json(&format!("/api/analyse?{small}"));
    assert_eq!(status, 200, "{a}");
    assert!(a["match_value"]["value"].is_string(), "{a}");
    let (_, s) = server.get_json("/api/status");
    assert_eq!(s["store"]["match_tables"], 1, "{s}");
    drop(server);
    // Another server on the same directory reads the table there: one spoilt is the server's
    // fault (500, no field of the request), named.
    std::fs::write(&written[0], b"{\"rules\": 1}").unwrap();
    let server = Server::start(tables.path());
    let (status, v) = server.get_json(&format!("/api/play?{small}&player=perfect:match"));
    let name = written[0].file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!((status, v["field"].as_str()), (500, None), "{v}");
    assert!(v["error"].as_str().unwrap().contains(&name), "{v}");
}

#[test]
fn a_long_solve_streams_its_progress_and_answers_what_the_api_answers() {
    let tables = tempfile::tempdir().unwrap();
    let server = Server::start(tables.path());
    let target = "/api/analyse?rule=pits_per_row=6&rule=seeds_per_pit=4&match=false";
    let mut stream = open_stream(&server, target);
    let text = read_until(&mut stream, "event: result");
    let got = events(&text);
    let progress: Vec<Value> = got
        .iter()
        .filter(|(e, _)| e == "progress")
        .map(|(_, d)| serde_json::from_str(d).unwrap())
        .collect();
    assert!(!progress.is_empty(), "no progress before the result: {text}");
    assert!(
        progress.iter().all(|p| p["progress"]["stage"].as_str().unwrap().contains("R15")),
        "{progress:?}"
    );
    let seconds: Vec<f64> = progress.iter().map(|p| p["seconds"].as_f64().unwrap()).collect();
    assert!(seconds.windows(2).all(|w| w[0] <= w[1]), "{seconds:?}");
    let (event, data) = got.last().unwrap();
    assert_eq!(event, "result", "{text}");
    let streamed: Value = serde_json::from_str(data).unwrap();
    let (status, plain) = server.get_json(target);
    assert_eq!((status, &streamed), (200, &plain));
    // A bad request streams its 400 as an error event.
    let mut stream = open_stream(
        &server,
        "/api/statistics?rule=pits_per_row=3&south=perfect:match&matches=1&rule=next_starter=x",
    );
    let text = read_until(&mut stream, "\r\n\r\n{");
    assert!(text.starts_with("HTTP/1.1 400") && text.contains("\"field\":\"rule\""), "{text}");
}

#[test]
fn a_client_that_disconnects_mid_solve_cancels_its_job_and_the_server_serves_on() {
    let tables = tempfile::tempdir().unwrap();
    let server = Server::start(tables.path());
    // The real board's round 1 (16.8 million positions): a stream dropped after its first progress.
    let mut stream = open_stream(&server, "/api/analyse?match=false");
    let text = read_until(&mut stream, "event: progress");
    assert!(text.contains("event: progress"), "{text}");
    drop(stream);
    wait_status(&server, "the streamed job cancelled", |v| {
        v["cancelled"] == 1 && v["running"].as_array().unwrap().is_empty()
    });
    // A plain request dropped while its solve runs.
    let mut plain = TcpStream::connect(&server.addr).unwrap();
    plain
        .write_all(
            format!(
                "GET /api/analyse?first=north&match=false HTTP/1.1\r\nHost: {}\r\n\r\n",
                server.addr
            )
            .as_bytes(),
        )
        .unwrap();
    wait_status(&server, "the plain job running", |v| {
        v["running"]
            .as_array()
            .unwrap()
            .iter()
            .any(|j| j["kind"] == "analyse" && j["progress"]["done"].as_u64() > Some(0))
    });
    drop(plain);
    let v = wait_status(&server, "the plain job cancelled", |v| {
        v["cancelled"] == 2 && v["running"].as_array().unwrap().is_empty()
    });
    // Nothing half-solved was kept, and the server answers the next request.
    assert_eq!(
        (v["finished"].as_u64(), v["store"]["round_solutions"].as_u64()),
        (Some(0), Some(0)),
        "{v}"
    );
    let (status, a) = server.get_json("/api/analyse?rule=pits_per_row=3&rule=seeds_per_pit=2");
    assert_eq!(status, 200, "{a}");
}

#[test]
fn a_board_beyond_the_budget_says_so_and_the_search_players_evaluate_its_moves() {
    let tables = tempfile::tempdir().unwrap();
    let server = Server::start_with(tables.path(), &["--max-positions", "1000"]);
    let (status, v) = server.get_json("/api/analyse?match=false");
    assert_eq!(
        (status, v["kind"].as_str(), v["field"].as_str()),
        (400, Some("budget"), Some("position")),
        "{v}"
    );
    assert!(v["error"].as_str().unwrap().contains("1000"), "the figures: {v}");
    assert!(
        v["error"].as_str().unwrap().contains("(max_positions)")
            && !v["error"].as_str().unwrap().contains("--"),
        "the setting, not a flag: {v}"
    );
    let legal = server.get_json("/api/game").1["legal"].clone();
    let (status, m) = server.get_json("/api/evaluate?player=minimax:2");
    assert_eq!(status, 200, "{m}");
    let pits: Vec<Value> =
        m["moves"].as_array().unwrap().iter().map(|x| x["pit"].clone()).collect();
    assert_eq!(Value::from(pits), legal);
    assert_eq!(m["depth"], 2);
    let top = m["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["value"].as_f64().unwrap())
        .fold(f64::MIN, f64::max);
    for x in m["moves"].as_array().unwrap() {
        let best = m["best"].as_array().unwrap().contains(&x["pit"]);
        assert_eq!(best, x["value"].as_f64() == Some(top), "{m}");
    }
    let (status, t) = server.get_json("/api/evaluate?player=mcts:64&moves=3");
    assert_eq!(status, 200, "{t}");
    let visits: u64 =
        t["moves"].as_array().unwrap().iter().map(|x| x["visits"].as_u64().unwrap()).sum();
    assert!(visits <= 64 && visits > 50, "{t}");
    let (status, e) = server.get_json("/api/evaluate?player=greedy");
    assert_eq!((status, e["field"].as_str()), (400, Some("player")), "{e}");
}
