//! Integer and symbol columns as Parquet dictionary pages with bit-packed keys, built directly.
//!
//! The simulator's integer columns hold values of small range (a round's captures, open pits,
//! match ids within a part file). For such a column the dictionary is simply the range
//! `min..=max` and each value's key is `value - min`, bit-packed at the range's width: one pass
//! over the values. A symbol column's dictionary is its few symbols. This is the standard
//! `RLE_DICTIONARY` encoding that every Parquet reader reads; polars's general writer produced
//! the same kind of file at 3.4 times the cost (it searches every column for runs and makes a
//! zstd context per page), which made it the largest part of a round-detail run.

use std::io;

use polars_parquet::parquet::compression::Compression;
use polars_parquet::parquet::encoding::Encoding;
use polars_parquet::parquet::metadata::Descriptor;
use polars_parquet::parquet::page::{
    CompressedDataPage, CompressedDictPage, CompressedPage, DataPageHeader, DataPageHeaderV1,
};
use polars_parquet::parquet::schema::types::PrimitiveType;
use polars_parquet::parquet::statistics::{
    BinaryStatistics, ParquetStatistics, PrimitiveStatistics,
};
use polars_parquet::parquet::CowBuffer;

/// Compresses pages with zstd, reusing one compression context (polars makes a new one for
/// every page, which costs more than compressing a small page).
pub(super) struct PageCompressor {
    level: i32,
    zstd: zstd::bulk::Compressor<'static>,
}

impl PageCompressor {
    pub fn new(level: i32) -> io::Result<PageCompressor> {
        Ok(PageCompressor { level, zstd: zstd::bulk::Compressor::new(level)? })
    }

    pub fn level(&self) -> i32 {
        self.level
    }

    fn compress(&mut self, input: &[u8]) -> io::Result<Vec<u8>> {
        let mut out = Vec::with_capacity(zstd::zstd_safe::compress_bound(input.len()));
        self.zstd.compress_to_buffer(input, &mut out)?;
        Ok(out)
    }

    fn dictionary(
        &mut self,
        buffer: Vec<u8>,
        entries: usize,
        sorted: bool,
    ) -> io::Result<CompressedPage> {
        let compressed = self.compress(&buffer)?;
        Ok(CompressedPage::Dict(CompressedDictPage::new(
            CowBuffer::Owned(compressed),
            Compression::Zstd,
            buffer.len(),
            entries,
            sorted,
        )))
    }

    /// A data page of `values` values (nulls included) of an `RLE_DICTIONARY` column.
    fn data(
        &mut self,
        buffer: Vec<u8>,
        values: usize,
        type_: &PrimitiveType,
        nullable: bool,
        statistics: Option<ParquetStatistics>,
    ) -> io::Result<CompressedPage> {
        let compressed = self.compress(&buffer)?;
        let header = DataPageHeader::V1(DataPageHeaderV1 {
            num_values: values as i32,
            encoding: Encoding::RleDictionary.into(),
            definition_level_encoding: Encoding::Rle.into(),
            repetition_level_encoding: Encoding::Rle.into(),
            statistics,
        });
        let descriptor = Descriptor {
            primitive_type: type_.clone(),
            max_def_level: nullable as i16,
            max_rep_level: 0,
        };
        let page = CompressedDataPage::new(
            header,
            CowBuffer::Owned(compressed),
            Compression::Zstd,
            buffer.len(),
            descriptor,
            values,
        );
        Ok(CompressedPage::Data(page))
    }
}

/// Most dictionary entries: a wider column is left to the general encoder.
const MAX_RANGE: u64 = 1 << 16;
/// Values per data page (a multiple of 8, as bit-packed runs hold groups of 8 values).
const PAGE_VALUES: usize = 1 << 20;

/// An integer column type, as stored in a Parquet INT32 (u32) or INT64 (u64, i64) column.
pub(super) trait IntValue: Copy + Ord {
    const INT64: bool;
    /// `self - min` for `self >= min`.
    fn offset(self, min: Self) -> u64;
    /// The physical value, if the physical type orders it as the logical one.
    fn physical(self) -> Option<i64>;
}

impl IntValue for u32 {
    const INT64: bool = false;
    fn offset(self, min: u32) -> u64 {
        (self - min) as u64
    }
    fn physical(self) -> Option<i64> {
        (self <= i32::MAX as u32).then_some(self as i64)
    }
}

impl IntValue for u64 {
    const INT64: bool = true;
    fn offset(self, min: u64) -> u64 {
        self - min
    }
    fn physical(self) -> Option<i64> {
        i64::try_from(self).ok()
    }
}

impl IntValue for i64 {
    const INT64: bool = true;
    fn offset(self, min: i64) -> u64 {
        self.wrapping_sub(min) as u64
    }
    fn physical(self) -> Option<i64> {
        Some(self)
    }
}

