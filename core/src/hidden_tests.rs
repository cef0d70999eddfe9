//! Hidden-test verdicts: pytest's JUnit XML report checked against the tests that must be in it and a canary that must fail.
//!
//! A submission runs in the same interpreter as the tests that judge it, so it can exit
//! early with status 0 or patch pytest to print "passed". The verdict therefore never comes
//! from an exit code or from pytest's summary line, only from the JUnit XML report, and the
//! report is only believed when:
//! - it lists every test the hidden test files define ([`expected_tests`]): a test missing
//!   from the report means the run was cut short or rewritten;
//! - it lists the canary, a test with a random name that always fails
//!   ([`canary_source`]), as failed: a passing canary means something made failures pass.
//!
//! Otherwise the run is *tampered*: every test counts as failed and the reason is kept.
//! Errored, skipped, uncollected and timed-out tests are failures too. A run that hit its
//! time or memory limit has no report; its tests are failed (timed out, or errored), which
//! is a verdict on the submission, not tampering.
//!
//! Example: expected `test_turn.test_a` and `test_turn.test_b`, a report where `test_a`
//! passed, `test_b` has a `<failure>` and the canary failed gives 1 of 2 passed, not
//! tampered.

use serde::{Deserialize, Serialize};

/// Most bytes of failure text kept per test (stored for maintainers, never sent raw to
/// the submitter, since it may quote the hidden test).
pub const EXCERPT_BYTES: usize = 2048;

/// A test the report must list: the test file's module name and the test's name within
/// it (`Class.test_x` for a method).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    /// Not in the report.
    Missing,
    /// The run hit its time limit before the report was written.
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
    /// Seconds, as pytest measured them; 0 when unknown.
    pub duration_s: f64,
    /// The start of the failure or error message, at most [`EXCERPT_BYTES`].
    pub excerpt: String,
}

/// How the run itself ended, as far as the verdict cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunEnd {
    /// The command finished (any exit code): a report must be there.
    Finished,
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
    /// Why the report is not believed; every test then counts as failed.
    pub tampered: Option<String>,
}

/// A hidden-test job's progress as the server reports it and the app shows it (`GET
/// /api/v1/jobs/{id}` and each server-sent `progress` event).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobProgress {
    pub job: i64,
    pub run: i64,
    /// `queued`, `running`, `done` or `failed`.
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
        self.state == "done" || self.state == "failed"
    }
}

impl Verdict {
    /// The counts the scorer takes: a tampered report counts as failed, because a passed
    /// test is only believed from an honest report.
    pub fn results(&self) -> crate::metrics::pass_rate::TestResults {
        crate::metrics::pass_rate::TestResults {
            passed: if self.tampered.is_some() {
                0
            } else {
                self.passed
            },
            total: self.total,
        }
    }
}

/// The tests a hidden test file defines: top-level `test*` functions and the `test*`
/// methods of top-level `Test*` classes, as pytest collects them by default.
pub fn expected_tests(module: &str, source: &str) -> Vec<ExpectedTest> {
    let outline = crate::outline::outline(source);
    outline
        .definitions
        .iter()
        .filter(|d| {
            let name = d.qualified_name.as_str();
            match name.split_once('.') {
                None => {
                    d.kind == crate::outline::DefinitionKind::Function && name.starts_with("test")
                }
                Some((class, method)) => {
                    class.starts_with("Test") && method.starts_with("test") && !method.contains('.')
                }
            }
        })
        .map(|d| ExpectedTest {
            module: module.to_owned(),
            name: d.qualified_name.clone(),
        })
        .collect()
}

/// A test file holding only the canary `name`, which always fails.
pub fn canary_source(name: &str) -> String {
    format!(
        "# Wheelwright's canary: this test must fail. If the report says it passed, something\n\
         # in the run made failures pass, and the whole run is marked as tampered.\n\n\n\
         def {name}():\n    assert False, \"canary\"\n"
    )
}

/// One `<testcase>` of a report.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// pytest's dotted module path, then the class for methods: `test_turn.TestX`.
    pub classname: String,
    pub name: String,
    pub outcome: TestOutcome,
    pub duration_s: f64,
    pub excerpt: String,
}

