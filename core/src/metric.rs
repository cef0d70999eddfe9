//! Metric values shared by every benchmark: a [`Score`] is a number or the reason it is undefined.
//!
//! Undefined is explicit, never zero (ARCHITECTURE.md's invariants): a turn without tests has
//! no pass rate, not a pass rate of 0.

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
