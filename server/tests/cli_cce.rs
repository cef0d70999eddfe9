//! `wheelwright cce`: the real binary on core's graph fixture repository (target
//! `pkg/shapes.py`): the context is core's pinned rendering, usages and search as pinned
//! here (`UPDATE_EXPECT=1` rewrites them from the command), and mistakes name what to fix.
//! `cce graph` runs on the shipped ReCUBE instances' workspaces (`recube prepare`; the
//! wheels come from PyPI the first time): the questions in `fixtures/cce/graph/queries.txt`,
//! the answers pinned beside them. `cce validate` checks candidates made from each
//! instance's reference (the original target): the reference itself, an empty file, the
//! reference with a wrong signature and with a syntax error; its reports are pinned in
//! `fixtures/cce/validate/`.

use crate::common;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::expect::{check_text, expect_text};

fn graph_fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/fixtures/recube/graph")
}

fn cce(args: &[&str]) -> Output {
    cce_at(args, &graph_fixtures().join("repo"), "pkg/shapes.py")
}

/// The real `wheelwright cce ARGS --repo REPO --target TARGET`, logging nothing.
fn cce_at(args: &[&str], repo: &Path, target: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wheelwright"))
        .arg("cce")
        .args(args)
        .arg("--repo")
        .arg(repo)
        .args(["--target", target])
        .env("WHEELWRIGHT_LOG", "off")
        .output()
        .expect("the wheelwright binary runs")
}

fn stdout_of(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).expect("UTF-8")
}

#[test]
fn context_prints_the_views_core_renders() {
    let text = stdout_of(&cce(&["context"]));
    // Compared, never rewritten: the rendering is pinned by core's test.
    if std::env::var_os(common::expect::UPDATE).is_none()
        && let Err(problem) = check_text(&graph_fixtures().join("context.txt"), &text)
    {
        panic!("{problem}");
    }
    let json: serde_json::Value =
        serde_json::from_str(&stdout_of(&cce(&["context", "--json"]))).expect("JSON");
    assert_eq!(json["target"], "pkg/shapes.py");
    assert_eq!(json["callers"][0]["path"], "pkg/draw.py");
}

#[test]
fn usages_and_search_print_what_the_graph_holds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cce");
    expect_text(
        &dir.join("usages.txt"),
        &stdout_of(&cce(&["usages", "pkg.shapes.unit"])),
    );
    expect_text(
        &dir.join("search.txt"),
        &stdout_of(&cce(&["search", "base", "shape", "nothing_like_it"])),
    );
}

#[test]
fn a_target_outside_the_repository_is_named() {
    let repo = graph_fixtures().join("repo");
    let out = Command::new(env!("CARGO_BIN_EXE_wheelwright"))
        .args(["cce", "context", "--repo"])
        .arg(&repo)
        .args(["--target", "pkg/nope.py"])
        .output()
        .expect("the wheelwright binary runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("pkg/nope.py is not a file of"));
}

/// The workspace an agent gets for instance `id` of the shipped dataset, as
/// `wheelwright recube prepare` writes it (the target masked), and the target's path.
fn agent_workspace(id: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let dataset = common::recube::dataset_dir();
    let stdout = common::stdout_of(&[
        "recube",
        "prepare",
        "--dataset",
        dataset.to_str().expect("a UTF-8 path"),
        "--instance",
        id,
        "--out",
        dir.path().to_str().expect("a UTF-8 path"),
    ]);
    let target = stdout
        .split_whitespace()
        .find(|word| word.ends_with(".py"))
        .unwrap_or_else(|| panic!("no target named in {stdout}"))
        .to_owned();
    (dir, target)
}

/// What a `cce` command printed, as a transcript: the command, its standard output, and
/// when it failed its exit code and the message it ended with.
fn transcript(args: &[&str], repo: &Path, target: &str) -> String {
    let out = cce_at(args, repo, target);
    let mut text = format!("$ cce {}\n", args.join(" "));
    text.push_str(&String::from_utf8_lossy(&out.stdout));
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let message = stderr.lines().last().unwrap_or_default();
        let _ = writeln!(text, "[exit {}] {message}", out.status.code().unwrap_or(-1));
    }
    text.push('\n');
    text
}