/// Reads the `<testcase>` elements of a JUnit XML report, in order.
pub fn cases(xml: &str) -> Result<Vec<Case>, String> {
    let doc = roxmltree::Document::parse(xml).map_err(|e| format!("the report is not XML: {e}"))?;
    let mut out = Vec::new();
    for node in doc.descendants().filter(|n| n.has_tag_name("testcase")) {
        let mut outcome = TestOutcome::Passed;
        let mut excerpt = String::new();
        for child in node.children().filter(|c| c.is_element()) {
            let this = match child.tag_name().name() {
                "failure" => TestOutcome::Failed,
                "error" => TestOutcome::Errored,
                "skipped" => TestOutcome::Skipped,
                _ => continue,
            };
            // An error in teardown comes after a failure: the worst outcome wins.
            if outcome == TestOutcome::Passed || this == TestOutcome::Errored {
                outcome = this;
            }
            if excerpt.is_empty() {
                let message = child.attribute("message").unwrap_or_default();
                let text = child.text().unwrap_or_default();
                excerpt = truncate(&format!("{message}\n{text}"), EXCERPT_BYTES);
            }
        }
        out.push(Case {
            classname: node.attribute("classname").unwrap_or_default().to_owned(),
            name: node.attribute("name").unwrap_or_default().to_owned(),
            outcome,
            duration_s: node
                .attribute("time")
                .and_then(|t| t.parse().ok())
                .filter(|t: &f64| t.is_finite() && *t >= 0.0)
                .unwrap_or(0.0),
            excerpt,
        });
    }
    Ok(out)
}

fn truncate(text: &str, max: usize) -> String {
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

/// Whether report case `case` is the test `module`.`name` (or one of its parametrised
/// instances `name[...]`). pytest's classname is the dotted module path, followed by the
/// class for methods: `test_turn`, `tests.test_turn.TestX`.
fn is_case_of(case: &Case, module: &str, name: &str) -> bool {
    let full = format!("{}.{}", case.classname, case.name);
    let bare = full.split('[').next().unwrap_or_default();
    let want = format!("{module}.{name}");
    (bare == want || bare.ends_with(&format!(".{want}")))
        && (case.name.split('[').next() == name.rsplit('.').next())
}

/// The verdict on a run: `report` is the JUnit XML read back (or `None`), `expected` the
/// tests the hidden files define, `canary` the canary's module and name.
pub fn verdict(
    report: Option<&str>,
    end: RunEnd,
    expected: &[ExpectedTest],
    canary: &ExpectedTest,
) -> Verdict {
    let failed_all = |outcome: TestOutcome, excerpt: &str, tampered: Option<String>| Verdict {
        tests: expected
            .iter()
            .map(|t| TestResult {
                module: t.module.clone(),
                name: t.name.clone(),
                outcome,
                duration_s: 0.0,
                excerpt: excerpt.to_owned(),
            })
            .collect(),
        passed: 0,
        total: count(expected.len()),
        tampered,
    };
    match end {
        RunEnd::TimedOut => {
            return failed_all(TestOutcome::TimedOut, "the run hit its time limit", None);
        }
        RunEnd::OutOfMemory => {
            return failed_all(TestOutcome::Errored, "the run hit its memory limit", None);
        }
        RunEnd::Finished => {}
    }
    let Some(report) = report else {
        return failed_all(
            TestOutcome::Missing,
            "",
            Some("the run finished without writing its JUnit report".to_owned()),
        );
    };
    let cases = match cases(report) {
        Ok(cases) => cases,
        Err(e) => return failed_all(TestOutcome::Missing, "", Some(e)),
    };
    let mut tests = Vec::with_capacity(expected.len());
    let mut missing = Vec::new();
    for t in expected {
        let found: Vec<&Case> = cases
            .iter()
            .filter(|c| is_case_of(c, &t.module, &t.name))
            .collect();
        let result = if found.is_empty() {
            missing.push(format!("{}.{}", t.module, t.name));
            TestResult {
                module: t.module.clone(),
                name: t.name.clone(),
                outcome: TestOutcome::Missing,
                duration_s: 0.0,
                excerpt: String::new(),
            }
        } else {
            // A parametrised test passes only when every instance passed.
            let worst = found
                .iter()
                .find(|c| !c.outcome.passed())
                .copied()
                .unwrap_or(found[0]);
            TestResult {
                module: t.module.clone(),
                name: t.name.clone(),
                outcome: worst.outcome,
                duration_s: found.iter().map(|c| c.duration_s).sum(),
                excerpt: worst.excerpt.clone(),
            }
        };
        tests.push(result);
    }
    let canary_cases: Vec<&Case> = cases
        .iter()
        .filter(|c| is_case_of(c, &canary.module, &canary.name))
        .collect();
    let tampered = if !missing.is_empty() {
        Some(format!(
            "the report lacks {} expected test{} ({})",
            missing.len(),
            if missing.len() == 1 { "" } else { "s" },
            truncate(&missing.join(", "), 300)
        ))
    } else if canary_cases.is_empty() {
        Some("the report lacks the canary test".to_owned())
    } else if canary_cases
        .iter()
        .any(|c| !matches!(c.outcome, TestOutcome::Failed | TestOutcome::Errored))
    {
        Some("the canary test, which always fails, was reported as passed".to_owned())
    } else {
        None
    };
    if tampered.is_some() {
        for t in &mut tests {
            if t.outcome.passed() {
                t.outcome = TestOutcome::Failed;
            }
        }
    }
    let passed = count(tests.iter().filter(|t| t.outcome.passed()).count());
    Verdict {
        total: count(tests.len()),
        passed,
        tests,
        tampered,
    }
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
