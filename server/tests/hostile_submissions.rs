//! Hostile submissions through `wheelwright test` in the real bwrap sandbox: each is scored as failed or tampered, and the host is unharmed.
//!
//! Every case submits one module as turn 1 of `road-audit` (the rest of the run is
//! missing, so only that turn runs). The module does its damage when the hidden tests
//! import it. One helper runs a case on each backend (bwrap and podman; list fewer in
//! `WHEELWRIGHT_SANDBOX_BACKENDS` to leave one out, which is then reported as skipped);
//! each test adds the checks on the host that its attack calls for. Containment itself (namespaces, cgroups, uids) is also tested one
//! level down, in `sandbox/tests/hostile.rs`; here the point is the verdict.

mod common;

use std::io::ErrorKind;
use std::net::TcpListener;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::real_dataset;

/// The module path of road-audit's turn 1, where each hostile module is submitted.
const MODULE: &str = "solutions/road_audit/distances.py";

/// What the run gave for the hostile turn on one backend.
struct Verdict {
    backend: &'static str,
    passed: u64,
    total: u64,
    tampered: Option<String>,
    outcomes: Vec<String>,
    elapsed: Duration,
}

/// The backends to run on: `WHEELWRIGHT_SANDBOX_BACKENDS` (comma-separated), by default
/// both. A missing backend fails its run: CI installs both (`scripts/setup`).
fn backends() -> Vec<&'static str> {
    let wanted =
        std::env::var("WHEELWRIGHT_SANDBOX_BACKENDS").unwrap_or_else(|_| "bwrap,podman".to_owned());
    ["bwrap", "podman"]
        .into_iter()
        .filter(|b| {
            let on = wanted.split(',').any(|w| w.trim() == *b);
            if !on {
                eprintln!("SKIPPED on {b}: not listed in WHEELWRIGHT_SANDBOX_BACKENDS");
            }
            on
        })
        .collect()
}

/// Submits `module` as road-audit turn 1 and runs the hidden tests with a turn time limit
/// of `timeout` seconds, on every backend.
fn run_hostile(module: &str, timeout: u64) -> Vec<Verdict> {
    backends()
        .into_iter()
        .map(|backend| run_on(backend, module, timeout))
        .collect()
}

fn run_on(backend: &'static str, module: &str, timeout: u64) -> Verdict {
    // Tests of this file run at once, each in its own uid range: the kernel counts
    // processes per uid, so a fork bomb would otherwise starve its neighbours.
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let uid_base = 61000 + 10 * NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.jsonl");
    let metadata = serde_json::json!({"metadata": {
        "model": "hostile", "harness": "test", "memory": "none", "date": "2026-11-29",
        "dataset": {"name": "reporeuse-networkx", "version": "1"}}});
    let turn = serde_json::json!({"instance_id": "road-audit/turn-1", "files": {MODULE: module}});
    std::fs::write(&path, format!("{metadata}\n{turn}\n")).unwrap();
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_wheelwright"))
        .args(["test", path.to_str().unwrap(), "--dataset"])
        .arg(real_dataset())
        .args([
            "--json",
            "--test-workers",
            "1",
            "--backend",
            backend,
            "--turn-timeout",
        ])
        .arg(timeout.to_string())
        .arg("--uid-base")
        .arg(uid_base.to_string())
        .env("WHEELWRIGHT_LOG", "warn")
        .output()
        .expect("the wheelwright binary runs");
    let elapsed = started.elapsed();
    assert!(
        out.status.success(),
        "{backend}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let output: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON output");
    let turn = output["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["chain"] == "road-audit" && t["turn"] == 1)
        .expect("turn 1 of road-audit")
        .clone();
    Verdict {
        backend,
        passed: turn["passed"].as_u64().unwrap(),
        total: turn["total"].as_u64().unwrap(),
        tampered: turn["tampered"].as_str().map(str::to_owned),
        outcomes: turn["tests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["outcome"].as_str().unwrap().to_owned())
            .collect(),
        elapsed,
    }
}

/// The run is failed on every backend: nothing passed (or the report was not believed).
fn assert_failed(verdicts: &[Verdict]) {
    assert!(!verdicts.is_empty(), "no backend ran");
    for v in verdicts {
        assert_eq!(
            v.total, 17,
            "{}: every hidden test of the turn is counted",
            v.backend
        );
        assert_eq!(v.passed, 0, "{}: outcomes {:?}", v.backend, v.outcomes);
    }
}

/// No process on the host has `marker` in its command line. (Other tests of this file run
/// sandboxes at the same time, so "no sandbox process at all" cannot be checked here; the
/// sandbox crate's own tests check that.)
fn assert_no_process_with(marker: &str) {
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        assert!(
            !cmdline.contains(marker),
            "a process the submission started is left: {cmdline}"
        );
    }
}

/// The reference solution as the hostile module would run it if it could read it: a
/// readable file would make the tests pass.
fn exec_if_readable(path: &str) -> String {
    format!("try:\n    exec(open({path:?}).read())\nexcept Exception:\n    pass\n")
}

#[test]
fn network_connections_fail_and_reach_nothing_needs_sandboxes() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let module = format!(
        "import socket\ntry:\n    socket.create_connection(('127.0.0.1', {port}), timeout=3).sendall(b'leak')\nexcept OSError:\n    pass\n"
    );
    let verdict = run_hostile(&module, 60);
    assert_failed(&verdict);
    listener.set_nonblocking(true).unwrap();
    assert_eq!(
        listener.accept().map(|_| ()).map_err(|e| e.kind()),
        Err(ErrorKind::WouldBlock),
        "the listener on the host saw a connection"
    );
}

