//! Hostile inputs: what one file, one trajectory or one run may cost is bounded, and the
//! result says when a budget was reached (issue "Work bounded per request").
//!
//! Each case is an input generator and what must come out; the helpers check one kind of
//! result each. Times are not asserted here (criterion measures them, `benches/hostile.rs`);
//! what is asserted is that the work finishes with the budget's diagnostic, that shown lines
//! stay ranges, and that cancelling stops every long step.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use wheelwright_core::budget::{Cancel, Cancelled, MAX_PARSE_STEPS};
use wheelwright_core::outline::{self, MAX_OUTLINE_CALLS, Outline};
use wheelwright_core::python::index::{IndexOptions, RepoIndex};
use wheelwright_core::python::references::analyse_submission;
use wheelwright_core::reporeuse::scoring::{
    ChainRun, ChainSpec, Dataset, Repository, Run, RunReport, ScoreError, TurnRun, TurnSpec,
    score_run, score_run_with,
};
use wheelwright_core::syntax;
use wheelwright_core::trajectory::{
    InterpretOptions, InterpretedAction, MAX_UNSEEN_RANGE, NotUnderstood, interpret_trajectory,
    interpret_trajectory_with, parse_trajectory_value,
};
use wheelwright_core::workspace::Workspace;

/// `a=1;` repeated on one line: the densest valid Python (six nodes per four bytes).
fn one_line(bytes: usize) -> String {
    "a=1;".repeat(bytes / 4)
}

/// `f(f(...f()...))` nested `depth` deep inside a function.
fn nested_calls(depth: usize) -> String {
    format!(
        "def g():\n    {}{}\n",
        "f(".repeat(depth),
        ")".repeat(depth)
    )
}

/// `[[[...]]]` nested `depth` deep.
fn nested_lists(depth: usize) -> String {
    format!("x = {}{}\n", "[".repeat(depth), "]".repeat(depth))
}

/// `lambda: lambda: ... y`: scopes nested `depth` deep, each use walking up all of them
/// under a naive lookup.
fn nested_lambdas(depth: usize, uses: usize) -> String {
    format!(
        "x = {}({})\n",
        "lambda a: ".repeat(depth),
        "b, ".repeat(uses)
    )
}

/// An attribute chain that is not a chain of names, `f().a.a.a...`.
fn failing_chain(length: usize) -> String {
    format!("x = f(){}\n", ".a".repeat(length))
}

/// An unknown chain of names, `y.a.a.a...()`, `y` imported.
fn unknown_chain(length: usize) -> String {
    format!("import y\nx = y{}()\n", ".a".repeat(length))
}

/// `depth` nested functions and `calls` calls in the innermost: the outline lists each
/// call once per function around it.
fn calls_in_nested_functions(depth: usize, calls: usize) -> String {
    let mut s = String::new();
    for i in 0..depth {
        s.push_str(&" ".repeat(i));
        s.push_str("def f():\n");
    }
    s.push_str(&" ".repeat(depth));
    s.push_str(&"g();".repeat(calls));
    s.push('\n');
    s
}

/// What an outline must say.
#[derive(Debug)]
enum Expect {
    /// Analysed: this many definitions, and this many calls listed in all of them.
    Analysed { definitions: usize, calls: usize },
    /// Over the per-file budget: nothing analysed, one diagnostic saying so.
    OverBudget,
    /// Analysed, but the call list stopped at [`MAX_OUTLINE_CALLS`] with a diagnostic.
    CallsCapped,
}

