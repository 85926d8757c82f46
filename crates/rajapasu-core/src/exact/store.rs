//! The store of exact results shared by whoever needs them in one run: the perfect players,
//! the exact evaluation of the metrics and the solve commands. A front end creates one
//! ([`ExactStore::new`]) and passes it down as an `Arc`; nothing is kept process-wide.
//!
//! It holds the settings (the tables directory, the memory for cached tables, the solver's
//! limits), the match table of each ruleset (small, always kept; read from the tables directory
//! or solved there on first use), and within the memory budget the round solutions (R15), the
//! round graphs and the values of every round position times South's reserve
//! ([`RoundValues`]), least recently used dropped first. Each result is computed once per key
//! while it stays cached: two threads asking for different boards compute them at the same
//! time, two asking for the same one wait for one computation.

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::Arc;

use super::analysis::{RoundContext, RoundMatch};
use super::matches::match_solver::{reserve_span, Ending, MatchError, MatchProgress, MatchTable};
use super::matches::round_graph::{GraphBudget, RoundGraph, ATTRACTOR_BYTES};
use super::matches::round_values::{Reserves, RoundValues, RoundValuesError};
use super::once_cache::OnceCache;
use super::round::solver::{SendWatch, Solution, SolveError, SolveOptions, Watch};
use super::round::spill::SpillOptions;
use crate::engine::{BySide, NextStarter, Ruleset, Side};

/// Default memory for the round tables kept in memory.
pub const DEFAULT_CACHE_BYTES: u64 = 8 << 30;

/// What an [`ExactStore`] is created with.
#[derive(Clone, Debug)]
pub struct StoreSettings {
    /// Where match tables and large round values are read and saved.
    pub tables: PathBuf,
    /// Memory for the round results kept in memory (the match tables are small and always kept).
    pub cache_bytes: u64,
    /// The solver's limits for the match tables, round values and the perfect players' rounds.
    pub solve: SolveOptions,
    /// Solve match tables with their round graphs on disk, within these bounds
    /// ([`super::load_or_solve_spilled`]); None: in memory, within `solve`'s.
    pub spill: Option<SpillOptions>,
}

impl Default for StoreSettings {
    /// The default tables directory ([`super::default_tables_dir`]), 8 GiB of cached tables,
    /// 6 GiB per solve.
    fn default() -> StoreSettings {
        StoreSettings {
            // Empty when no directory can be named: the first use is then an error saying so.
            tables: super::default_tables_dir().unwrap_or_default(),
            cache_bytes: DEFAULT_CACHE_BYTES,
            solve: SolveOptions { max_memory: 6 << 30, keep_layers: true, max_positions: u64::MAX },
            spill: None,
        }
    }
}

type RoundKey = (Ruleset, BySide<u8>);

/// See the module's documentation.
pub struct ExactStore {
    settings: StoreSettings,
    tables: OnceCache<Ruleset, MatchTable>,
    rounds: OnceCache<(Ruleset, BySide<u8>, bool), Solution>,
    graphs: OnceCache<RoundKey, RoundGraph>,
    values: OnceCache<(Ruleset, BySide<u8>, Ending), RoundValues>,
}

/// How many results a store has computed (not found cached), by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StoreCounts {
    pub match_tables: u64,
    pub round_solutions: u64,
    pub round_values: u64,
}

impl ExactStore {
    pub fn new(settings: StoreSettings) -> ExactStore {
        let budget = settings.cache_bytes;
        ExactStore {
            settings,
            tables: OnceCache::new(u64::MAX),
            rounds: OnceCache::new(budget),
            graphs: OnceCache::new(budget / 2),
            values: OnceCache::new(budget),
        }
    }

    pub fn settings(&self) -> &StoreSettings {
        &self.settings
    }

    /// What was computed so far (the rest was found in memory).
    pub fn counts(&self) -> StoreCounts {
        StoreCounts {
            match_tables: self.tables.computed(),
            round_solutions: self.rounds.computed(),
            round_values: self.values.computed(),
        }
    }

