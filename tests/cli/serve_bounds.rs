//! `rajapasu serve` bounds what a client can make it do: every job stops soon after its client
//! goes away (the server's CPU idle again), the bodies read at once are bounded in total, an
//! unusable tables directory is refused at start, and a damaged table is the server's fault.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

use rajapasu::engine::{Game, Rng, Ruleset, Side};
use serde_json::Value;

use super::serve::{rss, Server};
use crate::common::*;

const LARGE: &str = "rule=pits_per_row=9&rule=seeds_per_pit=12";

/// The CPU time of a process so far, in clock ticks (user and system, /proc/PID/stat).
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // The fields after the command's name in parentheses: state is field 3, utime 14, stime 15.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

/// Sends a GET and leaves the connection open for the caller to drop.
fn send(server: &Server, target: &str, stream_events: bool) -> TcpStream {
    let mut stream = TcpStream::connect(&server.addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    let accept = if stream_events { "Accept: text/event-stream\r\n" } else { "" };
    let head = format!(
        "GET {target} HTTP/1.1\r\nHost: {}\r\n{accept}Connection: close\r\n\r\n",
        server.addr
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream
}

/// The jobs running now.
fn running(server: &Server) -> Vec<Value> {
    let (status, v) = server.get_json("/api/status");
    assert_eq!(status, 200, "{v}");
    v["running"].as_array().unwrap().clone()
}

/// Waits (at most 30 s) until a job runs whose stage starts with `stage`; its status entry.
fn wait_running(server: &Server, stage: &str) -> Value {
    let end = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(job) = running(server)
            .into_iter()
            .find(|j| j["progress"]["stage"].as_str().unwrap_or("").starts_with(stage))
        {
            return job;
        }
        assert!(Instant::now() < end, "no job at stage {stage:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Drops `stream` (the client goes away) and checks the server stops its job: no job runs
/// within 2 s, and then the server uses less than a tenth of a core over a second. Returns
/// the time to stop and the CPU share measured.
fn drop_and_check_idle(server: &Server, stream: TcpStream, what: &str) -> (f64, f64) {
    drop(stream);
    let dropped = Instant::now();
    while !running(server).is_empty() {
        assert!(
            dropped.elapsed() < Duration::from_secs(2),
            "{what}: still running {:?} after 2 s",
            running(server)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let stopped = dropped.elapsed().as_secs_f64();
    let ticks_per_second = 100.0;
    let before = cpu_ticks(server.pid());
    std::thread::sleep(Duration::from_secs(1));
    let share = (cpu_ticks(server.pid()) - before) as f64 / ticks_per_second;
    eprintln!(
        "{what}: stopped {stopped:.3} s after the drop; CPU over the next second: {share:.2} s"
    );
    assert!(
        share < 0.1,
        "{what}: the server used {share} s of CPU in the second after the job stopped"
    );
    let (_, status) = server.get_json("/api/status");
    assert!(status["cancelled"].as_u64().unwrap() >= 1, "{what}: {status}");
    (stopped, share)
}

/// A costly request dropped after a second: the job stops and the server is idle.
fn dropped_after_a_second(server: &Server, target: &str, stage: &str) {
    let sent = Instant::now();
    let stream = send(server, target, false);
    let job = wait_running(server, stage);
    assert!(job["bound"].is_object(), "each running job shows its bound: {job}");
    std::thread::sleep(Duration::from_secs(1).saturating_sub(sent.elapsed()));
    assert!(
        !running(server).is_empty(),
        "{target}: the job ended within a second; not a costly request"
    );
    drop_and_check_idle(server, stream, target.split('?').next().unwrap());
}

#[test]
fn a_search_player_is_bounded_and_stops_with_its_client() {
    let tables = tempfile::tempdir().unwrap();
    let server = Server::start(tables.path());
    // The server's budget is part of the player it answers with.
    let (status, v) =
        server.get_json("/api/play?rule=pits_per_row=3&rule=seeds_per_pit=2&player=minimax:40");
    assert_eq!(status, 200, "{v}");
    assert!(v["player"].as_str().unwrap().contains("nodes=20000000"), "{v}");
    let (status, v) =
        server.get_json("/api/play?rule=pits_per_row=3&rule=seeds_per_pit=2&player=mcts:1000000");
    assert_eq!(status, 200, "{v}");
    assert!(v["player"].as_str().unwrap().contains("playouts=100000"), "{v}");
    let job = send(&server, &format!("/api/play?{LARGE}&player=minimax:40"), false);
    let status = wait_running(&server, "");
    assert_eq!(status["bound"]["nodes_per_move"], 20_000_000, "{status}");
    std::thread::sleep(Duration::from_millis(500));
    drop_and_check_idle(&server, job, "play minimax:40");
}

#[test]
fn a_perfect_player_stops_solving_its_tables_with_its_client() {
    let tables = tempfile::tempdir().unwrap();
    let server = Server::start(tables.path());
    // The board's match table takes seconds: none is kept of the solve cut short.
    dropped_after_a_second(
        &server,
        "/api/play?rule=pits_per_row=6&rule=seeds_per_pit=5&player=perfect:match",
        "",
    );
    let (_, status) = server.get_json("/api/status");
    assert_eq!(status["store"]["match_tables"], 0, "{status}");
    let files: Vec<_> =
        std::fs::read_dir(tables.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(
        files.iter().all(|f| !f.to_string_lossy().starts_with("match-")),
        "a match table of a cancelled solve: {files:?}"
    );
}

#[test]
fn statistics_stop_with_their_client() {
    let tables = tempfile::tempdir().unwrap();
    let server = Server::start(tables.path());
    dropped_after_a_second(
        &server,
        &format!("/api/statistics?{LARGE}&south=minimax:40&north=minimax:40&matches=1000"),
        "continuations",
    );
}

/// The moves of a match of `rules` played to its end at random.
fn random_match(rules: Ruleset, seed: u64) -> Vec<usize> {
    let mut game = Game::new(rules, Side::South);
    while game.settle().is_some() {}
    let mut rng = Rng::from_seed(seed);
    let mut moves = Vec::new();
    while !game.is_over() {
        let legal = game.legal_moves();
        let pit = legal.nth(rng.below(legal.len() as u32) as usize).index();
        game.play(pit).unwrap();
        moves.push(pit);
        while game.settle().is_some() {}
        assert!(moves.len() < 100_000, "a match without end");
    }
    moves
}

#[test]
fn a_dataset_export_refuses_a_match_not_over_at_once_and_stops_with_its_client() {
    let tables = tempfile::tempdir().unwrap();
    let server = Server::start(tables.path());
    // Not over: refused before the seat's player runs (a search of seconds otherwise).
    let started = Instant::now();
    let (status, v) =
        server.get_json(&format!("/api/export/dataset?{LARGE}&moves=0&south=minimax:40"));
    assert_eq!((status, v["field"].as_str()), (400, Some("moves")), "{v}");
    assert!(started.elapsed() < Duration::from_millis(500), "{:?}", started.elapsed());
    let rules = Ruleset { pits_per_row: 9, seeds_per_pit: 12, ..Ruleset::default() };
    let moves: Vec<String> = random_match(rules, 7).iter().map(|m| m.to_string()).collect();
    let target = format!(
        "/api/export/dataset?{LARGE}&moves={}&south=minimax:40&north=minimax:40",
        moves.join(",")
    );
    dropped_after_a_second(&server, &target, "checking");
}

#[test]
fn an_analysis_stops_with_its_client_in_each_stage() {
    let tables = tempfile::tempdir().unwrap();
    let server = Server::start(tables.path());
    // The round's values (R15) of a board of seconds.
    let stream = send(&server, "/api/analyse?rule=pits_per_row=6&rule=seeds_per_pit=5", true);
    wait_running(&server, "round values");
    std::thread::sleep(Duration::from_millis(500));
    drop_and_check_idle(&server, stream, "analyse: round values");
    // The board's match table (R17), once the round's values are kept: nothing of it is kept.
    let mut stream = send(&server, "/api/analyse?rule=pits_per_row=6&rule=seeds_per_pit=5", true);
    wait_running(&server, "match table");
    std::thread::sleep(Duration::from_secs(1));
    let mut buf = [0u8; 4096];
    assert!(stream.read(&mut buf).unwrap() > 0);
    drop_and_check_idle(&server, stream, "analyse: match table");
    let (_, status) = server.get_json("/api/status");
    assert_eq!(status["store"]["match_tables"], 0, "{status}");
    let files: Vec<_> =
        std::fs::read_dir(tables.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(
        files.iter().all(|f| !f.to_string_lossy().starts_with("match-")),
        "a match table of a cancelled solve: {files:?}"
    );
}

/// A POST whose head promises `len` bytes of body, of which it sends `sent`, left open.
fn upload(server: &Server, len: usize, sent: usize) -> TcpStream {
    let mut stream = TcpStream::connect(&server.addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let head = format!(
        "POST /api/check-record HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {len}\r\n\r\n",
        server.addr
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(&vec![b' '; sent]).unwrap();
    stream
}

#[test]
fn the_bodies_read_at_once_are_bounded_in_total() {
    let tables = tempfile::tempdir().unwrap();
    let server = Server::start(tables.path());
    // 64 bodies of 1 MiB being read hold the 64 MiB; the 65th is refused at once.
    let len = 1 << 20;
    let held: Vec<TcpStream> = (0..64).map(|_| upload(&server, len, 1)).collect();
    std::thread::sleep(Duration::from_millis(500));
    let started = Instant::now();
    let mut late = upload(&server, len, 1);
    let mut answer = String::new();
    late.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    let body: Value = serde_json::from_str(answer.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    assert_eq!(body["field"], "body", "{body}");
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    // The budget is given back as they go: a request is read again.
    drop(held);
    let end = Instant::now() + Duration::from_secs(10);
    loop {
        let (status, got) = server.request(
            "POST",
            "/api/check-record",
            br#"{"moves": "2,1", "rules": ["pits_per_row=3", "seeds_per_pit=2"]}"#,
        );
        if status == 200 {
            break;
        }
        assert!(Instant::now() < end, "{status} {got}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_body_that_stalls_is_answered_408_after_its_time() {
    let tables = tempfile::tempdir().unwrap();
    let server = Server::start(tables.path());
    let started = Instant::now();
    let mut stalled = upload(&server, 1000, 10);
    stalled
        .set_read_timeout(Some(rajapasu::server::BODY_TIMEOUT + Duration::from_secs(15)))
        .unwrap();
    let mut answer = String::new();
    stalled.read_to_string(&mut answer).unwrap();
    let waited = started.elapsed();
    eprintln!("a body 990 bytes short answered after {waited:?}");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    let body: Value = serde_json::from_str(answer.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    assert_eq!(body["field"], "body", "{body}");
    assert!(
        waited >= rajapasu::server::BODY_TIMEOUT
            && waited < rajapasu::server::BODY_TIMEOUT + Duration::from_secs(10),
        "{waited:?}"
    );
}

#[test]
fn four_hundred_uploads_at_the_limit_hold_no_more_than_the_bodies_budget() {
    let tables = tempfile::tempdir().unwrap();
    let server = std::sync::Arc::new(Server::start(tables.path()));
    let (status, _) = server.request(
        "POST",
        "/api/check-record",
        br#"{"moves": "2,1", "rules": ["pits_per_row=3", "seeds_per_pit=2"]}"#,
    );
    assert_eq!(status, 200);
    let before = rss(server.pid());
    // Each sends a whole body of the largest size read (a record that is not JSON: a 400 once
    // read), all at once.
    let len = rajapasu::server::MAX_BODY_BYTES;
    let clients: Vec<_> = (0..400)
        .map(|_| {
            let server = server.clone();
            std::thread::spawn(move || {
                let mut stream = upload(&server, len, 0);
                let _ = stream.write_all(&vec![b'x'; len]);
                let mut answer = String::new();
                let _ = stream.read_to_string(&mut answer);
                answer.get(9..12).unwrap_or("").to_owned()
            })
        })
        .collect();
    let codes: Vec<String> = clients.into_iter().map(|c| c.join().unwrap()).collect();
    let (peak, after) = (super::serve::peak_rss(server.pid()), rss(server.pid()));
    let count = |code: &str| codes.iter().filter(|c| *c == code).count();
    eprintln!(
        "400 uploads of {len} bytes: {} read (400), {} refused at once (503), {} other; RSS before {before}, peak {peak}, after {after}",
        count("400"),
        count("503"),
        400 - count("400") - count("503")
    );
    // A refused client that goes on sending may find its connection reset before it reads the
    // 503 (the server drains 2 s of what follows a refusal, then closes): on a loaded machine,
    // where the 400 clients send slowly, every refused one may.
    assert_eq!(count("400") + count("503") + count(""), 400, "{codes:?}");
    assert!(count("400") >= 57 && count("503") + count("") > 0, "{codes:?}");
    // The bodies' 64 MiB, and the buffers of the 256 connections open at once.
    let budget = (rajapasu::server::MAX_BODIES_BYTES
        + rajapasu::server::MAX_CONNECTIONS * (512 << 10)) as u64;
    assert!(
        peak < before + budget,
        "peak RSS {peak} bytes from {before}: above the budget of {budget}"
    );
    let (status, _) = server.request(
        "POST",
        "/api/check-record",
        br#"{"moves": "2,1", "rules": ["pits_per_row=3", "seeds_per_pit=2"]}"#,
    );
    assert_eq!(status, 200);
    // What stays is the allocator's and less than the bodies' budget (it was 800 MB more).
    assert!(
        after < before + rajapasu::server::MAX_BODIES_BYTES as u64,
        "RSS {after} bytes after the uploads, from {before}"
    );
}

/// `rajapasu serve --tables PATH`'s exit code and error.
fn refused(tables: &Path) -> (Option<i32>, String) {
    let out = bin().args(["serve", "--port", "0", "--tables", s(tables)]).output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn an_unusable_tables_directory_is_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain");
    std::fs::write(&file, "not a directory").unwrap();
    for path in [file.clone(), file.join("below")] {
        let (code, err) = refused(&path);
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains("--tables") && err.contains(s(&path)), "{err}");
    }
}

#[test]
fn a_damaged_match_table_is_the_servers_fault() {
    let tables = tempfile::tempdir().unwrap();
    let server = Server::start(tables.path());
    let small = "rule=pits_per_row=3&rule=seeds_per_pit=2";
    let (status, v) = server.get_json(&format!("/api/play?{small}&player=perfect:match"));
    assert_eq!(status, 200, "{v}");
    drop(server);
    let file = std::fs::read_dir(tables.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("match-"))
        .expect("the table was written");
    // One digit of its digest changed: the table no longer is what was written.
    let text = std::fs::read_to_string(&file).unwrap();
    let at = text.find("\"sha256\":\"").expect("a digest") + 10;
    let digit = if &text[at..at + 1] == "0" { "1" } else { "0" };
    std::fs::write(&file, format!("{}{digit}{}", &text[..at], &text[at + 1..])).unwrap();
    let server = Server::start(tables.path());
    let (status, v) = server.get_json(&format!("/api/play?{small}&player=perfect:match"));
    assert_eq!(status, 500, "{v}");
    assert!(v["error"].as_str().unwrap().contains(s(&file)), "the file is named: {v}");
    assert!(v["field"].is_null(), "not the client's fault: {v}");
}
