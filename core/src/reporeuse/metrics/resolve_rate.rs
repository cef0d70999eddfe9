//! Resolve: 1 when every test of the turn passes, else 0.
//!
//! Measures whether the turn's requirement is fully met (spec 1, "Correctness"); averaged,
//! it is the share of resolved turns. Undefined exactly when the pass rate is. Example:
//! 10 of 10 tests pass: 1; 9 of 10: 0.

use super::Score;
use super::pass_rate::pass_rate;
use crate::hidden_tests::TestResults;

/// 1 when all tests pass, 0 otherwise; undefined without tests.
pub fn resolve(tests: Option<TestResults>, missing: bool) -> Score {
    match pass_rate(tests, missing) {
        Score::Defined { value } => Score::Defined {
            value: if value >= 1.0 { 1.0 } else { 0.0 },
        },
        undefined => undefined,
    }
}