    /// The match table of `rules`: in memory, else from the tables directory, else solved there.
    pub fn match_table(&self, rules: Ruleset) -> Result<Arc<MatchTable>, MatchError> {
        self.match_table_watched(rules, None, &mut |_| {}).map(|(table, _)| table)
    }

    /// Whether the match table of `rules` is at hand (in memory or in the tables directory),
    /// so that asking for it reads rather than solves.
    pub fn has_match_table(&self, rules: &Ruleset) -> bool {
        self.tables.cached(rules).is_some() || super::table_stored(&self.settings.tables, rules)
    }

    /// The match table of `rules` as [`ExactStore::match_table`] finds it, a solve stopping
    /// after `max_iterations` of its rounds loop (the checkpoint keeps them) and telling
    /// `progress` how it goes; also whether the table was found (in memory or in the tables
    /// directory) rather than solved by this call.
    pub fn match_table_watched(
        &self,
        rules: Ruleset,
        max_iterations: Option<u32>,
        progress: &mut dyn FnMut(MatchProgress),
    ) -> Result<(Arc<MatchTable>, bool), MatchError> {
        let mut found = true;
        let table = self.tables.get_or_compute(&rules, || -> Result<_, MatchError> {
            let opts = SolveOptions { keep_layers: false, ..self.settings.solve };
            if self.settings.tables.as_os_str().is_empty() {
                super::default_tables_dir().map_err(|e| MatchError::Invalid(e.to_string()))?;
            }
            let dir = &self.settings.tables;
            let (table, read) = match self.settings.spill {
                None => super::load_or_solve(rules, dir, opts, max_iterations, progress)?,
                Some(spill) => {
                    super::load_or_solve_spilled(rules, dir, spill, max_iterations, progress)?
                }
            };
            found = read;
            Ok((table, 0))
        })?;
        Ok((table, found))
    }

    /// The match table of `rules` as [`ExactStore::match_table`] finds it, a solve in memory
    /// (never spilled) stopped once `watch` breaks ([`SolveError::Cancelled`]) or beyond the
    /// store's memory ([`SolveError::MemoryLimit`]); nothing is kept or written of a solve that
    /// stops, and the next caller solves again.
    pub fn match_table_cancellable(
        &self,
        rules: Ruleset,
        watch: &mut super::MatchWatch,
    ) -> Result<Arc<MatchTable>, MatchError> {
        self.tables.get_or_compute(&rules, || -> Result<_, MatchError> {
            let opts = SolveOptions { keep_layers: false, ..self.settings.solve };
            if self.settings.tables.as_os_str().is_empty() {
                super::default_tables_dir().map_err(|e| MatchError::Invalid(e.to_string()))?;
            }
            let (table, _) =
                super::load_or_solve_watched(rules, &self.settings.tables, opts, watch)?;
            Ok((table, 0))
        })
    }

    /// The R15 solution of the round with `open` pits per side (both starters), solved within
    /// `opts` if it is not cached (a solution that keeps its order serves a caller that does
    /// not need it).
    pub fn round_solution(
        &self,
        rules: Ruleset,
        open: BySide<u8>,
        opts: SolveOptions,
    ) -> Result<Arc<Solution>, SolveError> {
        self.round_solution_watched(rules, open, opts, &mut |_| std::ops::ControlFlow::Continue(()))
    }

    /// [`ExactStore::round_solution`], `watch` hearing a solve of it and able to stop it
    /// ([`SolveError::Cancelled`]; nothing is kept then, and the next caller solves again).
    pub fn round_solution_watched(
        &self,
        rules: Ruleset,
        open: BySide<u8>,
        opts: SolveOptions,
        watch: &mut Watch,
    ) -> Result<Arc<Solution>, SolveError> {
        if !opts.keep_layers {
            if let Some(solution) = self.rounds.cached(&(rules, open, true)) {
                return Ok(solution);
            }
        }
        self.rounds.get_or_compute(&(rules, open, opts.keep_layers), || {
            let roots = [
                super::round_start(rules, open, Side::South),
                super::round_start(rules, open, Side::North),
            ];
            let solution = Solution::solve_watched(&roots, opts, watch)?;
            let bytes = solution.stats().table_bytes;
            Ok((solution, bytes))
        })
    }

