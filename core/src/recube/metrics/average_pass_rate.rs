//! Average pass rate (APR): the mean over instances of the share of their tests that pass.
//!
//! Measures partial reconstruction (spec 2): a file that gets most behaviour right scores
//! most of an instance, where SPR gives it nothing. Every instance weighs the same however
//! many tests it has. Restricted to a kind, it counts only that kind's tests and only the
//! instances that have at least one. Example: instances with 10/10, 9/10 and 0/4 tests
//! passing: APR = (100 + 90 + 0) / 3 = 63.3.

use super::strict_pass_rate::percent;
use super::{Judged, Score, TestKind, Undefined, of_kind};

/// Mean over `instances` (with at least one test of `kind`; every instance for `None`) of
/// passed / total of their tests of `kind`, in percent; undefined when no instance has such
/// a test.
pub fn average_pass_rate(instances: &[Vec<Judged>], kind: Option<TestKind>) -> Score {
    let (mut counted, mut sum) = (0usize, 0.0);
    for instance in instances {
        let (passed, total) = of_kind(instance, kind).fold((0usize, 0usize), |(p, n), t| {
            (p + usize::from(t.passed), n + 1)
        });
        if total == 0 {
            continue;
        }
        counted += 1;
        sum += passed as f64 / total as f64;
    }
    if counted == 0 {
        return Score::Undefined {
            reason: Undefined::NoInstances,
        };
    }
    percent(Score::Defined {
        value: sum / counted as f64,
    })
}
