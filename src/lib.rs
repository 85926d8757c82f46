//! rajapasu: a research simulator for the mancala game Raja Pasu.
//!
//! Layers, each depending only on those before it. From the `rajapasu-core` crate (no polars,
//! plotters or clap), re-exported here under the same names:
//! - [`engine`]: the rules (docs/rules.md R1-R16), no I/O;
//! - [`agents`]: players (random, greedy, minimax, MCTS, external, host, perfect);
//! - [`exact`]: exact perfect-play values of rounds (R15) and matches (R17), beside the players;
//! - [`sim`]: seeded batch simulation into record batches, no file formats;
//! - [`show`]: the replay page of a match (built from the engine alone);
//! - [`game_record`]: a recorded game checked against the readings of the rules.
//!
//! In this crate: [`io`] (Parquet, CSV, manifests), [`analysis`] and beside it [`ratings`]
//! (Bradley-Terry ratings of a tournament), [`plot`], then [`app`] (the jobs users run, typed)
//! under the front ends: `cli` here (with its server, feature `cli`), the Python module in
//! python/. Two leaves that import nothing of the crate serve every floor: [`process`] (the
//! peak memory of this process) and [`size`] (sizes as the front ends take them, e.g. 4G).

pub use rajapasu_core::{agents, engine, exact, files, game_record, show, sim};

pub mod analysis;
pub mod app;
#[cfg(feature = "cli")]
pub mod cli;
pub mod io;
pub mod plot;
pub mod process;
pub mod ratings;
#[cfg(feature = "cli")]
pub mod server;
pub mod size;
