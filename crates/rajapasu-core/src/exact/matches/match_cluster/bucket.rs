//! The buckets of a level: which positions each holds (its masks are a range's,
//! [`crate::exact::matches::range_masks`]).

use std::ops::Range;

/// The positions of bucket `b` of `buckets` over a level of `m` positions: an index range, the
/// buckets in order and their sizes differing by at most one.
pub(crate) fn bucket_range(m: usize, buckets: u32, b: u32) -> Range<usize> {
    let at = |b: u32| (m as u128 * b as u128 / buckets as u128) as usize;
    at(b)..at(b + 1)
}

/// The bucket holding position `i` of a level of `m` positions ([`bucket_range`]): the last
/// whose start `m b / buckets` (rounded down) is at most i, that is the largest b with
/// `m b < (i + 1) buckets`.
pub(crate) fn bucket_of(m: usize, buckets: u32, i: usize) -> u32 {
    let b = ((i as u128 + 1) * buckets as u128 - 1) / m.max(1) as u128;
    b.min(buckets as u128 - 1) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The buckets cover the level in order, each position in the bucket that says so.
    #[test]
    fn buckets_cover_a_level_in_order() {
        for m in [0usize, 1, 2, 5, 17, 100] {
            for buckets in [1u32, 2, 3, 4, 7, 64] {
                let mut next = 0;
                for b in 0..buckets {
                    let r = bucket_range(m, buckets, b);
                    assert_eq!(r.start, next, "m {m} buckets {buckets} bucket {b}");
                    assert!(r.len() <= m.div_ceil(buckets as usize));
                    for i in r.clone() {
                        assert_eq!(bucket_of(m, buckets, i), b, "m {m} buckets {buckets} i {i}");
                    }
                    next = r.end;
                }
                assert_eq!(next, m);
            }
        }
    }

    /// The bucket of a position by the loop that walks the bucket starts from a first guess.
    fn bucket_of_by_walking(m: usize, buckets: u32, i: usize) -> u32 {
        let mut b = ((i as u128 * buckets as u128) / m.max(1) as u128) as u32;
        while b + 1 < buckets && bucket_range(m, buckets, b + 1).start <= i {
            b += 1;
        }
        while b > 0 && bucket_range(m, buckets, b).start > i {
            b -= 1;
        }
        b
    }

    #[test]
    fn the_bucket_formula_is_the_walk_over_the_bucket_starts() {
        let mut checked = 0;
        for m in (1..300).chain([1000, 4095, 65_537, 1 << 32, 5_190_000_001, usize::MAX / 3]) {
            for buckets in [1u32, 2, 3, 4, 5, 7, 8, 63, 64, 100, 255, 1024, u32::MAX] {
                if buckets as usize > m.max(1 << 12) {
                    // The walk would pass billions of empty buckets.
                    continue;
                }
                // Every position of a small level; each bucket's first and last of a large one.
                let mut at: Vec<usize> = if m < 300 { (0..m).collect() } else { Vec::new() };
                for b in 0..buckets.min(2000) {
                    let r = bucket_range(m, buckets, b);
                    at.extend([r.start, r.end.saturating_sub(1), r.end.min(m - 1)]);
                }
                for i in at {
                    assert_eq!(
                        bucket_of(m, buckets, i),
                        bucket_of_by_walking(m, buckets, i),
                        "m {m} buckets {buckets} i {i}"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 100_000, "{checked} cases");
    }
}