fn check_outline(name: &str, outline: &Outline, expect: &Expect) {
    let listed: usize = outline.definitions.iter().map(|d| d.calls.len()).sum();
    let says = |what: &str| outline.diagnostics.iter().any(|d| d.message.contains(what));
    match expect {
        Expect::Analysed { definitions, calls } => {
            assert_eq!(
                outline.definitions.len(),
                *definitions,
                "{name}: definitions"
            );
            assert_eq!(listed, *calls, "{name}: calls listed");
            assert!(
                !says("too large") && !says("lists only"),
                "{name}: {:?}",
                outline.diagnostics
            );
        }
        Expect::OverBudget => {
            assert!(
                outline.definitions.is_empty(),
                "{name}: nothing is analysed"
            );
            assert!(
                says("too large to analyse"),
                "{name}: {:?}",
                outline.diagnostics
            );
            assert!(
                says(&MAX_PARSE_STEPS.to_string()),
                "{name}: the diagnostic names the limit"
            );
            assert!(
                !outline.syntax_errors,
                "{name}: the budget is no syntax error"
            );
        }
        Expect::CallsCapped => {
            assert_eq!(
                listed, MAX_OUTLINE_CALLS,
                "{name}: calls listed up to the cap"
            );
            assert!(
                says("lists only the first"),
                "{name}: {:?}",
                outline.diagnostics
            );
        }
    }
}

#[test]
fn hostile_files_are_outlined_within_the_budget_or_flagged() {
    let cases: Vec<(&str, String, Expect)> = vec![
        (
            "one line of 40 KB",
            one_line(40_000),
            Expect::Analysed {
                definitions: 0,
                calls: 0,
            },
        ),
        (
            "one line of 10 MB",
            one_line(10_000_000),
            Expect::OverBudget,
        ),
        (
            "20,000 nested calls",
            nested_calls(20_000),
            Expect::Analysed {
                definitions: 1,
                calls: 20_000,
            },
        ),
        (
            "100,000 nested calls",
            nested_calls(100_000),
            Expect::OverBudget,
        ),
        (
            "1,000,000 nested calls",
            nested_calls(1_000_000),
            Expect::OverBudget,
        ),
        (
            "20,000 nested lists",
            nested_lists(20_000),
            Expect::Analysed {
                definitions: 0,
                calls: 0,
            },
        ),
        (
            "1,000,000 nested lists",
            nested_lists(1_000_000),
            Expect::OverBudget,
        ),
        (
            "15,000 nested lambdas",
            nested_lambdas(15_000, 5_000),
            Expect::Analysed {
                definitions: 0,
                calls: 0,
            },
        ),
        (
            "a chain of 50,000 failing attributes",
            failing_chain(50_000),
            Expect::Analysed {
                definitions: 0,
                calls: 0,
            },
        ),
        (
            "a call of an unknown chain of 50,000 names",
            unknown_chain(50_000),
            Expect::Analysed {
                definitions: 0,
                calls: 0,
            },
        ),
        (
            "5,000 calls in 100 nested functions",
            calls_in_nested_functions(100, 5_000),
            Expect::CallsCapped,
        ),
        (
            "1,000 calls in 10 nested functions",
            calls_in_nested_functions(10, 1_000),
            Expect::Analysed {
                definitions: 10,
                calls: 10_000,
            },
        ),
    ];
    for (name, source, expect) in &cases {
        check_outline(name, &outline::outline(source), expect);
    }
}

#[test]
fn deeply_nested_calls_are_listed_with_their_callees_and_lines() {
    let outline = outline::outline(&nested_calls(20_000));
    let g = &outline.definitions[0];
    assert_eq!(g.qualified_name, "g");
    assert!(
        g.calls
            .iter()
            .all(|c| c.callee.as_deref() == Some("f") && c.line == 2)
    );
}

#[test]
fn a_file_over_the_budget_parses_as_the_empty_module() {
    let source = one_line(10_000_000);
    let tree = syntax::parse(&source);
    assert!(tree.over_budget() && tree.is_empty() && !tree.has_syntax_errors());
    assert_eq!(tree.diagnostics().len(), 1);
    // Within the budget nothing is flagged.
    let small = syntax::parse("a=1;b=2\n");
    assert!(!small.over_budget() && small.diagnostics().is_empty());
}

