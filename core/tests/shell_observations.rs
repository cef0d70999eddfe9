//! Shell observations as GNU tools print them: each recorded command's files and shown lines (spec D13, D14).
//!
//! The fixtures come from running the commands: `scripts/record-shell-fixtures` runs every
//! case of `fixtures/shell/cases.json` in [`REPO`] (networkx 3.4.2's `utils/__init__.py`,
//! `misc.py` and `union_find.py`) and records the observation mini-SWE-agent would render
//! and the lines the command really printed. Each case is read here as a one-action
//! trajectory.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use common::repo::workspace_of;
use serde::Deserialize;
use wheelwright_core::trajectory::{InterpretOptions, interpret_trajectory, parse_trajectory};
use wheelwright_core::workspace::Workspace;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/shell");
/// The repository the commands ran in, vendored for the star-import cycle case.
const REPO: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/python/star_import_cycle_networkx/repo"
);

#[derive(Deserialize)]
struct Recorded {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    command: String,
    workspace: bool,
    files: BTreeSet<String>,
    observation: String,
    /// File -> inclusive line ranges the command printed.
    shown: BTreeMap<String, Vec<(u32, u32)>>,
}

/// The case as mini-SWE-agent would have written it: one action and its observation.
fn trajectory(case: &Case) -> String {
    serde_json::json!({
        "trajectory_format": "mini-swe-agent-1",
        "messages": [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "Look at the repository."},
            {"role": "assistant", "content": format!("THOUGHT: look.\n\n```bash\n{}\n```", case.command)},
            {"role": "user", "content": case.observation},
        ]
    })
    .to_string()
}

/// What the interpreter makes of the case, against what was recorded; `None` when equal.
fn check_case(case: &Case, workspace: &Workspace) -> Option<String> {
    let t = parse_trajectory(&trajectory(case)).expect("the trajectory reads");
    let options = InterpretOptions::new(case.workspace.then_some(workspace));
    let actions = interpret_trajectory(&t, &options);
    let [action] = actions.as_slice() else {
        return Some(format!("{}: {} actions, want 1", case.name, actions.len()));
    };
    let shown: BTreeMap<String, Vec<(u32, u32)>> = action
        .shown
        .files()
        .map(|(file, lines)| (file.to_owned(), ranges(lines.iter())))
        .collect();
    let mut wrong = Vec::new();
    if action.files != case.files {
        wrong.push(format!("files {:?}, want {:?}", action.files, case.files));
    }
    if shown != case.shown {
        wrong.push(format!("lines {shown:?}, want {:?}", case.shown));
    }
    (!wrong.is_empty()).then(|| format!("{} (`{}`): {}", case.name, case.command, wrong.join("; ")))
}

fn ranges(lines: impl Iterator<Item = u32>) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for n in lines {
        match out.last_mut() {
            Some((_, end)) if *end + 1 == n => *end = n,
            _ => out.push((n, n)),
        }
    }
    out
}

#[test]
fn recorded_commands_show_the_lines_they_printed() {
    let recorded: Recorded = serde_json::from_str(
        &std::fs::read_to_string(Path::new(FIXTURES).join("recorded.json"))
            .expect("recorded.json: run scripts/record-shell-fixtures"),
    )
    .expect("recorded.json reads");
    let workspace = workspace_of(Path::new(REPO));
    let wrong: Vec<String> = recorded
        .cases
        .iter()
        .filter_map(|case| check_case(case, &workspace))
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} cases:\n{}",
        wrong.len(),
        recorded.cases.len(),
        wrong.join("\n")
    );
}
