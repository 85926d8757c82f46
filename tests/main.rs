//! The one integration-test binary: runs the real `rajapasu` on real files.

mod cli;
mod common;