#[test]
fn submissions_over_the_budget_reference_and_call_nothing() {
    let mut w = Workspace::new();
    w.insert("pkg/a.py", "def f():\n    return 1\n");
    let index = RepoIndex::build(&w, &IndexOptions::default());
    let hostile = format!("from pkg.a import f\nf()\n{}", one_line(10_000_000));
    let analysis = analyse_submission(&index, "sub.py", Some(&hostile));
    assert!(analysis.over_budget && !analysis.missing);
    assert!(analysis.references.is_empty() && analysis.callees.is_empty());
    // The same file without the hostile line is analysed as usual.
    let analysis = analyse_submission(&index, "sub.py", Some("from pkg.a import f\nf()\n"));
    assert!(!analysis.over_budget && analysis.references("pkg.a.f"));
}

fn dataset(files: &[(&str, &str)], targets: &[&str]) -> Dataset {
    Dataset {
        repositories: BTreeMap::from([(
            "r".to_owned(),
            Repository {
                files: files
                    .iter()
                    .map(|(p, t)| ((*p).to_owned(), (*t).to_owned()))
                    .collect(),
                source_roots: Vec::new(),
            },
        )]),
        chains: vec![ChainSpec {
            id: "c".to_owned(),
            repository: "r".to_owned(),
            turns: vec![
                TurnSpec {
                    path: "sub.py".to_owned(),
                    repo_targets: targets.iter().map(|t| (*t).to_owned()).collect(),
                    self_targets: Vec::new(),
                };
                2
            ],
        }],
        workdir: "/testbed".to_owned(),
    }
}

fn run(turns: Vec<TurnRun>) -> Run {
    Run {
        chains: BTreeMap::from([("c".to_owned(), ChainRun { turns })]),
    }
}

fn diagnosed(report: &RunReport, turn: usize, what: &str) -> bool {
    report
        .diagnostics
        .iter()
        .any(|d| d.turn == Some(turn) && d.message.contains(what))
}

#[test]
fn a_ten_megabyte_line_is_scored_with_the_budget_diagnostic() {
    let d = dataset(&[("pkg/a.py", "def f():\n    return g()\n")], &["pkg.a.f"]);
    let hostile = TurnRun {
        submission: Some(one_line(10_000_000)),
        other_files: BTreeMap::from([("pkg/big.py".to_owned(), one_line(10_000_000))]),
        ..TurnRun::default()
    };
    let fine = TurnRun {
        submission: Some("from pkg.a import f\nf()\n".to_owned()),
        ..TurnRun::default()
    };
    let report = score_run(&d, &run(vec![hostile, fine]), &mut |_| {}).unwrap();
    assert!(
        diagnosed(&report, 1, "sub.py is too large to analyse"),
        "{:?}",
        report.diagnostics
    );
    assert!(diagnosed(&report, 1, "pkg/big.py is too large to analyse"));
    assert_eq!(report.turns[0].scores.reuse_repo.value(), Some(0.0));
    // The next turn is scored as usual.
    assert_eq!(report.turns[1].scores.reuse_repo.value(), Some(100.0));
    assert!(!diagnosed(&report, 2, "too large"));
}

/// `m0` .. `m{modules - 1}.py`, each star-importing the next twice (so a name none defines
/// takes 2^modules - 1 lookup steps), and the target's `pkg/a.py`.
fn star_fan_out(modules: usize) -> Vec<(String, String)> {
    (0..modules)
        .map(|i| {
            (
                format!("m{i}.py"),
                format!("from m{0} import *\nfrom m{0} import *\n", i + 1),
            )
        })
        .chain([("pkg/a.py".to_owned(), "def f():\n    return 1\n".to_owned())])
        .collect()
}

/// The dataset of `files` whose target is `pkg.a.f`.
fn fan_out_dataset(files: &[(String, String)]) -> Dataset {
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    dataset(&refs, &["pkg.a.f"])
}

#[test]
fn star_imports_and_bases_that_fan_out_stop_at_the_resolution_budget() {
    // Two star imports in each of 30 modules (2^30 lookups for a name none defines), and
    // 40 classes with two bases each; the submission asks for names none of them has.
    let mut files = star_fan_out(30);
    let classes: String = (0..40)
        .map(|i| format!("class C{i}(C{0}, C{0}):\n    pass\n", i + 1))
        .collect();
    files.push(("lib.py".to_owned(), classes));
    let d = fan_out_dataset(&files);
    let turns = vec![
        TurnRun {
            submission: Some("import m0\nm0.missing()\n".to_owned()),
            ..TurnRun::default()
        },
        TurnRun {
            submission: Some("from lib import C0\nx = C0()\nx.missing()\n".to_owned()),
            ..TurnRun::default()
        },
    ];
    let report = score_run(&d, &run(turns), &mut |_| {}).unwrap();
    for turn in [1, 2] {
        assert!(
            diagnosed(&report, turn, "lookups"),
            "turn {turn}: {:?}",
            report.diagnostics
        );
    }
}

