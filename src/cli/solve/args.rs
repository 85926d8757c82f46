//! The options of `rajapasu solve`, shared by its modes (round, match, study), and the mode
//! they choose.

use std::path::PathBuf;

use crate::size::Size;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub(super) rules: crate::cli::RuleArgs,
    /// Open pits of South and North at the round's start, S,N (R12: the closed pits are at each
    /// row's left end). Default: every pit open (round 1).
    #[arg(long, value_name = "S,N", conflicts_with_all = ["all_starts", "study"])]
    pub(super) open: Option<String>,
    /// Who moves first in the round (both: with --spill, the round of both starters at once, as
    /// the match solver needs it).
    #[arg(long, default_value = "south", value_parser = ["south", "north", "both"], conflicts_with_all = ["all_starts", "study"])]
    pub(super) starter: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub(super) json: bool,
    /// Memory the solver may use, e.g. 512M, 4G (binary units: K, M, G, T; optional B or iB);
    /// a board that needs more is an error, not a crash.
    #[arg(long, value_name = "SIZE", default_value_t = Size::DEFAULT_MEMORY)]
    pub(super) max_memory: Size,
    /// The most positions a solve may reach (a budget by count, the same on every machine);
    /// default: no limit, or 150,000,000 a board with --study. With --spill the bounds are
    /// --max-memory and --max-disk.
    #[arg(long, value_name = "N", conflicts_with = "spill")]
    pub(super) max_positions: Option<u64>,
    /// Solve every round start (each side 1..P pits open, both starters) and write the `starts`
    /// table (Parquet and/or CSV) and its heat map into --out.
    #[arg(long, requires = "out", conflicts_with = "study")]
    pub(super) all_starts: bool,
    /// Run the perfect_play study (boards of 2..7 pits a row and 1..7 counters a pit, within
    /// --max-positions and --max-memory each) into --out: summary, frontier, matches and chart.
    #[arg(long, requires = "out")]
    pub(super) study: bool,
    /// Play a match from round 1 (--starter first) with every round played perfectly (R15),
    /// ties broken by the lowest and then by the highest local pit: each round and the outcome.
    /// With --spill: each round reached solved with its levels on disk in --tables (both
    /// starters, as --spill --starter both; the rounds solved there are reused).
    #[arg(long, conflicts_with_all = ["all_starts", "study", "open"])]
    pub(super) perfect_match: bool,
    /// Solve the match (R17): the perfect-match value (win, draw or loss for the starter) of a
    /// match state (--holdings, --starter; default: the match's start), its rounds and best
    /// opening moves. The table of every state is kept in --tables.
    #[arg(long = "match", conflicts_with_all = ["all_starts", "study", "perfect_match", "open"])]
    pub(super) match_: bool,
    /// Holdings of South and North at the round's start, S,N (summing to 2 x P x S, each at
    /// least seeds_per_pit). Default: P x S each (the match's start).
    #[arg(long, value_name = "S,N", requires = "match_", conflicts_with = "all_states")]
    pub(super) holdings: Option<String>,
    /// With --match: every match state (both starters) into --out: the match_states table
    /// (Parquet and/or CSV) and the match-equity chart.
    #[arg(long, requires_all = ["match_", "out"])]
    pub(super) all_states: bool,
    /// Directory of match tables (R17), read if there and written when solved; an interrupted
    /// solve continues from its checkpoint there. Default: $RAJAPASU_TABLES, else
    /// $XDG_CACHE_HOME/rajapasu/tables, else ~/.cache/rajapasu/tables.
    #[arg(long, value_name = "DIR")]
    pub(super) tables: Option<PathBuf>,
    /// With --match: stop after N iterations of the rounds loop in all (the checkpoint keeps
    /// them; run again to continue).
    #[arg(long, value_name = "N", requires = "match_", value_parser = clap::value_parser!(u32).range(1..))]
    pub(super) max_iterations: Option<u32>,
    /// Solve the round start with its levels (counters on the board) as files in the tables
    /// directory (--tables, under rounds/): memory bounded by the largest level and --max-memory
    /// rather than by the round; every finished level is kept, and a rerun continues from them.
    /// With --match: the match table's round graphs so (under matches/, removed once the table
    /// is saved). With --perfect-match: every round the matches reach so.
    #[arg(long, conflicts_with_all = ["all_starts", "study"])]
    pub(super) spill: bool,
    /// With --spill: only enumerate (the counting pass): positions, moves and bytes by level.
    #[arg(long, requires = "spill", conflicts_with_all = ["match_", "perfect_match"])]
    pub(super) count_only: bool,
    /// With --spill: the most disk the level files may take, e.g. 60G; a solve that needs more
    /// stops with what it needs, and continues when run again with more.
    #[arg(long, value_name = "SIZE", requires = "spill")]
    pub(super) max_disk: Option<Size>,
    /// With --spill: stop after finishing N levels in this run (they are kept; run again to continue).
    #[arg(long, value_name = "N", requires = "spill", conflicts_with = "perfect_match", value_parser = clap::value_parser!(u32).range(1..))]
    pub(super) max_levels: Option<u32>,
    /// Output directory of --all-starts, --study or --match --all-states.
    #[arg(long, value_name = "DIR")]
    pub(super) out: Option<PathBuf>,
    /// Table formats of --all-starts and --study: parquet, csv or both.
    #[arg(long, default_value = "both")]
    pub(super) format: String,
    /// Random-play matches per board in --study (round-1 starter win rate, first player alternating).
    #[arg(long, default_value_t = 20_000)]
    pub(super) matches: u64,
    /// Master seed of the random-play matches of --study.
    #[arg(long, default_value_t = 1)]
    pub(super) seed: u64,
    /// Largest pits per row of --study (2..=9).
    #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u8).range(2..=9))]
    pub(super) study_pits: u8,
    /// Largest counters per pit of --study (1..=12).
    #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u8).range(1..=12))]
    pub(super) study_seeds: u8,
    /// No progress bar.
    #[arg(long)]
    pub(super) quiet: bool,
}

/// What `solve` does, resolved once from its flags (clap has refused the flags that conflict).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    /// One round start (R15), solved in memory.
    Round,
    /// One round start with its levels on disk (`--spill`).
    Spill,
    /// Every round start of the board (`--all-starts`).
    AllStarts,
    /// A match of perfectly played rounds, with either tie-break (`--perfect-match`; the
    /// rounds on disk with `--spill`).
    PerfectMatch,
    /// One match state (`--match`; its table's round graphs on disk with `--spill`).
    Match,
    /// Every match state of the board (`--match --all-states`).
    AllStates,
    /// The perfect_play study (`--study`).
    Study,
}

impl Args {
    pub(super) fn mode(&self) -> Mode {
        match (
            self.study,
            self.all_starts,
            self.perfect_match,
            self.match_,
            self.all_states,
            self.spill,
        ) {
            (true, ..) => Mode::Study,
            (_, true, ..) => Mode::AllStarts,
            (_, _, true, ..) => Mode::PerfectMatch,
            (_, _, _, true, true, _) => Mode::AllStates,
            (_, _, _, true, false, _) => Mode::Match,
            (.., true) => Mode::Spill,
            _ => Mode::Round,
        }
    }
}
