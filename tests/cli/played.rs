//! A game written as a dataset of one match (`replay --dataset`, `GET /api/export/dataset`):
//! the rows `simulate` writes for the same match, a manifest naming the seats as played and
//! the moves, and `verify` replaying them, which finds an edited row.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};

use rajapasu::agents::{seat_rng, Agent, AgentSpec, Resources};
use rajapasu::engine::{Game, Ruleset, Side};
use rajapasu::sim::table::ColumnData;
use serde_json::Value;

use super::serve::Server;
use crate::common::*;

const SMALL: [&str; 2] = ["--rule=pits_per_row=3", "--rule=seeds_per_pit=2"];

fn small() -> Ruleset {
    Ruleset::from_assignments(["pits_per_row=3", "seeds_per_pit=2"]).unwrap()
}

/// A match to its end: South's moves by `south`'s choices as the page's engine makes them
/// (stream (seed 1, ply, seat)), North's a person's (here: the last legal pit).
fn played_match(south: AgentSpec) -> Vec<String> {
    let mut game = Game::new(small(), Side::South);
    let mut moves = Vec::new();
    while !game.is_over() {
        let pit = if game.position().turn() == Side::South {
            let mut probe = game;
            let mut agent = Agent::seated(
                south.clone(),
                seat_rng(1, game.ply() as u64, Side::South),
                &Resources::default(),
            );
            agent.play(&mut probe, &mut ()).unwrap().unwrap().0.index()
        } else {
            game.legal_moves().iter().last().unwrap().index()
        };
        game.play(pit).unwrap();
        moves.push(pit.to_string());
    }
    moves
}

/// `verify` of a dataset: its exit code and output.
fn verify(dir: &Path) -> (i32, String) {
    let (code, out, err) = run(&["verify", s(dir)]);
    (code, out + &err)
}

pub fn manifest(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap()
}

#[test]
fn a_match_written_from_its_moves_has_the_rows_simulate_writes_and_verify_replays_them() {
    let dir = tempfile::tempdir().unwrap();
    // The independent computation: simulate plays match 0 of random against random, and its
    // moves, written as a played match, give the same rows (but the players' names and seed).
    let simulated = dir.path().join("simulated");
    ok(&[
        &[
            "simulate",
            "--matches=1",
            "--seed=5",
            "--detail=lap",
            "--format=csv",
            "--quiet",
            "--out",
            s(&simulated),
        ][..],
        &SMALL[..],
    ]
    .concat());
    let sim_tables = tables(&simulated);
    let ColumnData::I64(pits) =
        &sim_tables.iter().find(|t| t.name == "moves").unwrap().column("pit").unwrap()
    else {
        panic!()
    };
    let moves: Vec<String> = pits.iter().map(i64::to_string).collect();
    let played = dir.path().join("played");
    let list = format!("--moves={}", moves.join(","));
    ok(&[&["replay", &list, "--dataset", s(&played), "--format=both"][..], &SMALL[..]].concat());
    for (mut a, b) in sim_tables.into_iter().zip(tables(&played)) {
        for c in a.columns.iter_mut() {
            match (c.name, &mut c.data) {
                ("south_player" | "north_player", ColumnData::Text(v)) => {
                    v.iter_mut().for_each(|p| *p = "human".into())
                }
                ("seed", ColumnData::U64(v)) => v.iter_mut().for_each(|x| *x = 1),
                _ => {}
            }
        }
        assert_eq!(a, b, "table {}", a.name);
    }
    let m = manifest(&played);
    assert_eq!(
        (m["south"].as_str(), m["north"].as_str(), m["matches"].as_u64()),
        (Some("human"), Some("human"), Some(1))
    );
    assert_eq!(m["played"]["moves"].as_str().unwrap(), moves.join(","));
    let (code, out) = verify(&played);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("every row equal to the rows of the manifest's moves replayed"), "{out}");
    // An edited row, its progress marker and package descriptor edited to match: the checksums
    // hold, the replayed moves do not.
    let part = std::fs::read_dir(played.join("rounds"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().unwrap() == "csv")
        .unwrap();
    let text = std::fs::read_to_string(&part).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let column = header.iter().position(|c| *c == "south_pussa").unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut row: Vec<String> = lines[1].split(',').map(String::from).collect();
    row[column] = (row[column].parse::<i64>().unwrap() + 1).to_string();
    lines[1] = row.join(",");
    rewrite_part_file(&played, &part, (lines.join("\n") + "\n").as_bytes());
    let (code, out) = verify(&played);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("row 1, column `south_pussa`")
            && out.contains("not those of the manifest's moves"),
        "{out}"
    );
    // An edited move list is an edited manifest.
    let edited = dir.path().join("edited");
    ok(&[&["replay", &list, "--dataset", s(&edited)][..], &SMALL[..]].concat());
    let mut m = manifest(&edited);
    m["played"]["moves"] = Value::from(moves[..moves.len() - 1].join(","));
    std::fs::write(edited.join("manifest.json"), serde_json::to_string_pretty(&m).unwrap())
        .unwrap();
    let (code, out) = verify(&edited);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("`played`"), "{out}");
}

