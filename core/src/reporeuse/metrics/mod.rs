//! RepoReuse metrics (spec section 1), one per module, and the per-turn and per-run entry points.
//!
//! [`turn::score_turn`] scores one turn; [`run::aggregate_run`] macro-averages a run's chains
//! into the table row and the per-turn series. Undefined values are [`Score::Undefined`]
//! with the reason, never zero.

pub mod duplicated_chains;
pub mod macro_average;
pub mod pass_rate;
pub mod recall;
pub mod reimplementation;
pub mod resolve_rate;
pub mod reuse_rate;
pub mod run;
pub mod turn;

use serde::Serialize;

// The metric modules below read `super::{Score, Undefined}`.
use crate::metric::{Score, Undefined};

/// Repository targets (functions of W0) or self targets (earlier turns' functions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    Repo,
    #[serde(rename = "self")]
    SelfTarget,
}
