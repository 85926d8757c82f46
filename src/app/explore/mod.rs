//! The jobs of the explorer page (`rajapasu serve`), which the command line shares: a game
//! named by its start and moves, a position's exact analysis, a search player's evaluation,
//! statistics of play, a game exported as files or as a dataset, and a record checked against
//! every reading of the rules.

pub mod analyse;
pub mod check_record;
pub mod evaluate;
pub mod export;
pub mod export_dataset;
pub mod game;
pub mod statistics;
