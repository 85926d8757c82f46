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

/// A run's bytes written by hand (an independent writer of the format): `magic`, the level, four
/// zero bytes, the key bytes as given, the count, the SHA-256 of all before.
fn by_hand(magic: &[u8; 8], level: u32, keys: &[u8], count: u64) -> Vec<u8> {
    let mut bytes = magic.to_vec();
    bytes.extend(level.to_le_bytes());
    bytes.extend([0u8; 4]);
    bytes.extend_from_slice(keys);
    bytes.extend(count.to_le_bytes());
    let digest: [u8; 32] = Sha256::digest(&bytes).into();
    bytes.extend(digest);
    bytes
}

/// LEB128 of each key's difference from the one before, by the textbook loop.
fn deltas(keys: &[u64]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut last = 0;
    for &k in keys {
        let mut d = k - last;
        last = k;
        loop {
            let byte = (d & 0x7f) as u8;
            d >>= 7;
            if d == 0 {
                out.push(byte);
                break;
            }
            out.push(byte | 0x80);
        }
    }
    out
}

fn read_run(path: &Path, level: u32) -> Vec<u64> {
    let mut keys = Vec::new();
    let count = RunReader::open(path, level, 1000)
        .unwrap()
        .for_each_block(path, |block| -> Result<(), Refused> {
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
    let w = merge(7, None, &appended, len, None, &first, 0).unwrap();
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
    merge(7, Some(&first), &appended, len, None, &second, 1 << 20).unwrap();
    assert_eq!(read_run(&second, 7), want.iter().copied().collect::<Vec<_>>());
    // Nothing appended: the run is copied as it is.
    let third = run_path(dir.path(), 7, 3);
    merge(7, Some(&second), &appended, 0, None, &third, 1 << 20).unwrap();
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
    merge(4, None, &appended, len, None, &run, 0).unwrap();
    let original = std::fs::read(&run).unwrap();
    let out = run_path(dir.path(), 4, 2);
    let refusal = |bytes: &[u8], level: u32| -> String {
        std::fs::write(&run, bytes).unwrap();
        match merge(level, Some(&run), &appended, 0, None, &out, 0) {
            Err(MergeError::Refused(why)) => {
                assert!(!out.exists(), "a run written from a damaged one");
                why
            }
            other => panic!("not refused: {other:?}"),
        }
    };
    let name = "pending-004.00001.run";
    // The last key raised by one (its varint's last byte): still in order, not what was written.
    let mut altered = original.clone();
    let last = altered.len() - 41;
    assert!(altered[last] < 0x7f);
    altered[last] += 1;
    let e = refusal(&altered, 4);
    assert!(e.contains(name) && e.contains("SHA-256"), "{e}");
    let e = refusal(&original[..original.len() - 8], 4);
    assert!(e.contains(name) && e.contains("truncated"), "{e}");
    let e = refusal(&original, 5);
    assert!(e.contains(name) && e.contains("level 4, not 5"), "{e}");
    // Runs written by hand, their counts and checksums consistent: the keys are checked too.
    for (payload, count, why) in [
        (vec![5u8, 0], 2, "strictly increasing"),
        (vec![0xff; 11], 2, "longer than a 64-bit number"),
        (vec![0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02], 1, "longer than"),
        (vec![0x85], 1, "cut short"),
        (vec![5, 6], 1, "bytes past its 1 keys"),
        (
            vec![0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x03],
            2,
            "passes the largest",
        ),
    ] {
        let e = refusal(&by_hand(b"RJPPEND2", 4, &payload, count), 4);
        assert!(e.contains(name) && e.contains(why), "{why}: {e}");
    }
    let mut raw: Vec<u8> = 9u64.to_le_bytes().to_vec();
    raw.extend(7u64.to_le_bytes());
    let e = refusal(&by_hand(b"RJPPEND1", 4, &raw, 2), 4);
    assert!(e.contains(name) && e.contains("strictly increasing"), "{e}");
    let e = refusal(&by_hand(b"RJPPEND9", 4, &[1], 1), 4);
    assert!(e.contains(name) && e.contains("RJPPEND2"), "{e}");
    // A batch file shorter than the state records.
    std::fs::write(&run, &original).unwrap();
    match merge(4, Some(&run), &appended, len + 8, None, &out, 0) {
        Err(MergeError::Refused(e)) => {
            assert!(e.contains("pending-004.keys") && e.contains("the state records"), "{e}")
        }
        other => panic!("not refused: {other:?}"),
    }
}

#[test]
fn a_run_is_delta_coded_and_one_of_the_earlier_raw_format_is_still_merged() {
    let dir = tempfile::tempdir().unwrap();
    let appended = dir.path().join("pending-009.keys");
    let mut seed = 11;
    // Dense keys (as a level's are), some far apart, the largest key, and both sides' ranges.
    let mut want = append_batches(&appended, &[20_000, 20_000], 60_000, &mut seed);
    let mut far: Vec<u64> = vec![1 << 40, (1 << 63) + 17, u64::MAX];
    far.sort_unstable();
    std::fs::OpenOptions::new()
        .append(true)
        .open(&appended)
        .unwrap()
        .write_all(&far.iter().flat_map(|k| k.to_le_bytes()).collect::<Vec<u8>>())
        .unwrap();
    want.extend(&far);
    let len = std::fs::metadata(&appended).unwrap().len();
    let run = run_path(dir.path(), 9, 1);
    let w = merge(9, None, &appended, len, None, &run, 1 << 20).unwrap();
    let keys: Vec<u64> = want.iter().copied().collect();
    // The file is the format as written by hand from the keys.
    assert_eq!(
        std::fs::read(&run).unwrap(),
        by_hand(b"RJPPEND2", 9, &deltas(&keys), keys.len() as u64)
    );
    assert!(w.bytes < 16 + 40 + 2 * keys.len() as u64, "{} bytes for {} keys", w.bytes, keys.len());
    assert!(w.bytes <= merged_bytes_at_most(0, len / 8));
    // A raw run of the earlier format, merged with new batches: every key once, delta-coded.
    let old: Vec<u64> = (0..5000u64).map(|i| i * 7 + 3).collect();
    let raw = run_path(dir.path(), 9, 2);
    let words: Vec<u8> = old.iter().flat_map(|k| k.to_le_bytes()).collect();
    std::fs::write(&raw, by_hand(b"RJPPEND1", 9, &words, old.len() as u64)).unwrap();
    assert_eq!(read_run(&raw, 9), old);
    let merged = run_path(dir.path(), 9, 3);
    let w = merge(9, Some(&raw), &appended, len, None, &merged, 1 << 20).unwrap();
    let union: BTreeSet<u64> = want.iter().chain(&old).copied().collect();
    assert_eq!(read_run(&merged, 9), union.iter().copied().collect::<Vec<_>>());
    assert!(w.bytes <= merged_bytes_at_most(std::fs::metadata(&raw).unwrap().len(), len / 8));
}

/// Batches written with [`encode_batch`] to a batches file; every key, and the file's bytes.
fn append_coded(path: &Path, batches: &[Vec<u64>]) -> (BTreeSet<u64>, Appended) {
    let mut bytes = Vec::new();
    for keys in batches {
        encode_batch(keys, &mut bytes);
    }
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path).unwrap();
    f.write_all(&bytes).unwrap();
    let keys = batches.iter().map(|b| b.len() as u64).sum();
    (batches.iter().flatten().copied().collect(), Appended { bytes: bytes.len() as u64, keys })
}

/// Sorted, deduplicated random keys below `range`.
fn random_batch(len: usize, range: u64, seed: &mut u64) -> Vec<u64> {
    let mut keys: Vec<u64> = (0..len).map(|_| rng(seed) % range).collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

#[test]
fn appended_batches_are_delta_coded_as_written_by_hand_and_merged_with_raw_ones() {
    let dir = tempfile::tempdir().unwrap();
    let mut seed = 23;
    let batches: Vec<Vec<u64>> = [4000, 1, 2500, 6000]
        .iter()
        .map(|&len| random_batch(len, 30_000, &mut seed))
        .chain([vec![0, 1 << 40, u64::MAX]])
        .collect();
    let coded = batches_path(dir.path(), 6);
    let (mut want, recorded) = append_coded(&coded, &batches);
    // The file is the format written by hand: each batch's count and bytes, then its deltas.
    let mut by_hand = Vec::new();
    for keys in &batches {
        let d = deltas(keys);
        by_hand.extend((keys.len() as u64).to_le_bytes());
        by_hand.extend((d.len() as u64).to_le_bytes());
        by_hand.extend(d);
    }
    assert_eq!(std::fs::read(&coded).unwrap(), by_hand);
    let keys = recorded.keys;
    assert!(recorded.bytes < 3 * keys + 16 * 5 + 20, "{} bytes for {keys} keys", recorded.bytes);
    // Merged with raw batches of an earlier version and a run: every key once. Bytes past the
    // recorded length (a killed run's) are not read.
    let raw = dir.path().join("pending-006.keys");
    want.extend(append_batches(&raw, &[3000, 700], 50_000, &mut seed));
    let raw_len = std::fs::metadata(&raw).unwrap().len();
    append_coded(&coded, &[vec![1 << 50]]);
    let first = run_path(dir.path(), 6, 1);
    merge(6, None, &raw, raw_len, Some((coded.as_path(), recorded)), &first, 1 << 20).unwrap();
    assert_eq!(read_run(&first, 6), want.iter().copied().collect::<Vec<_>>());
    std::fs::remove_file(&coded).unwrap();
    let (more, recorded) = append_coded(&coded, &[random_batch(3000, 80_000, &mut seed)]);
    want.extend(more);
    let second = run_path(dir.path(), 6, 2);
    merge(6, Some(&first), &raw, 0, Some((coded.as_path(), recorded)), &second, 0).unwrap();
    assert_eq!(read_run(&second, 6), want.iter().copied().collect::<Vec<_>>());
}

#[test]
fn a_damaged_batches_file_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let coded = batches_path(dir.path(), 6);
    let raw = dir.path().join("pending-006.keys");
    let out = run_path(dir.path(), 6, 1);
    let head = |count: u64, bytes: u64| -> Vec<u8> {
        count.to_le_bytes().into_iter().chain(bytes.to_le_bytes()).collect()
    };
    let with =
        |h: Vec<u8>, payload: &[u8]| -> Vec<u8> { h.into_iter().chain(payload.to_vec()).collect() };
    let mut good = Vec::new();
    encode_batch(&[3, 9], &mut good);
    for (bytes, keys, why) in [
        (head(1, 1)[..10].to_vec(), 1, "cut short in its head"),
        (with(head(0, 1), &[5]), 1, "at least one key"),
        (with(head(3, 2), &[5, 6]), 3, "at least one key"),
        (with(head(1, 5), &[5]), 1, "passes the"),
        (with(head(1, 1), &[0x85]), 1, "cut short or longer"),
        (with(head(2, 2), &[5, 0]), 2, "strictly increasing"),
        (with(head(1, 2), &[5, 6]), 1, "bytes past its 1 keys"),
        (good.clone(), 3, "the state records 3"),
    ] {
        std::fs::write(&coded, &bytes).unwrap();
        let recorded = Appended { bytes: bytes.len() as u64, keys };
        match merge(6, None, &raw, 0, Some((coded.as_path(), recorded)), &out, 0) {
            Err(MergeError::Refused(e)) => {
                assert!(e.contains("pending-006.batches") && e.contains(why), "{why}: {e}");
                assert!(!out.exists(), "{why}: a run written from a damaged batch");
            }
            other => panic!("{why}: not refused: {other:?}"),
        }
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
