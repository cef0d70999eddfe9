//! Hidden-test verdicts on real runner output: each scenario's stream was written by the project's runner on a real submission (`fixtures/hidden_tests/generate.sh`); core judges it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use wheelwright_core::hidden_tests::cases::CaseSuite;
use wheelwright_core::hidden_tests::compare::ExceptionClasses;
use wheelwright_core::hidden_tests::pytest::PytestSuite;
use wheelwright_core::hidden_tests::{RunEnd, TestOutcome, Verdict};
use wheelwright_core::python::index::{IndexOptions, RepoIndex};
use wheelwright_core::workspace::Workspace;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hidden_tests")
}

/// Road-audit turn 1 of the shipped dataset, the turn every scenario submits to.
fn turn_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../datasets/reporeuse-networkx/chains/road-audit/turn-1")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// How the runner's process ended (`run.json`, written by the generator).
#[derive(Deserialize)]
struct Run {
    end: String,
    #[serde(default)]
    status: i32,
}

/// The verdict a scenario must get (`expected.json`, the judge's specification).
#[derive(Deserialize)]
struct Expected {
    passed: u32,
    total: u32,
    /// The start of the reason the run is not believed; `null` when it is.
    tampered: Option<String>,
    /// Outcomes of some tests, by name; the others are not checked.
    #[serde(default)]
    outcomes: BTreeMap<String, TestOutcome>,
}

/// Judges every scenario of `kind` with `judge` and checks it against its expected verdict.
fn check_scenarios(kind: &str, judge: impl Fn(&[u8], RunEnd) -> Verdict) -> usize {
    let mut checked = 0;
    for entry in std::fs::read_dir(fixtures().join(kind)).unwrap() {
        let dir = entry.unwrap().path();
        let name = format!("{kind}/{}", dir.file_name().unwrap().to_string_lossy());
        let run: Run = serde_json::from_str(&read(&dir.join("run.json"))).unwrap();
        let end = match run.end.as_str() {
            "exited" => RunEnd::Exited(run.status),
            "timed_out" => RunEnd::TimedOut,
            other => panic!("{name}: unknown end {other}"),
        };
        let stream = std::fs::read(dir.join("stream.txt")).unwrap();
        let want: Expected = serde_json::from_str(&read(&dir.join("expected.json")))
            .unwrap_or_else(|e| panic!("{name}/expected.json: {e}"));
        let got = judge(&stream, end);
        assert_eq!(
            (got.passed, got.total),
            (want.passed, want.total),
            "{name}: {:?}",
            got.tests
                .iter()
                .map(|t| (&t.name, t.outcome, &t.excerpt))
                .collect::<Vec<_>>()
        );
        match (&got.tampered, &want.tampered) {
            (None, None) => {}
            (Some(said), Some(prefix)) => {
                assert!(
                    said.starts_with(prefix.as_str()),
                    "{name}: {said:?} vs {prefix:?}"
                )
            }
            (said, wanted) => panic!("{name}: tampered {said:?}, expected {wanted:?}"),
        }
        for (test, outcome) in &want.outcomes {
            let found = got.tests.iter().find(|t| &t.name == test);
            assert_eq!(found.map(|t| t.outcome), Some(*outcome), "{name}: {test}");
        }
        checked += 1;
    }
    checked
}

/// The exception classes of networkx as the host knows them: its `exception.py` (3.4.2,
/// vendored beside the comparison fixtures) indexed, and the built-in ones.
fn networkx_exceptions() -> ExceptionClasses {
    let mut repository = Workspace::new();
    repository.insert(
        "networkx/exception.py",
        read(&fixtures().join("compare/networkx/exception.py")),
    );
    let index = RepoIndex::build(&repository, &IndexOptions::default());
    ExceptionClasses::of_repository(&index, "networkx")
}

/// Road-audit turn 1's cases.
fn case_suite() -> CaseSuite {
    CaseSuite::new(
        "solutions.road_audit.distances",
        "networkx",
        &read(&turn_dir().join("cases.json")),
        &read(&turn_dir().join("expected.json")),
    )
    .unwrap()
    .with_exceptions(networkx_exceptions())
}

#[test]
fn case_suites_are_judged_on_the_host() {
    let suite = case_suite();
    let checked = check_scenarios("cases", |stream, end| {
        suite.verdict(Some(stream), false, end)
    });
    assert_eq!(checked, 8, "every scenario was checked");
}

#[test]
fn pytest_suites_are_judged_from_the_stream_and_the_canaries() {
    let file = read(&turn_dir().join("tests/test_turn.py"));
    // The generator drew names, twins, the canaries and the order with seed 7.
    let suite = PytestSuite::new(&[("test_turn.py".to_owned(), file)], 7);
    let checked = check_scenarios("pytest", |stream, end| {
        suite.verdict(Some(stream), false, end)
    });
    assert_eq!(checked, 8, "every scenario was checked");
}

