//! Strict pass rate (SPR): the percentage of instances whose tests all pass.
//!
//! Measures whole-file reconstruction (spec 2): an instance counts only when the rebuilt
//! file passes every test, as a file that breaks one caller is not a working file.
//! Restricted to a kind, it counts only that kind's tests and only the instances that have
//! at least one. Example: instances with 10/10, 9/10 and 0/4 tests passing: SPR = 33.3.

use super::{Judged, Score, TestKind, Undefined, of_kind};

/// Percent of `instances` (with at least one test of `kind`; every instance for `None`) whose
/// tests of `kind` all pass; undefined when no instance has such a test.
pub fn strict_pass_rate(instances: &[Vec<Judged>], kind: Option<TestKind>) -> Score {
    let (mut counted, mut solved) = (0, 0);
    for instance in instances {
        let mut tests = of_kind(instance, kind).peekable();
        if tests.peek().is_none() {
            continue;
        }
        counted += 1;
        if tests.all(|t| t.passed) {
            solved += 1;
        }
    }
    percent(Score::ratio(solved, counted, Undefined::NoInstances))
}

/// A share as a percentage.
pub(super) fn percent(share: Score) -> Score {
    match share {
        Score::Defined { value } => Score::Defined {
            value: value * 100.0,
        },
        undefined => undefined,
    }
}
