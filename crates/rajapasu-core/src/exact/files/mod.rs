//! What the exact solvers keep on disk: a spilled round's level files (positions, values,
//! moves) and pending captures, the state of a level enumerated by buckets, the match tables and
//! their checks, and the temporaries a killed writer leaves. Every file is written under a
//! temporary name and renamed, and refused naming it when damaged.

pub(in crate::exact) mod bucket_state;
pub(in crate::exact) mod level_files;
pub(in crate::exact) mod pending;
pub(in crate::exact) mod table_check;
pub(in crate::exact) mod tables;
pub(in crate::exact) mod temporaries;
