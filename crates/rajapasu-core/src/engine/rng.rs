//! The project's random streams: PCG-XSL-RR 128/64 (`pcg64`) from the `rand_pcg` crate,
//! pinned exactly in Cargo.toml (its generators are specified and value-stable, so a
//! dataset's rows depend on the version recorded in its manifest only).

use rand_pcg::rand_core::Rng as _;
use rand_pcg::{Pcg64, Pcg64Mcg};

/// The generator and the stream derivation, as recorded in every manifest.
pub const GENERATOR: &str =
    "pcg64 (rand_pcg 0.10.3): one stream per (seed, match, seat), state from pcg64_mcg on the same key; bounded draws by Lemire's method";

/// A random stream. [`Rng::for_stream`] derives independent streams from (seed, index, stream).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng(Pcg64);

impl Rng {
    /// A stream of its own for `seed` (tests and tools; runs use [`Rng::for_stream`]).
    pub fn from_seed(seed: u64) -> Rng {
        Rng::for_stream(seed, 0, 0)
    }

    /// The stream for (master seed, match index, stream number): a pure function of the three,
    /// so a match's random choices never depend on threads, batches or shards.
    ///
    /// The three keys are packed into the 127-bit stream selector of `pcg64` (seed in the top
    /// 64 bits, then 61 bits of match index, then 2 bits of stream number), so no two keys of
    /// that range share a sequence. Streams of one LCG that start from one state are related,
    /// so the starting state is drawn from `pcg64_mcg` seeded with the same key.
    pub fn for_stream(seed: u64, index: u64, stream: u64) -> Rng {
        debug_assert!(
            index < 1 << 61 && stream < 4,
            "key out of range: index {index}, stream {stream}"
        );
        let key =
            (seed as u128) << 63 | ((index as u128) & ((1 << 61) - 1)) << 2 | (stream as u128 & 3);
        let mut mixer = Pcg64Mcg::new(key);
        let state = (mixer.next_u64() as u128) << 64 | mixer.next_u64() as u128;
        Rng(Pcg64::new(state, key))
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in 0..n (n > 0), without bias (Lemire's multiply-and-reject on 32-bit draws).
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        lemire(n, || (self.next_u64() >> 32) as u32)
    }
}

/// Lemire's nearly divisionless bounded draw: `draw` gives uniform 32-bit words; the result
/// is uniform in 0..n. Of the 2^32 words, exactly 2^32 mod n are rejected (those whose low
/// product falls below that threshold), leaving floor(2^32 / n) words for every result.
#[inline]
fn lemire(n: u32, mut draw: impl FnMut() -> u32) -> u32 {
    debug_assert!(n > 0);
    let n = n as u64;
    loop {
        let m = draw() as u64 * n;
        let low = m as u32 as u64;
        // `low >= n` settles most draws without computing the threshold (a division).
        if low >= n || low >= (u32::MAX as u64 + 1 - n) % n {
            return (m >> 32) as u32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pcg64_matches_its_reference_output() {
        // pcg64 with state 42 and stream 54: the PCG reference suite's values (C version).
        let mut r = Rng(Pcg64::new(42, 54));
        let got: Vec<u64> = (0..6).map(|_| r.next_u64()).collect();
        assert_eq!(
            got,
            vec![
                0x86b1da1d72062b68,
                0x1304aa46c9853d39,
                0xa3670e9e0dd50358,
                0xf9090e529a7dae00,
                0xc85b9fd837996f2c,
                0x606121f8e3919196
            ]
        );
    }

    /// The words `lemire(n, ..)` accepts for each result, counted exactly: for result v the
    /// words x with floor(x n / 2^32) = v form an interval on which the low product grows by
    /// n per word, so only its first word can fall below the threshold (< n).
    fn accepted_per_result(n: u32, results: impl Iterator<Item = u64>) -> Vec<u64> {
        let n64 = n as u64;
        // One draw of `x`, then a draw that must not happen if `x` was accepted.
        let accepts = |x: u64| {
            let mut draws = 0;
            let v = lemire(n, || {
                draws += 1;
                if draws == 1 {
                    x as u32
                } else {
                    u32::MAX / 2
                }
            });
            (draws == 1, v)
        };
        results
            .map(|v| {
                let (start, end) = ((v << 32).div_ceil(n64), ((v + 1) << 32).div_ceil(n64));
                let (first_ok, first_v) = accepts(start);
                assert!(!first_ok || first_v as u64 == v);
                for x in [start + 1, end - 1].into_iter().filter(|&x| x > start && x < end) {
                    assert_eq!(accepts(x), (true, v as u32), "n {n}, word {x}");
                }
                end - start - !first_ok as u64
            })
            .collect()
    }

    #[test]
    fn bounded_draws_are_exactly_uniform() {
        for n in [1u32, 2, 3, 6, 7, 10, 1000, 65_537, (1 << 31) + 1, u32::MAX] {
            let n64 = n as u64;
            let sample: Vec<u64> =
                if n <= 1000 { (0..n64).collect() } else { vec![0, 1, n64 / 2, n64 - 2, n64 - 1] };
            let counts = accepted_per_result(n, sample.into_iter());
            assert!(counts.iter().all(|&c| c == (1u64 << 32) / n64), "n {n}: {counts:?}");
        }
        // The rejected words: x = 0 gives a low product of 0, below 2^32 mod 3 = 1.
        let mut words = [0u32, 5].into_iter();
        assert_eq!(lemire(3, || words.next().unwrap()), 0);
        assert_eq!(words.next(), None, "the first word was rejected and a second drawn");
    }

    #[test]
    fn below_is_in_range_and_roughly_uniform() {
        let mut r = Rng::for_stream(1, 2, 3);
        let mut counts = [0u32; 7];
        for _ in 0..70_000 {
            counts[r.below(7) as usize] += 1;
        }
        for c in counts {
            assert!((9_400..10_600).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn streams_differ_by_each_key() {
        let base = Rng::for_stream(7, 8, 0).next_u64();
        assert_ne!(base, Rng::for_stream(8, 8, 0).next_u64());
        assert_ne!(base, Rng::for_stream(7, 9, 0).next_u64());
        assert_ne!(base, Rng::for_stream(7, 8, 1).next_u64());
        assert_eq!(base, Rng::for_stream(7, 8, 0).next_u64());
        // Neighbouring matches' seats share no early output (their states are unrelated).
        let head = |i, s| {
            let mut r = Rng::for_stream(1, i, s);
            (0..64).map(|_| r.next_u64()).collect::<std::collections::HashSet<u64>>()
        };
        assert!(head(0, 1).is_disjoint(&head(1, 1)) && head(0, 1).is_disjoint(&head(0, 2)));
    }

    #[test]
    fn the_stream_is_pinned() {
        let mut r = Rng::for_stream(2024, 5, 1);
        let got: Vec<u64> = (0..3).map(|_| r.next_u64()).collect();
        // Changing the derivation changes every dataset: the manifest's `rows` version goes up.
        assert_eq!(got, vec![8145616760618515319, 13312946766482408739, 1353357783512689418]);
    }
}
