//! A run's action mix (spec 3): the mean number of actions per instance and each category's share of all its actions.
//!
//! SchrodingerRepo asks how an agent's behaviour shifts when familiar cues are stripped
//! from the repository; the mix is the behaviour, counted from the instances' trajectories
//! through the shared reader's taxonomy (navigate, search, read, probe, edit, test, other;
//! [`crate::trajectory::Category`]). Example: two instances, one with 3 reads and 1 edit,
//! one with 4 reads: 4 actions per instance, read 87.5 %, edit 12.5 %.
//! ```
//! use std::collections::BTreeMap;
//! use wheelwright_core::schrodinger::action_mix::action_mix;
//! use wheelwright_core::trajectory::{Category, TrajectorySummary};
//! let summary = |counts: &[(Category, usize)]| TrajectorySummary {
//!     actions: counts.iter().map(|(_, n)| n).sum(),
//!     by_category: counts.iter().copied().collect::<BTreeMap<_, _>>(),
//!     ..TrajectorySummary::default()
//! };
//! let mix = action_mix(&[
//!     summary(&[(Category::Read, 3), (Category::Edit, 1)]),
//!     summary(&[(Category::Read, 4)]),
//! ]);
//! assert_eq!(mix.mean_actions.value(), Some(4.0));
//! assert_eq!(mix.shares[&Category::Read].value(), Some(87.5));
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::metric::{Score, Undefined};
use crate::trajectory::{Category, TrajectorySummary};

/// The categories in their one order, strongest first: every mix lists each of them.
pub const CATEGORIES: [Category; 7] = [
    Category::Edit,
    Category::Test,
    Category::Probe,
    Category::Search,
    Category::Read,
    Category::Navigate,
    Category::Other,
];

/// What a run's instances did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActionMix {
    /// Instances with a trajectory.
    pub instances: usize,
    pub actions: usize,
    /// Actions per category, every category listed.
    pub by_category: BTreeMap<Category, usize>,
    /// Actions per instance; undefined without instances.
    pub mean_actions: Score,
    /// Each category's share of all actions, in percent; undefined without actions.
    pub shares: BTreeMap<Category, Score>,
}

/// The mix of the instances whose trajectory summaries are `summaries` (one per instance).
pub fn action_mix(summaries: &[TrajectorySummary]) -> ActionMix {
    let mut by_category: BTreeMap<Category, usize> = CATEGORIES.iter().map(|c| (*c, 0)).collect();
    for summary in summaries {
        for (category, n) in &summary.by_category {
            *by_category.entry(*category).or_default() += n;
        }
    }
    let actions: usize = by_category.values().sum();
    let shares = by_category
        .iter()
        .map(|(c, n)| {
            (
                *c,
                Score::ratio(*n, actions, Undefined::NoCount).scaled(100.0),
            )
        })
        .collect();
    let mean_actions = if summaries.is_empty() {
        Score::Undefined {
            reason: Undefined::NoInstances,
        }
    } else {
        Score::Defined {
            value: actions as f64 / summaries.len() as f64,
        }
    };
    ActionMix {
        instances: summaries.len(),
        actions,
        by_category,
        mean_actions,
        shares,
    }
}
