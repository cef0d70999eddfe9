//! `wheelwright run` with a scripted agent (`fixtures/run/scripted-agent.sh`) over the shipped dataset: the bundle it writes scores the expected reuse and is accepted by the upload path, a turn without a file is scored missing while its chain goes on, a turn over its budget is stopped, and a run killed mid-chain resumes without redoing a finished turn.
//!
//! The expected scores are in `fixtures/run/scores.txt`, written by `wheelwright score` on
//! the driven bundle; to regenerate it after a deliberate change:
//! `UPDATE_EXPECT=1 cargo test -p wheelwright-server --test it cli_run::`, then review the diff.

use crate::common;

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
    let command = run_of(
        fixtures().join("scripted-agent.sh").as_os_str(),
        tmp,
        out,
        memory,
        extra,
    );
    scripted(command, tmp, hang)
}

/// `command` with the scripted agent's answers and log under `tmp`; `hang` as [`driver`].
fn scripted(mut command: Command, tmp: &Path, hang: Option<&str>) -> Command {
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

/// A temporary directory holding a finished run of the scripted agent on build-graph
/// under `memory`, and the run's directory.
fn finished_chain(memory: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    answers(&tmp.path().join("answers"), &[]);
    let out = tmp.path().join("run");
    succeeds(driver(
        tmp.path(),
        &out,
        memory,
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
    let (tmp, out) = finished_chain("none");
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
    let (tmp, out) = finished_chain("none");
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

/// What the link tests plant outside `--out`, where nothing of a run may be read from or
/// written to.
const SECRET: &str = "SECRET-3f9c1e: a file outside --out that no prompt or bundle may hold\n";

/// The module path of build-graph's turn `t`.
fn module_path(t: usize) -> String {
    let turn: serde_json::Value = serde_json::from_slice(
        &std::fs::read(real_dataset().join(format!("chains/build-graph/turn-{t}/turn.json")))
            .unwrap(),
    )
    .unwrap();
    turn["module_path"].as_str().unwrap().to_owned()
}

/// Puts `path` (below `out`) in `elsewhere` under `name` and a link to it in its place.
fn move_out(out: &Path, path: &str, elsewhere: &Path, name: &str) -> PathBuf {
    let moved = elsewhere.join(name);
    std::fs::rename(out.join(path), &moved).unwrap();
    std::os::unix::fs::symlink(&moved, out.join(path)).unwrap();
    moved
}

/// A link or special file planted in a finished run, or by its agent, and what the resumed
/// run must say about it.
struct Planted {
    what: &'static str,
    /// Plants it into `out`, with anything it points at in `elsewhere` (which holds
    /// `secret.txt`); `turn_1` is turn 1's module file below `out`.
    plant: fn(out: &Path, elsewhere: &Path, turn_1: &str),
    /// Shell the agent runs in its workspace after the scripted agent ("" for none), with
    /// `$ELSEWHERE` set.
    agent: &'static str,
    /// The path below `--out` the driver must name, and what it must say is there.
    at: &'static str,
    is: &'static str,
    /// Whether the run still finishes: an agent's own file is judged, not followed, and its
    /// turn goes on without it.
    finishes: bool,
}

/// Runs `command` for at most `limit`: whether it succeeded and its standard error, or
/// `None` when it had to be killed (it hung).
fn within(mut command: Command, limit: Duration, log: &Path) -> Option<(bool, String)> {
    let stderr = std::fs::File::create(log).unwrap();
    let mut child = command
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Some((status.success(), std::fs::read_to_string(log).unwrap()));
        }
        if Instant::now() >= deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            return None;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The regular files under `dir` that hold `secret` (gzip files inflated), found without
/// following a link or opening anything but a regular file.
fn holding(dir: &Path, secret: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                pending.push(path);
            } else if meta.is_file() {
                let mut bytes = std::fs::read(&path).unwrap();
                if path.extension().is_some_and(|e| e == "gz") {
                    bytes = common::gunzip(&bytes);
                }
                if String::from_utf8_lossy(&bytes).contains(secret.trim_end()) {
                    found.push(path);
                }
            }
        }
    }
    found
}

#[test]
fn links_and_fifos_in_the_output_folder_are_never_followed_on_resume() {
    // Every case resumes a copy of one finished chain with turns 3 to 5 to run again, so
    // turn 3's workspace and prompt (memory "source") are made from turns 1 and 2's files.
    let (tmp, finished) = finished_chain("source");
    let cases = [
        Planted {
            what: "a turn's file, a link to a file outside --out",
            plant: |out, elsewhere, turn_1| {
                std::fs::remove_file(out.join(turn_1)).unwrap();
                std::os::unix::fs::symlink(elsewhere.join("secret.txt"), out.join(turn_1)).unwrap();
            },
            agent: "",
            at: "bundle/chains/build-graph/turn-1/files/solutions/build_graph/order.py",
            is: "a symbolic link",
            finishes: false,
        },
        Planted {
            what: "a turn's files/, a link to a directory outside --out",
            plant: |out, elsewhere, turn_1| {
                let files = move_out(
                    out,
                    "bundle/chains/build-graph/turn-1/files",
                    elsewhere,
                    "files",
                );
                let inside = turn_1.split_once("files/").unwrap().1;
                std::fs::write(files.join(inside), SECRET).unwrap();
            },
            agent: "",
            at: "bundle/chains/build-graph/turn-1/files",
            is: "a symbolic link",
            finishes: false,
        },
        Planted {
            what: "a chain's directory, a link",
            plant: |out, elsewhere, turn_1| {
                let chain = move_out(out, "bundle/chains/build-graph", elsewhere, "chain");
                let inside = turn_1.strip_prefix("bundle/chains/build-graph/").unwrap();
                std::fs::write(chain.join(inside), SECRET).unwrap();
            },
            agent: "",
            at: "bundle/chains/build-graph",
            is: "a symbolic link",
            finishes: false,
        },
        Planted {
            what: "bundle/, a link",
            plant: |out, elsewhere, turn_1| {
                let bundle = move_out(out, "bundle", elsewhere, "bundle");
                let inside = turn_1.strip_prefix("bundle/").unwrap();
                std::fs::write(bundle.join(inside), SECRET).unwrap();
            },
            agent: "",
            at: "bundle",
            is: "a symbolic link",
            finishes: false,
        },
        Planted {
            what: "metadata.json, a link to a copy of it",
            plant: |out, elsewhere, _| {
                move_out(out, "bundle/metadata.json", elsewhere, "metadata.json");
            },
            agent: "",
            at: "bundle/metadata.json",
            is: "a symbolic link",
            finishes: false,
        },
        Planted {
            what: "a turn's file, a FIFO (reading it would wait for ever)",
            plant: |out, _, turn_1| {
                std::fs::remove_file(out.join(turn_1)).unwrap();
                let made = Command::new("mkfifo").arg(out.join(turn_1)).status();
                assert!(made.unwrap().success());
            },
            agent: "",
            at: "bundle/chains/build-graph/turn-1/files/solutions/build_graph/order.py",
            is: "a FIFO",
            finishes: false,
        },
        Planted {
            what: "a chain's work directory, a link (its turns would be removed and written outside)",
            plant: |out, elsewhere, _| {
                move_out(out, "work/build-graph", elsewhere, "work");
            },
            agent: "",
            at: "work/build-graph",
            is: "a symbolic link",
            finishes: false,
        },
        Planted {
            what: "by the agent, a directory of its module path, a link to the secret",
            plant: |_, elsewhere, _| {
                for t in 3..=5 {
                    let file = elsewhere.join("solutions-elsewhere").join(module_path(t));
                    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
                    std::fs::write(file, SECRET).unwrap();
                }
            },
            agent: r#"rm -rf solutions && ln -s "$ELSEWHERE/solutions-elsewhere/solutions" solutions"#,
            at: "work/build-graph/turn-3/workspace/solutions",
            is: "a symbolic link",
            finishes: true,
        },
        Planted {
            what: "by the agent, the turn's staging directory, a link outside --out",
            plant: |_, _, _| {},
            agent: r#"ln -s "$ELSEWHERE" ../staged"#,
            at: "work/build-graph/turn-3/staged",
            is: "a symbolic link",
            finishes: false,
        },
        Planted {
            what: "by the agent, outcome.json, a link to a file outside --out",
            plant: |_, _, _| {},
            agent: r#"ln -s "$ELSEWHERE/secret.txt" ../outcome.json"#,
            at: "work/build-graph/turn-3/outcome.json",
            is: "a symbolic link",
            finishes: false,
        },
    ];
    let turn_1 = format!("bundle/chains/build-graph/turn-1/files/{}", module_path(1));
    let mut wrong = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let out = tmp.path().join(format!("case-{i}"));
        common::copy_dir(&finished, &out);
        for t in 3..=5 {
            std::fs::remove_dir_all(out.join(format!("bundle/chains/build-graph/turn-{t}")))
                .unwrap();
        }
        let elsewhere = tmp.path().join(format!("elsewhere-{i}"));
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::write(elsewhere.join("secret.txt"), SECRET).unwrap();
        (case.plant)(&out, &elsewhere, &turn_1);
        let before = common::files_under(&elsewhere);

        let agent = if case.agent.is_empty() {
            fixtures().join("scripted-agent.sh").display().to_string()
        } else {
            format!(
                "'{}' && {}",
                fixtures().join("scripted-agent.sh").display(),
                case.agent
            )
        };
        let mut command = scripted(
            run_of(
                agent.as_ref(),
                tmp.path(),
                &out,
                "source",
                &["--chain", "build-graph"],
            ),
            tmp.path(),
            None,
        );
        command.env("ELSEWHERE", &elsewhere);
        let log = tmp.path().join(format!("case-{i}.stderr"));
        let Some((succeeded, stderr)) = within(command, Duration::from_secs(180), &log) else {
            wrong.push(format!("{}: the run hung and was killed", case.what));
            continue;
        };
        let said = format!("{} is {}", out.join(case.at).display(), case.is);
        if succeeded != case.finishes || !stderr.contains(&said) {
            wrong.push(format!(
                "{}: the run {}, and did not say {said:?}:\n{stderr}",
                case.what,
                if succeeded { "finished" } else { "failed" }
            ));
        }
        let leaked = holding(&out, SECRET);
        if !leaked.is_empty() {
            wrong.push(format!("{}: the secret is in {leaked:?}", case.what));
        }
        if common::files_under(&elsewhere) != before {
            wrong.push(format!(
                "{}: the run changed files outside --out, in {}",
                case.what,
                elsewhere.display()
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}
