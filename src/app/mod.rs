//! The application layer: the jobs users run (simulate into a dataset, run a study, play a
//! tournament, solve, compute metrics, analyse a position), between the libraries below (io,
//! analysis, ratings, plot) and the front ends above (the command line, the Python module, the
//! server). Each job takes a validated, typed request and returns a typed result or a typed
//! error that names the field at fault, never a front end's flag or keyword: the front ends
//! translate their input into requests and the results into text, objects or JSON.

pub mod analyse;
pub mod check_record;
pub mod evaluate;
pub mod experiment;
pub mod export;
pub mod export_dataset;
mod field;
pub mod game;
pub mod job;
pub mod match_states;
pub mod metrics;
pub mod perfect_match;
pub mod perfect_play;
mod perfect_play_board;
mod perfect_play_files;
mod round_robin;
pub mod simulate;
pub mod solve;
pub mod solve_spill;
pub mod solve_study;
pub mod starts;
pub mod statistics;
pub mod study;
pub mod study_error;
pub mod study_file;
pub mod study_files;
pub mod summary;
pub mod tournament;
pub mod tournament_file;

pub use field::FieldError;
pub use study_error::StudyError;
