//! A merged pending run holds every key appended, once, in order; a damaged one is refused.

use std::collections::BTreeSet;

use super::*;

fn rng(state: &mut u64) -> u64 {
    *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    *state >> 20
}

/// Appends sorted, deduplicated batches of random keys (below `range`) to `path`; every key.
fn append_batches(path: &Path, batches: &[usize], range: u64, seed: &mut u64) -> BTreeSet<u64> {
    let mut all = BTreeSet::new();
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path).unwrap();
    for &len in batches {
        let mut keys: Vec<u64> = (0..len).map(|_| rng(seed) % range).collect();
        keys.sort_unstable();
        keys.dedup();
        all.extend(&keys);
        let bytes: Vec<u8> = keys.iter().flat_map(|k| k.to_le_bytes()).collect();
        f.write_all(&bytes).unwrap();
    }
    all
}

fn read_run(path: &Path, level: u32) -> Vec<u64> {
    let mut keys = Vec::new();
    let count = RunReader::open(path, level, 1000)
        .unwrap()
        .for_each_block(path, |block| {
            keys.extend_from_slice(block);
            Ok(())
        })
        .unwrap();
    assert_eq!(count, keys.len() as u64);
    keys
}

#[test]
fn a_merged_run_is_the_set_of_what_was_appended() {
    let dir = tempfile::tempdir().unwrap();
    let appended = dir.path().join("pending-007.keys");
    let mut seed = 3;
    // Batches longer than a block, short ones, and an empty file's worth of nothing.
    let mut want = append_batches(&appended, &[5000, 1, 3000, 0, 2500, 7], 20_000, &mut seed);
    let len = std::fs::metadata(&appended).unwrap().len();
    let first = run_path(dir.path(), 7, 1);
    let w = merge(7, None, &appended, len, &first, 0).unwrap();
    let got = read_run(&first, 7);
    assert_eq!(got, want.iter().copied().collect::<Vec<_>>());
    assert_eq!((w.keys, w.bytes), (got.len() as u64, std::fs::metadata(&first).unwrap().len()));
    assert!(got.len() < 5000 + 1 + 3000 + 2500 + 7, "repeats between batches were kept");
    // More batches, merged with the run; the bytes past the recorded length are not read.
    std::fs::remove_file(&appended).unwrap();
    want.extend(append_batches(&appended, &[4000, 4000, 10], 40_000, &mut seed));
    let len = std::fs::metadata(&appended).unwrap().len();
    append_batches(&appended, &[50], 1 << 40, &mut seed);
    let second = run_path(dir.path(), 7, 2);
    merge(7, Some(&first), &appended, len, &second, 1 << 20).unwrap();
    assert_eq!(read_run(&second, 7), want.iter().copied().collect::<Vec<_>>());
    // Nothing appended: the run is copied as it is.
    let third = run_path(dir.path(), 7, 3);
    merge(7, Some(&second), &appended, 0, &third, 1 << 20).unwrap();
    assert_eq!(std::fs::read(&third).unwrap(), std::fs::read(&second).unwrap());
    // No temporary left behind.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(names.is_empty(), "{names:?}");
}

#[test]
fn a_damaged_merged_run_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let appended = dir.path().join("pending-004.keys");
    let mut seed = 5;
    append_batches(&appended, &[3000, 3000], 10_000, &mut seed);
    let len = std::fs::metadata(&appended).unwrap().len();
    let run = run_path(dir.path(), 4, 1);
    merge(4, None, &appended, len, &run, 0).unwrap();
    let original = std::fs::read(&run).unwrap();
    let out = run_path(dir.path(), 4, 2);
    let refusal = |bytes: &[u8], level: u32| -> String {
        std::fs::write(&run, bytes).unwrap();
        match merge(level, Some(&run), &appended, 0, &out, 0) {
            Err(MergeError::Refused(why)) => {
                assert!(!out.exists(), "a run written from a damaged one");
                why
            }
            other => panic!("not refused: {other:?}"),
        }
    };
    let name = "pending-004.00001.run";
    // The last key raised by one: still in order, but not what was written.
    let mut altered = original.clone();
    let last = altered.len() - 48;
    let key = u64::from_le_bytes(altered[last..last + 8].try_into().unwrap()) + 1;
    altered[last..last + 8].copy_from_slice(&key.to_le_bytes());
    let e = refusal(&altered, 4);
    assert!(e.contains(name) && e.contains("SHA-256"), "{e}");
    let e = refusal(&original[..original.len() - 8], 4);
    assert!(e.contains(name) && e.contains("truncated"), "{e}");
    let e = refusal(&original, 5);
    assert!(e.contains(name) && e.contains("level 4, not 5"), "{e}");
    // Two keys swapped, the checksum made to match: the order is checked too.
    let mut swapped = original.clone();
    let body = swapped.len() - 32;
    swapped[16..32].rotate_left(8);
    let digest: [u8; 32] = Sha256::digest(&swapped[..body]).into();
    swapped[body..].copy_from_slice(&digest);
    let e = refusal(&swapped, 4);
    assert!(e.contains(name) && e.contains("strictly increasing"), "{e}");
    // A batch file shorter than the state records.
    std::fs::write(&run, &original).unwrap();
    match merge(4, Some(&run), &appended, len + 8, &out, 0) {
        Err(MergeError::Refused(e)) => {
            assert!(e.contains("pending-004.keys") && e.contains("the state records"), "{e}")
        }
        other => panic!("not refused: {other:?}"),
    }
}

#[test]
fn run_names_are_parsed_back() {
    let dir = Path::new("/x");
    let p = run_path(dir, 30, 12);
    assert_eq!(parse_run_name(p.file_name().unwrap().to_str().unwrap()), Some((30, 12)));
    for bad in ["pending-030.keys", "pending-030..run", "pending-0x0.00001.run", "run-030.1.run"] {
        assert_eq!(parse_run_name(bad), None, "{bad}");
    }
}
