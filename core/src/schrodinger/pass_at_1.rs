//! Pass@1 of a run (spec 3): the share of its instances whose one attempt resolved the issue, in percent.
//!
//! SchrodingerRepo's first question is whether an agent still solves a task once the
//! repository's familiar cues are gone: Pass@1 on the original against Pass@1 on a view.
//! Every instance of the run counts; one the evaluation has no report for counts as not
//! resolved, as SWE-bench's harness counts it. Undefined for a run without instances.
//! Example: 12 instances, 9 resolved: 75 %.
//! ```
//! use wheelwright_core::schrodinger::pass_at_1::pass_at_1;
//! assert_eq!(pass_at_1(9, 12).value(), Some(75.0));
//! assert_eq!(pass_at_1(0, 0).value(), None);
//! ```

use crate::metric::{Score, Undefined};

/// Pass@1 of a run with `instances` instances, `resolved` of them resolved.
pub fn pass_at_1(resolved: usize, instances: usize) -> Score {
    Score::ratio(resolved, instances, Undefined::NoInstances).scaled(100.0)
}
