//! Solving one spilled level ([`super::Run::solve_level`]): its positions scanned for their best
//! exits (read from the lower levels' files) and in-level successors (a scratch file), then the
//! values by the attractor of [`crate::exact::round::lean_level`].

use std::io::Write;

use rayon::prelude::*;

use super::{io_error, Lower, Run, SpillError, CHUNK, WAVE};
use crate::engine::Side;
use crate::exact::files::level_files::PositionsFile;
use crate::exact::index::{Key, RankSetRef};
use crate::exact::round::lean_level::{
    forcers_at_once, lean_values, scan_bytes, solve_bytes, stack_entries, InDegrees, Preds, NO_EXIT,
};
use crate::exact::round::solver::Progress;
use crate::files;

/// A level's scan stopped by a bound, or by its scratch file.
enum ScanError {
    Spill(SpillError),
    Io(std::io::Error),
}

impl From<SpillError> for ScanError {
    fn from(e: SpillError) -> ScanError {
        ScanError::Spill(e)
    }
}

impl From<std::io::Error> for ScanError {
    fn from(e: std::io::Error) -> ScanError {
        ScanError::Io(e)
    }
}

impl Run {
    /// Solves level `n`: its values (South's positions first) and the working memory's peak.
    /// The scan lists each position's in-level successors in a scratch file of the directory
    /// (removed when the level is done, however it ends), from which the predecessors are built
    /// ([`super::lean_level`]).
    pub(super) fn solve_level(
        &mut self,
        n: u32,
        file: &PositionsFile,
        lower: &Lower,
        done: &mut u64,
        total: u64,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<(Vec<i8>, u64), SpillError> {
        let south_count = file.counts()[0] as usize;
        let m = south_count + file.counts()[1] as usize;
        let path = self.dir.join(format!("succ-{n:03}.mov"));
        let bytes = file.quiet * 4;
        self.bounds.check_disk(bytes, || format!("level {n}'s {bytes} bytes of in-level moves"))?;
        let mut tmp = files::Temporary::create(&path).map_err(|e| io_error(&path, e, 0, 0))?;
        let scanned = self.scan_level(n, file, lower, &mut tmp, (done, total), progress);
        let (exit, mut left, degrees, mut peak) = scanned.map_err(|e| match e {
            ScanError::Spill(e) => e,
            ScanError::Io(e) => io_error(tmp.path(), e, self.bounds.disk, bytes),
        })?;
        let (edges, big) = (degrees.edges(), degrees.big());
        self.bounds.disk += edges * 4;
        let both_at_once = forcers_at_once(m, edges, big, self.bounds.opts.max_memory);
        let working = solve_bytes(m, edges, big, both_at_once);
        peak = self.bounds.check_memory(working, n, *done, "solved")?.max(peak);
        let read =
            files::open_regular(tmp.path()).and_then(|mut f| Preds::build(degrees, &left, &mut f));
        let preds =
            read.map_err(|e| SpillError::BadFile(format!("{}: {e}", tmp.path().display())))?;
        drop(tmp);
        self.bounds.disk -= edges * 4;
        let stack = stack_entries(m);
        let mut u = lean_values(n, south_count, &exit, &mut left, &preds, stack, both_at_once);
        for v in &mut u[south_count..] {
            *v = -*v;
        }
        Ok((u, peak))
    }

    /// The best exits in South's terms and the degrees of level `n`, its in-level moves
    /// written to `tmp` and counted by child, and the working memory's peak.
    fn scan_level(
        &mut self,
        n: u32,
        file: &PositionsFile,
        lower: &Lower,
        tmp: &mut files::Temporary,
        (done, total): (&mut u64, u64),
        progress: &mut dyn FnMut(Progress),
    ) -> Result<(Vec<i8>, Vec<u8>, InDegrees, u64), ScanError> {
        let sets = [file.set(0), file.set(1)];
        let m = sets[0].len() + sets[1].len();
        // The wave's ranks and its chunks' results, with at most a move a pit.
        let wave = (WAVE.min(m) * (8 + 2 + 4 * self.rules.pits_per_row as usize)) as u64;
        let peak = self.bounds.check_memory(scan_bytes(m) + wave, n, *done, "solved")?;
        let (mut exit, mut degree) = (Vec::with_capacity(m), Vec::with_capacity(m));
        let mut degrees = InDegrees::new(m);
        let out = tmp.file().expect("a new temporary file is open");
        let mut out = std::io::BufWriter::with_capacity(1 << 20, out);
        for (side, set) in sets.iter().enumerate() {
            let mut start = 0;
            while start < set.len() {
                let end = (start + WAVE).min(set.len());
                let ranks: Vec<u64> = set.range(start, end).collect();
                let parts: Vec<(Vec<i8>, Vec<u8>, Vec<u32>)> = ranks
                    .par_chunks(CHUNK)
                    .map(|chunk| self.scan_chunk(n, side, chunk, &sets, lower))
                    .collect();
                for (e, d, s) in parts {
                    exit.extend_from_slice(&e);
                    degree.extend_from_slice(&d);
                    let bytes: Vec<u8> = s.iter().flat_map(|t| t.to_le_bytes()).collect();
                    out.write_all(&bytes)?;
                    s.iter().for_each(|&t| degrees.add(t));
                }
                *done += (end - start) as u64;
                progress(Progress { phase: "solving", level: n, done: *done, total });
                start = end;
            }
        }
        out.flush()?;
        Ok((exit, degree, degrees, peak))
    }

    /// The best exit in South's terms ([`NO_EXIT`]: none) and the in-level successors of
    /// positions of one side.
    fn scan_chunk(
        &self,
        n: u32,
        side: usize,
        ranks: &[u64],
        sets: &[RankSetRef; 2],
        lower: &Lower,
    ) -> (Vec<i8>, Vec<u8>, Vec<u32>) {
        let (mut exit, mut degree, mut succ) =
            (Vec::with_capacity(ranks.len()), Vec::with_capacity(ranks.len()), Vec::new());
        let mover = Side::from_index(side);
        let sign: i32 = if side == 0 { 1 } else { -1 };
        let south_count = sets[0].len();
        let mut unranker = self.codec.unranker(n);
        for &rank in ranks {
            let pos = unranker.position(Key::new(rank, side));
            let mut best: Option<i32> = None;
            let mut any = false;
            let mut d = 0u8;
            for (_, child, summary) in pos.legal_children() {
                any = true;
                let key = self.codec.key(&child);
                let (cs, crank) = (key.side(), key.rank());
                let cl = child.on_board();
                if cl == n {
                    let ci = sets[cs]
                        .index(crank)
                        .expect("children of enumerated positions are enumerated");
                    succ.push((ci + cs * south_count) as u32);
                    d += 1;
                } else {
                    let l = cl as usize;
                    let ci = lower.sets[l][cs]
                        .index(crank)
                        .expect("children of enumerated positions are enumerated");
                    let at = ci + if cs == 1 { lower.sets[l][0].len() } else { 0 };
                    let v = summary.net_gain(mover) - lower.values[l].get(at);
                    best = Some(best.map_or(v, |b| b.max(v)));
                }
            }
            if !any {
                best = Some(-(n as i32));
            }
            // Within -n..=n, n <= MAX_COUNTERS = 127: a byte, NO_EXIT outside.
            exit.push(best.map_or(NO_EXIT, |b| (sign * b) as i8));
            degree.push(d);
        }
        (exit, degree, succ)
    }
}
