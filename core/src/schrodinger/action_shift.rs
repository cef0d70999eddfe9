//! How a run moved against a baseline run (spec 3): Pass@1 change in points, the rise in actions and tokens per instance in percent, and where the additional actions went.
//!
//! The baseline is the same agent on the original repository; the run, on a view. The
//! paper reports exactly these: GPT 5.1 under level 2 lost 7.4 points of Pass@1 and took
//! 63.3 % more actions and 162.3 % more input tokens, and under the full setting most of
//! its additional actions were exploration. A relative change is undefined when the
//! baseline's value is undefined or zero. The two runs may cover different instances
//! (per-instance means keep them comparable); `shared_instances` says how many they share,
//! so a reader can tell a like-for-like comparison from a loose one. Example: Pass@1 50 %
//! -> 40 % is -10 points; 20 -> 30 actions per instance is +50 %.
//! ```
//! use wheelwright_core::metric::Score;
//! use wheelwright_core::schrodinger::action_shift::{change, increase};
//! let score = |value| Score::Defined { value };
//! assert_eq!(change(score(40.0), score(50.0)).value(), Some(-10.0));
//! assert_eq!(increase(score(30.0), score(20.0)).value(), Some(50.0));
//! assert_eq!(increase(score(30.0), score(0.0)).value(), None);
//! ```

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::metric::{Score, Undefined};
use crate::schrodinger::additional_actions::{AdditionalActions, additional_actions};
use crate::schrodinger::run_actions::RunActions;

/// A run against its baseline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActionShift {
    /// Instances both runs have.
    pub shared_instances: usize,
    /// Pass@1 of the run minus the baseline's, in points.
    pub pass_at_1_change: Score,
    /// Actions per instance, percent more than the baseline's.
    pub actions_increase: Score,
    /// Input tokens per instance, percent more than the baseline's.
    pub input_tokens_increase: Score,
    /// Output tokens per instance, percent more than the baseline's.
    pub output_tokens_increase: Score,
    pub additional: AdditionalActions,
}

/// `run` against `baseline`.
pub fn action_shift(run: &RunActions, baseline: &RunActions) -> ActionShift {
    let ids: BTreeSet<&str> = baseline.instances.iter().map(|i| i.id.as_str()).collect();
    ActionShift {
        shared_instances: run
            .instances
            .iter()
            .filter(|i| ids.contains(i.id.as_str()))
            .count(),
        pass_at_1_change: change(run.pass_at_1, baseline.pass_at_1),
        actions_increase: increase(run.mix.mean_actions, baseline.mix.mean_actions),
        input_tokens_increase: increase(run.tokens.input, baseline.tokens.input),
        output_tokens_increase: increase(run.tokens.output, baseline.tokens.output),
        additional: additional_actions(&run.mix, &baseline.mix),
    }
}

/// `value - base`; undefined when either is.
pub fn change(value: Score, base: Score) -> Score {
    match (value.value(), base.value()) {
        (Some(v), Some(b)) => Score::Defined { value: v - b },
        _ => Score::Undefined {
            reason: Undefined::NoBaseline,
        },
    }
}

/// How much `value` is above `base`, in percent of `base`; undefined when either is
/// undefined or `base` is zero.
pub fn increase(value: Score, base: Score) -> Score {
    match (value.value(), base.value()) {
        (Some(v), Some(b)) if b != 0.0 => Score::Defined {
            value: (v - b) / b * 100.0,
        },
        _ => Score::Undefined {
            reason: Undefined::NoBaseline,
        },
    }
}

/// What `wheelwright actions` prints as JSON and the runs page shows: a run, and when a
/// baseline is given, the baseline and the run's shift against it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActionsReport {
    pub run: RunActions,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<RunActions>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shift: Option<ActionShift>,
}

impl ActionsReport {
    pub fn new(run: RunActions, baseline: Option<RunActions>) -> Self {
        let shift = baseline.as_ref().map(|b| action_shift(&run, b));
        Self {
            run,
            baseline,
            shift,
        }
    }
}
