//! Hidden-test verdicts: the sandbox computes, the host judges.
//!
//! A submission runs in the same interpreter as whatever tests it, so anything that process
//! reports can be forged: an exit code, pytest's summary, a report file, the result stream.
//! The verdict therefore never rests on the sandbox saying "passed". Two kinds of suites:
//!
//! - **Case suites** ([`cases`]), for datasets whose tests are calls with expected results
//!   (RepoReuse's `cases.json` + `expected.json`). The sandbox gets the calls only (function,
//!   argument expressions, comparison kind) and streams back what each call returned, in
//!   canonical form, or which exception it raised. Expected values never enter the sandbox;
//!   the comparison ([`compare`]) runs here, on the host. A submission can forge outputs, but
//!   forging the right outputs means computing them.
//! - **pytest suites** ([`pytest`]), for tests that must run as pytest in the sandbox. The run
//!   is hardened (the project's own runner and plugin, a trusted ini, no conftest, no plugin
//!   autoload, results streamed test by test while the session runs, canaries named and
//!   placed like real tests) and what remains possible is written in `docs/hidden-tests.md`:
//!   there the test file, expected values included, is necessarily in the sandbox.
//!
//! Both read the result stream with [`stream`]. A run that hit its time or memory limit fails
//! the tests that had not reported (timed out, or errored); that is a verdict on the
//! submission, not tampering. [`junit`] reads pytest's JUnit XML for `dataset verify`, which
//! runs trusted references only.

pub mod cases;
pub mod compare;
mod exceptions;
pub mod junit;
pub mod pytest;
pub mod stream;
mod twins;

use serde::{Deserialize, Serialize};

/// Most bytes of failure text kept per test (stored for maintainers, never sent raw to
/// the submitter, since it may quote the hidden test).
pub const EXCERPT_BYTES: usize = 2048;

/// A test the verdict must account for: its group (the test file's module for pytest
/// suites, the function called for case suites) and its name within it (`Class.test_x` for
/// a method, the case id for a case).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ExpectedTest {
    pub module: String,
    pub name: String,
}

/// How one test ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestOutcome {
    Passed,
    Failed,
    Errored,
    Skipped,
    /// Never reported.
    Missing,
    /// The run hit its time limit before the test reported.
    TimedOut,
}

impl TestOutcome {
    pub fn passed(self) -> bool {
        self == Self::Passed
    }
}

/// One expected test's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TestResult {
    pub module: String,
    pub name: String,
    pub outcome: TestOutcome,
    /// Seconds, as the runner measured them; 0 when unknown.
    pub duration_s: f64,
    /// Why it failed, at most [`EXCERPT_BYTES`].
    pub excerpt: String,
}

/// How the run itself ended, as far as the verdict cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunEnd {
    /// The interpreter exited with this status (0: cleanly).
    Exited(i32),
    /// A signal killed the interpreter (a crash).
    Signalled(i32),
    /// Killed at the wall-clock limit.
    TimedOut,
    /// Killed at the memory limit.
    OutOfMemory,
}

/// The verdict on one test run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub tests: Vec<TestResult>,
    pub passed: u32,
    pub total: u32,
    /// Why the run's results are not believed; every test then counts as failed.
    pub tampered: Option<String>,
}

/// A hidden-test job's progress as the server reports it and the app shows it (`GET
/// /api/v1/jobs/{id}` and each server-sent `progress` event).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobProgress {
    pub job: i64,
    pub run: i64,
    /// `queued`, `running`, `done`, `failed` or `cancelled`.
    pub state: String,
    pub turns_done: u32,
    pub turns_total: u32,
    pub tests_passed: u32,
    pub tests_total: u32,
    /// What is happening now (building the environment, testing a turn) or what failed.
    #[serde(default)]
    pub message: Option<String>,
}

impl JobProgress {
    /// Whether the job has ended: no further progress will come.
    pub fn finished(&self) -> bool {
        matches!(self.state.as_str(), "done" | "failed" | "cancelled")
    }
}

/// How many of an instance's hidden tests passed: what a verdict gives the scorer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestResults {
    pub passed: u32,
    pub total: u32,
}

impl Verdict {
    /// The counts the scorer takes: a tampered run counts as failed, because a passed test
    /// is only believed from an honest run.
    pub fn results(&self) -> TestResults {
        TestResults {
            passed: if self.tampered.is_some() {
                0
            } else {
                self.passed
            },
            total: self.total,
        }
    }

    /// Every test in `expected` with `outcome` and `excerpt`: a turn that could not run (no
    /// file at the required path, spec D8) or a run that is not believed.
    pub fn all(
        expected: &[ExpectedTest],
        outcome: TestOutcome,
        excerpt: &str,
        tampered: Option<String>,
    ) -> Self {
        Self::from_tests(
            expected
                .iter()
                .map(|t| TestResult {
                    module: t.module.clone(),
                    name: t.name.clone(),
                    outcome,
                    duration_s: 0.0,
                    excerpt: excerpt.to_owned(),
                })
                .collect(),
            tampered,
        )
    }

    /// The verdict over `tests`; when `tampered`, every passed test is turned into a failure.
    pub(crate) fn from_tests(mut tests: Vec<TestResult>, tampered: Option<String>) -> Self {
        if tampered.is_some() {
            for t in &mut tests {
                if t.outcome.passed() {
                    t.outcome = TestOutcome::Failed;
                }
            }
        }
        Self {
            passed: count(tests.iter().filter(|t| t.outcome.passed()).count()),
            total: count(tests.len()),
            tests,
            tampered,
        }
    }
}

/// What a test that never reported counts as, given how the run ended.
pub(crate) fn unreported(end: RunEnd) -> (TestOutcome, String) {
    match end {
        RunEnd::TimedOut => (
            TestOutcome::TimedOut,
            "the run hit its time limit before this test reported".to_owned(),
        ),
        RunEnd::OutOfMemory => (
            TestOutcome::Errored,
            "the run hit its memory limit before this test reported".to_owned(),
        ),
        RunEnd::Exited(status) => (
            TestOutcome::Missing,
            format!("the interpreter exited (status {status}) before this test reported"),
        ),
        RunEnd::Signalled(signal) => (
            TestOutcome::Errored,
            format!("the interpreter was killed by signal {signal} before this test reported"),
        ),
    }
}

/// `text` trimmed and cut to at most `max` bytes (on a character boundary), with `…` when cut.
pub fn truncate(text: &str, max: usize) -> String {
    let text = text.trim();
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
