//! Real trajectories: every gemini mini-SWE-agent run parses; snapshots; uninterpreted share.
//!
//! The checks run on the trajectories vendored in `tests/fixtures/real/` and, when
//! `../shared` sits beside the repository, again on the full set of 70 (skipped, with a
//! printed line, when it does not).

use crate::common;

use std::path::Path;

use common::expect::expect_json;
use common::real;
use wheelwright_core::trajectory::{
    InterpretOptions, RawAction, TrajectoryFormat, TrajectorySummary, interpret_trajectory,
    parse_trajectory, parse_trajectory_value,
};

const SNAPSHOTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/trajectory");

/// How many gemini trajectories are vendored (at most 12: the ones the checks below need).
const VENDORED_COUNT: usize = 12;

fn summary_of(label: &str, text: &str) -> TrajectorySummary {
    let t = parse_trajectory(text).unwrap_or_else(|e| panic!("{label}: {e}"));
    TrajectorySummary::of(&t, &InterpretOptions::default())
}

/// (label, text) of every trajectory of the full set, or `None` when it is absent.
fn shared_all(check: &str) -> Option<Vec<(String, String)>> {
    let paths = real::shared_paths(check)?;
    Some(
        paths
            .iter()
            .map(|p| {
                let text = std::fs::read_to_string(p).expect("readable");
                (p.display().to_string(), text)
            })
            .collect(),
    )
}

/// Each trajectory parses as mini-SWE-agent 1 with at least one action.
fn check_parses(trajectories: &[(String, String)]) {
    for (label, text) in trajectories {
        let t = parse_trajectory(text).unwrap_or_else(|e| panic!("{label}: {e}"));
        assert_eq!(t.format, TrajectoryFormat::MiniSweAgent1, "{label}");
        assert!(!t.actions.is_empty(), "{label}");
    }
}

/// Each trajectory reads the same from its text (borrowed) as from a `serde_json::Value` of
/// it (a trajectory embedded in a JSON Lines bundle), errors included.
fn check_readings_agree(trajectories: &[(String, String)]) {
    for (label, text) in trajectories {
        let value: serde_json::Value = serde_json::from_str(text).expect("JSON");
        assert_eq!(
            parse_trajectory(text),
            parse_trajectory_value(&value),
            "{label}"
        );
    }
}

/// Fewer than 5% of the trajectories' actions are left uninterpreted.
fn check_uninterpreted_share(trajectories: &[(String, String)]) {
    let (mut total, mut unparsed) = (0usize, 0usize);
    for (label, text) in trajectories {
        let t = parse_trajectory(text).unwrap_or_else(|e| panic!("{label}: {e}"));
        for a in interpret_trajectory(&t, &InterpretOptions::default()) {
            total += 1;
            if !a.interpreted {
                unparsed += 1;
                println!(
                    "uninterpreted: {:?}",
                    a.command.chars().take(120).collect::<String>()
                );
            }
        }
    }
    let share = unparsed as f64 / total as f64;
    println!(
        "uninterpreted actions: {unparsed} of {total} ({:.2}%)",
        share * 100.0
    );
    assert!(share < 0.05, "{unparsed} of {total}");
}

#[test]
fn every_vendored_gemini_trajectory_parses() {
    let vendored = real::vendored_all();
    assert_eq!(vendored.len(), VENDORED_COUNT);
    check_parses(&vendored);
}

/// What each run cost and how often it called the model are read from mini-SWE-agent's
/// `info.model_stats` (ReCUBE reports both per instance).
#[test]
fn cost_and_model_calls_come_from_model_stats() {
    for (id, text) in real::vendored_all() {
        let raw: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let stats = &raw["info"]["model_stats"];
        let t = parse_trajectory(&text).expect("parses");
        assert_eq!(t.cost_usd, stats["instance_cost"].as_f64(), "{id}");
        assert_eq!(t.model_calls, stats["api_calls"].as_u64(), "{id}");
        assert!(
            t.cost_usd.is_some_and(|c| c > 0.0),
            "{id}: a real run has a cost"
        );
    }
}

