//! ReCUBE's metrics (spec 2): each instance's tests judged against the dataset, then rates.
//!
//! The dataset fixes every instance's tests and their labels; a run's results are looked up
//! against that list, never the other way round, so a test that errored, timed out, was
//! skipped or was never collected counts as a failure, an instance without a submission
//! fails all its tests, and no instance leaves the denominator.

mod average_pass_rate;
mod caller_coverage;
mod correlation;
mod strict_pass_rate;

pub use average_pass_rate::average_pass_rate;
pub use caller_coverage::caller_coverage;
pub use correlation::{
    Correlation, QuartileCorrelation, by_quartile, correlated, kendall_tau, spearman_rho,
};
pub use strict_pass_rate::strict_pass_rate;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use crate::metric::{Score, Undefined};

use crate::hidden_tests::{ExpectedTest, Verdict};

/// Which side of the target a test exercises (spec 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestKind {
    /// The target's public behaviour, as other files of the repository use it.
    External,
    /// In-file logic: private helpers, internal state.
    Internal,
}

/// One test of an instance as the dataset lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabelledTest {
    /// The test file, relative to the instance's `tests/` (`test_parser.py`).
    pub module: String,
    /// The test's name within its file (`test_parse` or `TestClass::test_parse`).
    pub name: String,
    pub kind: TestKind,
}

impl LabelledTest {
    /// The test as a pytest suite's results name it ([`crate::hidden_tests::pytest`]):
    /// module `test_parser`, name `TestClass.test_parse`.
    pub fn expected(&self) -> ExpectedTest {
        ExpectedTest {
            module: crate::hidden_tests::pytest::module_of(&self.module),
            name: self.name.replace("::", "."),
        }
    }
}

/// One test of an instance after the run: its label and whether it passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Judged {
    pub kind: TestKind,
    pub passed: bool,
}

/// Each of `expected` judged against the run's `verdict` for its instance: passed only when
/// the verdict reports it passed and the run was not tampered with. `None` (no submission,
/// or no run of the tests) fails every test.
pub fn judge(expected: &[LabelledTest], verdict: Option<&Verdict>) -> Vec<Judged> {
    let passed: BTreeMap<(&str, &str), bool> = verdict
        .filter(|v| v.tampered.is_none())
        .map(|v| {
            v.tests
                .iter()
                .map(|t| ((t.module.as_str(), t.name.as_str()), t.outcome.passed()))
                .collect()
        })
        .unwrap_or_default();
    expected
        .iter()
        .map(|test| {
            let ExpectedTest { module, name } = test.expected();
            Judged {
                kind: test.kind,
                passed: passed
                    .get(&(module.as_str(), name.as_str()))
                    .copied()
                    .unwrap_or(false),
            }
        })
        .collect()
}

/// The tests of `instance` that a rate restricted to `kind` counts (all of them for `None`).
fn of_kind(instance: &[Judged], kind: Option<TestKind>) -> impl Iterator<Item = &Judged> {
    instance
        .iter()
        .filter(move |t| kind.is_none_or(|k| t.kind == k))
}

/// The pass rates of a run: strict and average, over all tests and by kind, in percent.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PassRates {
    pub spr: Score,
    pub apr: Score,
    pub spr_external: Score,
    pub apr_external: Score,
    pub spr_internal: Score,
    pub apr_internal: Score,
}

impl PassRates {
    /// All six rates of `instances` (each instance's judged tests).
    pub fn of(instances: &[Vec<Judged>]) -> Self {
        Self {
            spr: strict_pass_rate(instances, None),
            apr: average_pass_rate(instances, None),
            spr_external: strict_pass_rate(instances, Some(TestKind::External)),
            apr_external: average_pass_rate(instances, Some(TestKind::External)),
            spr_internal: strict_pass_rate(instances, Some(TestKind::Internal)),
            apr_internal: average_pass_rate(instances, Some(TestKind::Internal)),
        }
    }
}
