//! Re-implementation: a target the submission bypassed but whose calls it repeats.
//!
//! Measures copying instead of reuse (spec 1, "Re-implementation", D6): a target `f` is
//! re-implemented when the submission does not reference it, `f` calls at least 3
//! distinct non-builtin functions, and the submission calls at least 80% of them
//! (`callees >= 3 && 5*matched >= 4*callees`, in integers). Callees are compared by D5
//! identity. A class target has no callees, so it is never re-implemented. Example:
//! `pkg.io.load` calls `open_archive`, `json.loads`, `validate`; a submission calling all
//! three without referencing `load` re-implements it (share 3/3).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

/// The evidence for one unreferenced, known target.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reimplementation {
    /// The target's distinct non-builtin callee identities (D5, D6).
    pub callees: Vec<String>,
    /// Those the submission also calls.
    pub matched: Vec<String>,
    /// `matched / callees`; `None` when the target calls nothing.
    pub share: Option<f64>,
    pub reimplemented: bool,
}

/// The D6 threshold, in integers: exactly 80% qualifies.
pub fn meets_threshold(callees: usize, matched: usize) -> bool {
    callees >= 3 && 5 * matched >= 4 * callees
}

/// Compares a target's non-builtin callees with the submission's callees.
pub fn reimplementation(
    target_callees: &BTreeSet<String>,
    submission_callees: &BTreeSet<String>,
) -> Reimplementation {
    let callees: Vec<String> = target_callees.iter().cloned().collect();
    let matched: Vec<String> = target_callees
        .intersection(submission_callees)
        .cloned()
        .collect();
    let share = (!callees.is_empty()).then(|| matched.len() as f64 / callees.len() as f64);
    Reimplementation {
        reimplemented: meets_threshold(callees.len(), matched.len()),
        callees,
        matched,
        share,
    }
}
