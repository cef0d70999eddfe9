//! RepoReuse (spec section 1): its dataset format, baselines, scorer and metrics.
//!
//! Everything here is specific to RepoReuse; the analysis it draws on (Python facts,
//! trajectories, workspaces) sits below it in [`crate::python`], [`crate::trajectory`] and
//! [`crate::workspace`], shared with the other benchmarks.

pub mod baseline;
pub mod bundle;
pub mod callable_map;
pub mod dataset;
pub mod execution;
pub mod metrics;
pub mod prompt;
pub mod scoring;
pub mod stats;
pub mod synthesis;
pub mod turn_workspace;
pub mod walk;
