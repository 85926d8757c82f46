//! Sizes of memory and disk as the front ends take them (`--max-memory 4G`, the Python
//! module's `max_memory="512M"`): bytes, or a number with K, M, G or T (powers of 1024),
//! optionally followed by B or iB. Front-end syntax that both front ends share, kept in a leaf
//! that imports nothing of the crate but the core's default, so neither reaches the other.

use std::fmt;
use std::str::FromStr;

/// A number of bytes, more than 0, written as people write sizes (see the module).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size(pub u64);

impl Size {
    /// The memory a solve may use unless told otherwise ([`crate::exact::DEFAULT_MAX_MEMORY`]).
    pub const DEFAULT_MEMORY: Size = Size(crate::exact::DEFAULT_MAX_MEMORY);

    pub fn bytes(self) -> u64 {
        self.0
    }
}

/// Parses a size: bytes, or a number with K, M, G or T (powers of 1024), optionally followed
/// by B or iB; the error says what is wrong and what is allowed.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let bad = || {
        format!("bad memory size '{text}': expected bytes or a number with K, M, G or T (binary units), e.g. 512M, 4G")
    };
    let upper = t.to_ascii_uppercase();
    let body = upper.trim_end_matches("IB").trim_end_matches('B');
    let (number, unit) = match body.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&body[..i], Some(c)),
        _ => (body, None),
    };
    let shift = match unit {
        None => 0,
        Some('K') => 10,
        Some('M') => 20,
        Some('G') => 30,
        Some('T') => 40,
        Some(_) => return Err(bad()),
    };
    let v: f64 = number.trim().parse().map_err(|_| bad())?;
    if v == 0.0 {
        return Err(format!("'{text}' is 0 bytes: a size must be more than 0"));
    }
    if !v.is_finite() || v < 0.0 {
        return Err(bad());
    }
    let bytes = v * (1u64 << shift) as f64;
    if bytes >= u64::MAX as f64 {
        return Err(bad());
    }
    Ok(bytes as u64)
}

impl FromStr for Size {
    type Err = String;

    fn from_str(text: &str) -> Result<Size, String> {
        parse_size(text).map(Size)
    }
}

/// The largest unit that divides the size exactly (4 << 30 as "4G"), else bytes: a default
/// shown in `--help` reads as it is typed.
impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = [(40, "T"), (30, "G"), (20, "M"), (10, "K")]
            .into_iter()
            .find(|(shift, _)| self.0.is_multiple_of(1u64 << shift));
        match unit {
            Some((shift, name)) => write!(f, "{}{name}", self.0 >> shift),
            None => write!(f, "{}", self.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_sizes() {
        assert_eq!(parse_size("4G"), Ok(4 << 30));
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("1.5k"), Ok(1536));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("2TB"), Ok(2 << 40));
        for bad in ["", "G", "-1G", "4X", "lots"] {
            assert!(parse_size(bad).unwrap_err().contains("512M"), "{bad}");
        }
        for zero in ["0", "0K", "0.0G"] {
            assert!(
                parse_size(zero).unwrap_err().ends_with("is 0 bytes: a size must be more than 0"),
                "{zero}"
            );
        }
    }

    #[test]
    fn a_size_is_shown_as_it_is_typed() {
        assert_eq!(Size::DEFAULT_MEMORY.to_string(), "4G");
        for text in ["512M", "1536", "3K", "2T"] {
            assert_eq!(text.parse::<Size>().unwrap().to_string(), text);
        }
        assert_eq!("1.5k".parse::<Size>().unwrap().to_string(), "1536");
    }
}
