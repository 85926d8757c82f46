//! Ratings of players from the matches of a tournament: a Bradley-Terry fit on the Elo scale
//! with bootstrap intervals ([`bradley_terry`]) and the report a tournament writes ([`report`]).
//! Beside the analysis: it reads no files.

pub mod bradley_terry;
pub mod report;

#[cfg(test)]
mod tests;
