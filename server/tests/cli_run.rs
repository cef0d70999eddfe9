//! `wheelwright run` with a scripted agent (`fixtures/run/scripted-agent.sh`) over the shipped dataset: the bundle it writes scores the expected reuse and is accepted by the upload path, a turn without a file is scored missing while its chain goes on, a turn over its budget is stopped, and a run killed mid-chain resumes without redoing a finished turn.
//!
//! The expected scores are in `fixtures/run/scores.txt`, written by `wheelwright score` on
//! the driven bundle; to regenerate it after a deliberate change:
//! `UPDATE_EXPECT=1 cargo test -p wheelwright-server --test cli_run`, then review the diff.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use common::expect::expect_text;
use common::{app, post_bytes, real_dataset, stdout_of};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/run")
}

/// The answers the scripted agent copies: every turn's reference solution, except the
/// turns in `skip`, where it writes nothing.
fn answers(dir: &Path, skip: &[&str]) {
    let chains = real_dataset().join("chains");
    for chain in std::fs::read_dir(&chains).unwrap() {
        let chain = chain.unwrap().file_name().into_string().unwrap();
        std::fs::create_dir_all(dir.join(&chain)).unwrap();
        for t in 1..=5 {
            if !skip.contains(&format!("{chain}/turn-{t}").as_str()) {
                std::fs::copy(
                    chains.join(format!("{chain}/turn-{t}/reference.py")),
                    dir.join(format!("{chain}/turn-{t}.py")),
                )
                .unwrap();
            }
        }
    }
}

/// A `wheelwright run` of the scripted agent into `out` under `memory`, with `extra`
/// arguments; `hang` names a turn where the agent sleeps instead of working.
fn driver(tmp: &Path, out: &Path, memory: &str, extra: &[&str], hang: Option<&str>) -> Command {
    let mut command = run_of(
        fixtures().join("scripted-agent.sh").as_os_str(),
        tmp,
        out,
        memory,
        extra,
    );
    command
        .env("SCRIPTED_AGENT_LOG", tmp.join("agent.log"))
        .env("SCRIPTED_AGENT_ANSWERS", tmp.join("answers"))
        .env_remove("SCRIPTED_AGENT_HANG")
        .env_remove("SCRIPTED_AGENT_RENDEZVOUS");
    if let Some(turn) = hang {
        command.env("SCRIPTED_AGENT_HANG", turn);
    }
    command
}

/// A `wheelwright run` of the agent command `agent` into `out`.
fn run_of(
    agent: &std::ffi::OsStr,
    tmp: &Path,
    out: &Path,
    memory: &str,
    extra: &[&str],
) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_wheelwright"));
    command
        .args(["run", "--dataset"])
        .arg(real_dataset())
        .arg("--agent")
        .arg(agent)
        .arg("--out")
        .arg(out)
        .args([
            "--model",
            "scripted",
            "--harness",
            "scripted-agent",
            "--memory",
            memory,
        ])
        .args(["--date", "2026-12-04"])
        .args(extra)
        .current_dir(tmp)
        .env("WHEELWRIGHT_LOG", "warn");
    command
}

/// A temporary directory holding a finished run of the scripted agent on build-graph,
/// memory "none", and the run's directory.
fn finished_chain() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    answers(&tmp.path().join("answers"), &[]);
    let out = tmp.path().join("run");
    succeeds(driver(
        tmp.path(),
        &out,
        "none",
        &["--chain", "build-graph"],
        None,
    ));
    (tmp, out)
}

/// Runs `command`, which must succeed; its standard error.
fn succeeds(mut command: Command) -> String {
    let out = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    stderr
}

/// Runs `command`, which must fail saying `words`; its standard error.
fn fails_with(mut command: Command, words: &str) -> String {
    let out = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains(words), "{stderr}");
    stderr
}

