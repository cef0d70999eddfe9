//! Whether a view is valid (spec 3): every test that passes on the original passes on the view (Pass_to_Pass = 1) and none that fails there passes (Fail_to_Pass = 0).
//!
//! A view is only a fair test of an agent if it behaves as the original does, and the
//! repository's own test suite is the evidence. Tests are matched by id in original
//! coordinates (the caller maps the view's ids back through the bundle). A skipped test
//! counts on neither side; a test the view did not run at all makes the view invalid.
//! Fail_to_Pass is undefined when no test fails on the original, which does not count
//! against the view. Example: 3 tests pass and 1 fails on the original; on the view the
//! same 3 pass and the failing one still fails: Pass_to_Pass 1, Fail_to_Pass 0, valid.
//! ```
//! use std::collections::BTreeMap;
//! use wheelwright_core::hidden_tests::TestOutcome::{Failed, Passed};
//! use wheelwright_core::schrodinger::validity::validity;
//! let original = BTreeMap::from([("a", Passed), ("b", Passed), ("c", Passed), ("d", Failed)]);
//! let v = validity(&original, &original.clone());
//! assert_eq!((v.pass_to_pass.value(), v.fail_to_pass.value(), v.valid), (Some(1.0), Some(0.0), true));
//! ```

use std::collections::BTreeMap;

use serde::Serialize;

use crate::hidden_tests::TestOutcome;
use crate::metric::{Score, Undefined};

/// The validity of a view, with the tests that decide it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Validity {
    /// Of the tests that pass on the original, the share that pass on the view.
    pub pass_to_pass: Score,
    /// Of the tests that fail (or error) on the original, the share that pass on the view.
    pub fail_to_pass: Score,
    /// Passed on the original, not on the view.
    pub broken: Vec<String>,
    /// Failed on the original, passed on the view.
    pub fixed: Vec<String>,
    /// Run on the original, not on the view.
    pub missing: Vec<String>,
    pub valid: bool,
}

/// Compares the outcomes of the repository's tests on the original and on the view.
pub fn validity<K: AsRef<str> + Ord>(
    original: &BTreeMap<K, TestOutcome>,
    view: &BTreeMap<K, TestOutcome>,
) -> Validity {
    let is_fail = |o: TestOutcome| {
        matches!(
            o,
            TestOutcome::Failed | TestOutcome::Errored | TestOutcome::TimedOut
        )
    };
    let (mut passed, mut kept, mut failed) = (0, 0, 0);
    let (mut broken, mut fixed, mut missing) = (Vec::new(), Vec::new(), Vec::new());
    for (id, &before) in original {
        let after = view.get(id).copied();
        let id = id.as_ref().to_owned();
        if after.is_none() || after == Some(TestOutcome::Missing) {
            missing.push(id.clone());
        }
        if before == TestOutcome::Passed {
            passed += 1;
            if after == Some(TestOutcome::Passed) {
                kept += 1;
            } else {
                broken.push(id);
            }
        } else if is_fail(before) {
            failed += 1;
            if after == Some(TestOutcome::Passed) {
                fixed.push(id);
            }
        }
    }
    let pass_to_pass = Score::ratio(kept, passed, Undefined::NoTests);
    let fail_to_pass = Score::ratio(fixed.len(), failed, Undefined::NoTests);
    Validity {
        valid: pass_to_pass.value() == Some(1.0) && fixed.is_empty() && missing.is_empty(),
        pass_to_pass,
        fail_to_pass,
        broken,
        fixed,
        missing,
    }
}
