//! The perfect_play study (`solve --study`): for every board of 2..=P pits a row and 1..=S
//! counters a pit, the perfect-play value of round 1 (R15) within a per-board budget of
//! positions and memory, beside the round-1 starter's win rate under random play (the
//! simulator, same board), the outcome of a match under perfect round play with either
//! tie-break, and the perfect-match value (R17) where the match table fits. Everything but the
//! timings (frontier.csv) is the same on every rerun. Its vocabulary: `mod.rs`.

use std::ops::ControlFlow;
use std::time::Instant;

use crate::engine::Ruleset;
use crate::exact::ExactStore;

use super::{PerfectPlayError, PerfectPlayEvent, PerfectPlayRun, PerfectPlayStudy};

/// Runs `study`, the match tables from `store` (None: no tables directory, no match values),
/// telling `watch` as it goes; writes its files.
pub fn run(
    study: &PerfectPlayStudy,
    store: Option<&ExactStore>,
    watch: &mut dyn FnMut(PerfectPlayEvent) -> ControlFlow<()>,
) -> Result<PerfectPlayRun, PerfectPlayError> {
    let request = study.request();
    let dir = &request.out;
    std::fs::create_dir_all(dir).map_err(|e| {
        PerfectPlayError::Failed(format!("{}: cannot create the directory: {e}", dir.display()))
    })?;
    let started = Instant::now();
    if watch(PerfectPlayEvent::Started).is_break() {
        return Err(PerfectPlayError::Stopped);
    }
    let (mut rows, mut frontier) = (Vec::new(), Vec::new());
    for p in 2..=request.max_pits_per_row {
        for s in 1..=request.max_seeds_per_pit {
            let rules = Ruleset { pits_per_row: p, seeds_per_pit: s, ..request.rules };
            let (row, timing) = super::board::board(request, rules, store, watch)?;
            if watch(PerfectPlayEvent::Board { row: &row, frontier: timing.as_ref() }).is_break() {
                return Err(PerfectPlayError::Stopped);
            }
            rows.push(row);
            frontier.extend(timing);
        }
    }
    let written = super::files::write(request, &rows, &frontier)?;
    Ok(PerfectPlayRun { rows, frontier, written, seconds: started.elapsed().as_secs_f64() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::solve::perfect_play::PerfectPlayRequest;
    use crate::exact::StoreSettings;
    use crate::io::Formats;

    fn request(out: &std::path::Path) -> PerfectPlayRequest {
        PerfectPlayRequest {
            rules: Ruleset::default(),
            max_pits_per_row: 2,
            max_seeds_per_pit: 2,
            max_memory: 1 << 26,
            max_positions: None,
            matches: 20,
            seed: 1,
            out: out.to_path_buf(),
            format: Formats::Csv,
            command: "test".into(),
            tables_source: "the store".into(),
        }
    }

    #[test]
    fn a_bad_study_request_names_its_field() {
        let good = request(std::path::Path::new("unused"));
        for (bad, field) in [
            (PerfectPlayRequest { max_pits_per_row: 1, ..good.clone() }, "max_pits_per_row"),
            (PerfectPlayRequest { max_seeds_per_pit: 13, ..good.clone() }, "max_seeds_per_pit"),
            (PerfectPlayRequest { max_memory: 0, ..good.clone() }, "max_memory"),
            (PerfectPlayRequest { matches: 0, ..good.clone() }, "matches"),
        ] {
            let e = bad.validate().unwrap_err();
            assert_eq!(e.field, field, "{e}");
            assert!(!e.message.contains("--"), "{e}");
        }
        assert!(good.validate().is_ok());
    }

    /// Each board's round-1 value is its round solve's (2x1: +4, 2x2: +8, the golden
    /// solve.json's), its match value comes from the store (none without one), and a caller's
    /// Break stops the study before its files.
    #[test]
    fn the_study_reports_every_board_and_stops_when_asked() {
        let dir = tempfile::tempdir().unwrap();
        let store = ExactStore::new(StoreSettings {
            tables: dir.path().join("tables"),
            ..StoreSettings::default()
        });
        let (mut boards, mut solving) = (Vec::new(), 0);
        let done = run(
            &request(&dir.path().join("with")).validate().unwrap(),
            Some(&store),
            &mut |event| {
                match event {
                    PerfectPlayEvent::Solving(_) => solving += 1,
                    PerfectPlayEvent::Board { row, .. } => {
                        boards.push((row.pits_per_row, row.seeds_per_pit))
                    }
                    _ => {}
                }
                ControlFlow::Continue(())
            },
        )
        .unwrap();
        assert_eq!((boards, solving), (vec![(2, 1), (2, 2)], 2));
        let values: Vec<_> = done.rows.iter().map(|r| (r.value, r.match_value)).collect();
        assert_eq!(values, [(Some(4), Some("win")), (Some(8), Some("win"))]);
        assert_eq!((done.boards_solved(), done.frontier.len()), (2, 2));
        assert!(
            done.written.iter().all(|p| p.is_file()) && done.written.len() == 5,
            "{:?}",
            done.written
        );
        let alone = run(&request(&dir.path().join("alone")).validate().unwrap(), None, &mut |_| {
            ControlFlow::Continue(())
        })
        .unwrap();
        assert!(alone.rows.iter().all(|r| r.match_value.is_none() && r.value.is_some()));
        let stopped =
            run(&request(&dir.path().join("stopped")).validate().unwrap(), None, &mut |event| {
                match event {
                    PerfectPlayEvent::Board { .. } => ControlFlow::Break(()),
                    _ => ControlFlow::Continue(()),
                }
            });
        assert!(matches!(stopped, Err(PerfectPlayError::Stopped)));
        assert!(!dir.path().join("stopped/summary.json").exists());
    }
}
