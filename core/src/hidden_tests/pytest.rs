//! pytest suites: test files that must run as pytest in the sandbox, run hardened, with results streamed test by test and canaries hidden among the real tests.
//!
//! Used where a benchmark's tests cannot be written as calls with expected values (case
//! suites, [`super::cases`], are preferred: there the host judges). The test files, the
//! project's runner ([`RUNNER`]) and a trusted ini ([`INI`]) are judge files, read-only under
//! `/judge`, never in the submission's workspace. The runner starts pytest with `-c
//! /judge/pytest.ini --rootdir=/judge --noconftest -p no:cacheprovider`, plugin autoload off,
//! and its own plugin, which streams each test's phases as they finish and an end record
//! when the session finishes (see `runner/run_pytest.py`).
//!
//! Every test file gets a canary: a test that always fails, named from the words of the
//! file's own test names (`test_waves_named_dag` beside `test_waves_cycle` and
//! `test_order_named_targets`) and placed in the same module, so that nothing generic can
//! tell it apart by name, prefix, file or position. The verdict ([`PytestSuite::verdict`])
//! believes the stream only when it ends with the runner's end record, lists every expected
//! test, and reports every canary as failed; anything else is tampering.
//!
//! What remains possible (`docs/hidden-tests.md`): the test files, expected values included,
//! are readable in the sandbox, and code in the same interpreter can in principle recognise
//! a canary by reading its body and forge results for the rest.

use serde::Serialize;
use serde_json::{Map, Value};

use super::{ExpectedTest, RunEnd, TestOutcome, TestResult, Verdict, stream, unreported};

/// The project's pytest runner, run in the sandbox as `python -I /judge/run_pytest.py`.
pub const RUNNER: &str = include_str!("runner/run_pytest.py");

/// The trusted ini pytest is started with (`-c`): nothing a submission leaves is read.
pub const INI: &str = "[pytest]\naddopts =\n";

/// Where the runner reads the list of test files, under `/judge`.
pub const INPUT: &str = "pytest.json";

/// Where the test files go, under `/judge` (pytest's root directory).
const TESTS_DIR: &str = "tests";

