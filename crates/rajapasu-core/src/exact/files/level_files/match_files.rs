//! The files of a match solve bounded by disk ([`crate::exact::matches::match_spill`]), beside a
//! round's positions files, in the same frame (header naming rules, open pits and level; SHA-256
//! trailer):
//!
//! A moves file, `moves-NNN.mov`: `RJPLMOV1`; the identity; the positions of each side (u64 each),
//! the level's moves (u64); the SHA-256 of the level's positions file (32 bytes); zero bytes to a
//! multiple of 8. Then each position's number of moves (a byte each, positions in the positions
//! file's order, South's first), zero bytes to a multiple of 8, then the moves (u64 each, in the
//! engine's order): bits 0-31 the successor's index within its level, 32-39 its level, 40-47
//! South's captures in the move, 48-55 the local pit.
//!
//! A masks file, `masks-S-NNN.msk` (`N` for North's attractor): `RJPLMSK1`; the identity; the
//! forcer (a byte, 0 South); zero bytes to a multiple of 8; the positions (u64); then one mask a
//! position (two u64, the low word first): bit h is "South holding h off the board, the forcer
//! forces a target end".

use super::*;

const MOVES_MAGIC: &[u8; 8] = b"RJPLMOV1";
const MASKS_MAGIC: &[u8; 8] = b"RJPLMSK1";

pub(crate) fn moves_path(dir: &Path, level: u32) -> PathBuf {
    dir.join(format!("moves-{level:03}.mov"))
}

pub(crate) fn masks_path(dir: &Path, forcer: Side, level: u32) -> PathBuf {
    let f = if forcer == Side::South { 'S' } else { 'N' };
    dir.join(format!("masks-{f}-{level:03}.msk"))
}

/// One move of a moves file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Move {
    pub index: u32,
    pub level: u32,
    pub gain: u32,
    pub pit: u8,
}

impl Move {
    pub(crate) fn encode(self) -> u64 {
        self.index as u64
            | (self.level as u64) << 32
            | (self.gain as u64) << 40
            | (self.pit as u64) << 48
    }
    #[inline]
    pub(crate) fn decode(word: u64) -> Move {
        Move {
            index: word as u32,
            level: (word >> 32) as u8 as u32,
            gain: (word >> 40) as u8 as u32,
            pit: (word >> 48) as u8,
        }
    }
}

/// Writes a level's moves atomically; `degrees` by position, `moves` encoded ([`Move::encode`]).
pub(crate) fn write_moves(
    path: &Path,
    id: &LevelId,
    positions: &PositionsFile,
    degrees: &[u8],
    moves: &[u64],
) -> std::io::Result<u64> {
    let counts = positions.counts();
    let mut head = id.header(MOVES_MAGIC);
    head.extend_from_slice(&counts[0].to_le_bytes());
    head.extend_from_slice(&counts[1].to_le_bytes());
    head.extend_from_slice(&(moves.len() as u64).to_le_bytes());
    head.extend_from_slice(&positions.digest);
    pad8(&mut head);
    let mut size = 0;
    files::write_atomically(path, |f| {
        let mut w = Hashing::buffered(f);
        w.write_all(&head)?;
        let mut d = degrees.to_vec();
        pad8(&mut d);
        w.write_all(&d)?;
        for chunk in moves.chunks(1 << 16) {
            let bytes: Vec<u8> = chunk.iter().flat_map(|x| x.to_le_bytes()).collect();
            w.write_all(&bytes)?;
        }
        size = w.finish()?.0;
        Ok(())
    })?;
    Ok(size)
}

/// A level's moves, mapped.
pub(crate) struct MovesFile {
    map: Mmap,
    degrees: (usize, usize),
    moves: (usize, usize),
}

impl MovesFile {
    /// Opens the moves of the level whose positions are `positions`; `counts[l]` is the
    /// positions of each lower level l (a successor's index is checked against them).
    pub(crate) fn open(
        path: &Path,
        id: &LevelId,
        positions: &PositionsFile,
        counts: &[u64],
    ) -> Result<MovesFile, String> {
        Self::read(path, id, positions, counts).map_err(|why| refused(path, why))
    }