#[test]
fn a_lookup_asked_again_costs_its_steps_again() {
    // Two star imports in each of 15 modules: a name none defines takes 32,767 lookup
    // steps, half the budget. Asked once, it fits; asked three times in one turn it does
    // not, whether or not the answer is remembered between the asks.
    let d = fan_out_dataset(&star_fan_out(15));
    let turns = vec![
        TurnRun {
            submission: Some("import m0\nm0.missing()\n".to_owned()),
            ..TurnRun::default()
        },
        TurnRun {
            submission: Some("import m0\nm0.missing()\nm0.missing\nm0.missing\n".to_owned()),
            ..TurnRun::default()
        },
    ];
    let report = score_run(&d, &run(turns), &mut |_| {}).unwrap();
    assert!(
        !diagnosed(&report, 1, "lookups"),
        "{:?}",
        report.diagnostics
    );
    assert!(diagnosed(&report, 2, "lookups"), "{:?}", report.diagnostics);
}

#[test]
fn cancelled_work_returns_cancelled() {
    let cancel = Cancel::new();
    cancel.cancel();
    assert_eq!(
        outline::outline_with("def f():\n    pass\n", &cancel),
        Err(Cancelled)
    );
    assert!(syntax::parse_with("x = 1\n", &cancel).is_err());
    let mut w = Workspace::new();
    w.insert("pkg/a.py", "def f():\n    return 1\n");
    assert!(RepoIndex::build_with(&w, &IndexOptions::default(), &cancel).is_err());
    let trajectory = parse_trajectory_value(&json!({"format": "generic-1", "actions": [
        {"kind": "bash", "command": "cat pkg/a.py", "output": "def f():\n"}]}))
    .unwrap();
    let options = InterpretOptions::new(Some(&w));
    assert!(interpret_trajectory_with(&trajectory, &options, &cancel).is_err());
    let d = dataset(&[("pkg/a.py", "def f():\n    return 1\n")], &["pkg.a.f"]);
    let r = run(vec![TurnRun::default(), TurnRun::default()]);
    assert_eq!(
        score_run_with(&d, &r, &mut |_| {}, &cancel).unwrap_err(),
        ScoreError::Cancelled(Cancelled)
    );
    // A flag that is never raised changes nothing.
    let never = Cancel::new();
    assert!(outline::outline_with("def f():\n    pass\n", &never).is_ok());
}

#[test]
fn cancelling_during_a_run_stops_it_at_the_next_check() {
    // The host raises the flag while scoring is under way (here: after the first turn).
    let d = dataset(&[("pkg/a.py", "def f():\n    return 1\n")], &["pkg.a.f"]);
    let r = run(vec![TurnRun::default(), TurnRun::default()]);
    let cancel = Cancel::new();
    let mut turns_seen = 0;
    let result = score_run_with(
        &d,
        &r,
        &mut |p| {
            // The first report (no turn done) says the repository is indexed.
            turns_seen = p.turns_done;
            if p.turns_done >= 1 {
                cancel.cancel();
            }
        },
        &cancel,
    );
    assert_eq!(result.unwrap_err(), ScoreError::Cancelled(Cancelled));
    assert_eq!(turns_seen, 1, "the second turn never started");
}

/// Interprets a generic-1 trajectory of `actions` against `workspace`.
fn interpret(actions: Value, workspace: Option<&Workspace>) -> Vec<InterpretedAction> {
    let trajectory =
        parse_trajectory_value(&json!({"format": "generic-1", "actions": actions})).unwrap();
    interpret_trajectory(&trajectory, &InterpretOptions::new(workspace))
}

