//! Wheelwright's scorer: Python analysis, trajectories and metrics, pure and portable.
//!
//! Everything here is a function of its inputs: no I/O, no async, no network, no database.
//! The same code runs natively (server, command line) and in the browser (wasm32), which is
//! how the two are guaranteed to agree. Only [`syntax`] touches tree-sitter.

pub mod api;
pub mod archive;
pub mod benchmark;
pub mod budget;
pub mod bundle;
pub mod compare;
pub mod dataset;
pub mod hidden_tests;
pub mod leaderboard;
pub mod metric;
pub mod outline;
mod parallel;
pub mod present;
pub mod published;
pub mod python;
pub mod recube;
pub mod reporeuse;
pub mod schrodinger;
pub mod syntax;
pub mod table;
pub mod template;
pub mod trajectory;
pub mod workspace;

/// Version of the scorer, recorded in every result.
pub const SCORER_VERSION: &str = env!("CARGO_PKG_VERSION");