#[test]
fn a_built_in_seat_is_recorded_only_when_each_of_its_moves_is_its_choice() {
    let dir = tempfile::tempdir().unwrap();
    let moves = played_match(AgentSpec::Greedy);
    let list = format!("--moves={}", moves.join(","));
    let out = dir.path().join("greedy");
    ok(&[
        &["replay", &list, "--dataset", s(&out), "--south=greedy", "--detail=move"][..],
        &SMALL[..],
    ]
    .concat());
    let m = manifest(&out);
    assert_eq!(
        (m["south"].as_str(), m["north"].as_str(), m["seed"].as_u64(), m["detail"].as_str()),
        (Some("greedy"), Some("human"), Some(1), Some("move"))
    );
    assert_eq!(verify(&out).0, 0);
    // North's moves are not random's with seed 1 at some move, nor South's greedy's with seed 2
    // (greedy breaks its ties at random).
    let wrong = dir.path().join("wrong");
    usage_error(
        &[&["replay", &list, "--dataset", s(&wrong), "--north=random"][..], &SMALL[..]].concat(),
        &["--north: move ", "not random's choice"],
    );
    assert!(!wrong.join("manifest.json").exists());
    // A match that is not over, a set-up player, and a directory that holds a dataset.
    usage_error(
        &[&["replay", "--moves=0,1", "--dataset", s(&wrong)][..], &SMALL[..]].concat(),
        &["--moves: the match is not over after 2 moves"],
    );
    usage_error(
        &[&["replay", &list, "--dataset", s(&out)][..], &SMALL[..]].concat(),
        &["--dataset"],
    );
    // A person's seat is not a player: simulate's players are the ordinary ones.
    usage_error(
        &["simulate", "--south=human", "--matches=2", "--out", s(&wrong)],
        &["--south", "unknown player 'human'", "allowed: random"],
    );
}

/// The body of a GET as bytes (a binary download).
fn get_bytes(server: &Server, target: &str) -> (u16, Vec<u8>) {
    let mut stream = TcpStream::connect(&server.addr).unwrap();
    write!(stream, "GET {target} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n", server.addr)
        .unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let status =
        String::from_utf8_lossy(&raw[..end]).split_whitespace().nth(1).unwrap().parse().unwrap();
    (status, raw[end + 4..].to_vec())
}

/// Unpacks a downloaded dataset archive into `into`: the dataset's directory.
pub fn unpack(archive: &[u8], into: &Path) -> PathBuf {
    tar::Archive::new(archive).unpack(into).unwrap();
    let dirs: Vec<PathBuf> = std::fs::read_dir(into).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    let name = dirs[0].file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(name, format!("match-{}", manifest(&dirs[0])["run_id"].as_str().unwrap()));
    dirs[0].clone()
}

/// A downloaded dataset archive, unpacked and verified: its manifest.
pub fn unpack_verified(archive: &[u8]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let dataset = unpack(archive, dir.path());
    let (code, out) = verify(&dataset);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("every row equal"), "{out}");
    manifest(&dataset)
}

#[test]
fn the_server_sends_a_played_match_as_a_dataset_archive_written_only_in_the_tables_directory() {
    let tables = tempfile::tempdir().unwrap();
    let server = Server::start(tables.path());
    let moves = played_match(AgentSpec::Random).join(",");
    let query = format!("/api/export/dataset?rule=pits_per_row=3&rule=seeds_per_pit=2&moves={moves}&south=random&format=csv&detail=round");
    let (status, archive) = get_bytes(&server, &query);
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&archive));
    let m = unpack_verified(&archive);
    assert_eq!(
        (m["south"].as_str(), m["north"].as_str(), m["format"].as_str()),
        (Some("random"), Some("human"), Some("csv"))
    );
    assert_eq!(m["played"]["moves"].as_str(), Some(moves.as_str()));
    assert!(
        m["command"].as_str().unwrap().starts_with("rajapasu serve: GET /api/export/dataset?"),
        "{m}"
    );
    // Nothing is left in the tables directory.
    let left: Vec<String> =
        files(tables.path()).into_iter().filter(|f| f.contains("export")).collect();
    assert!(left.is_empty(), "{left:?}");
    for (target, field, says) in [
        (
            format!("/api/export/dataset?rule=pits_per_row=3&rule=seeds_per_pit=2&moves={moves}&south=greedy"),
            "south",
            "not greedy's choice",
        ),
        ("/api/export/dataset?rule=pits_per_row=3&rule=seeds_per_pit=2&moves=0".to_string(), "moves", "not over after 1 moves"),
        ("/api/export/dataset?rule=pits_per_row=3&rule=seeds_per_pit=2&holdings=6,6&moves=0".to_string(), "holdings", "whole matches"),
        (format!("/api/export/dataset?moves={moves}&north=external:sh"), "north", "human or a built-in player"),
        ("/api/export/dataset?detail=all".to_string(), "detail", "match, round, move, lap"),
    ] {
        let (status, v) = server.get_json(&target);
        assert_eq!((status, v["field"].as_str()), (400, Some(field)), "{target}: {v}");
        assert!(v["error"].as_str().unwrap().contains(says), "{target}: {v}");
    }
}
