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

use serde::{Deserialize, Serialize};

/// Why a value is undefined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Undefined {
    /// The turn has no target of this kind.
    NoTargets,
    /// No trajectory, so no shown lines, for the turn.
    NoShownLines,
    /// No test results, or a turn without tests.
    NoTests,
    /// No descriptive count was given.
    NoCount,
    /// Undefined at every turn (or chain) being averaged.
    NoDefinedValue,
    /// Nothing to average.
    NoChains,
}

/// A metric value, or the reason it is undefined.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Score {
    Defined { value: f64 },
    Undefined { reason: Undefined },
}

impl Score {
    pub fn value(self) -> Option<f64> {
        match self {
            Score::Defined { value } => Some(value),
            Score::Undefined { .. } => None,
        }
    }

    /// `part / whole`, undefined for `reason` when `whole` is 0.
    pub fn ratio(part: usize, whole: usize, reason: Undefined) -> Score {
        if whole == 0 {
            Score::Undefined { reason }
        } else {
            Score::Defined {
                value: part as f64 / whole as f64,
            }
        }
    }

    /// Multiplies a defined value (`100` for percent).
    pub fn scaled(self, factor: f64) -> Score {
        match self {
            Score::Defined { value } => Score::Defined {
                value: value * factor,
            },
            undefined => undefined,
        }
    }
}

/// Repository targets (functions of W0) or self targets (earlier turns' functions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    Repo,
    #[serde(rename = "self")]
    SelfTarget,
}
