//! What the operating system says of this process, for the answers that report it (the
//! jobs' JSON and the command line's text): a leaf that imports nothing of the crate, so that
//! every floor above the core may ask it.

/// Peak resident memory of this process (Linux: VmHWM), in bytes.
pub fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