/// The pages (dictionary first, min/max statistics on each data page) of a required integer
/// column, or None when the column is empty
/// or its range is too wide for a dictionary.
pub(super) fn dictionary_pages<T: IntValue>(
    values: &[T],
    type_: &PrimitiveType,
    zstd: &mut PageCompressor,
) -> io::Result<Option<Vec<CompressedPage>>> {
    let Some((min, max)) = min_max(values) else { return Ok(None) };
    let (Some(low), Some(high)) = (min.physical(), max.physical()) else { return Ok(None) };
    let range = max.offset(min);
    // A dictionary of more than a quarter of the column's length (ids, running totals) makes
    // a larger file than polars's plain or delta encodings.
    if range >= MAX_RANGE || range as usize * 4 >= values.len() {
        return Ok(None);
    }
    let width = (u64::BITS - range.leading_zeros()).max(1);
    let mut pages = Vec::with_capacity(1 + values.len().div_ceil(PAGE_VALUES));
    pages.push(zstd.dictionary(
        dictionary(low, high, T::INT64),
        (high - low + 1) as usize,
        true,
    )?);
    for chunk in values.chunks(PAGE_VALUES) {
        let mut buffer = Vec::with_capacity(8 + chunk.len().div_ceil(8) * width as usize);
        buffer.push(width as u8);
        bit_pack(chunk.iter().map(|v| v.offset(min)), chunk.len(), width, &mut buffer);
        let (lo, hi) = if chunk.len() == values.len() {
            (min, max)
        } else {
            min_max(chunk).expect("chunks are not empty")
        };
        let statistics = page_statistics(
            type_,
            lo.physical().expect("within the column's range"),
            hi.physical().expect("within the column's range"),
        );
        pages.push(zstd.data(buffer, chunk.len(), type_, false, Some(statistics))?);
    }
    Ok(Some(pages))
}

fn min_max<T: IntValue>(values: &[T]) -> Option<(T, T)> {
    let first = *values.first()?;
    Some(values.iter().fold((first, first), |(lo, hi), &v| (lo.min(v), hi.max(v))))
}