#[test]
fn graph_questions_on_the_shipped_instances_are_answered_as_pinned() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cce/graph");
    let queries = std::fs::read_to_string(dir.join("queries.txt")).expect("the questions");
    let mut by_instance: BTreeMap<&str, Vec<Vec<&str>>> = BTreeMap::new();
    for line in queries
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (instance, rest) = line.split_once(':').expect("`instance: arguments`");
        let mut args: Vec<&str> = vec!["graph"];
        args.extend(rest.split_whitespace());
        by_instance.entry(instance).or_default().push(args);
    }
    assert!(by_instance.len() >= 3, "{by_instance:?}");
    let mut problems = Vec::new();
    for (instance, questions) in &by_instance {
        let (workspace, target) = agent_workspace(instance);
        let mut text = String::new();
        for args in questions {
            text.push_str(&transcript(args, workspace.path(), &target));
        }
        if let Err(problem) = check_text(&dir.join(format!("{instance}.txt")), &text) {
            problems.push(problem);
        }
        // Each pinned answer is a real one: a question about the target's module names
        // at least one caller from another file.
        assert!(text.contains(" calls "), "{instance}: no call in {text}");
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_graph_answer_in_json_is_what_the_text_lists() {
    let (workspace, target) = agent_workspace("click-parser");
    let out = cce_at(
        &["graph", "callers", "click.parser", "--limit", "3", "--json"],
        workspace.path(),
        &target,
    );
    let json: serde_json::Value = serde_json::from_str(&stdout_of(&out)).expect("JSON");
    assert_eq!(json["subject"], "click/parser.py");
    assert_eq!(json["items"].as_array().map(Vec::len), Some(3));
    assert!(json["omitted"].as_u64().is_some_and(|n| n > 0), "{json}");
    assert_eq!(json["items"][0]["withheld"], true);
}

/// The original target of instance `id` (the reference an agent's file is compared with).
fn reference(id: &str) -> String {
    let dataset =
        wheelwright_server::dataset::recube::load_recube_dir(&common::recube::dataset_dir())
            .expect("the shipped dataset");
    let instance = dataset
        .instances
        .iter()
        .find(|i| i.manifest.id == id)
        .expect("a shipped instance");
    let repos = common::recube::repositories(&dataset);
    repos[&instance.manifest.repository][&instance.manifest.target].clone()
}

/// `cce validate [--json]` of `candidate` (written as `name.py` outside the workspace)
/// in the workspace.
fn validate_in(name: &str, candidate: &str, workspace: &Path, target: &str, json: bool) -> Output {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join(format!("{name}.py"));
    std::fs::write(&file, candidate).expect("the candidate is written");
    let mut args = vec!["validate", "--candidate", file.to_str().expect("UTF-8")];
    if json {
        args.push("--json");
    }
    cce_at(&args, workspace, target)
}

/// `cce validate` of `candidate` in the workspace, as a transcript, and its exit code.
fn validation(name: &str, candidate: &str, workspace: &Path, target: &str) -> (String, i32) {
    let out = validate_in(name, candidate, workspace, target, false);
    let code = out.status.code().unwrap_or(-1);
    let mut text = format!("$ cce validate --candidate {name}.py  [exit {code}]\n");
    text.push_str(&String::from_utf8_lossy(&out.stdout));
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    text.push('\n');
    (text, code)
}

/// Candidates made from each instance's reference: (name, edit of the reference, exit
/// code). An edit replaces its first text with its second (`None`: the reference as is).
type Edit = (&'static str, &'static str);
const CANDIDATES: &[(&str, &str, Option<Edit>, i32)] = &[
    ("click-parser", "reference", None, 0),
    ("click-parser", "empty", Some(("", "")), 1),
    (
        "click-parser",
        "wrong-arity",
        Some((
            "def split_opt(opt: str) -> t.Tuple[str, str]:",
            "def split_opt(opt: str, strict: bool) -> t.Tuple[str, str]:",
        )),
        1,
    ),
    (
        "click-parser",
        "required-parameter",
        Some((
            "def __init__(self, ctx: t.Optional[\"Context\"] = None) -> None:",
            "def __init__(self, ctx: t.Optional[\"Context\"], strict: bool) -> None:",
        )),
        1,
    ),
    (
        "click-parser",
        "syntax-error",
        Some(("    first = opt[:1]\n", "    first = = opt[:1]\n")),
        1,
    ),
    ("packaging-version", "reference", None, 0),
    ("packaging-version", "empty", Some(("", "")), 1),
    ("attrs-setters", "reference", None, 0),
    ("attrs-setters", "empty", Some(("", "")), 1),
];

#[test]
fn validate_passes_each_reference_and_reports_what_each_broken_candidate_lacks() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cce/validate");
    let mut by_instance: BTreeMap<&str, Vec<_>> = BTreeMap::new();
    for candidate in CANDIDATES {
        by_instance.entry(candidate.0).or_default().push(candidate);
    }
    let mut problems = Vec::new();
    for (instance, candidates) in by_instance {
        let (workspace, target) = agent_workspace(instance);
        let original = reference(instance);
        let mut text = String::new();
        for &&(_, name, edit, expected) in &candidates {
            let candidate = match edit {
                None => original.clone(),
                Some(("", "")) => String::new(),
                Some((from, to)) => {
                    assert!(original.contains(from), "{instance}: no {from:?}");
                    original.replacen(from, to, 1)
                }
            };
            let (transcript, code) = validation(name, &candidate, workspace.path(), &target);
            assert_eq!(code, expected, "{instance} {name}: {transcript}");
            text.push_str(&transcript);
        }
        if let Err(problem) = check_text(&dir.join(format!("{instance}.txt")), &text) {
            problems.push(problem);
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn validate_of_an_empty_file_names_every_name_the_graph_says_callers_use() {
    let (workspace, target) = agent_workspace("click-parser");
    let usages = cce_at(
        &[
            "graph",
            "callers",
            "click.parser",
            "--json",
            "--limit",
            "1000",
        ],
        workspace.path(),
        &target,
    );
    let callers: serde_json::Value = serde_json::from_str(&stdout_of(&usages)).expect("JSON");
    let called: std::collections::BTreeSet<String> = callers["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|c| {
            c["callee"]
                .as_str()
                .expect("a callee")
                .trim_start_matches("click.parser.")
                .to_owned()
        })
        .collect();
    let out = validate_in("empty", "", workspace.path(), &target, true);
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let missing: std::collections::BTreeSet<String> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["kind"] == "missing_name")
        .filter_map(|f| f["message"].as_str()?.split('`').nth(1).map(str::to_owned))
        .collect();
    assert!(!called.is_empty());
    assert!(
        called.is_subset(&missing),
        "{called:?} not all in {missing:?}"
    );
}

#[test]
fn validate_exits_2_on_a_candidate_it_cannot_read() {
    let out = cce(&["validate", "--candidate", "/nonexistent/candidate.py"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("reading the candidate"), "{stderr}");
}
