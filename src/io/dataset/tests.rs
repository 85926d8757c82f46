//! The writer and the manifest it writes, read back.

use std::path::{Path, PathBuf};

use super::*;
use crate::agents::AgentSpec;
use crate::engine::Ruleset;
use crate::io::Format;
use crate::sim::BatchSink;
use crate::sim::{Detail, FirstPolicy, RunConfig, Shard};

fn config() -> RunConfig {
    RunConfig {
        rules: Ruleset::from_assignments(["final_four=stays"]).unwrap(),
        south: "minimax:2".parse().unwrap(),
        north: AgentSpec::Random,
        first: FirstPolicy::North,
        seed: 9,
        matches: 10,
        detail: Detail::Match,
        batch_size: 4,
        shard: Shard { index: 2, count: 3 },
    }
}

#[test]
fn the_manifest_holds_the_typed_run_and_reads_back_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config();
    let writer = DatasetWriter::create(dir.path(), &cfg, Formats::Csv, false, "test").unwrap();
    let manifest = writer.finish(true).unwrap();
    assert_eq!(manifest.status, RunStatus::Complete);
    assert_eq!(manifest.player_config(), Some(cfg));
    let text = std::fs::read_to_string(dir.path().join("manifest-shard-2-of-3.json")).unwrap();
    // Typed in memory, the same words in the file.
    for field in [
        r#""status": "complete""#,
        r#""south": "minimax:depth=2,nodes=unlimited,eval=match""#,
        r#""first": "north""#,
        r#""shard": "2/3""#,
    ] {
        assert!(text.contains(field), "{field} in {text}");
    }
    let (_, back) = read_manifests(dir.path()).unwrap().pop().unwrap();
    assert_eq!(back, manifest);
}

#[test]
fn only_a_match_played_from_its_moves_has_a_human_seat() {
    let cfg = RunConfig {
        north: PlayedSeat::Human,
        matches: 1,
        batch_size: 1,
        shard: Shard::WHOLE,
        ..config().map_seats(PlayedSeat::from)
    };
    let simulated = Manifest::new(&cfg, Formats::Csv, "test");
    let problem = simulated.check("manifest.json").unwrap_err().to_string();
    assert!(
        problem.starts_with("field `north`: human:") && problem.contains("played from its moves"),
        "{problem}"
    );
    let played = simulated.with_played(Played::new(&[0, 1]));
    assert_eq!(played.check("manifest.json"), Ok(()));
    assert_eq!(
        (played.south.to_string(), played.north.to_string()),
        ("minimax:depth=2,nodes=unlimited,eval=match".into(), "human".into())
    );
    assert_eq!(played.player_config(), None);
    let json = serde_json::to_value(&played).unwrap();
    assert_eq!(serde_json::from_value::<Manifest>(json).unwrap(), played);
}

#[test]
fn a_manifest_with_an_unknown_status_or_shard_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    DatasetWriter::create(dir.path(), &config(), Formats::Csv, false, "test")
        .unwrap()
        .finish(true)
        .unwrap();
    let path = dir.path().join("manifest-shard-2-of-3.json");
    let good = std::fs::read_to_string(&path).unwrap();
    for (from, to, says) in [
        (
            r#""status": "complete""#,
            r#""status": "done""#,
            "unknown variant `done`, expected `running` or `complete`",
        ),
        (r#""shard": "2/3""#, r#""shard": "4/3""#, "bad shard '4/3'"),
        (r#""first": "north""#, r#""first": "west""#, "unknown variant `west`"),
    ] {
        std::fs::write(&path, good.replace(from, to)).unwrap();
        let err = read_manifests(dir.path()).map(|_| ()).unwrap_err().to_string();
        assert!(err.contains("manifest-shard-2-of-3.json") && err.contains(says), "{err}");
    }
}

/// A batch is made durable on the syncing thread: its marker is written only after its part
/// files are synced under their names. A failure there (here a part's name taken by a
/// directory, so that its rename fails) is returned by `finish`, naming the file; that batch
/// gets no marker (a resumed run plays it again) and leaves no temporary file, and the
/// batch before it is whole.
#[test]
fn a_failure_while_syncing_is_returned_naming_the_file_and_its_batch_is_not_marked_done() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = RunConfig { shard: Shard::WHOLE, matches: 8, batch_size: 4, ..config() };
    let writer = DatasetWriter::create(dir.path(), &cfg, Formats::Csv, false, "test").unwrap();
    let blocked = writer.part_path("matches", 1, Format::Csv);
    std::fs::create_dir_all(&blocked).unwrap();
    let markers = [writer.marker(0), writer.marker(1)];
    for b in 0..2 {
        // The failure is found on the syncing thread: a write may not see it yet.
        let _ = writer.write(crate::sim::simulate_batch(&cfg, &Default::default(), b).unwrap());
    }
    let err = writer.finish(true).unwrap_err().to_string();
    assert!(err.contains(&*blocked.to_string_lossy()), "{err}");
    assert!(markers[0].is_file() && !markers[1].exists(), "batch 0 is done, batch 1 is not");
    let layout_dir = dir.path().join("matches");
    let left: Vec<String> = std::fs::read_dir(&layout_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| crate::io::atomic::temporary_target(name).is_some())
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
    // The syncing stopped at the failure: batch 1's other tables were not renamed either.
    assert!(
        writer_batch_files(dir.path(), 1).iter().all(|f| f.is_dir()),
        "only the blocking directory has batch 1's name"
    );
}

/// The files of every table named as batch `batch`'s part files.
fn writer_batch_files(dir: &Path, batch: u64) -> Vec<PathBuf> {
    let suffix = format!("-{batch:08}.csv");
    let mut out = Vec::new();
    for table in std::fs::read_dir(dir).unwrap() {
        let table = table.unwrap().path();
        if table.is_dir() {
            for f in std::fs::read_dir(&table).unwrap() {
                let f = f.unwrap().path();
                if f.file_name().unwrap().to_string_lossy().ends_with(&suffix) {
                    out.push(f);
                }
            }
        }
    }
    out
}