#[test]
fn the_sandbox_gets_the_calls_and_nothing_of_what_they_expect() {
    let suite = case_suite();
    let input: serde_json::Value = serde_json::from_str(&suite.judge_input()).unwrap();
    let cases: Vec<serde_json::Value> =
        serde_json::from_str(&read(&turn_dir().join("cases.json"))).unwrap();
    assert_eq!(input["module"], "solutions.road_audit.distances");
    let sent = input["cases"].as_array().unwrap();
    assert_eq!(sent.len(), cases.len());
    // Each call is one of cases.json's, under an alias, with its form
    // only: no id, no comparison kind, so an exception case looks like a value case.
    let call = |c: &serde_json::Value| {
        (
            c["function"].clone(),
            c["args"].clone(),
            c["kwargs"].clone(),
        )
    };
    let mut want: Vec<_> = cases.iter().map(call).collect();
    let mut got: Vec<_> = sent.iter().map(call).collect();
    want.sort_by_key(|c| format!("{c:?}"));
    got.sort_by_key(|c| format!("{c:?}"));
    assert_eq!(got, want);
    for (position, case) in sent.iter().enumerate() {
        let keys: Vec<&str> = case
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert!(
            keys.iter()
                .all(|k| ["id", "function", "args", "kwargs", "form"].contains(k)),
            "{keys:?}"
        );
        assert_eq!(case["id"], format!("c{}", position + 1));
        let original = cases.iter().find(|c| call(c) == call(case)).unwrap();
        let form = match original["compare"].as_str().unwrap() {
            "set" => "set",
            "sorted" => "sorted",
            _ => "value",
        };
        assert_eq!(case["form"], form, "{}", original["id"]);
    }
    let text = suite.judge_input();
    for case in &cases {
        let id = case["id"].as_str().unwrap();
        assert!(
            !text.contains(&format!("\"{id}\"")),
            "{id} leaked into the judge input"
        );
    }
    assert!(
        cases.iter().any(|c| c["compare"] == "raises"),
        "the turn has exception cases"
    );
    assert!(!text.contains("raises") && !text.contains("compare"));
    // Each function's cases together, in cases.json's order of functions, shuffled within:
    // the exception cases that come last in cases.json come anywhere.
    let functions = |list: &[serde_json::Value]| {
        let mut seen: Vec<serde_json::Value> = Vec::new();
        for c in list {
            if seen.last() != Some(&c["function"]) {
                seen.push(c["function"].clone());
            }
        }
        seen
    };
    assert_eq!(functions(sent), functions(&cases));
    let same_place = sent
        .iter()
        .zip(&cases)
        .filter(|(a, b)| call(a) == call(b))
        .count();
    assert!(
        same_place < cases.len() / 2,
        "{same_place} of {} cases in place",
        cases.len()
    );
    // The same turn is sent the same way every time.
    assert_eq!(case_suite().judge_input(), text);
    let expected: serde_json::Value =
        serde_json::from_str(&read(&turn_dir().join("expected.json"))).unwrap();
    let text = suite.judge_input();
    for case in expected["cases"].as_array().unwrap() {
        let value = case["expected"].to_string();
        // Values long enough to be recognisable never appear (short ones like `0` would
        // match by chance anywhere).
        if value.len() > 12 {
            assert!(
                !text.contains(&value),
                "{value} leaked into the judge input"
            );
        }
    }
}

#[test]
fn a_stream_over_its_limit_is_not_believed() {
    let suite = case_suite();
    let stream = std::fs::read(fixtures().join("cases/reference/stream.txt")).unwrap();
    let got = suite.verdict(Some(&stream), true, RunEnd::Exited(0));
    assert_eq!(got.passed, 0);
    assert!(got.tampered.unwrap().contains("size limit"));
    // Out of memory before anything reported: every case errored, not tampered.
    let got = suite.verdict(None, false, RunEnd::OutOfMemory);
    assert!(got.tampered.is_none());
    assert!(got.tests.iter().all(|t| t.outcome == TestOutcome::Errored));
}

#[test]
fn pytest_canaries_look_like_the_real_tests() {
    let file = read(&turn_dir().join("tests/test_turn.py"));
    let real: Vec<String> =
        wheelwright_core::hidden_tests::pytest::expected_tests("test_turn", &file)
            .into_iter()
            .map(|t| t.name)
            .collect();
    let words: std::collections::BTreeSet<&str> = real.iter().flat_map(|n| n.split('_')).collect();
    let mut names = std::collections::BTreeSet::new();
    for seed in 0..200 {
        let suite = PytestSuite::new(&[("test_turn.py".to_owned(), file.clone())], seed);
        let canaries = suite.canaries();
        assert_eq!(canaries.len(), 1);
        let canary = &canaries[0];
        assert_eq!(canary.module, "test_turn");
        assert!(!real.contains(&canary.name), "{}", canary.name);
        assert!(
            canary.name.split('_').all(|w| words.contains(w)),
            "{} is made of the file's own words",
            canary.name
        );
        // The canary is a test of the same module, in the file the sandbox gets.
        let staged = suite
            .judge_files()
            .into_iter()
            .find(|(p, _)| p == "tests/test_turn.py")
            .unwrap();
        let staged = String::from_utf8(staged.1).unwrap();
        assert!(staged.contains(&format!("def {}():", canary.name)));
        // Never the first test of the file: the tests import the submission lazily, so a
        // plugin it registers at import must already be there when the canary runs.
        let first = staged.lines().find(|l| l.starts_with("def test")).unwrap();
        assert_ne!(first, format!("def {}():", canary.name), "seed {seed}");
        names.insert(canary.name.clone());
    }
    assert!(names.len() > 25, "seeds pick different canaries: {names:?}");
}

