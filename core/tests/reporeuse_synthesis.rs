//! Tests of the synthesize step (RepoReuse's pipeline): fixture answers in, the problems or the rendered turn out, pinned as JSON; calls split; the requirement renderer reproduces the shipped dataset's requirements.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use wheelwright_core::reporeuse::dataset::{ChainManifest, TurnManifest};
use wheelwright_core::reporeuse::synthesis::{
    Answer, RepositoryLine, TurnContext, check_answer, parse_answer, render_requirement,
    render_turn, split_call,
};

use crate::common::expect::expect_json;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/reporeuse/synthesis")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The repository every fixture chain is on.
static PACKAGING: std::sync::LazyLock<RepositoryLine> =
    std::sync::LazyLock::new(|| RepositoryLine {
        name: "packaging".into(),
        version: "24.2".into(),
        import: "packaging".into(),
    });

/// The answer of fixture `name`, parsed (panics when it does not parse).
fn answer(name: &str) -> Answer {
    parse_answer(&read(&fixtures().join(name).join("answer.md")))
        .unwrap_or_else(|p| panic!("{name}: {p:?}"))
}

/// What synthesizing fixture `name` gives: the parse problems, the check's problems, or
/// the rendered turn. `context.json` names the fixtures of the earlier turns, rendered
/// first, and the walk's evidence (`null`: not checked).
fn synthesize(name: &str, chain: &ChainManifest) -> Value {
    let dir = fixtures().join(name);
    let context: Value = serde_json::from_str(&read(&dir.join("context.json"))).unwrap();
    let earlier: Vec<TurnManifest> = context["earlier"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let a = answer(e.as_str().unwrap());
            let files = render_turn(&a, &turn_context(chain, 1, &[], None)).unwrap();
            files.manifest
        })
        .collect();
    let evidence: Option<Vec<String>> =
        serde_json::from_value(context["evidence"].clone()).unwrap();
    let turn = context["turn"].as_u64().unwrap() as usize;
    let text = read(&dir.join("answer.md"));
    let parsed = match parse_answer(&text) {
        Ok(a) => a,
        Err(problems) => return json!({"refused": problems}),
    };
    let ctx = turn_context(chain, turn, &earlier, evidence.as_deref());
    let problems = check_answer(&parsed, &ctx);
    if !problems.is_empty() {
        return json!({"refused": problems});
    }
    let files = render_turn(&parsed, &ctx).unwrap();
    json!({
        "turn.json": files.manifest,
        "requirement.md": files.requirement.lines().collect::<Vec<_>>(),
        "reference.py": files.reference.lines().collect::<Vec<_>>(),
        "cases.json": serde_json::from_str::<Value>(&files.cases_json).unwrap(),
    })
}

fn turn_context<'a>(
    chain: &'a ChainManifest,
    turn: usize,
    earlier: &'a [TurnManifest],
    evidence: Option<&'a [String]>,
) -> TurnContext<'a> {
    TurnContext {
        chain,
        turn,
        earlier,
        evidence,
        repository: &PACKAGING,
    }
}

#[test]
fn each_fixture_answer_is_refused_or_rendered_as_expected() {
    let chain: ChainManifest = serde_json::from_str(&read(&fixtures().join("chain.json"))).unwrap();
    let mut names: Vec<String> = std::fs::read_dir(fixtures())
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 6, "{names:?}");
    for name in &names {
        expect_json(
            &fixtures().join(name).join("expected.json"),
            &synthesize(name, &chain),
        );
    }
    // Said outright: the accepted ones render, each refusal names its cause.
    let refused = |name: &str| synthesize(name, &chain)["refused"].to_string();
    assert!(synthesize("turn2_accepted", &chain)["refused"].is_null());
    assert!(
        refused("names_evidence")
            .contains("names the evidence symbol packaging.utils.canonicalize_version")
    );
    assert!(refused("names_evidence").contains("packaging.version._TrimmedRelease"));
    assert!(refused("missing_block").contains("READS"));
}

#[test]
fn calls_split_into_positional_and_keyword_argument_expressions() {
    let calls: Vec<String> =
        serde_json::from_str(&read(&fixtures().join("split_calls.json"))).unwrap();
    let out: Vec<Value> = calls
        .iter()
        .map(|call| match split_call(call) {
            Ok(s) => {
                json!({"call": call, "function": s.function, "args": s.args, "kwargs": s.kwargs})
            }
            Err(why) => json!({"call": call, "refused": why}),
        })
        .collect();
    expect_json(
        &fixtures().join("split_calls.expected.json"),
        &Value::Array(out),
    );
}

/// The renderer is the one the shipped dataset's requirements were made with: every
/// `requirement.md` of `datasets/reporeuse-networkx` comes back byte for byte.
#[test]
fn the_requirement_renderer_reproduces_the_shipped_dataset() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../datasets/reporeuse-networkx");
    let dataset: Value = serde_json::from_str(&read(&root.join("dataset.json"))).unwrap();
    let repository = RepositoryLine {
        name: "networkx".into(),
        version: dataset["repository"]["version"].as_str().unwrap().into(),
        import: "networkx".into(),
    };
    let mut turns = 0;
    for chain in dataset["chains"].as_array().unwrap() {
        let dir = root.join("chains").join(chain.as_str().unwrap());
        let manifest: ChainManifest = serde_json::from_str(&read(&dir.join("chain.json"))).unwrap();
        for t in 1.. {
            let turn_dir = dir.join(format!("turn-{t}"));
            if !turn_dir.exists() {
                break;
            }
            let turn: TurnManifest =
                serde_json::from_str(&read(&turn_dir.join("turn.json"))).unwrap();
            assert_eq!(
                render_requirement(&manifest, &repository, &turn),
                read(&turn_dir.join("requirement.md")),
                "{}",
                turn_dir.display()
            );
            turns += 1;
        }
    }
    assert_eq!(turns, 20);
}
