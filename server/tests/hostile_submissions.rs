//! Hostile submissions through `wheelwright test` in the real bwrap sandbox: each is scored as failed or tampered, and the host is unharmed.
//!
//! Every case submits one module (and, for some, files beside it) as turn 1 of
//! `road-audit` (the rest of the run is missing, so only that turn runs). The module does
//! its damage when the judge imports it. One helper runs a case on each backend (bwrap and
//! podman; list fewer in `WHEELWRIGHT_SANDBOX_BACKENDS` to leave one out, which is then
//! reported as skipped); each test adds the checks on the host that its attack calls for.
//!
//! Containment attacks (network, secrets, writes, fork bombs, memory, time, output,
//! daemons, disk) run against the shipped dataset, whose tests are a case suite judged on
//! the host. Forgery attacks (a conftest, a plugin, a fake `pytest.py`, exit hooks, a
//! submitted `pytest.ini`, forged result records, reading the hidden tests) run against both
//! kinds of suite: the case suite, and the same dataset with `"hidden_tests": "pytest"`, the
//! hardened pytest run (`docs/hidden-tests.md`). Containment itself (namespaces, cgroups,
//! uids) is also tested one level down, in `sandbox/tests/hostile.rs`; here the point is
//! the verdict.

use crate::common;

use std::io::ErrorKind;
use std::net::TcpListener;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::real_dataset;

/// The module path of road-audit's turn 1, where each hostile module is submitted.
const MODULE: &str = "solutions/road_audit/distances.py";

/// How the dataset's hidden tests run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Suite {
    /// The shipped dataset: calls in the sandbox, comparison on the host.
    Cases,
    /// The same dataset run as a hardened pytest session in the sandbox.
    Pytest,
}

