//! The application layer: the jobs users run (simulate into a dataset, run a study, play a
//! tournament, solve, compute metrics, analyse a position), between the libraries below (io,
//! analysis, ratings, plot) and the front ends above (the command line, the Python module, the
//! server). Each job takes a validated, typed request and returns a typed result or a typed
//! error that names the field at fault, never a front end's flag or keyword: the front ends
//! translate their input into requests and the results into text, objects or JSON.
//!
//! By folder: [`solve`] (exact values of rounds and matches, the perfect_play study), [`study`]
//! (experiment files and the studies run from them), [`tournament`] (round robins and their
//! ratings), [`explore`] (the jobs of the explorer page, which the command line shares); beside
//! them the jobs and pieces every folder uses: [`simulate`], [`metrics`], [`job`] (progress and
//! cancellation), [`FieldError`] and [`BadInput`].

mod bad_input;
pub mod explore;
mod field;
pub mod job;
pub mod metrics;
pub mod simulate;
pub mod solve;
pub mod study;
pub mod tournament;

pub use bad_input::BadInput;
pub use field::FieldError;