    /// The perfect-match values (R17) of the round with `open` pits (R12) under `table`. Under
    /// `next_starter = round_winner` a round's ends lead to states that depend on its start, so
    /// `context` is needed there. Fails with a message naming the figures when the values would
    /// need more than the solver's memory or the round more than its positions.
    pub fn round_match(
        &self,
        table: &MatchTable,
        open: BySide<u8>,
        context: Option<RoundContext>,
    ) -> Result<RoundMatch, RoundValuesError> {
        self.round_match_watched(table, open, context, &mut |_| ControlFlow::Continue(()))
    }

    /// [`ExactStore::round_match`], `watch` hearing the work on the round's values (the graph of
    /// its positions enumerated, then the attractors, see [`super::Progress`]) and able to stop it:
    /// the error is then [`RoundValuesError::Cancelled`], nothing is kept, and the next caller
    /// computes again.
    pub fn round_match_watched(
        &self,
        table: &MatchTable,
        open: BySide<u8>,
        context: Option<RoundContext>,
        watch: &mut SendWatch,
    ) -> Result<RoundMatch, RoundValuesError> {
        let rules = *table.rules();
        let ending = match (rules.next_starter, context) {
            (NextStarter::Collector, _) => Ending::Collector,
            (NextStarter::RoundWinner, Some(c)) => Ending::RoundWinner { kept: c.kept_south, starter: c.starter },
            (NextStarter::RoundWinner, None) => {
                return Err(RoundValuesError::Failed(
                    "under next_starter = round_winner the match values of a position need its round's start \
                     (give the moves from the match's start, or a round's start)"
                        .into(),
                ))
            }
        };
        self.round_values_watched(rules, open, ending, table, watch).map(RoundMatch::new)
    }

    /// The values (R17) of every position of the round with `open` pits per side times South's
    /// reserve, for the round's `ending`, under `table`. Large values are computed once per
    /// tables directory and read after.
    pub(crate) fn round_values_watched(
        &self,
        rules: Ruleset,
        open: BySide<u8>,
        ending: Ending,
        table: &MatchTable,
        watch: &mut SendWatch,
    ) -> Result<Arc<RoundValues>, RoundValuesError> {
        self.values.get_or_compute(&(rules, open, ending), || {
            let graph = self.round_graph(rules, open, ending, watch)?;
            let (lo, hi) = reserve_range(&rules, open, ending, &graph)?;
            let reserves = Reserves { lo, hi };
            let cells = *RoundValues::level_cells(&graph, reserves).last().expect("levels");
            RoundValues::fits(cells, graph.nodes() as u64, open, self.settings.solve.max_memory)?;
            let mut values = RoundValues::load_or_compute(
                &self.settings.tables,
                graph,
                table,
                ending,
                reserves,
                watch,
            )?;
            let mut bytes = values.bytes();
            if let Some(g) = Arc::get_mut(&mut values.graph) {
                g.forget_predecessors();
                bytes += g.bytes();
            }
            Ok((values, bytes))
        })
    }

