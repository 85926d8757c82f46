//! The temporary files a killed writer leaves in the tables directory and in a spilled solve's
//! directories, and their removal.

use std::path::Path;

use crate::exact::files::level_files::{LEVEL_PREFIX, POSITIONS_EXTENSION, VALUES_EXTENSION};
use crate::files;

/// A round's values file is `values-HASH-SxN[-keptK-STARTER].bin` (named here, beside the
/// temporaries' names, so that the files below the solvers import nothing from them).
pub(crate) const ROUND_VALUES_PREFIX: &str = "values-";
pub(crate) const ROUND_VALUES_EXTENSION: &str = ".bin";

/// Whether `name` is a temporary file of the tables directory's writers (see
/// [`files::Temporary`]): `.NAME.tmp-…` for a match table (`match-HASH.json`), round values
/// (`values-HASH-….bin`), or a spilled solve's level, moves, masks or state file, or a level's
/// in-level moves while it is solved (`succ-NNN.mov`, scratch never renamed).
fn is_table_temporary(name: &str) -> bool {
    let Some((target, _)) = name.strip_prefix('.').and_then(|n| n.rsplit_once(".tmp-")) else {
        return false;
    };
    let named = |prefix: &str, extensions: &[&str]| {
        target.starts_with(prefix) && extensions.iter().any(|e| target.ends_with(e))
    };
    named("match-", &[".json"])
        || named(ROUND_VALUES_PREFIX, &[ROUND_VALUES_EXTENSION])
        || named(LEVEL_PREFIX, &[POSITIONS_EXTENSION, VALUES_EXTENSION])
        || named("moves-", &[".mov"])
        || named("succ-", &[".mov"])
        || named("masks-", &[".msk"])
        || named("run-", &[".keys"])
        || named("pending-", &[".run"])
        || target == "state.json"
}

/// Removes the temporary files a killed writer left in the tables directory (a values file's can
/// be gigabytes): only names of the pattern [`is_table_temporary`] gives, only regular files, and
/// only those no live writer holds (a writer holds a lock on its temporary file while it writes,
/// released when it ends, however it ends). Best effort: what cannot be removed stays.
pub fn remove_stale_temporaries(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_str().is_some_and(is_table_temporary) {
            continue;
        }
        let path = entry.path();
        if files::is_abandoned_temporary(&path) {
            let _ = std::fs::remove_file(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_writers_temporaries_no_writer_holds_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let names = [
            ".match-abc.json.tmp-1",
            ".values-abc-3x3.bin.tmp-2",
            ".level-007.pos.tmp-3",
            ".moves-007.mov.tmp-4",
            ".masks-S-007.msk.tmp-5",
            ".state.json.tmp-6",
            ".pending-030.00002.run.tmp-8",
            ".succ-012.mov.tmp-9.mov",
        ];
        let kept = ["match-abc.json", ".notes.txt.tmp-7", "moves-007.mov", ".moves-007.mov"];
        for name in names.iter().chain(&kept) {
            std::fs::write(dir.path().join(name), b"x").unwrap();
        }
        remove_stale_temporaries(dir.path());
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        let mut expected: Vec<String> = kept.iter().map(|s| s.to_string()).collect();
        expected.sort();
        assert_eq!(left, expected);
    }
}