/// The ranges an action showed of `path`.
fn ranges(action: &InterpretedAction, path: &str) -> Vec<(u32, u32)> {
    action
        .shown
        .lines(path)
        .map(|lines| lines.ranges().collect())
        .unwrap_or_default()
}

/// An action, whether the workspace is given, a path and the ranges it must show of it.
type RangeCase = (Value, bool, &'static str, Vec<(u32, u32)>);

#[test]
fn huge_line_ranges_cost_one_range_and_count_what_the_file_has() {
    let mut w = Workspace::new();
    w.insert("pkg/a.py", "x = 1\n".repeat(30));
    let all = u64::from(u32::MAX);
    let cap = MAX_UNSEEN_RANGE + 1;
    let cases: Vec<RangeCase> = vec![
        // In the workspace: clipped to the file's 30 lines (D13).
        (
            json!({"kind": "read", "path": "pkg/a.py", "offset": 1, "limit": all}),
            true,
            "pkg/a.py",
            vec![(1, 30)],
        ),
        (
            json!({"kind": "read", "path": "pkg/a.py", "start_line": 5, "end_line": all}),
            true,
            "pkg/a.py",
            vec![(5, 30)],
        ),
        (
            json!({"kind": "bash", "command": "sed -n '1,4294967295p' pkg/a.py", "output": "x = 1\n"}),
            true,
            "pkg/a.py",
            vec![(1, 30)],
        ),
        (
            json!({"kind": "bash", "command": "nl -ba pkg/a.py | sed -n '2,4294967295p'"}),
            true,
            "pkg/a.py",
            vec![(2, 30)],
        ),
        // Not in the workspace: the output's lines when it says, else the requested range,
        // which counts at most MAX_UNSEEN_RANGE lines past its first.
        (
            json!({"kind": "read", "path": "new.py", "offset": 1, "limit": all}),
            true,
            "new.py",
            vec![(1, cap)],
        ),
        (
            json!({"kind": "read", "path": "new.py", "offset": 1, "limit": all}),
            false,
            "new.py",
            vec![(1, cap)],
        ),
        (
            json!({"kind": "bash", "command": "sed -n '1,4294967295p' new.py", "output": "a\nb\n"}),
            false,
            "new.py",
            vec![(1, 2)],
        ),
        (
            json!({"kind": "bash", "command": "sed -n '7,4294967295p' new.py; ls"}),
            false,
            "new.py",
            vec![(7, 7 + MAX_UNSEEN_RANGE)],
        ),
        (
            json!({"kind": "bash", "command": "sed -n '4294967290,4294967295p' new.py; ls"}),
            false,
            "new.py",
            vec![(4_294_967_290, u32::MAX)],
        ),
    ];
    for (action, with_workspace, path, expected) in cases {
        let label = action.to_string();
        let interpreted = interpret(json!([action]), with_workspace.then_some(&w));
        assert_eq!(ranges(&interpreted[0], path), expected, "{label}");
        assert!(interpreted[0].interpreted, "{label}");
    }
}

#[test]
fn an_action_past_its_steps_is_not_understood_and_the_rest_still_is() {
    let mut w = Workspace::new();
    for i in 0..1_000 {
        w.insert(&format!("pkg/m{i}.py"), "x = 1\n");
    }
    // Ten thousand globs over a thousand files: ten million matches for a 90 KB command.
    let globs = format!("cat {}", "pkg/*.py ".repeat(10_000));
    let actions = interpret(
        json!([
            {"kind": "bash", "command": globs, "output": "x = 1\n"},
            {"kind": "bash", "command": "cat pkg/m1*.py", "output": "x = 1\n"},
        ]),
        Some(&w),
    );
    assert!(!actions[0].interpreted);
    assert_eq!(actions[0].not_understood, Some(NotUnderstood::OverBudget));
    assert!(actions[1].interpreted && actions[1].not_understood.is_none());
    assert_eq!(
        actions[1].files.len(),
        111,
        "pkg/m1.py, m10..m19, m100..m199"
    );
}
