//! Table-driven tests of command interpretation (spec section 1, D10–D14).

use std::collections::BTreeSet;

use wheelwright_core::trajectory::{
    ActionKind, Category, InterpretOptions, InterpretedAction, NotUnderstood, RawAction,
    ShellAction, ToolCall, interpret_action, parse_trajectory,
};
use wheelwright_core::workspace::Workspace;

/// A file of `n` lines `line 1` .. `line n`.
fn lines(n: u32) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

/// One row: a command, its output, the workspace, and what is expected.
struct Case {
    command: &'static str,
    output: Option<&'static str>,
    /// Workspace files: (path, number of lines); `None` for no workspace.
    workspace: Option<&'static [(&'static str, u32)]>,
    kind: ActionKind,
    category: Category,
    files: &'static [&'static str],
    /// (file, first, last) ranges shown.
    shown: &'static [(&'static str, u32, u32)],
    interpreted: bool,
}

const W: Option<&[(&str, u32)]> = Some(&[
    ("a.py", 50),
    ("pkg/a.py", 30),
    ("pkg/b.py", 5),
    ("f.py", 40),
    ("tests/test_x.py", 12),
]);

fn run_shell(command: &str, output: Option<&str>, ws: Option<&Workspace>) -> InterpretedAction {
    let action = RawAction::Shell(ShellAction {
        command: command.to_owned(),
        output: output.map(str::to_owned),
        returncode: Some(0),
        ..ShellAction::default()
    });
    interpret_action(&action, &InterpretOptions::new(ws))
}

fn workspace(files: &[(&str, u32)]) -> Workspace {
    let mut w = Workspace::new();
    for (p, n) in files {
        w.insert(p, lines(*n));
    }
    w
}

fn expected_shown(ranges: &[(&str, u32, u32)]) -> BTreeSet<(String, u32)> {
    ranges
        .iter()
        .flat_map(|&(f, a, b)| (a..=b).map(move |l| (f.to_owned(), l)))
        .collect()
}

fn actual_shown(a: &InterpretedAction) -> BTreeSet<(String, u32)> {
    a.shown
        .files()
        .flat_map(|(f, ls)| ls.iter().map(move |l| (f.to_owned(), l)))
        .collect()
}

fn check(case: &Case) {
    let ws = case.workspace.map(workspace);
    let a = run_shell(case.command, case.output, ws.as_ref());
    let label = format!("{:?}", case.command);
    assert_eq!((a.kind, a.category), (case.kind, case.category), "{label}");
    let files: BTreeSet<String> = case.files.iter().map(|s| (*s).to_owned()).collect();
    assert_eq!(a.files, files, "files of {label}");
    assert_eq!(
        actual_shown(&a),
        expected_shown(case.shown),
        "lines of {label}"
    );
    assert_eq!(a.interpreted, case.interpreted, "interpreted of {label}");
}

macro_rules! case {
    ($cmd:expr, $out:expr, $ws:expr, $kind:ident / $cat:ident, [$($f:expr),*], [$($s:expr),*]) => {
        Case { command: $cmd, output: $out, workspace: $ws, kind: ActionKind::$kind,
               category: Category::$cat, files: &[$($f),*], shown: &[$($s),*], interpreted: true }
    };
}

