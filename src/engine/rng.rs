//! The project's random number generator: xoshiro256++ seeded through SplitMix64.
//!
//! Written here rather than taken from a crate so that a dataset's random choices depend on
//! nothing but this file: no dependency upgrade can change the rows of a published study.

/// A random stream. [`Rng::for_stream`] derives independent streams from (seed, index, stream).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng {
    s: [u64; 4],
}

#[inline]
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    /// A generator whose state is filled from SplitMix64 started at `seed`.
    pub fn from_seed(seed: u64) -> Rng {
        let mut sm = seed;
        let s = [splitmix64(&mut sm), splitmix64(&mut sm), splitmix64(&mut sm), splitmix64(&mut sm)];
        Rng { s }
    }

    /// The stream for (master seed, match index, stream number): a pure function of the three,
    /// so a match's random choices never depend on threads, batches or shards. Each key is
    /// passed through SplitMix64's finalizer before the next is mixed in.
    pub fn for_stream(seed: u64, index: u64, stream: u64) -> Rng {
        let mut k = seed;
        let a = splitmix64(&mut k);
        let mut k = a ^ index;
        let b = splitmix64(&mut k);
        let mut k = b ^ stream;
        Rng::from_seed(splitmix64(&mut k))
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in 0..n (n > 0), without bias (Lemire's multiply-and-reject).
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        debug_assert!(n > 0);
        let n = n as u64;
        loop {
            let m = (self.next_u64() >> 32) * n;
            let low = m as u32 as u64;
            if low >= n || low >= (u32::MAX as u64 + 1 - n) % n {
                return (m >> 32) as u32;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xoshiro_matches_reference_output() {
        // Reference: xoshiro256++ with state {1, 2, 3, 4} (Blackman and Vigna's C code).
        let mut r = Rng { s: [1, 2, 3, 4] };
        let got: Vec<u64> = (0..4).map(|_| r.next_u64()).collect();
        assert_eq!(got, vec![41943041, 58720359, 3588806011781223, 3591011842654386]);
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
    }
}