/// The pages (dictionary first) of a nullable column of symbols, each one of `symbols`, or None
/// when every value is null. The dictionary holds the symbols that occur, in byte order, so
/// keys are ranks; a page starts with the definition levels (1: a symbol, 0: null).
pub(super) fn symbol_pages(
    values: &[Option<&'static str>],
    symbols: &[&'static str],
    type_: &PrimitiveType,
    zstd: &mut PageCompressor,
) -> io::Result<Option<Vec<CompressedPage>>> {
    assert!(symbols.len() <= 64, "a symbol's index is a bit of a u64");
    // Each value's index in `symbols` (u8::MAX for null); the same &'static str repeats, so
    // comparing pointers first skips most string comparisons.
    let mut last: (&str, u8) = ("", u8::MAX);
    let mut present = 0u64;
    let indexes: Vec<u8> = values
        .iter()
        .map(|v| match v {
            None => u8::MAX,
            Some(s) => {
                if !std::ptr::eq(*s, last.0) {
                    let i = symbols
                        .iter()
                        .position(|k| k == s)
                        .unwrap_or_else(|| panic!("{s:?} is not a symbol"));
                    last = (s, i as u8);
                }
                present |= 1 << last.1;
                last.1
            }
        })
        .collect();
    let mut used: Vec<usize> = (0..symbols.len()).filter(|&i| present >> i & 1 == 1).collect();
    if used.is_empty() {
        return Ok(None);
    }
    used.sort_by_key(|&i| symbols[i]);
    let mut rank = [0u64; 64];
    for (r, &i) in used.iter().enumerate() {
        rank[i] = r as u64;
    }
    let width = (u64::BITS - (used.len() as u64 - 1).leading_zeros()).max(1);

    let mut dict = Vec::new();
    for &i in &used {
        dict.extend_from_slice(&(symbols[i].len() as u32).to_le_bytes());
        dict.extend_from_slice(symbols[i].as_bytes());
    }
    let mut pages = vec![zstd.dictionary(dict, used.len(), true)?];
    for chunk in indexes.chunks(PAGE_VALUES) {
        let (mut nulls, mut in_chunk) = (0, 0u64);
        for &i in chunk {
            if i == u8::MAX {
                nulls += 1;
            } else {
                in_chunk |= 1 << i;
            }
        }
        let mut buffer = Vec::with_capacity(16 + chunk.len().div_ceil(8) * (1 + width as usize));
        // Definition levels, V1: their byte length, then one run.
        buffer.extend_from_slice(&[0; 4]);
        if nulls == 0 {
            uleb128((chunk.len() as u64) << 1, &mut buffer);
            buffer.push(1);
        } else {
            bit_pack(chunk.iter().map(|&i| (i != u8::MAX) as u64), chunk.len(), 1, &mut buffer);
        }
        let levels = (buffer.len() - 4) as u32;
        buffer[..4].copy_from_slice(&levels.to_le_bytes());
        buffer.push(width as u8);
        bit_pack(
            chunk.iter().filter(|&&i| i != u8::MAX).map(|&i| rank[i as usize]),
            chunk.len() - nulls,
            width,
            &mut buffer,
        );
        // `used` is in byte order.
        let chunk_used: Vec<&str> =
            used.iter().filter(|&&i| in_chunk >> i & 1 == 1).map(|&i| symbols[i]).collect();
        let statistics = BinaryStatistics {
            primitive_type: type_.clone(),
            null_count: Some(nulls as i64),
            distinct_count: None,
            min_value: chunk_used.first().map(|s| s.as_bytes().to_vec()),
            max_value: chunk_used.last().map(|s| s.as_bytes().to_vec()),
        }
        .serialize();
        pages.push(zstd.data(buffer, chunk.len(), type_, true, Some(statistics))?);
    }
    Ok(Some(pages))
}

fn uleb128(mut value: u64, out: &mut Vec<u8>) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// The dictionary `low..=high`, PLAIN-encoded.
fn dictionary(low: i64, high: i64, int64: bool) -> Vec<u8> {
    let n = (high - low + 1) as usize;
    let mut buffer = Vec::with_capacity(n * if int64 { 8 } else { 4 });
    for v in low..=high {
        if int64 {
            buffer.extend_from_slice(&v.to_le_bytes());
        } else {
            buffer.extend_from_slice(&(v as i32).to_le_bytes());
        }
    }
    buffer
}

fn page_statistics(type_: &PrimitiveType, low: i64, high: i64) -> ParquetStatistics {
    use polars_parquet::parquet::schema::types::PhysicalType;
    if type_.physical_type == PhysicalType::Int32 {
        let s = PrimitiveStatistics::<i32> {
            primitive_type: type_.clone(),
            null_count: Some(0),
            distinct_count: None,
            min_value: Some(low as i32),
            max_value: Some(high as i32),
        };
        s.serialize()
    } else {
        let s = PrimitiveStatistics::<i64> {
            primitive_type: type_.clone(),
            null_count: Some(0),
            distinct_count: None,
            min_value: Some(low),
            max_value: Some(high),
        };
        s.serialize()
    }
}

/// Appends one bit-packed run of the `count` `keys` (RLE/bit-packing hybrid): a ULEB128 header
/// `groups << 1 | 1`, then the keys least-significant bit first, padded with zero keys to a
/// whole group of 8. Every key must be below `1 << width`, and `width <= 32`.
pub(super) fn bit_pack(
    keys: impl Iterator<Item = u64>,
    count: usize,
    width: u32,
    out: &mut Vec<u8>,
) {
    let groups = count.div_ceil(8);
    uleb128((groups as u64) << 1 | 1, out);
    let start = out.len();
    let (mut acc, mut bits) = (0u64, 0u32);
    for key in keys {
        // bits < 32 before the shift and width <= 32: the key fits in the accumulator.
        acc |= key << bits;
        bits += width;
        if bits >= 32 {
            out.extend_from_slice(&(acc as u32).to_le_bytes());
            acc >>= 32;
            bits -= 32;
        }
    }
    while bits > 0 {
        out.push(acc as u8);
        acc >>= 8;
        bits = bits.saturating_sub(8);
    }
    out.resize(start + groups * width as usize, 0);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Unpacks LSB-first keys, independently of the packer's accumulator.
    fn unpack(bytes: &[u8], width: u32, n: usize) -> Vec<u64> {
        let bit = |at: usize| ((bytes[at / 8] >> (at % 8)) & 1) as u64;
        (0..n)
            .map(|i| (0..width as usize).map(|b| bit(i * width as usize + b) << b).sum())
            .collect()
    }

    #[test]
    fn bit_packed_runs_hold_every_key_in_whole_groups() {
        for width in [1, 2, 3, 5, 8, 13, 16, 17, 31, 32] {
            for n in [1usize, 7, 8, 9, 63, 64, 65, 1000] {
                let values: Vec<u64> =
                    (0..n as u64).map(|i| 100 + (i * 2_654_435_761) % (1 << width)).collect();
                let mut out = vec![];
                bit_pack(values.iter().map(|v| v - 100), n, width, &mut out);
                let groups = n.div_ceil(8);
                // ULEB128 header.
                let (mut header, mut shift, mut used) = (0u64, 0, 0);
                for &b in &out {
                    header |= ((b & 0x7f) as u64) << shift;
                    shift += 7;
                    used += 1;
                    if b & 0x80 == 0 {
                        break;
                    }
                }
                assert_eq!(header, (groups as u64) << 1 | 1, "width {width}, n {n}");
                let body = &out[used..];
                assert_eq!(body.len(), groups * width as usize, "width {width}, n {n}");
                let keys = unpack(body, width, groups * 8);
                assert_eq!(
                    keys[..n],
                    values.iter().map(|v| v - 100).collect::<Vec<_>>()[..],
                    "width {width}, n {n}"
                );
                assert!(keys[n..].iter().all(|&k| k == 0), "padding keys are zero");
            }
        }
    }
}