#[test]
fn the_reference_solution_and_etc_shadow_are_out_of_reach_needs_sandboxes() {
    let reference = real_dataset().join("chains/road-audit/turn-1/reference.py");
    let reference = reference.canonicalize().unwrap();
    let module = format!(
        "{}{}",
        exec_if_readable(reference.to_str().unwrap()),
        "try:\n    SHADOW = open('/etc/shadow').read()\n    exec(SHADOW)\nexcept Exception:\n    pass\n"
    );
    let verdict = run_hostile(&module, 60);
    assert_failed(&verdict);
}

#[test]
fn writes_outside_the_workspace_change_nothing_on_the_host_needs_sandboxes() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("victim.txt");
    std::fs::write(&target, "ORIGINAL").unwrap();
    // World-writable, so only the sandbox stands between the submission and the file.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o666)).unwrap();
    let module = format!(
        "for p in [{t:?}, {d:?} + '/new.txt', '/usr/lib/evil.py']:\n    try:\n        open(p, 'w').write('PWNED')\n    except OSError:\n        pass\n",
        t = target.to_str().unwrap(),
        d = dir.path().to_str().unwrap(),
    );
    let verdict = run_hostile(&module, 60);
    assert_failed(&verdict);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "ORIGINAL");
    assert!(!dir.path().join("new.txt").exists());
    assert!(!Path::new("/usr/lib/evil.py").exists());
}

#[test]
fn rewriting_the_hidden_test_file_changes_no_test_needs_sandboxes() {
    // The module rewrites the test file wherever it may be, then defines nothing.
    let module = "\
import glob
for p in glob.glob('/in/*.py') + glob.glob('/work/*.py') + glob.glob('*.py'):
    try:
        open(p, 'w').write('def test_everything_passes():\\n    pass\\n')
    except OSError:
        pass
";
    let verdict = run_hostile(module, 60);
    assert_failed(&verdict);
    assert!(verdict.iter().all(|v| v.tampered.is_none()));
    let test_file = real_dataset().join("chains/road-audit/turn-1/tests/test_turn.py");
    assert!(
        std::fs::read_to_string(test_file)
            .unwrap()
            .contains("GENERATED by tools/generate_tests.py")
    );
}

#[test]
fn a_fork_bomb_times_out_and_leaves_nothing_needs_sandboxes() {
    let module = "\
import os
while True:
    try:
        os.fork()
    except OSError:
        pass
";
    let verdict = run_hostile(module, 10);
    assert_failed(&verdict);
    for v in &verdict {
        assert!(
            v.outcomes.iter().all(|o| o == "timed_out"),
            "{}: {:?}",
            v.backend,
            v.outcomes
        );
        assert!(
            v.elapsed < Duration::from_secs(60),
            "{}: {:?}",
            v.backend,
            v.elapsed
        );
    }
}

