//! What the benchmark examples share: a board named as the environment names it, and the
//! process's peak memory.

use rajapasu_core::engine::Ruleset;

/// The rules of "P,S[,switch=value...]": P pits a row, S counters a pit, the other switches
/// as `--rule` takes them.
pub fn board_rules(board: &str) -> Result<Ruleset, String> {
    let parts: Vec<&str> = board.split(',').collect();
    let number = |i: usize, what: &str| -> Result<u8, String> {
        let part = parts.get(i).ok_or_else(|| {
            format!("board {board:?} names no {what} (boards are \"P,S[,switch=value...]\")")
        })?;
        part.parse()
            .map_err(|_| format!("board {board:?}: {what} {part:?} is not a number from 0 to 255"))
    };
    let (p, s) = (number(0, "pits per row")?, number(1, "counters per pit")?);
    let mut r = Ruleset::from_assignments(parts[2..].iter().copied())
        .map_err(|e| format!("board {board:?}: {e}"))?;
    r.pits_per_row = p;
    r.seeds_per_pit = s;
    Ok(r)
}

/// The boards of "P,S[,switch=value...];...", each with its name.
#[allow(dead_code)] // Not every example names several boards.
pub fn board_list(boards: &str) -> Result<Vec<(&str, Ruleset)>, String> {
    boards.split(';').map(|board| board_rules(board).map(|r| (board, r))).collect()
}

/// The process's peak resident memory as the kernel reports it ("VmHWM: ... kB").
pub fn peak_rss() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status.lines().find(|l| l.starts_with("VmHWM")).unwrap_or("VmHWM: unknown").to_string()
}
