//! Seeded batch simulation: plays matches and turns them into record batches. No file formats.

pub mod schema;
pub mod table;