/// The turns the scripted agent was started on, in order.
fn agent_log(tmp: &Path) -> Vec<String> {
    std::fs::read_to_string(tmp.join("agent.log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Every turn of the shipped dataset, `<chain>/turn-<t>`, in the dataset's chain order.
fn all_turns() -> Vec<String> {
    [
        "road-audit",
        "social-circles",
        "build-graph",
        "pipeline-capacity",
    ]
    .iter()
    .flat_map(|c| (1..=5).map(move |t| format!("{c}/turn-{t}")))
    .collect()
}

/// `wheelwright score --json` of `bundle`, reduced to one line per turn and the overall row.
fn scores(bundle: &Path) -> (String, serde_json::Value) {
    let report: serde_json::Value = serde_json::from_str(&stdout_of(&[
        "score",
        bundle.to_str().unwrap(),
        "--dataset",
        real_dataset().to_str().unwrap(),
        "--json",
    ]))
    .unwrap();
    // A score is {"status": "defined", "value": x} or undefined with a reason.
    let cell = |v: &serde_json::Value| match v["value"].as_f64() {
        Some(x) if v["status"] == "defined" => format!("{x:.1}"),
        _ => "-".to_owned(),
    };
    let mut text =
        String::from("chain turn submission reuse_repo reuse_self recall_repo files lines\n");
    for row in report["turns"].as_array().unwrap() {
        text.push_str(&format!(
            "{} {} {} {} {} {} {} {}\n",
            row["chain"].as_str().unwrap(),
            row["turn"],
            row["submission"].as_str().unwrap(),
            cell(&row["reuse_repo"]),
            cell(&row["reuse_self"]),
            cell(&row["recall_repo"]),
            cell(&row["files"]),
            cell(&row["lines"]),
        ));
    }
    (text, report["overall"].clone())
}

#[tokio::test]
async fn a_scripted_agent_drives_every_chain_into_a_bundle_that_scores_and_uploads() {
    let tmp = tempfile::tempdir().unwrap();
    answers(&tmp.path().join("answers"), &["road-audit/turn-2"]);
    let out = tmp.path().join("run");
    succeeds(driver(
        tmp.path(),
        &out,
        "interface",
        &["--jobs", "2"],
        None,
    ));

    // Every turn ran exactly once.
    let mut started = agent_log(tmp.path());
    started.sort();
    let mut expected = all_turns();
    expected.sort();
    assert_eq!(started, expected);

    // The turn without a file is scored missing and its chain goes on; the others score
    // as their files say.
    let single = out.join("run.jsonl.gz");
    let (table, overall) = scores(&single);
    assert!(table.contains("road-audit 2 missing"), "{table}");
    assert!(table.contains("road-audit 3 present"), "{table}");
    expect_text(&fixtures().join("scores.txt"), &table);
    assert_eq!(
        scores(&out.join("bundle")).0,
        table,
        "the directory and run.jsonl.gz differ"
    );

    // The trajectories name the dataset's working directory, not this machine's.
    let trajectory =
        std::fs::read_to_string(out.join("bundle/chains/build-graph/turn-1/trajectory.json"))
            .unwrap();
    assert!(
        trajectory.contains("/testbed/networkx/algorithms/dag.py"),
        "{trajectory}"
    );
    assert!(!trajectory.contains(out.to_str().unwrap()));

    // The prompt each turn got is the one `wheelwright prompt` prints.
    let prompt = stdout_of(&[
        "prompt",
        "--dataset",
        real_dataset().to_str().unwrap(),
        "--chain",
        "social-circles",
        "--turn",
        "3",
        "--memory",
        "interface",
    ]);
    let given = std::fs::read_to_string(out.join("work/social-circles/turn-3/prompt.md")).unwrap();
    assert_eq!(given, prompt);
    assert!(!out.join("work/social-circles/turn-3/workspace").exists());

    // The upload path takes the bundle and scores it as the command line does.
    let app = app().await;
    let reply = post_bytes(&app, "/api/v1/runs", std::fs::read(&single).unwrap()).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text());
    let run = reply.json();
    assert_eq!(run["model"], "scripted");
    assert_eq!(run["memory"], "interface");
    for metric in ["reuse_repo", "reuse_self"] {
        assert_eq!(
            run["overall"][metric], overall[metric],
            "{metric}: the upload scored {} and the command line {}",
            run["overall"][metric], overall[metric]
        );
    }
}

#[test]
fn a_run_killed_mid_chain_resumes_at_its_first_unfinished_turn() {
    let tmp = tempfile::tempdir().unwrap();
    answers(&tmp.path().join("answers"), &[]);
    let out = tmp.path().join("run");
    let mut first = driver(
        tmp.path(),
        &out,
        "source",
        &["--jobs", "1"],
        Some("build-graph/turn-3"),
    );
    let mut child = first
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let hung = tmp.path().join("agent.log.hung");
    let deadline = Instant::now() + Duration::from_secs(120);
    while !hung.exists() {
        assert!(
            Instant::now() < deadline,
            "the agent never reached build-graph turn 3"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // Killed outright: nothing of the driver's own runs after this.
    child.kill().unwrap();
    child.wait().unwrap();
    let sleeper = std::fs::read_to_string(&hung).unwrap();
    let _ = Command::new("kill").args(["-9", sleeper.trim()]).status();
    assert!(!out.join("run.jsonl.gz").exists());
    assert!(out.join("bundle/chains/build-graph/turn-2").is_dir());
    assert!(!out.join("bundle/chains/build-graph/turn-3").exists());

    succeeds(driver(tmp.path(), &out, "source", &["--jobs", "1"], None));
    // Every turn ran once, but the one it was killed in, which ran again.
    let started = agent_log(tmp.path());
    let mut expected = all_turns();
    let at = expected
        .iter()
        .position(|t| t == "build-graph/turn-3")
        .unwrap();
    expected.insert(at + 1, "build-graph/turn-3".to_owned());
    assert_eq!(started, expected);
    // What the agent left before the kill reaches the turns after it (memory "source").
    let turn_2 =
        std::fs::read_to_string(real_dataset().join("chains/build-graph/turn-2/reference.py"))
            .unwrap();
    let prompt = std::fs::read_to_string(out.join("work/build-graph/turn-4/prompt.md")).unwrap();
    assert!(prompt.contains(turn_2.trim_end()), "{prompt}");
    let (table, _) = scores(&out.join("run.jsonl.gz"));
    assert_eq!(table.matches(" present ").count(), 20, "{table}");
}

#[test]
fn a_turn_over_its_budget_is_stopped_and_its_chain_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    answers(&tmp.path().join("answers"), &[]);
    // A relative --out: the agent, which runs in the workspace, still finds its files.
    let command = driver(
        tmp.path(),
        Path::new("run"),
        "none",
        &["--chain", "build-graph", "--budget", "1"],
        Some("build-graph/turn-2"),
    );
    let stderr = succeeds(command);
    let out = tmp.path().join("run");
    assert!(
        stderr.contains("build-graph turn 2: over the budget of 1 s"),
        "{stderr}"
    );
    let outcome: serde_json::Value = serde_json::from_slice(
        &std::fs::read(out.join("work/build-graph/turn-2/outcome.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(outcome["end"], "over the budget of 1 s");
    // What it wrote before it was stopped is kept; it wrote no trajectory.
    assert_eq!(outcome["file"], true);
    assert_eq!(outcome["trajectory"], false);
    assert!(out.join("bundle/chains/build-graph/turn-2/files").is_dir());
    assert!(
        !out.join("bundle/chains/build-graph/turn-2/trajectory.json")
            .exists()
    );
    for t in [3, 4, 5] {
        assert!(
            out.join(format!("bundle/chains/build-graph/turn-{t}/files"))
                .is_dir()
        );
    }
    assert_eq!(agent_log(tmp.path()).len(), 5);
}

#[test]
fn deleting_a_turn_redoes_it_and_every_later_turn_of_its_chain() {
    let (tmp, out) = finished_chain();
    std::fs::remove_dir_all(out.join("bundle/chains/build-graph/turn-3")).unwrap();
    let stderr = succeeds(driver(
        tmp.path(),
        &out,
        "none",
        &["--chain", "build-graph"],
        None,
    ));
    assert!(
        stderr.contains("build-graph turn 4: redone, since turn 3 before it is redone"),
        "{stderr}"
    );
    let turns = |ts: &[usize]| {
        ts.iter()
            .map(|t| format!("build-graph/turn-{t}"))
            .collect::<Vec<_>>()
    };
    assert_eq!(agent_log(tmp.path()), turns(&[1, 2, 3, 4, 5, 3, 4, 5]));
}

#[test]
fn an_agent_that_leaves_nothing_gets_a_message_saying_where_to_look() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let silent = run_of(
        "true".as_ref(),
        tmp.path(),
        &out,
        "none",
        &["--chain", "build-graph"],
    );
    let stderr = fails_with(
        silent,
        "none left a file or a trajectory, so there is nothing to upload",
    );
    assert!(
        stderr.contains("build-graph turn 5: exited 0, 0 s, no file"),
        "{stderr}"
    );
}

#[test]
fn resuming_with_other_metadata_or_an_unknown_chain_is_refused() {
    let (tmp, out) = finished_chain();
    for (memory, extra, words) in [
        (
            "interface",
            vec!["--chain", "build-graph"],
            "holds a run of scripted (scripted-agent, memory none)",
        ),
        (
            "none",
            vec!["--chain", "nope"],
            "the dataset has no chain \"nope\"",
        ),
    ] {
        fails_with(driver(tmp.path(), &out, memory, &extra, None), words);
    }
    // On a new --out, an unknown chain is refused before anything is written.
    let fresh = tmp.path().join("fresh");
    fails_with(
        driver(tmp.path(), &fresh, "none", &["--chain", "nope"], None),
        "the dataset has no chain \"nope\"",
    );
    assert!(!fresh.exists());
    // A run begun with another prompt template cannot be finished with this one.
    let state = out.join("work/driver.json");
    let text = std::fs::read_to_string(&state).unwrap();
    std::fs::write(&state, text.replace("reporeuse-turn-1", "reporeuse-turn-0")).unwrap();
    fails_with(
        driver(tmp.path(), &out, "none", &["--chain", "build-graph"], None),
        "were asked with the prompt template reporeuse-turn-0",
    );
    // Nothing ran again.
    assert_eq!(agent_log(tmp.path()).len(), 5);
}