#[test]
fn commands_are_interpreted_as_the_spec_says() {
    let cases = [
        // Reads: whole files, ranges, cd, pipelines.
        case!(
            "cat a.py",
            None,
            W,
            Read / Read,
            ["a.py"],
            [("a.py", 1, 50)]
        ),
        case!(
            "cd pkg && cat a.py",
            None,
            W,
            Read / Read,
            ["pkg/a.py"],
            [("pkg/a.py", 1, 30)]
        ),
        case!(
            "nl -ba f.py | sed -n '10,20p'",
            None,
            W,
            Read / Read,
            ["f.py"],
            [("f.py", 10, 20)]
        ),
        case!(
            "nl -ba f.py | sed -n '35,60p'",
            None,
            W,
            Read / Read,
            ["f.py"],
            [("f.py", 35, 40)]
        ),
        case!(
            "sed -n '5,8p' a.py",
            None,
            W,
            Read / Read,
            ["a.py"],
            [("a.py", 5, 8)]
        ),
        case!(
            "sed -n '7p' a.py",
            None,
            W,
            Read / Read,
            ["a.py"],
            [("a.py", 7, 7)]
        ),
        case!(
            "head -n 5 a.py",
            None,
            W,
            Read / Read,
            ["a.py"],
            [("a.py", 1, 5)]
        ),
        case!(
            "tail -n 3 a.py",
            None,
            W,
            Read / Read,
            ["a.py"],
            [("a.py", 48, 50)]
        ),
        case!(
            "head -20 pkg/b.py",
            None,
            W,
            Read / Read,
            ["pkg/b.py"],
            [("pkg/b.py", 1, 5)]
        ),
        case!(
            "awk 'NR>=3 && NR<=6' a.py",
            None,
            W,
            Read / Read,
            ["a.py"],
            [("a.py", 3, 6)]
        ),
        case!(
            "cat a.py | head -n 4",
            None,
            W,
            Read / Read,
            ["a.py"],
            [("a.py", 1, 4)]
        ),
        case!(
            "less pkg/b.py",
            None,
            W,
            Read / Read,
            ["pkg/b.py"],
            [("pkg/b.py", 1, 5)]
        ),
        // Without a workspace: printed numbers, then output line count, then the request.
        case!(
            "nl -ba new.py | sed -n '3,4p'",
            Some("     3\tx\n     4\ty"),
            None,
            Read / Read,
            ["new.py"],
            [("new.py", 3, 4)]
        ),
        case!(
            "cat new.py",
            Some("a\nb\nc"),
            None,
            Read / Read,
            ["new.py"],
            [("new.py", 1, 3)]
        ),
        case!(
            "sed -n '10,12p' new.py && sed -n '1,2p' other.py",
            Some("x"),
            None,
            Read / Read,
            ["new.py", "other.py"],
            [("new.py", 10, 12), ("other.py", 1, 2)]
        ),
        // grep with and without -n, with context, on stdin.
        case!(
            "grep -n -C2 foo f.py",
            Some("3-line 3\n4-line 4\n5:line 5\n6-line 6\n7-line 7"),
            W,
            Search / Search,
            ["f.py"],
            [("f.py", 3, 7)]
        ),
        case!(
            "grep foo f.py",
            Some("line 9\nline 12"),
            W,
            Search / Search,
            ["f.py"],
            [("f.py", 9, 9), ("f.py", 12, 12)]
        ),
        case!(
            "grep -rn foo pkg",
            Some("pkg/a.py:4:line 4\npkg/b.py:2:line 2"),
            W,
            Search / Search,
            ["pkg", "pkg/a.py", "pkg/b.py"],
            [("pkg/a.py", 4, 4), ("pkg/b.py", 2, 2)]
        ),
        case!(
            "grep -rl foo .",
            Some("./pkg/a.py"),
            W,
            Search / Search,
            [".", "pkg/a.py"],
            []
        ),
        case!(
            "nl -ba a.py | grep -A1 'line 7$'",
            Some("     7\tline 7\n     8\tline 8"),
            W,
            Search / Search,
            ["a.py"],
            [("a.py", 7, 8)]
        ),
        case!(
            "cat a.py | grep -n 'line 2$'",
            Some("2:line 2"),
            W,
            Search / Search,
            ["a.py"],
            [("a.py", 2, 2)]
        ),
        case!(
            "ls -R | grep foo",
            Some("foo"),
            W,
            Search / Search,
            ["."],
            []
        ),
        // Edits: heredocs, redirections, sed -i, git apply.
        case!(
            "cat <<'EOF' > f.py\nprint(1)\nEOF",
            None,
            W,
            Edit / Edit,
            [],
            []
        ),
        case!("python x.py > log", None, W, Edit / Edit, [], []),
        case!("echo hi > note.txt", None, W, Edit / Edit, [], []),
        case!("sed -i 's/a/b/' a.py", None, W, Edit / Edit, [], []),
        case!("git apply fix.patch", None, W, Edit / Edit, [], []),
        case!("cat a.py > /dev/null", None, W, Read / Read, ["a.py"], []),
        case!(
            "grep -n x a.py > hits.txt && cat pkg/b.py",
            None,
            W,
            Edit / Edit,
            ["pkg/b.py"],
            [("pkg/b.py", 1, 5)]
        ),
        // Listing and navigation.
        case!("ls", None, W, List / Navigate, ["."], []),
        case!("cd pkg && ls", None, W, List / Navigate, ["pkg"], []),
        case!(
            "ls -la pkg tests",
            None,
            W,
            List / Navigate,
            ["pkg", "tests"],
            []
        ),
        case!("find . -type f", None, W, List / Navigate, ["."], []),
        case!("find . -name '*.py'", None, W, Search / Search, ["."], []),
        case!(
            "find pkg -not -name '*.pyc'",
            None,
            W,
            List / Navigate,
            ["pkg"],
            []
        ),
        case!("pwd", None, W, Other / Navigate, [], []),
        // Runs: tests and probes.
        case!("pytest -q", None, W, Run / Test, [], []),
        case!(
            "python -m pytest tests/test_x.py",
            None,
            W,
            Run / Test,
            [],
            []
        ),
        case!("python tests/test_x.py", None, W, Run / Test, [], []),
        case!(
            "./tests/runtests.py model_forms",
            None,
            W,
            Run / Test,
            [],
            []
        ),
        case!("bin/test sympy/core", None, W, Run / Test, [], []),
        case!(
            "python -c 'import pkg; print(pkg)'",
            None,
            W,
            Run / Probe,
            [],
            []
        ),
        case!("python reproduce.py", None, W, Run / Probe, [], []),
        case!(
            "sphinx-build -b html . _build",
            None,
            W,
            Run / Probe,
            [],
            []
        ),
        case!("cd pkg && python -m unittest", None, W, Run / Test, [], []),
        // Other.
        case!("rm -f x.py", None, W, Other / Other, [], []),
        case!("git diff", None, W, Other / Other, [], []),
        case!("wc -l a.py", None, W, Other / Other, [], []),
        case!("cat a.py | wc -l", None, W, Read / Read, ["a.py"], []),
        case!("pip install -e .", None, W, Other / Other, [], []),
        // Kind is the highest part.
        case!(
            "cat a.py && python x.py",
            None,
            W,
            Run / Probe,
            ["a.py"],
            [("a.py", 1, 50)]
        ),
        // "No such file" drops the operand.
        case!(
            "cat missing.py pkg/b.py",
            Some("cat: missing.py: No such file or directory\nline 1"),
            W,
            Read / Read,
            ["pkg/b.py"],
            [("pkg/b.py", 1, 5)]
        ),
        // Paths outside the working directory stay absolute.
        case!(
            "cat /tmp/x.py",
            Some("a"),
            W,
            Read / Read,
            ["/tmp/x.py"],
            [("/tmp/x.py", 1, 1)]
        ),
        case!(
            "cat /testbed/pkg/b.py",
            None,
            W,
            Read / Read,
            ["pkg/b.py"],
            [("pkg/b.py", 1, 5)]
        ),
    ];
    for c in &cases {
        check(c);
    }
}

