//! Pass rate: the share of a turn's hidden tests that pass.
//!
//! Measures functional correctness at test granularity (spec 1, "Correctness"). Tests that
//! error, time out or are never collected are failures, so they are in `total` but not in
//! `passed`. A turn with no file at the required path fails all its tests. Undefined without
//! test results or when the turn has no tests. Example: 7 of 10 tests pass: 0.7.

use super::{Score, Undefined};
use crate::hidden_tests::TestResults;

/// `passed / total` (passed forced to 0 for a missing submission).
pub fn pass_rate(tests: Option<TestResults>, missing: bool) -> Score {
    match tests {
        Some(t) if t.total > 0 => {
            let passed = if missing { 0 } else { t.passed.min(t.total) };
            Score::ratio(passed as usize, t.total as usize, Undefined::NoTests)
        }
        _ => Score::Undefined {
            reason: Undefined::NoTests,
        },
    }
}