    /// The graph of a round's positions. Under the collector rule a round's values serve every
    /// state with its open pits, so the graph is built for them alone and kept without its
    /// predecessors; under round_winner one graph serves several endings, so it is cached.
    fn round_graph(
        &self,
        rules: Ruleset,
        open: BySide<u8>,
        ending: Ending,
        watch: &mut SendWatch,
    ) -> Result<Arc<RoundGraph>, RoundValuesError> {
        let solve = SolveOptions { keep_layers: false, ..self.settings.solve };
        // The values' attractors run with the graph in memory, one per side at once.
        let budget = GraphBudget { mask_bytes: ATTRACTOR_BYTES, ..GraphBudget::default() };
        let mut build = || {
            RoundGraph::build_watched(rules, open, solve, budget, watch).map_err(|e| match e {
                SolveError::Cancelled => RoundValuesError::Cancelled,
                e => RoundValuesError::Solve(e),
            })
        };
        match ending {
            Ending::Collector => Ok(Arc::new(build()?)),
            Ending::RoundWinner { .. } => self.graphs.get_or_compute(&(rules, open), || {
                let graph = build()?;
                let bytes = graph.bytes();
                Ok((graph, bytes))
            }),
        }
    }
}

/// South's reserves in a round: its kept reserve (R12) plus captures. None: no match reaches a
/// round with these open pits (a set-up position may name one), so it has no match values.
fn reserve_range(
    rules: &Ruleset,
    open: BySide<u8>,
    ending: Ending,
    graph: &RoundGraph,
) -> Result<(u32, u32), String> {
    let total = rules.total_counters();
    let seeds = rules.seeds_per_pit as u32;
    let span = match ending {
        Ending::Collector => reserve_span(
            super::state_holdings(rules)
                .filter(|&h| super::open_pits(rules, h) == open)
                .map(|h| h - open[Side::South] as u32 * seeds),
            graph.on_board(),
            total,
        ),
        Ending::RoundWinner { kept, .. } => {
            reserve_span(std::iter::once(kept), graph.on_board(), total)
        }
    };
    span.map(|r| r.into_inner()).ok_or_else(|| {
        format!(
            "no match reaches a round with {} open pits for South and {} for North (R12): no holdings open them both",
            open[Side::South],
            open[Side::North]
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(dir: &std::path::Path) -> Arc<ExactStore> {
        Arc::new(ExactStore::new(StoreSettings {
            tables: dir.to_path_buf(),
            ..StoreSettings::default()
        }))
    }

    fn ordered() -> SolveOptions {
        SolveOptions { keep_layers: true, ..SolveOptions::default() }
    }

    fn rules(pits: u8, seeds: u8) -> Ruleset {
        Ruleset { pits_per_row: pits, seeds_per_pit: seeds, ..Ruleset::default() }
    }

    /// Threads asking for one round's solution share one solve; a second board is a second.
    #[test]
    fn a_round_asked_by_several_threads_is_solved_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = store(dir.path());
        let open = BySide::new(3, 3);
        let solutions: Vec<Arc<Solution>> = std::thread::scope(|s| {
            let threads: Vec<_> = (0..4)
                .map(|_| s.spawn(|| store.round_solution(rules(3, 3), open, ordered()).unwrap()))
                .collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        });
        assert_eq!(store.counts().round_solutions, 1);
        assert!(solutions.iter().all(|s| Arc::ptr_eq(s, &solutions[0])));
        // Without the order, the solution kept with it serves.
        let unordered = SolveOptions { keep_layers: false, ..ordered() };
        assert!(Arc::ptr_eq(
            &store.round_solution(rules(3, 3), open, unordered).unwrap(),
            &solutions[0]
        ));
        store.round_solution(rules(3, 2), BySide::new(3, 3), ordered()).unwrap();
        assert_eq!(store.counts().round_solutions, 2);
    }

    /// Two stores share nothing: the state is the store's, not the process's.
    #[test]
    fn two_stores_keep_their_own_tables() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (first, second) = (store(a.path()), store(b.path()));
        first.match_table(rules(3, 2)).unwrap();
        first.match_table(rules(3, 2)).unwrap();
        assert_eq!((first.counts().match_tables, second.counts().match_tables), (1, 0));
        assert!(
            crate::exact::table_path(a.path(), &rules(3, 2)).is_file(),
            "solved into its own tables directory"
        );
        assert!(!crate::exact::table_path(b.path(), &rules(3, 2)).exists());
    }
}