#[test]
fn control_structures_and_unknown_commands_are_kept_uninterpreted_with_the_reason() {
    let unknown = |program: &str| NotUnderstood::UnknownCommand {
        program: program.to_owned(),
    };
    let long = "x".repeat(100);
    let long_command = format!("{long} a.py");
    let cases: Vec<(&str, NotUnderstood)> = vec![
        (
            "for f in *.py; do cat $f; done",
            NotUnderstood::ShellControl,
        ),
        ("while true; do sleep 1; done", NotUnderstood::ShellControl),
        (
            "if [ -f a.py ]; then cat a.py; fi",
            NotUnderstood::ShellControl,
        ),
        ("(cd pkg && cat a.py)", NotUnderstood::ShellControl),
        ("echo 'unterminated", NotUnderstood::ShellUnterminated),
        ("cat a.py >", NotUnderstood::ShellSyntax),
        ("frobnicate a.py", unknown("frobnicate")),
        ("$EDITOR a.py", NotUnderstood::ExpandedCommand),
        // The first part not understood gives the reason; the rest is still read.
        (
            "cat a.py && frobnicate x && awk 1 a.py",
            unknown("frobnicate"),
        ),
        // A hostile name is cut, so reports grouping by it stay small.
        (&long_command, unknown(&format!("{}…", "x".repeat(64)))),
    ];
    for (command, reason) in cases {
        let a = run_shell(command, None, None);
        assert!(!a.interpreted, "{command}");
        assert_eq!(a.not_understood.as_ref(), Some(&reason), "{command}");
        assert!(!reason.to_string().is_empty());
    }
    let partly = run_shell("cat a.py && frobnicate x", Some("line 1\n"), None);
    assert_eq!(partly.kind, ActionKind::Read);
    assert!(partly.files.contains("a.py"));
    let whole = run_shell("frobnicate a.py", None, None);
    assert_eq!(whole.kind, ActionKind::Other);
    let fine = run_shell("cat a.py", Some("line 1\n"), None);
    assert!(fine.interpreted && fine.not_understood.is_none());
}

#[test]
fn every_action_starts_in_a_fresh_shell() {
    let ws = workspace(&[("a.py", 3), ("pkg/a.py", 2)]);
    let opts = InterpretOptions::new(Some(&ws));
    let mk = |c: &str| {
        RawAction::Shell(ShellAction {
            command: c.to_owned(),
            ..ShellAction::default()
        })
    };
    let first = interpret_action(&mk("cd pkg && cat a.py"), &opts);
    let second = interpret_action(&mk("cat a.py"), &opts);
    assert!(first.files.contains("pkg/a.py"));
    assert!(second.files.contains("a.py"));
}