/// One comparison: what the sandbox sent, the expected value, and what Python decided
/// (`fixtures/hidden_tests/compare/generate.py` ran the dataset's own canon.py and
/// pytest.raises logic).
#[derive(Deserialize)]
struct Comparison {
    kind: wheelwright_core::hidden_tests::compare::Compare,
    got: serde_json::Value,
    expected: serde_json::Value,
    python: bool,
    /// Why the host decides otherwise than the generated pytest file did, where it does.
    #[serde(default)]
    host_differs: Option<String>,
}

#[test]
fn comparisons_agree_with_python() {
    use wheelwright_core::hidden_tests::compare::{Got, matches};
    let entries: Vec<Comparison> =
        serde_json::from_str(&read(&fixtures().join("compare/expected.json"))).unwrap();
    assert!(entries.len() >= 40);
    let classes = networkx_exceptions();
    for entry in &entries {
        let got = match entry.got.get("raised") {
            Some(class) => Got::Raised(class.as_str().unwrap().to_owned()),
            None => Got::Value(entry.got["value"].clone()),
        };
        let host = matches(entry.kind, &got, &entry.expected, &classes);
        let want = entry.python ^ entry.host_differs.is_some();
        assert_eq!(
            host, want,
            "{:?} {} vs {} (python said {})",
            entry.kind, entry.got, entry.expected, entry.python
        );
    }
}

/// Every pytest file the shipped datasets judge: one per ReCUBE instance and the RepoReuse
/// turn the fixtures use.
fn shipped_pytest_files() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../datasets");
    let mut files = vec![(
        "test_turn.py".to_owned(),
        read(&turn_dir().join("tests/test_turn.py")),
    )];
    for instance in std::fs::read_dir(root.join("recube-pypi/instances")).unwrap() {
        for file in std::fs::read_dir(instance.unwrap().path().join("tests")).unwrap() {
            let path = file.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            files.push((name, read(&path)));
        }
    }
    files.sort();
    files
}

#[test]
fn pytest_tests_run_renamed_beside_their_twins_in_a_drawn_order() {
    let files = shipped_pytest_files();
    // One file per instance of version 1's 41, and the RepoReuse turn.
    assert_eq!(files.len(), 42);
    let (mut twinned, mut total) = (0, 0);
    for (name, text) in &files {
        let module = name.trim_end_matches(".py");
        let real = wheelwright_core::hidden_tests::pytest::expected_tests(module, text);
        let mut orders = std::collections::BTreeSet::new();
        for seed in 0..8 {
            let suite = PytestSuite::new(&[(name.clone(), text.clone())], seed);
            let staged = suite
                .judge_files()
                .into_iter()
                .find(|(p, _)| p == &format!("tests/{name}"))
                .map(|(_, bytes)| String::from_utf8(bytes).unwrap())
                .unwrap();
            let tree = wheelwright_core::syntax::parse(&staged);
            assert!(!tree.has_syntax_errors(), "{name} seed {seed}:\n{staged}");
            let defs: Vec<&str> = staged
                .lines()
                .filter_map(|l| l.strip_prefix("def test"))
                .collect();
            for test in real.iter().filter(|t| !t.name.contains('.')) {
                let original = test.name.trim_start_matches("test");
                assert!(
                    !defs
                        .iter()
                        .any(|d| d.strip_prefix(original).is_some_and(|r| r.starts_with('('))),
                    "{name}: {} runs under its own name",
                    test.name
                );
            }
            let (with_twin, of) = suite.twinned();
            assert_eq!(of, real.len());
            let top = real.iter().filter(|t| !t.name.contains('.')).count();
            // Each top-level test, its twin where it has one, and the canary.
            assert_eq!(defs.len(), top + with_twin + 1, "{name} seed {seed}");
            orders.insert(defs.join(","));
            // The RepoReuse file checks with `_check(...)` calls, not assertions: it is in the
            // list for the renaming, not the twins (RepoReuse judges case suites).
            if seed == 0 && name != "test_turn.py" {
                twinned += with_twin;
                total += of;
            }
        }
        assert!(
            orders.len() > 4,
            "{name}: seeds draw different names and orders"
        );
    }
    // Most of ReCUBE's tests have a top-level assertion to turn; the rest only check what
    // raises.
    assert!(
        twinned * 10 >= total * 7,
        "{twinned} of {total} shipped pytest tests have a twin"
    );
}