    fn read(
        path: &Path,
        id: &LevelId,
        positions: &PositionsFile,
        counts: &[u64],
    ) -> Result<MovesFile, String> {
        let (map, _) = map_checked(path)?;
        let body = &map[..map.len() - TRAILER];
        let mut f = Fields { bytes: body, at: 0 };
        f.identity(MOVES_MAGIC, id)?;
        let sides = [f.u64()?, f.u64()?];
        if sides != positions.counts() {
            return Err(format!(
                "it holds the moves of {sides:?} positions; the level holds {:?}",
                positions.counts()
            ));
        }
        let total = f.u64()?;
        if f.take(32)? != positions.digest {
            return Err("it was computed from another positions file of this level".into());
        }
        let m = (sides[0] + sides[1]) as usize;
        let start = f.at.div_ceil(8) * 8;
        let moves_at = start.checked_add(m.div_ceil(8) * 8).ok_or("sizes overflow")?;
        let end = total
            .checked_mul(8)
            .and_then(|b| (moves_at as u64).checked_add(b))
            .ok_or("sizes overflow")?;
        if end != body.len() as u64 {
            return Err(format!(
                "its header implies {} bytes, the file holds {}",
                end + TRAILER as u64,
                map.len()
            ));
        }
        let file = MovesFile { map, degrees: (start, m), moves: (moves_at, total as usize) };
        let sum: u64 = file.degrees().iter().map(|&d| d as u64).sum();
        if sum != total {
            return Err(format!("its positions have {sum} moves in all; its header says {total}"));
        }
        let mut here = counts.to_vec();
        here.push(sides[0] + sides[1]);
        if let Some(bad) = file
            .moves()
            .iter()
            .map(|&w| Move::decode(w))
            .find(|mv| here.get(mv.level as usize).is_none_or(|&c| mv.index as u64 >= c))
        {
            return Err(format!(
                "a move leads to position {} of level {}, which does not exist",
                bad.index, bad.level
            ));
        }
        Ok(file)
    }

    /// Each position's number of moves.
    pub(crate) fn degrees(&self) -> &[u8] {
        &self.map[self.degrees.0..self.degrees.0 + self.degrees.1]
    }

    /// The level's moves, encoded ([`Move::decode`]).
    pub(crate) fn moves(&self) -> &[u64] {
        cast_u64(&self.map[self.moves.0..self.moves.0 + self.moves.1 * 8]).expect("8-byte aligned")
    }

    pub(crate) fn count(&self) -> u64 {
        self.moves.1 as u64
    }

    pub(crate) fn bytes(&self) -> u64 {
        self.map.len() as u64
    }
}

fn masks_head(id: &LevelId, forcer: Side, count: u64) -> Vec<u8> {
    let mut head = id.header(MASKS_MAGIC);
    head.push(forcer.index() as u8);
    pad8(&mut head);
    head.extend_from_slice(&count.to_le_bytes());
    head
}

/// The bytes of a masks file of `count` positions.
pub(crate) fn masks_bytes(id: &LevelId, count: u64) -> u64 {
    masks_head(id, Side::South, count).len() as u64 + 16 * count + TRAILER as u64
}

/// Writes a level's masks for `forcer`; the file's size. Masks are scratch, rewritten by every
/// attractor and never resumed from, so they are neither synced nor renamed: a file cut short by
/// a crash fails its checksum when read.
pub(crate) fn write_masks(
    path: &Path,
    id: &LevelId,
    forcer: Side,
    masks: &[u128],
) -> std::io::Result<u64> {
    let head = masks_head(id, forcer, masks.len() as u64);
    let mut f = std::fs::File::create(path)?;
    let mut w = Hashing::buffered(&mut f);
    w.write_all(&head)?;
    for chunk in masks.chunks(1 << 15) {
        let bytes: Vec<u8> = chunk.iter().flat_map(|x| x.to_le_bytes()).collect();
        w.write_all(&bytes)?;
    }
    Ok(w.finish()?.0)
}

/// A level's masks for one forcer, mapped.
pub(crate) struct MasksFile {
    map: Mmap,
    start: usize,
    len: usize,
}

impl MasksFile {
    /// Opens the masks of `forcer` at the level of `id`, which holds `count` positions.
    pub(crate) fn open(
        path: &Path,
        id: &LevelId,
        forcer: Side,
        count: u64,
    ) -> Result<MasksFile, String> {
        Self::read(path, id, forcer, count).map_err(|why| refused(path, why))
    }

    fn read(path: &Path, id: &LevelId, forcer: Side, count: u64) -> Result<MasksFile, String> {
        let (map, _) = map_checked(path)?;
        let body = &map[..map.len() - TRAILER];
        let mut f = Fields { bytes: body, at: 0 };
        f.identity(MASKS_MAGIC, id)?;
        let side = f.take(1)?[0];
        if side != forcer.index() as u8 {
            return Err(format!(
                "it holds the masks of {}, not {forcer}",
                if side == 0 { Side::South } else { Side::North }
            ));
        }
        f.at = f.at.div_ceil(8) * 8;
        let len = f.u64()?;
        if len != count {
            return Err(format!("it holds the masks of {len} positions; the level holds {count}"));
        }
        let start = f.at;
        if (body.len() - start) as u64 != 16 * count {
            return Err(format!(
                "it holds {} bytes of masks; {count} positions take {}",
                body.len() - start,
                16 * count
            ));
        }
        Ok(MasksFile { map, start, len: count as usize })
    }

    /// The mask of the i-th position (South's first).
    #[inline]
    pub(crate) fn get(&self, i: usize) -> u128 {
        debug_assert!(i < self.len);
        let at = self.start + 16 * i;
        u128::from_le_bytes(self.map[at..at + 16].try_into().expect("16 bytes"))
    }
}
