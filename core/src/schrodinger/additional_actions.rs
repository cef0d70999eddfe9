//! Where a run's additional actions went, against a baseline run (spec 3): per category, the extra actions per instance and their share of all extra actions.
//!
//! An agent on a transformed view of a repository usually needs more actions than on the
//! original; this says which kinds of work absorbed them (more navigation and search when
//! names are unfamiliar, say). Per-instance means make runs over different numbers of
//! instances comparable. A category can take fewer actions than in the baseline: its extra
//! count is negative and so is its share; the shares always sum to 100 %. When the run took
//! no more actions per instance than the baseline, the shares are undefined. Example: the
//! baseline reads 4 times per instance, the run reads 5 times and navigates 3 times more:
//! 4 extra actions, 25 % read and 75 % navigate.
//! ```
//! use std::collections::BTreeMap;
//! use wheelwright_core::schrodinger::action_mix::action_mix;
//! use wheelwright_core::schrodinger::additional_actions::additional_actions;
//! use wheelwright_core::trajectory::{Category, TrajectorySummary};
//! let summary = |counts: &[(Category, usize)]| TrajectorySummary {
//!     actions: counts.iter().map(|(_, n)| n).sum(),
//!     by_category: counts.iter().copied().collect::<BTreeMap<_, _>>(),
//!     ..TrajectorySummary::default()
//! };
//! let baseline = action_mix(&[summary(&[(Category::Read, 4)])]);
//! let run = action_mix(&[summary(&[(Category::Read, 5), (Category::Navigate, 3)])]);
//! let extra = additional_actions(&run, &baseline);
//! assert_eq!(extra.per_instance, 4.0);
//! assert_eq!(extra.shares[&Category::Navigate].value(), Some(75.0));
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::metric::{Score, Undefined};
use crate::schrodinger::action_mix::{ActionMix, CATEGORIES};
use crate::trajectory::Category;

/// A run's actions beyond its baseline's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AdditionalActions {
    /// Actions per instance more than the baseline (negative: fewer).
    pub per_instance: f64,
    /// Per category, actions per instance more than the baseline.
    pub by_category: BTreeMap<Category, f64>,
    /// Per category, its part of `per_instance`, in percent; undefined when
    /// `per_instance` is not above 0 or either run has no instance.
    pub shares: BTreeMap<Category, Score>,
}

/// `run`'s additional actions against `baseline`.
pub fn additional_actions(run: &ActionMix, baseline: &ActionMix) -> AdditionalActions {
    let mean = |mix: &ActionMix, c: Category| {
        let n = mix.by_category.get(&c).copied().unwrap_or(0);
        if mix.instances == 0 {
            0.0
        } else {
            n as f64 / mix.instances as f64
        }
    };
    let by_category: BTreeMap<Category, f64> = CATEGORIES
        .iter()
        .map(|c| (*c, mean(run, *c) - mean(baseline, *c)))
        .collect();
    let per_instance: f64 = by_category.values().sum();
    let comparable = run.instances > 0 && baseline.instances > 0;
    let shares = by_category
        .iter()
        .map(|(c, extra)| {
            let share = if comparable && per_instance > 0.0 {
                Score::Defined {
                    value: extra / per_instance * 100.0,
                }
            } else {
                Score::Undefined {
                    reason: Undefined::NoAdditionalActions,
                }
            };
            (*c, share)
        })
        .collect();
    AdditionalActions {
        per_instance,
        by_category,
        shares,
    }
}
