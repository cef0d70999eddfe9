#!/usr/bin/env python3
"""Verify the dataset: the reference behaviour that the Rust tool reimplements.

For every turn of every chain:
  structure  turn.json is complete: 3 functions, 2-4 repo targets, no self targets in turn 1,
             1-3 self targets from turn 2 that name functions required by earlier turns of the
             chain, read_targets = repo_targets + self_targets, module paths unique.
  targets    every repo target `module.name` (or `module.Class.method`) imports, and `name` is
             DEFINED in `module` (inspect.getmodule), i.e. the qualified name is canonical.
  ast        the reference's AST references every declared target (repo and self): an
             import binding of the target, or of its module / a parent package followed by
             attribute use, used as a value (Load). Name-based, no re-export following; the
             Rust scorer is the real judge.
  req        requirement.md is what tools/render_requirements.py renders, and names no repo
             target (neither its qualified name nor its bare name as a whole word).
  regen      re-running the reference on cases.json gives exactly the stored expected.json
             and tests/test_turn.py (byte for byte).
  ref        the reference passes every test: pytest runs tests/test_turn.py from a temporary
             workspace holding the references of turns 1..t-1 at their module paths and the
             turn's reference at its module path, with this interpreter (networkx 3.4.2).
  empty      an empty implementation (the module exists and defines the 3 functions with
             their signatures, each raising NotImplementedError) fails every test.
Prints a table; exits 1 on any failure.

Usage: /work/venvs/networkx/bin/python tools/verify.py [chain ...]
"""
import ast
import importlib
import inspect
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import generate_tests  # noqa: E402
import render_requirements  # noqa: E402

TIMEOUT = 600


def resolve_target(qualified):
    """(ok, message): import the longest importable module prefix, then walk attributes."""
    parts = qualified.split(".")
    for i in range(len(parts) - 1, 0, -1):
        modname = ".".join(parts[:i])
        try:
            mod = importlib.import_module(modname)
        except ImportError:
            continue
        obj = mod
        for a in parts[i:]:
            if not hasattr(obj, a):
                return False, "%s has no attribute %s" % (modname, a)
            obj = getattr(obj, a)
        defining = inspect.getmodule(inspect.unwrap(obj) if callable(obj) else obj)
        if defining is None or defining.__name__ != modname:
            return False, "%s is defined in %s, not %s" % (qualified, defining and defining.__name__, modname)
        if len(parts) - i > 2:
            return False, "%s: too deep" % qualified
        return True, ""
    return False, "no importable module in %s" % qualified


def referenced_names(source):
    """Dotted names used as values in `source`, resolved through its import bindings."""
    tree = ast.parse(source)
    bindings = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for a in node.names:
                bindings.setdefault(a.asname or a.name, set()).add(node.module + "." + a.name)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    bindings.setdefault(a.asname, set()).add(a.name)
                else:
                    head = a.name.split(".")[0]
                    bindings.setdefault(head, set()).add(head)
    used = set()

    def chain(node):
        attrs = []
        while isinstance(node, ast.Attribute):
            attrs.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            return node.id, list(reversed(attrs))
        return None, None

    for node in ast.walk(tree):
        if isinstance(node, (ast.Attribute, ast.Name)) and isinstance(node.ctx, ast.Load):
            head, attrs = chain(node)
            if head is None:
                continue
            for base in bindings.get(head, ()):
                for k in range(len(attrs) + 1):
                    used.add(".".join([base] + attrs[:k]))
    return used


def forbidden_mentions(text, repo_targets):
    bad = []
    for q in repo_targets:
        bare = q.split(".")[-1]
        if q in text or re.search(r"(?<![A-Za-z0-9_])%s(?![A-Za-z0-9_])" % re.escape(bare), text):
            bad.append(bare)
    return bad


