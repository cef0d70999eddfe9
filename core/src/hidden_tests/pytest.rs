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
//! In the judge's copy of each test file every top-level test is renamed with words of the
//! file's own test names (`test_waves_named_dag` beside `test_waves_cycle` and
//! `test_order_named_targets`), gets a twin ([`super::twins`]: the same test with one
//! assertion turned, so at most one of the two can pass), and the tests, the twins and a
//! canary (a test that always fails) follow the rest of the module in an order drawn per run.
//! Nothing generic can tell a test from its twin or the canary by name, prefix, file or
//! position. The verdict ([`PytestSuite::verdict`]) believes the stream only when it ends
//! with the runner's end record, lists every expected test, twin and canary, reports every
//! canary as failed and no test passed beside its twin; a test counts as passed only when
//! its twin failed.
//!
//! What remains possible (`docs/hidden-tests.md`): the test files are readable in the
//! sandbox, so a forger sees each pair; picking the real one of a pair without computing
//! its answer is a guess.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::{Map, Value};

use super::twins::{self, SplitMix};
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
    /// `tests/<file>::<name>` or `tests/<file>::<Class>::<method>`: the name it runs under
    /// in the judge's copy of the file (a top-level test is renamed).
    node: String,
    /// The node of its twin ([`super::twins`]), when it has one.
    twin: Option<String>,
}

