//! The laps of the move being sown and the histograms of a batch's moves: what the lap and move
//! details record per lap, kept apart from the game loop that feeds them.

use super::record::*;
use super::schema::*;
use crate::engine::MoveObserver;

/// The laps of the move being sown, and the histograms of the moves taken so far.
///
/// Laps are counted as they are sown. A move may be sown again from its start (R9's exact
/// pass, or a random player's endless trial that is struck out), so `begin` forgets the laps
/// of a sowing that was not taken with [`LapLog::take`].
pub(super) struct LapLog {
    /// lap_length[n]: laps of taken moves that sowed n counters.
    lap_length: [u32; 256],
    /// laps_per_move[n] for moves of fewer than [`SHORT_MOVE`] laps; longer ones go to the batch.
    laps_per_move: [u32; SHORT_MOVE],
    /// (start, sown) of the current move's laps: the first [`SHORT_MOVE`] inline, the rest in
    /// `long` (a long move only).
    laps: [(u8, u8); SHORT_MOVE],
    long: Vec<(u8, u8)>,
    count: usize,
}

const SHORT_MOVE: usize = crate::engine::UNCHECKED_LAPS as usize;

impl Default for LapLog {
    fn default() -> LapLog {
        LapLog {
            lap_length: [0; 256],
            laps_per_move: [0; SHORT_MOVE],
            laps: [(0, 0); SHORT_MOVE],
            long: Vec::new(),
            count: 0,
        }
    }
}

impl LapLog {
    /// The laps of the current move, oldest first.
    pub(super) fn current(&self) -> impl Iterator<Item = (u8, u8)> + '_ {
        self.laps[..self.count.min(SHORT_MOVE)].iter().chain(&self.long).copied()
    }

    /// The current move is played: its laps stay counted.
    #[inline(always)]
    pub(super) fn take(&mut self, histograms: &mut Histograms) {
        if self.count < SHORT_MOVE {
            self.laps_per_move[self.count] += 1;
        } else {
            Histograms::add(&mut histograms.laps_per_move, self.count, 1);
            self.long.clear();
        }
        self.count = 0;
    }

    /// The laps logged since the last move taken were a sowing that was not played (a long
    /// move's first pass, or a struck-out trial): they are no longer counted.
    #[cold]
    #[inline(never)]
    pub(super) fn forget(&mut self) {
        for &(_, sown) in self.laps[..self.count.min(SHORT_MOVE)].iter().chain(&self.long) {
            self.lap_length[sown as usize] -= 1;
        }
        self.long.clear();
        self.count = 0;
    }

    /// Adds the counts to `histograms` and clears them.
    pub(super) fn drain_into(&mut self, histograms: &mut Histograms) {
        if self.count > 0 {
            self.forget();
        }
        for (bins, counts) in [
            (&mut histograms.lap_length, &mut self.lap_length[..]),
            (&mut histograms.laps_per_move, &mut self.laps_per_move[..]),
        ] {
            for (value, count) in counts.iter_mut().enumerate().filter(|(_, c)| **c > 0) {
                Histograms::add(bins, value, *count as u64);
                *count = 0;
            }
        }
    }
}

impl MoveObserver for LapLog {
    #[inline(always)]
    fn begin(&mut self) {
        if self.count > 0 {
            self.forget();
        }
    }
    /// Counts the lap at once (moves that are not taken are rare, and forgotten in `begin`).
    #[inline(always)]
    fn lap(&mut self, start: u8, sown: u8) {
        self.lap_length[sown as usize] += 1;
        if self.count < SHORT_MOVE {
            self.laps[self.count] = (start, sown);
        } else {
            self.long.push((start, sown));
        }
        self.count += 1;
    }
}

/// Exact histograms, kept at every detail.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Histograms {
    /// lap_length[n]: laps that sowed n counters.
    pub lap_length: Vec<u64>,
    /// laps_per_move[n]: moves of n laps.
    pub laps_per_move: Vec<u64>,
}

impl Histograms {
    /// Adds `count` to bin `value`.
    fn add(bins: &mut Vec<u64>, value: usize, count: u64) {
        if value >= bins.len() {
            bins.resize(value + 1, 0);
        }
        bins[value] += count;
    }

    pub fn merge(&mut self, other: &Histograms) {
        for (mine, theirs) in [
            (&mut self.lap_length, &other.lap_length),
            (&mut self.laps_per_move, &other.laps_per_move),
        ] {
            if mine.len() < theirs.len() {
                mine.resize(theirs.len(), 0);
            }
            for (m, t) in mine.iter_mut().zip(theirs) {
                *m += t;
            }
        }
    }

    pub fn to_columns(&self) -> HistogramColumns {
        let mut out = HistogramColumns::default();
        for (metric, bins) in [
            (HistogramMetric::LapLength, &self.lap_length),
            (HistogramMetric::LapsPerMove, &self.laps_per_move),
        ] {
            for (value, &count) in bins.iter().enumerate().filter(|(_, &c)| c > 0) {
                out.push(&HistogramRecord { metric, value: value as u64, count });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MoveObserver;

    /// Sows a move of `laps` laps of lengths 1, 2, ... into the log.
    fn sow(log: &mut LapLog, laps: u8) {
        log.begin();
        for i in 0..laps {
            log.lap(i, i + 1);
        }
    }

    #[test]
    fn lap_log_counts_taken_moves_once_and_forgets_unfinished_sowings() {
        let mut log = LapLog::default();
        let mut h = Histograms::default();
        // A short move, taken.
        sow(&mut log, 3);
        assert_eq!(log.current().collect::<Vec<_>>(), [(0, 1), (1, 2), (2, 3)]);
        log.take(&mut h);
        // A long move stopped after the unchecked laps and sown again from its start (R9's
        // exact pass) with 70 laps, then taken.
        sow(&mut log, SHORT_MOVE as u8);
        sow(&mut log, 70);
        assert_eq!(log.current().count(), 70);
        assert_eq!(log.current().last(), Some((69, 70)));
        log.take(&mut h);
        // An endless trial struck out (sown 100 laps, never taken), then a one-lap move.
        sow(&mut log, 100);
        sow(&mut log, 1);
        log.take(&mut h);
        // A trial left unfinished when the match ends.
        sow(&mut log, 5);
        log.drain_into(&mut h);
        let mut lap_length = vec![0u64; 71];
        for n in [3, 70, 1] {
            lap_length[1..=n].iter_mut().for_each(|c| *c += 1);
        }
        assert_eq!(h.lap_length, lap_length);
        let mut laps_per_move = vec![0u64; 71];
        laps_per_move[1] = 1;
        laps_per_move[3] = 1;
        laps_per_move[70] = 1;
        assert_eq!(h.laps_per_move, laps_per_move);
        assert!(log.lap_length.iter().chain(&log.laps_per_move).all(|&c| c == 0), "drained");
    }
}