/// The tests a test file defines: top-level `test*` functions and the `test*` methods of
/// top-level `Test*` classes, as pytest collects them by default; `module` names the file.
pub fn expected_tests(module: &str, source: &str) -> Vec<ExpectedTest> {
    let outline = crate::outline::outline(source);
    outline
        .definitions
        .iter()
        .filter(|d| {
            let name = d.qualified_name.as_str();
            match name.split_once('.') {
                None => {
                    d.kind == crate::python::facts::DefinitionKind::Function
                        && name.starts_with("test")
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

/// A test the stream must report, with the node id pytest gives it.
#[derive(Clone, Debug, PartialEq)]
struct Planned {
    test: ExpectedTest,
    /// `tests/<file>::<name>` or `tests/<file>::<Class>::<method>`.
    node: String,
}

/// A suite ready to run: the test files with their canaries, what must be reported.
#[derive(Clone, Debug, PartialEq)]
pub struct PytestSuite {
    /// Judge-relative path (`tests/test_turn.py`) and text, canary included.
    files: Vec<(String, String)>,
    tests: Vec<Planned>,
    canaries: Vec<Planned>,
}

#[derive(Serialize)]
struct RunnerInput<'a> {
    files: Vec<&'a str>,
}

impl PytestSuite {
    /// Prepares the test files `files` (path relative to the turn's `tests/` and text); `seed`
    /// (random, from the host: core has no randomness of its own) chooses the canaries.
    pub fn new(files: &[(String, String)], seed: u64) -> Self {
        let mut rng = SplitMix(seed);
        let mut suite = Self {
            files: Vec::new(),
            tests: Vec::new(),
            canaries: Vec::new(),
        };
        for (path, text) in files {
            let judge_path = format!("{TESTS_DIR}/{path}");
            if !path.ends_with(".py") {
                suite.files.push((judge_path, text.clone()));
                continue;
            }
            let module = module_of(path);
            let tests = expected_tests(&module, text);
            let names: Vec<&str> = tests.iter().map(|t| t.name.as_str()).collect();
            let canary = canary_name(&names, &mut rng);
            let mut text = text.clone();
            if !text.ends_with('\n') {
                text.push('\n');
            }
            let (left, right) = (
                rng.next() % 900_000 + 100_000,
                rng.next() % 900_000 + 100_000,
            );
            // `left != right + 1_000_000` always holds; the body looks like any other assert.
            text.push_str(&format!(
                "\n\ndef {canary}():\n    value = {left}\n    assert value == {}\n",
                right + 1_000_000
            ));
            let plan = |test: ExpectedTest| Planned {
                node: format!("{judge_path}::{}", test.name.replace('.', "::")),
                test,
            };
            suite.tests.extend(tests.into_iter().map(plan));
            suite.canaries.push(plan(ExpectedTest {
                module: module.clone(),
                name: canary,
            }));
            suite.files.push((judge_path, text));
        }
        suite
    }

    /// The tests of the suite (the canaries are not among them).
    pub fn expected_tests(&self) -> Vec<ExpectedTest> {
        self.tests.iter().map(|p| p.test.clone()).collect()
    }

    /// The canaries' names, for logs and tests.
    pub fn canaries(&self) -> Vec<ExpectedTest> {
        self.canaries.iter().map(|p| p.test.clone()).collect()
    }

    /// Every file the sandbox gets under `/judge`: the runner, the ini, the list of test
    /// files and the test files with their canaries.
    pub fn judge_files(&self) -> Vec<(String, Vec<u8>)> {
        let input = RunnerInput {
            files: self
                .files
                .iter()
                .filter(|(p, _)| p.ends_with(".py"))
                .map(|(p, _)| p.as_str())
                .collect(),
        };
        let mut files = vec![
            ("run_pytest.py".to_owned(), RUNNER.as_bytes().to_vec()),
            ("pytest.ini".to_owned(), INI.as_bytes().to_vec()),
            (
                INPUT.to_owned(),
                serde_json::to_vec(&input).unwrap_or_default(),
            ),
        ];
        files.extend(
            self.files
                .iter()
                .map(|(p, t)| (p.clone(), t.as_bytes().to_vec())),
        );
        files
    }

    /// The verdict from the result stream (`None`: none came back) and how the run ended;
    /// `truncated`: the stream was over its size limit.
    pub fn verdict(&self, stream: Option<&[u8]>, truncated: bool, end: RunEnd) -> Verdict {
        let records = stream::read(stream.unwrap_or_default());
        let mut problem = records.problem.clone();
        if truncated {
            problem = Some("the result stream was over its size limit".to_owned());
        }
        let mut phases: Vec<Phase> = Vec::new();
        let mut collect_errors: Vec<String> = Vec::new();
        for record in &records.records {
            if let Some(node) = record.get("collect").and_then(Value::as_str) {
                collect_errors.push(node.to_owned());
                continue;
            }
            match Phase::read(record) {
                Some(phase) => phases.push(phase),
                None => {
                    problem.get_or_insert_with(|| "a result record is malformed".to_owned());
                }
            }
        }
        let ended = records.end.is_some();
        if !ended && end == RunEnd::Exited(0) {
            problem.get_or_insert_with(|| {
                "the interpreter exited cleanly before the pytest session finished (the \
                 submission ended the process)"
                    .to_owned()
            });
        }
        let (missing, missing_why) = unreported(end);
        let result_of = |plan: &Planned| -> TestResult {
            let mine: Vec<&Phase> = phases.iter().filter(|p| p.of(&plan.node)).collect();
            let collected_badly = collect_errors
                .iter()
                .any(|c| plan.node.starts_with(c.as_str()));
            let (outcome, excerpt) = if collected_badly {
                (
                    TestOutcome::Errored,
                    "its file could not be collected".to_owned(),
                )
            } else {
                combine(&mine).unwrap_or((missing, missing_why.clone()))
            };
            TestResult {
                module: plan.test.module.clone(),
                name: plan.test.name.clone(),
                outcome,
                duration_s: mine.iter().map(|p| p.seconds).sum(),
                excerpt,
            }
        };
        let tests: Vec<TestResult> = self.tests.iter().map(result_of).collect();
        let canaries: Vec<TestResult> = self.canaries.iter().map(result_of).collect();
        if ended {
            let lacking: Vec<&str> = tests
                .iter()
                .chain(&canaries)
                .filter(|t| t.outcome == TestOutcome::Missing)
                .map(|t| t.name.as_str())
                .collect();
            if !lacking.is_empty() {
                problem.get_or_insert_with(|| {
                    format!(
                        "the session ended without reporting {} expected test{} ({})",
                        lacking.len(),
                        if lacking.len() == 1 { "" } else { "s" },
                        super::truncate(&lacking.join(", "), 300)
                    )
                });
            }
        }
        if canaries
            .iter()
            .any(|c| matches!(c.outcome, TestOutcome::Passed | TestOutcome::Skipped))
        {
            problem.get_or_insert_with(|| {
                "a canary test, which always fails, was reported as passed or skipped".to_owned()
            });
        }
        Verdict::from_tests(tests, problem)
    }
}

/// One phase (setup, call, teardown) of one test as the runner's plugin reported it.
#[derive(Clone, Debug)]
struct Phase {
    node: String,
    when: String,
    outcome: String,
    seconds: f64,
}

impl Phase {
    fn read(record: &Map<String, Value>) -> Option<Self> {
        let text = |k: &str| record.get(k).and_then(Value::as_str).map(str::to_owned);
        Some(Self {
            node: text("test")?,
            when: text("when")?,
            outcome: text("outcome")?,
            seconds: record
                .get("s")
                .and_then(Value::as_f64)
                .filter(|s| s.is_finite() && *s >= 0.0)
                .unwrap_or(0.0),
        })
    }

    /// Whether this phase belongs to `node` (or to one of its parametrised instances).
    fn of(&self, node: &str) -> bool {
        self.node == node
            || self
                .node
                .strip_prefix(node)
                .is_some_and(|rest| rest.starts_with('['))
    }
}

/// A test's outcome from its phases (of every parametrised instance: the worst wins);
/// `None` when it has no call phase and nothing failed (never ran).
fn combine(phases: &[&Phase]) -> Option<(TestOutcome, String)> {
    let failed = |when: &str| {
        phases
            .iter()
            .any(|p| p.when == when && p.outcome == "failed")
    };
    if failed("setup") || failed("teardown") {
        return Some((
            TestOutcome::Errored,
            "an error in its setup or teardown".to_owned(),
        ));
    }
    if failed("call") {
        return Some((TestOutcome::Failed, "the test failed".to_owned()));
    }
    if phases.iter().any(|p| p.outcome == "skipped") {
        return Some((TestOutcome::Skipped, "the test was skipped".to_owned()));
    }
    let calls = phases.iter().filter(|p| p.when == "call").count();
    (calls > 0 && phases.iter().all(|p| p.outcome == "passed"))
        .then(|| (TestOutcome::Passed, String::new()))
}

/// The module name results report for the test file at `path` (relative to the suite's
/// `tests/`): `test_parser.py` is `test_parser`, `unit/test_a.py` is `unit.test_a`.
pub fn module_of(path: &str) -> String {
    path.trim_end_matches(".py").replace('/', ".")
}

/// A canary name made of words of the file's test names, unlike any of them.
fn canary_name(names: &[&str], rng: &mut SplitMix) -> String {
    let words: Vec<&str> = names
        .iter()
        .flat_map(|n| n.rsplit('.').next().unwrap_or(n).split('_'))
        .filter(|w| !w.is_empty() && *w != "test")
        .collect();
    let fallback = ["case", "result", "value", "check", "basic", "edge", "input"];
    let pool: &[&str] = if words.len() >= 3 { &words } else { &fallback };
    let mut attempt = 0;
    loop {
        attempt += 1;
        let count = 2 + (rng.next() % 2) as usize;
        let mut parts = vec!["test"];
        for _ in 0..count {
            parts.push(pool[(rng.next() % pool.len() as u64) as usize]);
        }
        if attempt > 20 {
            parts.push(fallback[attempt % fallback.len()]);
        }
        let name = parts.join("_");
        let taken = names
            .iter()
            .any(|n| n.rsplit('.').next() == Some(name.as_str()) || n.starts_with(&name));
        if !taken && !parts[1..].windows(2).any(|w| w[0] == w[1]) {
            return name;
        }
    }
}

/// SplitMix64: a tiny, well-known generator; enough to pick words from a host-chosen seed.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}