#[test]
fn allocating_8_gib_is_stopped_by_the_memory_limit_needs_sandboxes() {
    let module = "HOARD = bytearray(8 << 30)\n";
    let verdict = run_hostile(module, 60);
    assert_failed(&verdict);
}

#[test]
fn an_infinite_loop_times_out_needs_sandboxes() {
    let verdict = run_hostile("while True:\n    pass\n", 5);
    assert_failed(&verdict);
    for v in &verdict {
        assert!(
            v.outcomes.iter().all(|o| o == "timed_out"),
            "{}: {:?}",
            v.backend,
            v.outcomes
        );
        assert!(
            v.elapsed < Duration::from_secs(45),
            "{}: {:?}",
            v.backend,
            v.elapsed
        );
    }
}

#[test]
fn printing_a_gigabyte_is_capped_needs_sandboxes() {
    let module = "\
import os
chunk = b'x' * (1 << 20)
for _ in range(1024):
    os.write(1, chunk)
";
    let verdict = run_hostile(module, 60);
    assert_failed(&verdict);
    for v in &verdict {
        assert!(
            v.elapsed < Duration::from_secs(90),
            "{}: {:?}",
            v.backend,
            v.elapsed
        );
    }
}

#[test]
fn a_daemon_left_running_is_killed_with_the_job_needs_sandboxes() {
    // Unusual sleep lengths mark the daemons' command lines.
    let module = "\
import os, subprocess
subprocess.Popen(['sleep', '86401.25'], start_new_session=True)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execvp('sleep', ['sleep', '86402.75'])
    os._exit(0)
";
    let verdict = run_hostile(module, 60);
    assert_failed(&verdict);
    assert_no_process_with("86401.25");
    assert_no_process_with("86402.75");
}

#[test]
fn exiting_with_status_0_at_import_is_tampering_needs_sandboxes() {
    let verdict = run_hostile("import os\nos._exit(0)\n", 60);
    assert_failed(&verdict);
    for v in &verdict {
        assert_eq!(
            v.tampered.as_deref(),
            Some("the run finished without writing its JUnit report"),
            "{}",
            v.backend
        );
    }
}

#[test]
fn patching_pytest_to_report_passes_is_tampering_needs_sandboxes() {
    // Registers a plugin in the running pytest that rewrites every outcome to "passed",
    // then implements nothing: without the canary, every test would read as passed.
    let module = "\
import gc
import pytest
import _pytest.config


class _Pass:
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        report.outcome = 'passed'
        report.longrepr = None


for _o in gc.get_objects():
    if isinstance(_o, _pytest.config.Config):
        _o.pluginmanager.register(_Pass(), 'wheelwright-hostile')
        break
";
    let verdict = run_hostile(module, 60);
    assert_failed(&verdict);
    for v in &verdict {
        assert_eq!(
            v.tampered.as_deref(),
            Some("the canary test, which always fails, was reported as passed"),
            "{}",
            v.backend
        );
    }
}

#[test]
fn filling_the_disk_with_small_files_stops_at_the_workspace_limit_needs_sandboxes() {
    let free_before = free_bytes();
    let module = "\
import os
for d in ['.', '/tmp']:
    try:
        os.makedirs(d + '/fill', exist_ok=True)
        for i in range(1000000):
            with open(f'{d}/fill/{i}', 'w') as f:
                f.write('x' * 512)
    except OSError:
        pass
";
    let verdict = run_hostile(module, 60);
    assert_failed(&verdict);
    // The host's disk did not fill (tmpfs inside the sandbox took the files); allow for
    // what other processes write meanwhile.
    assert!(
        free_bytes() + (512 << 20) > free_before,
        "free space dropped from {free_before} to {}",
        free_bytes()
    );
}

/// Free bytes on the file system holding the temporary directory (`df`).
fn free_bytes() -> u64 {
    let out = Command::new("df")
        .args(["--output=avail", "-B1"])
        .arg(std::env::temp_dir())
        .output()
        .expect("df runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .nth(1)
        .and_then(|l| l.trim().parse().ok())
        .expect("df prints the free bytes")
}
