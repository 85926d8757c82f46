//! rajapasu: a research simulator for the mancala game Raja Pasu.
//!
//! Layers, each depending only on those before it:
//! - [`engine`]: the rules (RULES.md R1-R14), no I/O;
//! - [`agents`]: players (random, greedy, minimax, MCTS);
//! - [`exact`]: exact perfect-play values of small boards (R15), beside the players;
//! - [`sim`]: seeded batch simulation into record batches, no file formats;
//! - [`show`]: the replay page of a match (built from the engine alone);
//! - with the `cli` feature: [`io`] (Parquet, CSV, manifests), [`analysis`] and beside it [`ratings`]
//!   (Bradley-Terry ratings of a tournament), [`plot`], [`cli`].

pub mod agents;
pub mod engine;
pub mod exact;
pub mod show;
pub mod sim;

#[cfg(feature = "cli")]
pub mod analysis;
#[cfg(feature = "cli")]
pub mod cli;
#[cfg(feature = "cli")]
pub mod io;
#[cfg(feature = "cli")]
pub mod plot;
#[cfg(feature = "cli")]
pub mod ratings;