/// What the run gave for the hostile turn on one backend.
struct Verdict {
    backend: &'static str,
    suite: Suite,
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

/// Submits `module` as road-audit turn 1 and runs the case suite with a turn time limit of
/// `timeout` seconds, on every backend.
fn run_hostile(module: &str, timeout: u64) -> Vec<Verdict> {
    let runs: Vec<_> = backends()
        .into_iter()
        .map(|backend| (backend, Suite::Cases))
        .collect();
    run_all(&runs, &[(MODULE, module)], timeout)
}

/// Submits `files` (the module at [`MODULE`] among them) as road-audit turn 1 and runs the
/// hidden tests as both kinds of suite, on every backend.
fn run_forgery(files: &[(&str, &str)], timeout: u64) -> Vec<Verdict> {
    let mut runs = Vec::new();
    for suite in [Suite::Cases, Suite::Pytest] {
        for backend in backends() {
            runs.push((backend, suite));
        }
    }
    run_all(&runs, files, timeout)
}

/// [`run_on`] for each (backend, suite) of `runs`, all at once (each in its own uid range,
/// each mostly waiting on its sandbox), the verdicts in the order of `runs`.
fn run_all(runs: &[(&'static str, Suite)], files: &[(&str, &str)], timeout: u64) -> Vec<Verdict> {
    std::thread::scope(|scope| {
        let started: Vec<_> = runs
            .iter()
            .map(|&(backend, suite)| scope.spawn(move || run_on(backend, suite, files, timeout)))
            .collect();
        started
            .into_iter()
            .map(|run| {
                run.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

/// The shipped dataset with `"hidden_tests": "pytest"`, copied once per test binary.
fn pytest_dataset() -> &'static Path {
    static COPY: std::sync::OnceLock<(tempfile::TempDir, std::path::PathBuf)> =
        std::sync::OnceLock::new();
    &COPY
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path().join("reporeuse-networkx");
            copy_dir(&real_dataset(), &root);
            let manifest = root.join("dataset.json");
            let mut json: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
            json["hidden_tests"] = "pytest".into();
            std::fs::write(&manifest, json.to_string()).unwrap();
            (dir, root)
        })
        .1
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn run_on(backend: &'static str, suite: Suite, files: &[(&str, &str)], timeout: u64) -> Verdict {
    // Tests of this file run at once, each in its own uid range: the kernel counts
    // processes per uid, so a fork bomb would otherwise starve its neighbours.
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let uid_base = 61000 + 10 * NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.jsonl");
    let metadata = serde_json::json!({"metadata": {
        "model": "hostile", "harness": "test", "memory": "none", "date": "2026-11-29",
        "dataset": {"name": "reporeuse-networkx", "version": "1"}}});
    let files: serde_json::Map<String, serde_json::Value> = files
        .iter()
        .map(|(path, text)| ((*path).to_owned(), (*text).into()))
        .collect();
    let turn = serde_json::json!({"instance_id": "road-audit/turn-1", "files": files});
    let dataset = match suite {
        Suite::Cases => real_dataset(),
        Suite::Pytest => pytest_dataset().to_path_buf(),
    };
    std::fs::write(&path, format!("{metadata}\n{turn}\n")).unwrap();
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_wheelwright"))
        .args(["test", path.to_str().unwrap(), "--dataset"])
        .arg(&dataset)
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
        "{backend} {suite:?}: {}",
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
        suite,
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
            "{} {:?}: every hidden test of the turn is counted",
            v.backend, v.suite
        );
        assert_eq!(
            v.passed, 0,
            "{} {:?}: outcomes {:?}",
            v.backend, v.suite, v.outcomes
        );
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
for p in glob.glob('/judge/**/*.py', recursive=True) + glob.glob('/in/*.py') + glob.glob('/work/*.py') + glob.glob('*.py'):
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

/// Three functions that raise: what every forgery below submits as its solution, so a
/// test that passes can only have passed by forgery.
const EMPTY: &str = "\
def distances_from(G, sources, weight='length', cutoff=None):
    raise NotImplementedError


def best_route(G, source, target, weight='length'):
    raise NotImplementedError


def route_length(G, route, weight='length'):
    raise NotImplementedError
";

/// A pytest plugin, as source, that rewrites every test outcome to "passed" and skips what
/// it takes for a canary: a name with Wheelwright's old public prefix or the word canary,
/// or one spelled out on the command line.
const FORGING_PLUGIN: &str = "\
import sys
import pytest


class _Forge:
    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item):
        if 'canary' in item.name or item.name.startswith('test_wheelwright') or item.name in ' '.join(sys.argv):
            pytest.skip('looks like a canary')

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        if report.outcome != 'skipped':
            report.outcome = 'passed'
            report.longrepr = None
";

/// `FORGING_PLUGIN` registered in the running pytest from the submitted module at import.
fn module_registering_the_plugin() -> String {
    format!(
        "{EMPTY}\n\ntry:\n    import gc\n    import _pytest.config\n{plugin}\n    for _o in gc.get_objects():\n        if isinstance(_o, _pytest.config.Config):\n            _o.pluginmanager.register(_Forge(), 'wheelwright-hostile')\n            break\nexcept ImportError:\n    pass\n",
        plugin = FORGING_PLUGIN
            .lines()
            .map(|l| if l.is_empty() {
                String::new()
            } else {
                format!("    {l}")
            })
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// Every verdict failed, and the forgery was caught (tampered, for a reason starting with
/// what `caught` gives; `Some("")`: any reason) wherever `caught` says.
fn assert_caught(verdicts: &[Verdict], caught: impl Fn(Suite) -> Option<&'static str>) {
    assert_failed(verdicts);
    for v in verdicts {
        if let Some(reason) = caught(v.suite) {
            let said = v.tampered.as_deref();
            assert!(
                said.is_some_and(|said| said.starts_with(reason)),
                "{} {:?}: tampered {:?}, expected {reason:?}",
                v.backend,
                v.suite,
                v.tampered
            );
        }
    }
}

#[test]
fn exiting_with_status_0_at_import_is_tampering_needs_sandboxes() {
    let verdicts = run_forgery(&[(MODULE, "import os\nos._exit(0)\n")], 60);
    assert_caught(&verdicts, |suite| {
        Some(match suite {
            Suite::Cases => "the interpreter exited cleanly before the runner finished",
            Suite::Pytest => "the interpreter exited cleanly before the pytest session finished",
        })
    });
}

#[test]
fn a_plugin_registered_at_import_that_forges_passes_and_skips_canaries_is_tampering_needs_sandboxes()
 {
    // The case runner has no pytest to patch; the pytest run's canary is named like the
    // real tests and sits among them, so the plugin cannot tell it apart and forges it too.
    let module = module_registering_the_plugin();
    let verdicts = run_forgery(&[(MODULE, &module)], 60);
    assert_caught(&verdicts, |suite| match suite {
        Suite::Cases => None,
        Suite::Pytest => Some("a canary test, which always fails, was reported as passed"),
    });
}

#[test]
fn a_conftest_and_a_pytest_ini_at_the_bundle_root_are_never_read_needs_sandboxes() {
    // Both would make every test pass if pytest read them: the conftest holds the forging
    // plugin; the ini loads it as a plugin module and deselects everything else.
    let conftest = FORGING_PLUGIN.replace("class _Forge:", "class _Forge:  # noqa")
        + "\n\ndef pytest_configure(config):\n    config.pluginmanager.register(_Forge(), 'forge')\n";
    let ini =
        "[pytest]\naddopts = -p conftest -p no:wheelwright\npython_functions = nothing_at_all\n";
    let verdicts = run_forgery(
        &[
            (MODULE, EMPTY),
            ("conftest.py", &conftest),
            ("pytest.ini", ini),
            ("tox.ini", ini.replace("[pytest]", "[tool:pytest]").as_str()),
            ("solutions/road_audit/conftest.py", &conftest),
        ],
        60,
    );
    // Neither is read: the tests run and fail honestly.
    assert_caught(&verdicts, |_| None);
    for v in &verdicts {
        assert!(
            v.tampered.is_none(),
            "{} {:?}: {:?}",
            v.backend,
            v.suite,
            v.tampered
        );
        assert!(
            v.outcomes.iter().all(|o| o == "failed"),
            "{} {:?}: {:?}",
            v.backend,
            v.suite,
            v.outcomes
        );
    }
}

#[test]
fn modules_named_like_the_judges_tools_do_not_replace_them_needs_sandboxes() {
    // A fake pytest whose main reports success, and shadows of modules the runners import,
    // each forging a full set of results if it were ever imported.
    let forge = "\
import os
for name in ['distances_grid_one_source', 'route_unreachable']:
    os.write(4, ('WWR {\"case\": \"%s\", \"value\": 0}\\n' % name).encode())
os.write(4, b'WWR {\"end\": 2}\\n')
os._exit(0)
";
    let fake_pytest = format!("{forge}\ndef main(*a, **k):\n    return 0\n");
    let verdicts = run_forgery(
        &[
            (MODULE, EMPTY),
            ("pytest.py", &fake_pytest),
            ("json.py", forge),
            ("importlib.py", forge),
            ("sitecustomize.py", forge),
            ("usercustomize.py", forge),
            ("networkx/__init__.py", forge),
        ],
        60,
    );
    for v in &verdicts {
        assert!(
            v.tampered.is_none(),
            "{} {:?}: {:?}",
            v.backend,
            v.suite,
            v.tampered
        );
    }
    assert_caught(&verdicts, |_| None);
}

#[test]
fn results_written_after_the_run_are_refused_needs_sandboxes() {
    // An exit hook (never run: the runners leave with os._exit), and a child that keeps the
    // result channel and writes once the runner is gone, each forging passes.
    let module = format!(
        "{EMPTY}
import atexit, os, time

def _late():
    for fd in range(3, 64):
        try:
            os.write(fd, b'WWR {{\"case\": \"route_unreachable\", \"value\": 0}}\\n')
        except OSError:
            pass
    open('/work/wheelwright-report.xml', 'w').write('<testsuite tests=\"17\" failures=\"0\"/>')

atexit.register(_late)
_parent = os.getpid()
if os.fork() == 0:
    while os.getppid() == _parent:
        time.sleep(0.005)
    _late()
    os._exit(0)
"
    );
    let verdicts = run_forgery(&[(MODULE, &module)], 60);
    // Whether the child gets to write before the sandbox kills it is a race: it is either
    // refused (tampered) or never written; nothing passes either way.
    assert_caught(&verdicts, |_| None);
    for v in &verdicts {
        if let Some(reason) = &v.tampered {
            assert!(
                reason.starts_with("a result was written after the runner's end record"),
                "{reason}"
            );
        }
    }
}

#[test]
fn forged_result_records_at_import_are_caught_or_outvoted_needs_sandboxes() {
    // Writes a "passing" record for every case and test it can name, before the runner
    // writes its own.
    let module = format!(
        "{EMPTY}
import json, os, re
names = []
try:
    names = [c['id'] for c in json.load(open('/judge/cases.json'))['cases']]
except OSError:
    pass
try:
    names += re.findall(r'def (test_\\w+)', open('/judge/tests/test_turn.py').read())
except OSError:
    pass
for n in names:
    os.write(4, ('WWR ' + json.dumps({{'case': n, 'value': 0}}) + '\\n').encode())
    node = 'tests/test_turn.py::' + n
    for when in ['setup', 'call', 'teardown']:
        os.write(4, ('WWR ' + json.dumps({{'test': node, 'when': when, 'outcome': 'passed'}}) + '\\n').encode())
"
    );
    let verdicts = run_forgery(&[(MODULE, &module)], 60);
    assert_caught(&verdicts, |suite| match suite {
        // A record of a case it cannot compute, or one the runner writes again.
        Suite::Cases => Some(""),
        // The runner's own failing reports of the same tests win over forged passes.
        Suite::Pytest => None,
    });
}

#[test]
fn hidden_expected_values_are_out_of_reach_of_a_case_suite_needs_sandboxes() {
    // Returns the expected value of each call from any hidden test or expected-value file
    // it can find, in the order the judge's case list gives. Against a case suite there is
    // none to find; against a pytest suite the test file is necessarily in the sandbox, and
    // the attack works: that is the documented limit of pytest suites
    // (docs/hidden-tests.md), and why datasets use case suites wherever they can.
    let module = r#"
import ast, glob, json, os, re

_values = []
_places = ['/judge', '/in', '/work', '/tmp', '/var/tmp', '/srv', '/opt', '/home', '/root', '/mnt']
_paths = [p for d in _places for name in ('expected.json', 'test_turn.py')
          for p in glob.glob(d + '/**/' + name, recursive=True)]
for path in _paths:
    try:
        text = open(path).read()
    except OSError:
        continue
    if path.endswith('.json'):
        _values += [(c['function'], c['expected'], c['compare']) for c in json.loads(text)['cases']]
    else:
        for block in text.split('\ndef test_')[1:]:
            fn = re.search(r"_fn\('(\w+)'\)", block)
            exp = re.search(r"expected = (.*?)\n    _check\('(\w+)'", block, re.S)
            exc = re.search(r"pytest.raises\(nx\.(\w+)", block)
            if fn and exp:
                _values.append((fn.group(1), ast.literal_eval(exp.group(1)), exp.group(2)))
            elif fn and exc:
                _values.append((fn.group(1), exc.group(1), 'raises'))

def _answer(name):
    import networkx as nx
    for i, (fn, value, kind) in enumerate(_values):
        if fn == name:
            del _values[i]
            if kind == 'raises':
                raise getattr(nx, value, None) or __builtins__[value]
            if kind in ('set', 'sorted'):
                return value
            if isinstance(value, list) and value and all(isinstance(p, list) and len(p) == 2 for p in value):
                try:
                    return {tuple(k) if isinstance(k, list) else k: v for k, v in value}
                except TypeError:
                    return value
            return value
    raise NotImplementedError

def distances_from(G, sources, weight='length', cutoff=None):
    return _answer('distances_from')

def best_route(G, source, target, weight='length'):
    return _answer('best_route')

def route_length(G, route, weight='length'):
    return _answer('route_length')
"#;
    let verdicts = run_forgery(&[(MODULE, module)], 120);
    for v in &verdicts {
        match v.suite {
            Suite::Cases => assert_eq!(v.passed, 0, "{}: {:?}", v.backend, v.outcomes),
            Suite::Pytest => assert!(
                v.passed >= 10,
                "{}: the documented pytest limit no longer holds ({} passed): update docs/hidden-tests.md",
                v.backend,
                v.passed
            ),
        }
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