#[test]
fn trajectories_read_the_same_from_text_and_from_a_value() {
    let mut all = real::vendored_all();
    for file in ["github_issue.traj.json", "local.traj.json"] {
        let path = Path::new(real::MINI_SWE_AGENT).join(file);
        all.push((
            file.to_owned(),
            std::fs::read_to_string(path).expect("readable"),
        ));
    }
    for file in [
        "generic.json",
        "mini_swe_agent_v2.traj.json",
        "opencode_session.json",
    ] {
        let path = Path::new(SNAPSHOTS).join(file);
        all.push((
            file.to_owned(),
            std::fs::read_to_string(path).expect("readable"),
        ));
    }
    // Shapes each reader must answer alike: repeated keys (the last counts), escapes in
    // keys, a format that is not a string, content as parts, numbers out of range.
    for (label, text) in [
        (
            "repeated key",
            r#"{"trajectory_format": "x", "trajectory_format": "mini-swe-agent-1", "messages": [{"role": "assistant", "role": "user", "content": "<returncode>0</returncode>"}]}"#,
        ),
        (
            "escaped key",
            r#"{"trajectory_format": "mini-swe-agent-1", "messages": [{"r\u006fle": "assistant", "content": "```bash\nls\n```"}, {"role": "user", "content": "<returncode>18446744073709551616</returncode><output>a</output>"}]}"#,
        ),
        (
            "format object",
            r#"{"trajectory_format": {"b": 1, "a": [2]}, "messages": []}"#,
        ),
        ("format number", r#"{"format": 7}"#),
        (
            "parts",
            r#"[{"role": "assistant", "content": [{"text": "```bash"}, "ls\n```"]}, {"role": "user", "content": "<returncode>1</returncode>", "extra": {"returncode": 1e3}}]"#,
        ),
        (
            "v1.1 calls",
            r#"{"trajectory_format": "mini-swe-agent-1.1", "messages": [{"role": "assistant", "tool_calls": [{"id": "a", "function": {"arguments": "{\"command\": \"ls\", \"command\": \"pwd\"}"}}, {"id": "b", "function": {"arguments": {"command": "cat x"}}}]}, {"role": "tool", "tool_call_id": "b", "content": "x"}, {"role": "exit"}]}"#,
        ),
        ("not a trajectory", r#"{"messages": 3}"#),
    ] {
        all.push((label.to_owned(), text.to_owned()));
    }
    check_readings_agree(&all);
}

#[test]
fn every_shared_gemini_trajectory_parses() {
    let Some(all) = shared_all("every_shared_gemini_trajectory_parses") else {
        return;
    };
    assert_eq!(all.len(), real::SHARED_COUNT);
    check_parses(&all);
}

#[test]
fn uninterpreted_share_of_the_vendored_is_below_five_percent() {
    check_uninterpreted_share(&real::vendored_all());
}

#[test]
fn uninterpreted_share_is_below_five_percent() {
    let Some(all) = shared_all("uninterpreted_share_is_below_five_percent") else {
        return;
    };
    check_uninterpreted_share(&all);
}

/// Snapshots of per-trajectory counts. `UPDATE_EXPECT=1` rewrites them (then check the
/// numbers by reading the trajectories before committing).
#[test]
fn selected_trajectories_match_their_snapshots() {
    for id in [
        "astropy__astropy-12907",
        "django__django-11163",
        "psf__requests-2317",
        "sympy__sympy-13480",
        "pytest-dev__pytest-7205",
    ] {
        let actual = serde_json::to_value(summary_of(id, &real::vendored(id))).expect("serialises");
        expect_json(
            &Path::new(SNAPSHOTS).join(format!("{id}.summary.json")),
            &actual,
        );
    }
}

#[test]
fn mini_swe_agent_test_fixtures_parse_with_their_actions() {
    for (file, actions, rejected) in [("github_issue.traj.json", 10, 0), ("local.traj.json", 2, 0)]
    {
        let text =
            std::fs::read_to_string(Path::new(real::MINI_SWE_AGENT).join(file)).expect("readable");
        let t = parse_trajectory(&text).expect("parses");
        assert_eq!(
            (t.actions.len(), t.rejected_responses),
            (actions, rejected),
            "{file}"
        );
        let RawAction::Shell(first) = &t.actions[0] else {
            panic!("{file}: shell actions expected");
        };
        assert!(first.output.is_some(), "{file}: observation attached");
    }
}
