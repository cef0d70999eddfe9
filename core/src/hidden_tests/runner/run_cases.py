# Wheelwright's case runner: calls the submitted functions on each case and streams results.
#
# Run in the sandbox as `python -I /judge/run_cases.py`, with fd 4 as the result channel
# (`run_cases.py JUDGE_DIR WORK_DIR` runs it elsewhere, as the fixture generator does).
# It reads /judge/cases.json ({"module", "cases": [{"id", "function", "args", "kwargs"?,
# "form"}]}: no expected values, no case names (ids are aliases, each function's cases shuffled), and not
# whether a case expects an exception), evaluates each case's arguments with the dataset's
# prelude (/judge/prelude.py) in scope, calls the function of the module under test, and
# writes one line per case as soon as it has it:
#   WWR {"case": id, "value": canonical result, "s": seconds}
#   WWR {"case": id, "raised": "module.qualname" of the class raised, "message": ..., "s": ...}
#   WWR {"case": id, "error": why there is no result, "s": ...}
# then WWR {"end": number of case records}, and leaves with os._exit so that no exit hook of
# the submission runs after it. The canonical form is the dataset's own (/judge/canon.py,
# `as_kind`), the one its expected values were made with. The host compares; nothing here
# knows what is right (core/src/hidden_tests/cases.rs).
#
# `python -I` keeps the working directory and PYTHON* variables out of sys.path, so a
# `json.py` or `networkx/` the submission leaves cannot replace a module; the workspace is
# appended after the standard library and the environment's packages.
import json
import os
import sys
import time

OUT = 4
MAX_RECORD = 1 << 20
JUDGE = sys.argv[1] if len(sys.argv) > 1 else "/judge"
WORK = sys.argv[2] if len(sys.argv) > 2 else "/work"


def emit(record):
    try:
        text = json.dumps(record, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as e:
        text = json.dumps({"case": record.get("case"), "error": "unencodable result: %s" % e})
    line = ("WWR " + text + "\n").encode("utf-8", "replace")
    if len(line) > MAX_RECORD:
        line = ("WWR " + json.dumps({"case": record.get("case"),
                                      "error": "the result is over 1 MiB of JSON"}) + "\n").encode()
    view = memoryview(line)
    while view:
        view = view[os.write(OUT, view):]


def load(path):
    namespace = {"__name__": os.path.basename(path)[:-3], "__file__": path}
    with open(path, encoding="utf-8") as f:
        exec(compile(f.read(), path, "exec"), namespace)
    return namespace


def describe(error):
    try:
        return str(error)[:300]
    except BaseException:
        return ""


def main():
    with open(os.path.join(JUDGE, "cases.json"), encoding="utf-8") as f:
        spec = json.load(f)
    as_kind = load(os.path.join(JUDGE, "canon.py"))["as_kind"]
    prelude_path = os.path.join(JUDGE, "prelude.py")
    prelude = load(prelude_path) if os.path.exists(prelude_path) else {}
    sys.path.append(WORK)
    os.chdir(WORK)
    import importlib

    written = 0
    for case in spec["cases"]:
        started = time.perf_counter()
        record = {"case": case["id"]}
        try:
            scope = dict(prelude)
            args = eval(case["args"], scope)
            kwargs = eval(case.get("kwargs") or "{}", scope)
        except BaseException as e:
            record["error"] = "the case's arguments could not be built: %s: %s" % (
                type(e).__name__, describe(e))
        else:
            try:
                function = getattr(importlib.import_module(spec["module"]), case["function"])
                result = function(*args, **kwargs)
            except BaseException as e:
                # The class alone: its bases are the host's to know, not the sandbox's to say.
                cls = type(e)
                record["raised"] = "%s.%s" % (cls.__module__, cls.__qualname__)
                record["message"] = describe(e)
            else:
                try:
                    form = case["form"]
                    record["value"] = as_kind(result, "exact" if form == "value" else form)
                except BaseException as e:
                    record["error"] = "the result has no canonical form: %s: %s" % (
                        type(e).__name__, describe(e))
        record["s"] = round(time.perf_counter() - started, 6)
        emit(record)
        written += 1
    emit({"end": written})


main()
sys.stdout.flush()
sys.stderr.flush()
os._exit(0)
