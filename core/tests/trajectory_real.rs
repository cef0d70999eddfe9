//! Real trajectories: every gemini mini-SWE-agent run parses; snapshots; uninterpreted share.

use std::path::{Path, PathBuf};

use wheelwright_core::trajectory::{
    InterpretOptions, RawAction, TrajectoryFormat, TrajectorySummary, interpret_trajectory,
    parse_trajectory,
};

const GEMINI: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/data/real/swebench-bash-only-gemini-3-pro/swebench_results/20251118_gemini-3-pro-74pct/trajs"
);
const FIXTURES_11: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/data/real/mini-swe-agent-fixtures/tests/test_data"
);
const SNAPSHOTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/trajectory");

fn gemini_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in std::fs::read_dir(GEMINI).expect("real data folder") {
        let dir = dir.expect("dir entry").path();
        if !dir.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&dir).expect("instance folder") {
            let f = f.expect("entry").path();
            if f.to_string_lossy().ends_with(".traj.json") {
                out.push(f);
            }
        }
    }
    out.sort();
    out
}

fn summary_of(path: &Path) -> TrajectorySummary {
    let text = std::fs::read_to_string(path).expect("readable");
    let t = parse_trajectory(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    TrajectorySummary::of(&t, &InterpretOptions::default())
}

#[test]
fn every_gemini_trajectory_parses() {
    let files = gemini_files();
    assert_eq!(files.len(), 70);
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable");
        let t = parse_trajectory(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert_eq!(t.format, TrajectoryFormat::MiniSweAgent1, "{}", f.display());
        assert!(!t.actions.is_empty(), "{}", f.display());
    }
}

#[test]
fn uninterpreted_share_is_below_five_percent() {
    let (mut total, mut unparsed) = (0usize, 0usize);
    for f in gemini_files() {
        let text = std::fs::read_to_string(&f).expect("readable");
        let t = parse_trajectory(&text).expect("parses");
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

/// Snapshots of per-trajectory counts. Set `UPDATE_SNAPSHOTS=1` to rewrite them (then check
/// the numbers by reading the trajectories before committing).
#[test]
fn selected_trajectories_match_their_snapshots() {
    for id in [
        "astropy__astropy-12907",
        "django__django-11163",
        "psf__requests-2317",
        "sympy__sympy-13480",
        "pytest-dev__pytest-7205",
    ] {
        let path = Path::new(GEMINI).join(id).join(format!("{id}.traj.json"));
        let actual = serde_json::to_value(summary_of(&path)).expect("serialises");
        let snap = Path::new(SNAPSHOTS).join(format!("{id}.summary.json"));
        if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
            let text = serde_json::to_string_pretty(&actual).expect("pretty");
            std::fs::write(&snap, text + "\n").expect("writable");
        }
        let expected: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&snap).expect("snapshot exists"))
                .expect("snapshot is JSON");
        assert_eq!(actual, expected, "{id}");
    }
}

#[test]
fn mini_swe_agent_test_fixtures_parse_with_their_actions() {
    for (file, actions, rejected) in [("github_issue.traj.json", 10, 0), ("local.traj.json", 2, 0)]
    {
        let text = std::fs::read_to_string(Path::new(FIXTURES_11).join(file)).expect("readable");
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