/// A suite ready to run: the test files with their twins and canaries, what must be reported.
#[derive(Clone, Debug, PartialEq)]
pub struct PytestSuite {
    /// Judge-relative path (`tests/test_turn.py`) and text, twins and canary included.
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
    /// (random, from the host: core has no randomness of its own) draws the names, the
    /// twins' changes, the canaries and the order of the tests.
    ///
    /// In the judge's copy of each file every top-level test is renamed, gets its twin when
    /// it has a top-level assertion to turn, and the tests, twins and the file's canary follow
    /// the rest of the module in a drawn order; tests in classes stay where they are.
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
            let mut namer = Namer::new(&names);
            let split = twins::split(text);
            let mut pieces: Vec<String> = Vec::new();
            // Original name -> the name it runs under and its twin's.
            let mut renamed: BTreeMap<&str, (String, Option<String>)> = BTreeMap::new();
            for test in &split.tests {
                let name = namer.fresh(&mut rng);
                pieces.push(test.renamed(&name));
                let twin = if test.has_twin() {
                    let twin_name = namer.fresh(&mut rng);
                    pieces.extend(test.twin(&twin_name, &mut rng));
                    Some(twin_name)
                } else {
                    None
                };
                renamed.insert(test.name.as_str(), (name, twin));
            }
            let canary = namer.fresh(&mut rng);
            let (left, right) = (
                rng.next() % 900_000 + 100_000,
                rng.next() % 900_000 + 100_000,
            );
            // `left != right + 1_000_000` always holds; the body looks like any other assert.
            pieces.push(format!(
                "def {canary}():\n    value = {left}\n    assert value == {}\n",
                right + 1_000_000
            ));
            rng.shuffle(&mut pieces);
            // Never first: the test files import the submission lazily (in the first test
            // that calls it), so a plugin it registers at import is not there yet for an
            // item run before any test; a canary drawn first failed honestly, and a generic
            // forger kept every untwinned pass (seen in CI, about 1 run in 18 per suite).
            // Moved behind a drawn later piece, it runs after the first import.
            let canary_text = format!("def {canary}():");
            if pieces.len() > 1 && pieces[0].starts_with(&canary_text) {
                let later = 1 + rng.below(pieces.len() - 1);
                pieces.swap(0, later);
            }
            let mut judged = split.rest.trim_end().to_owned();
            for piece in &pieces {
                judged.push_str("\n\n\n");
                judged.push_str(piece.trim_end());
            }
            judged.push('\n');
            let node = |name: &str| format!("{judge_path}::{}", name.replace('.', "::"));
            for test in tests {
                let (runs_as, twin) = match renamed.get(test.name.as_str()) {
                    Some((name, twin)) => (node(name), twin.as_deref().map(node)),
                    None => (node(&test.name), None),
                };
                suite.tests.push(Planned {
                    test,
                    node: runs_as,
                    twin,
                });
            }
            suite.canaries.push(Planned {
                node: node(&canary),
                test: ExpectedTest {
                    module: module.clone(),
                    name: canary,
                },
                twin: None,
            });
            suite.files.push((judge_path, judged));
        }
        suite
    }

    /// How many of the suite's tests have a twin, of how many.
    pub fn twinned(&self) -> (usize, usize) {
        (
            self.tests.iter().filter(|t| t.twin.is_some()).count(),
            self.tests.len(),
        )
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
        let result_of = |test: &ExpectedTest, node: &str| -> TestResult {
            let mine: Vec<&Phase> = phases.iter().filter(|p| p.of(node)).collect();
            let collected_badly = collect_errors.iter().any(|c| node.starts_with(c.as_str()));
            let (outcome, excerpt) = if collected_badly {
                (
                    TestOutcome::Errored,
                    "its file could not be collected".to_owned(),
                )
            } else {
                combine(&mine).unwrap_or((missing, missing_why.clone()))
            };
            TestResult {
                module: test.module.clone(),
                name: test.name.clone(),
                outcome,
                duration_s: mine.iter().map(|p| p.seconds).sum(),
                excerpt,
            }
        };
        let mut both_passed = Vec::new();
        let mut twins = Vec::new();
        let tests: Vec<TestResult> = self
            .tests
            .iter()
            .map(|plan| {
                let mut result = result_of(&plan.test, &plan.node);
                let Some(twin_node) = &plan.twin else {
                    return result;
                };
                let twin = result_of(&plan.test, twin_node);
                if result.outcome == TestOutcome::Passed {
                    // A test counts only beside its twin failing: no code makes both pass,
                    // and a forger who cannot compute the answer cannot tell them apart.
                    if twin.outcome == TestOutcome::Passed {
                        both_passed.push(plan.test.name.clone());
                    }
                    if !matches!(twin.outcome, TestOutcome::Failed | TestOutcome::Errored) {
                        result.outcome = TestOutcome::Failed;
                        result.excerpt = format!(
                            "its twin, which fails whenever it passes, was {}",
                            outcome_word(twin.outcome)
                        );
                    }
                }
                twins.push(twin);
                result
            })
            .collect();
        let canaries: Vec<TestResult> = self
            .canaries
            .iter()
            .map(|plan| result_of(&plan.test, &plan.node))
            .collect();
        if ended {
            let lacking: Vec<&str> = tests
                .iter()
                .chain(&canaries)
                .chain(&twins)
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
        if !both_passed.is_empty() {
            problem.get_or_insert_with(|| {
                format!(
                    "{} test{} and {} twin{}, of which at most one can pass, were reported \
                     passed ({})",
                    both_passed.len(),
                    if both_passed.len() == 1 { "" } else { "s" },
                    if both_passed.len() == 1 {
                        "its"
                    } else {
                        "their"
                    },
                    if both_passed.len() == 1 { "" } else { "s" },
                    super::truncate(&both_passed.join(", "), 300)
                )
            });
        }
        if canaries
            .iter()
            .any(|c| matches!(c.outcome, TestOutcome::Passed | TestOutcome::Skipped))
        {
            problem.get_or_insert_with(|| {
                "a canary test, which always fails, was reported as passed or skipped".to_owned()
            });
        }
        // A pass counts only once every canary was reported failed. A run cut short (its
        // time or memory limit, a killed interpreter) before a canary ran would otherwise
        // keep every pass reported before it, and a forger who reports every test passed
        // and stalls when it meets the canary (its body compares two literals, which can be
        // recognised) would keep them all.
        if tests.iter().any(|t| t.outcome.passed())
            && canaries.iter().any(|c| c.outcome != TestOutcome::Failed)
        {
            problem.get_or_insert_with(|| {
                "the run ended before its canary test (which always fails) was reported \
                 failed, so no pass reported before it can be told from a forged one"
                    .to_owned()
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

/// How a twin's outcome reads in a failed test's excerpt.
fn outcome_word(outcome: TestOutcome) -> &'static str {
    match outcome {
        TestOutcome::Passed => "reported passed",
        TestOutcome::Failed | TestOutcome::Errored => "reported failed",
        TestOutcome::Skipped => "skipped",
        TestOutcome::Missing => "never reported",
        TestOutcome::TimedOut => "not reached in time",
    }
}

/// Draws test names made of the words of a file's own test names (`test_grid_longer_random`
/// beside `test_distances_grid_one_source`), each unlike every name given or drawn before.
struct Namer<'a> {
    words: Vec<&'a str>,
    taken: BTreeSet<String>,
}

impl<'a> Namer<'a> {
    const FALLBACK: [&'static str; 7] =
        ["case", "result", "value", "check", "basic", "edge", "input"];

    fn new(names: &[&'a str]) -> Self {
        let words: Vec<&str> = names
            .iter()
            .flat_map(|n| n.rsplit('.').next().unwrap_or(n).split('_'))
            .filter(|w| !w.is_empty() && *w != "test")
            .collect();
        Self {
            words,
            taken: names
                .iter()
                .map(|n| n.rsplit('.').next().unwrap_or(n).to_owned())
                .collect(),
        }
    }

    fn fresh(&mut self, rng: &mut SplitMix) -> String {
        let pool: &[&str] = if self.words.len() >= 3 {
            &self.words
        } else {
            &Self::FALLBACK
        };
        let mut attempt = 0;
        loop {
            let count = 2 + rng.below(2) + attempt / 40;
            let mut parts = vec!["test"];
            for _ in 0..count {
                parts.push(pool[rng.below(pool.len())]);
            }
            if attempt >= 20 {
                parts.push(Self::FALLBACK[attempt % Self::FALLBACK.len()]);
            }
            let name = parts.join("_");
            if !self.taken.contains(&name) && !parts[1..].windows(2).any(|w| w[0] == w[1]) {
                self.taken.insert(name.clone());
                return name;
            }
            // Longer names with every 40 attempts: one is free before long.
            attempt += 1;
        }
    }
}
