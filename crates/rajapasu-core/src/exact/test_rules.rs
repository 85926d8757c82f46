//! The rules the exact layer's tests build: a board of `p` pits a row and `s` counters a pit,
//! with other switches set by `extra` (`name=value`, as `--rule` takes them).

use crate::engine::Ruleset;

pub(crate) fn rules(p: u8, s: u8, extra: &[&str]) -> Ruleset {
    let mut r = Ruleset::from_assignments(extra.iter().copied()).unwrap();
    r.pits_per_row = p;
    r.seeds_per_pit = s;
    r
}