#[test]
fn tool_calls_are_interpreted() {
    let ws = workspace(&[("pkg/a.py", 100)]);
    let opts = InterpretOptions::new(Some(&ws));
    let tool = |name: &str, args: serde_json::Value, output: Option<&str>| {
        interpret_action(
            &RawAction::Tool(ToolCall {
                name: name.to_owned(),
                args,
                output: output.map(str::to_owned),
            }),
            &opts,
        )
    };
    let read = tool(
        "read",
        serde_json::json!({"filePath": "/testbed/pkg/a.py", "offset": 10, "limit": 5}),
        None,
    );
    assert_eq!(read.kind, ActionKind::Read);
    assert_eq!(actual_shown(&read), expected_shown(&[("pkg/a.py", 10, 14)]));
    let whole = tool("read", serde_json::json!({"filePath": "pkg/a.py"}), None);
    assert_eq!(whole.shown.count(), 100);
    let grep = tool(
        "grep",
        serde_json::json!({"pattern": "def", "path": "/testbed/pkg"}),
        Some("Found 2 matches\n/testbed/pkg/a.py:\n  Line 3: def f():\n  Line 9: def g():\n"),
    );
    assert_eq!(grep.kind, ActionKind::Search);
    assert_eq!(
        actual_shown(&grep),
        expected_shown(&[("pkg/a.py", 3, 3), ("pkg/a.py", 9, 9)])
    );
    assert!(grep.files.contains("pkg") && grep.files.contains("pkg/a.py"));
    let list = tool("list", serde_json::json!({}), None);
    assert_eq!(
        (list.kind, list.category),
        (ActionKind::List, Category::Navigate)
    );
    let edit = tool("edit", serde_json::json!({"filePath": "pkg/a.py"}), None);
    assert_eq!((edit.kind, edit.files.len()), (ActionKind::Edit, 0));
    let unknown = tool("teleport", serde_json::json!({}), None);
    assert!(!unknown.interpreted);
    assert_eq!(
        unknown.not_understood,
        Some(NotUnderstood::UnknownTool {
            tool: "teleport".to_owned()
        })
    );
    let pathless = tool("read", serde_json::json!({"offset": 3}), None);
    assert_eq!(
        pathless.not_understood,
        Some(NotUnderstood::MissingArgument {
            tool: "read".to_owned()
        })
    );
}

#[test]
fn fixture_formats_parse() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/trajectory");
    for (file, actions, rejected) in [
        ("opencode_session.json", 6, 0),
        ("generic.json", 4, 1),
        ("mini_swe_agent_v2.traj.json", 3, 1),
    ] {
        let text = std::fs::read_to_string(format!("{dir}/{file}")).expect("fixture");
        let t = parse_trajectory(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(
            (t.actions.len(), t.rejected_responses),
            (actions, rejected),
            "{file}"
        );
    }
}

#[test]
fn malformed_input_is_an_error_and_never_a_panic() {
    assert!(parse_trajectory("{\"messages\": [").is_err());
    assert!(parse_trajectory("42").is_err());
    assert!(parse_trajectory("{\"trajectory_format\": \"nope\"}").is_err());
    assert!(parse_trajectory("{\"format\": \"generic-1\", \"actions\": [{}]}").is_err());
    let deep = "[".repeat(100_000);
    assert!(parse_trajectory(&deep).is_err());
    for junk in [
        "```bash\n```",
        "```bash\n\n```",
        "cat <<EOF",
        "a | | b",
        "$((",
        "'\\",
    ] {
        let a = run_shell(junk, Some(junk), None);
        let _ = a.kind;
    }
}

#[test]
fn v2_tool_observations_attach_by_call_id() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/trajectory");
    let text =
        std::fs::read_to_string(format!("{dir}/mini_swe_agent_v2.traj.json")).expect("fixture");
    let t = parse_trajectory(&text).expect("parses");
    let RawAction::Shell(second) = &t.actions[1] else {
        panic!("shell action expected");
    };
    assert!(
        second
            .output
            .as_deref()
            .is_some_and(|o| o.contains("import os"))
    );
    let a = interpret_action(&t.actions[1], &InterpretOptions::default());
    assert_eq!(actual_shown(&a), expected_shown(&[("pkg/a.py", 1, 2)]));
}

#[test]
fn hostile_nesting_cannot_overflow_the_stack() {
    // Test threads have small stacks: 100,000 nested `xargs` would overflow any recursion.
    let command = format!(
        "find . -name '*.py' | {}grep -n foo",
        "xargs ".repeat(100_000)
    );
    let action = run_shell(&command, None, None);
    assert_eq!(action.kind, ActionKind::Search);
}
