# Wheelwright's pytest runner: a hardened pytest session whose plugin streams each test's result as it finishes.
#
# Run in the sandbox as `python -I /judge/run_pytest.py`, with fd 4 as the result channel
# (`run_pytest.py JUDGE_DIR WORK_DIR` runs it elsewhere, as the fixture generator does).
# The test files are judge files under /judge/tests (read-only, never in the workspace);
# /judge/pytest.json lists them. The session is started so that nothing the submission
# leaves in its workspace changes how it runs:
#   - `python -I`: no working directory or PYTHON* variables on sys.path, so a `pytest.py`,
#     `conftest.py` or `sitecustomize.py` in the workspace is never imported in their place;
#     pytest is imported before the workspace is appended to sys.path;
#   - `-c /judge/pytest.ini --rootdir=/judge`: a trusted ini, the root outside the workspace
#     (a submitted pytest.ini, tox.ini or setup.cfg is not read);
#   - `--noconftest`, `-p no:cacheprovider`, PYTEST_DISABLE_PLUGIN_AUTOLOAD=1: no conftest,
#     no cache, no installed plugin loaded behind the session's back;
#   - this plugin writes `WWR {"test": nodeid, "when", "outcome", "s"}` for every phase as it
#     is reported, `WWR {"collect": nodeid}` for a file that failed to collect, and
#     `WWR {"end": exit status}` when the session finishes; then the process leaves with
#     os._exit, so no exit hook runs after the session, and the host refuses any record that
#     comes after the end (core/src/hidden_tests/pytest.rs).
import json
import os
import sys

OUT = 4
JUDGE = sys.argv[1] if len(sys.argv) > 1 else "/judge"
WORK = sys.argv[2] if len(sys.argv) > 2 else "/work"
os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
os.environ.pop("PYTEST_ADDOPTS", None)
os.environ.pop("PYTEST_PLUGINS", None)

import pytest  # noqa: E402  (the environment's pytest: the workspace is not on sys.path yet)


def emit(record):
    line = ("WWR " + json.dumps(record, separators=(",", ":")) + "\n").encode("utf-8", "replace")
    view = memoryview(line)
    while view:
        view = view[os.write(OUT, view):]


class Stream:
    def pytest_runtest_logreport(self, report):
        emit({"test": report.nodeid, "when": report.when, "outcome": report.outcome,
              "s": round(float(report.duration), 6)})

    def pytest_collectreport(self, report):
        if report.failed:
            emit({"collect": report.nodeid})

    def pytest_sessionfinish(self, session, exitstatus):
        emit({"end": int(exitstatus)})


with open(os.path.join(JUDGE, "pytest.json"), encoding="utf-8") as f:
    files = json.load(f)["files"]
sys.path.append(WORK)
os.chdir(WORK)
pytest.main(
    ["-c", os.path.join(JUDGE, "pytest.ini"), "--rootdir=" + JUDGE, "--noconftest",
     "-p", "no:cacheprovider", "-q", "-o", "addopts="] + [os.path.join(JUDGE, f) for f in files],
    plugins=[Stream()],
)
sys.stdout.flush()
sys.stderr.flush()
os._exit(0)
