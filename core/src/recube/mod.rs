//! ReCUBE (spec section 2): rebuilding a masked file from its repository.
//!
//! The analysis it draws on (syntax, span edits) sits below it in [`crate::syntax`] and
//! [`crate::python`], shared with the other benchmarks.

pub mod bundle;
pub mod dataset;
pub mod graph;
pub mod mask;
pub mod metrics;
pub mod prompt;
pub mod query;
pub mod scoring;
pub mod validate;
pub mod views;