def run_pytest(chain, t, turn, module_text):
    """(collected, passed, failed) running the turn's tests against `module_text`."""
    ws = tempfile.mkdtemp(prefix="reporeuse-verify-")
    try:
        common.reference_workspace(ws, chain, t - 1)
        common.place(ws, turn["module_path"], module_text)
        shutil.copy(os.path.join(common.turn_dir(chain, t), "tests", "test_turn.py"), os.path.join(ws, "test_turn.py"))
        xml = os.path.join(ws, "report.xml")
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        env.pop("PYTHONPATH", None)
        try:
            subprocess.run(
                [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--junitxml", xml, "test_turn.py"],
                cwd=ws, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TIMEOUT, check=False,
            )
        except subprocess.TimeoutExpired:
            return 0, 0, 0
        if not os.path.exists(xml):
            return 0, 0, 0
        cases = list(ET.parse(xml).getroot().iter("testcase"))
        failed = sum(1 for c in cases if any(ch.tag in ("failure", "error", "skipped") for ch in c))
        return len(cases), len(cases) - failed, failed
    finally:
        common.rmtree(ws)


def check_turn(chain, t, turn, earlier, seen_paths):
    problems = []
    d = common.turn_dir(chain, t)
    # structure
    for f in ("turn.json", "requirement.md", "reference.py", "cases.json", "expected.json", "tests/test_turn.py"):
        if not os.path.exists(os.path.join(d, f)):
            problems.append("missing " + f)
    if turn.get("turn") != t:
        problems.append("turn number")
    if turn["module_path"] in seen_paths:
        problems.append("module_path reused")
    seen_paths.add(turn["module_path"])
    if len(turn["functions"]) != 3:
        problems.append("not 3 functions")
    for fn in turn["functions"]:
        if not fn["signature"].startswith(fn["name"] + "("):
            problems.append("signature of " + fn["name"])
    repo, selft = turn["repo_targets"], turn["self_targets"]
    if not 2 <= len(repo) <= 4:
        problems.append("%d repo targets" % len(repo))
    if (t == 1 and selft) or (t > 1 and not 1 <= len(selft) <= 3):
        problems.append("%d self targets" % len(selft))
    for s in selft:
        if s not in earlier:
            problems.append("self target %s is no earlier turn's function" % s)
    if turn.get("read_targets") != repo + selft:
        problems.append("read_targets differ from targets")
    # targets
    targets_ok = True
    for q in repo:
        ok, msg = resolve_target(q)
        if not ok:
            targets_ok = False
            problems.append(msg)
    # ast
    ref_text = common.read(os.path.join(d, "reference.py"))
    used = referenced_names(ref_text)
    missing = [q for q in repo + selft if q not in used]
    if missing:
        problems.append("reference does not reference " + ", ".join(missing))
    defined = {n.name for n in ast.parse(ref_text).body if isinstance(n, ast.FunctionDef)}
    if not {fn["name"] for fn in turn["functions"]} <= defined:
        problems.append("reference lacks a required function")
    # requirement
    req = common.read(os.path.join(d, "requirement.md"))
    chain_doc = common.load_json(os.path.join(common.ROOT, "chains", chain, "chain.json"))
    req_ok = req == render_requirements.render(chain_doc, turn)
    if not req_ok:
        problems.append("requirement.md is stale (run tools/render_requirements.py)")
    bad = forbidden_mentions(req + "\n" + common.read(os.path.join(common.ROOT, "chains", chain, "chain.json")), repo)
    if bad:
        req_ok = False
        problems.append("requirement names repo targets: " + ", ".join(bad))
    # regen
    doc, text = generate_tests.generate(chain, t, turn)
    regen_ok = (generate_tests.expected_text(doc) == common.read(os.path.join(d, "expected.json"))
                and text == common.read(os.path.join(d, "tests", "test_turn.py")))
    if not regen_ok:
        problems.append("regenerated expected values differ from the stored ones")
    n = len(doc["cases"])
    # ref / empty
    rc, rp, _ = run_pytest(chain, t, turn, ref_text)
    ec, _, ef = run_pytest(chain, t, turn, common.empty_module(turn))
    ref_ok = rc == n and rp == n
    empty_ok = ec == n and ef == n
    if not ref_ok:
        problems.append("reference passes %d/%d (collected %d)" % (rp, n, rc))
    if not empty_ok:
        problems.append("empty implementation fails %d/%d (collected %d)" % (ef, n, ec))
    row = {
        "chain": chain, "turn": t, "tests": n, "repo": len(repo), "self": len(selft),
        "targets": targets_ok and not missing, "req": req_ok, "regen": regen_ok,
        "ref": "%d/%d" % (rp, n), "empty": "%d/%d" % (ef, n),
    }
    return row, problems


def main(argv):
    ds = common.dataset()
    failures = []
    for key, want in (("name", "reporeuse-networkx"), ("benchmark", "reporeuse")):
        if ds.get(key) != want:
            failures.append("dataset.json %s" % key)
    import networkx
    if networkx.__version__ != ds["repository"]["version"]:
        raise SystemExit("networkx %s installed, dataset pins %s" % (networkx.__version__, ds["repository"]["version"]))
    rows, seen_paths = [], set()
    fmt = "%-18s %4s %5s %4s %4s %7s %4s %5s %9s %9s"
    print(fmt % ("chain", "turn", "tests", "repo", "self", "targets", "req", "regen", "ref pass", "empty fail"))
    for chain in argv or ds["chains"]:
        earlier = set()
        turns = common.turns(chain)
        if len(turns) < 5:
            failures.append("%s has %d turns" % (chain, len(turns)))
        for t, turn in turns:
            row, problems = check_turn(chain, t, turn, earlier, seen_paths)
            rows.append(row)
            print(fmt % (row["chain"], row["turn"], row["tests"], row["repo"], row["self"],
                         "ok" if row["targets"] else "FAIL", "ok" if row["req"] else "FAIL",
                         "ok" if row["regen"] else "FAIL", row["ref"], row["empty"]), flush=True)
            failures += ["%s turn-%d: %s" % (chain, t, p) for p in problems]
            mod = common.module_name(turn["module_path"])
            earlier |= {mod + "." + fn["name"] for fn in turn["functions"]}
    total = sum(r["tests"] for r in rows)
    print("\n%d chains, %d turns, %d tests" % (len({r["chain"] for r in rows}), len(rows), total))
    if failures:
        print("FAILURES:")
        for f in failures:
            print("  " + f)
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
