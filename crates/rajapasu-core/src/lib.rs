//! rajapasu-core: the part of rajapasu that needs no file formats, charts or command line.
//!
//! Layers, each depending only on those before it:
//! - [`engine`]: the rules (docs/rules.md R1-R16), no I/O;
//! - [`agents`]: players (random, greedy, minimax, MCTS, external, host, perfect);
//! - [`exact`]: exact perfect-play values of rounds (R15) and matches (R17), beside the players;
//! - [`sim`]: seeded batch simulation into record batches, no file formats;
//! - [`show`]: the replay page of a match (built from the engine alone);
//! - [`game_record`]: a recorded game checked against the readings of the rules (the engine alone);
//! - beneath them all, [`files`]: atomic writes and bounded reads of regular files.
//!
//! The `rajapasu` crate builds the datasets, analysis, charts and command line on top of it
//! and re-exports these modules under the same names.

pub mod agents;
pub mod engine;
pub mod exact;
pub mod files;
pub mod game_record;
pub mod show;
pub mod sim;
