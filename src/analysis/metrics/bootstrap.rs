//! Seeded percentile bootstrap over matches, for statistics that are functions of per-match
//! sums. Matches are grouped into at most [`MAX_BLOCKS`] blocks by match index (`match_id mod
//! MAX_BLOCKS`); blocks of independent matches are themselves independent, so resampling blocks
//! is a bootstrap over matches that costs the same for a thousand matches as for a billion.
//! Replicate `b` draws from its own stream (seed, b): the interval depends on neither threads,
//! shards nor the order in which part files are read.

use bytemuck::Pod;
use rayon::prelude::*;

use crate::engine::Rng;

/// Blocks of matches resampled; a dataset of fewer matches resamples single matches.
pub const MAX_BLOCKS: u64 = 4096;

/// Adds each number of `x` to the number in the same place of `sums`: the per-match components
/// `T` are numbers only (a `repr(C)` struct of `f64` fields, or an array of `f64`).
fn add<T: Pod>(sums: &mut T, x: &T) {
    let sums: &mut [f64] = bytemuck::cast_slice_mut(std::slice::from_mut(sums));
    for (s, v) in sums.iter_mut().zip(bytemuck::cast_slice::<T, f64>(std::slice::from_ref(x))) {
        *s += v;
    }
}

/// Per-block sums of the per-match components `T` (numbers only: see [`add`]).
#[derive(Clone, Debug)]
pub struct Blocks<T> {
    sums: Vec<T>,
    used: Vec<bool>,
}

impl<T: Pod> Default for Blocks<T> {
    fn default() -> Self {
        Blocks {
            sums: vec![T::zeroed(); MAX_BLOCKS as usize],
            used: vec![false; MAX_BLOCKS as usize],
        }
    }
}

impl<T: Pod + Sync> Blocks<T> {
    pub fn add(&mut self, match_id: u64, x: &T) {
        let b = (match_id % MAX_BLOCKS) as usize;
        self.used[b] = true;
        add(&mut self.sums[b], x);
    }

    /// Adds the block sums of `other` (matches of other part files) to these.
    pub fn merge(&mut self, other: &Blocks<T>) {
        for (b, (sums, &used)) in
            other.sums.iter().zip(&other.used).enumerate().filter(|(_, (_, &u))| u)
        {
            self.used[b] |= used;
            add(&mut self.sums[b], sums);
        }
    }

    /// The non-empty blocks, in block order (independent of the order of `add`s up to rounding).
    fn blocks(&self) -> Vec<T> {
        self.sums.iter().zip(&self.used).filter(|(_, &u)| u).map(|(s, _)| *s).collect()
    }

    /// The sums over all matches.
    pub fn total(&self) -> T {
        let mut t = T::zeroed();
        for s in self.blocks() {
            add(&mut t, &s);
        }
        t
    }

    /// For each statistic of `stats`, its value on the whole sample and a `confidence`
    /// percentile interval from `resamples` replicates (NaN when undefined).
    pub fn intervals(
        &self,
        stats: &[fn(&T) -> f64],
        resamples: u32,
        seed: u64,
        confidence: f64,
    ) -> Vec<(f64, f64, f64)> {
        let blocks = self.blocks();
        let total = self.total();
        if blocks.is_empty() || resamples == 0 {
            return stats.iter().map(|f| (f(&total), f64::NAN, f64::NAN)).collect();
        }
        let n = blocks.len() as u32;
        let replicates: Vec<Vec<f64>> = (0..resamples as u64)
            .into_par_iter()
            .map(|b| {
                let mut rng = Rng::for_stream(seed, b, 3);
                let mut sums = T::zeroed();
                for _ in 0..n {
                    add(&mut sums, &blocks[rng.below(n) as usize]);
                }
                stats.iter().map(|f| f(&sums)).collect()
            })
            .collect();
        let alpha = (1.0 - confidence) / 2.0;
        stats
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let mut values: Vec<f64> =
                    replicates.iter().map(|r| r[i]).filter(|v| v.is_finite()).collect();
                let value = f(&total);
                if values.len() < resamples as usize / 2 || !value.is_finite() {
                    return (value, f64::NAN, f64::NAN);
                }
                values.sort_by(f64::total_cmp);
                (value, quantile(&values, alpha), quantile(&values, 1.0 - alpha))
            })
            .collect()
    }
}

/// The `q` quantile of sorted `values`, interpolated linearly.
fn quantile(values: &[f64], q: f64) -> f64 {
    let pos = q * (values.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    values[lo] + (values[hi] - values[lo]) * (pos - lo as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mean(s: &[f64; 2]) -> f64 {
        s[1] / s[0]
    }

    /// Over many simulated samples of a Bernoulli(0.3), the 95% interval covers 0.3 about 95%
    /// of the time.
    #[test]
    fn intervals_cover_the_true_value_in_a_simulation() {
        let (samples, n, p) = (200, 400, 0.3);
        let mut covered = 0;
        for s in 0..samples {
            let mut rng = Rng::for_stream(99, s, 0);
            let mut blocks = Blocks::<[f64; 2]>::default();
            for i in 0..n {
                blocks.add(i, &[1.0, (rng.below(1000) < 300) as u32 as f64]);
            }
            let (_, lo, hi) = blocks.intervals(&[mean], 400, s, 0.95)[0];
            covered += (lo <= p && p <= hi) as u32;
        }
        // Binomial(200, 0.95) lies in 180..=199 with probability above 0.999.
        assert!((180..=199).contains(&covered), "covered {covered} of {samples}");
    }

    #[test]
    fn blocks_do_not_depend_on_the_order_of_matches_and_replicates_are_seeded() {
        let x = |i: u64| [1.0, (i % 7) as f64];
        let mut a = Blocks::<[f64; 2]>::default();
        let mut b = Blocks::<[f64; 2]>::default();
        (0..10_000).for_each(|i| a.add(i, &x(i)));
        (0..10_000).rev().for_each(|i| b.add(i, &x(i)));
        let (ia, ib) = (a.intervals(&[mean], 200, 5, 0.95), b.intervals(&[mean], 200, 5, 0.95));
        assert_eq!(ia, ib);
        assert!((ia[0].0 - 2.9994).abs() < 1e-3, "{ia:?}");
        assert!(ia[0].1 < ia[0].0 && ia[0].0 < ia[0].2);
        assert_ne!(a.intervals(&[mean], 200, 6, 0.95), ia, "another seed, other replicates");
    }
}
