"""Shared by generate_tests.py and verify.py: reading the dataset and building workspaces."""
import json
import os
import shutil

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.path.join(ROOT, "tools")
KINDS = ("exact", "approx", "set", "sorted", "raises")


def load_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def dataset():
    return load_json(os.path.join(ROOT, "dataset.json"))


def turn_dir(chain, t):
    return os.path.join(ROOT, "chains", chain, "turn-%d" % t)


def turns(chain):
    """[(t, turn.json dict)] for t = 1.. while turn-t exists."""
    out = []
    t = 1
    while os.path.isdir(turn_dir(chain, t)):
        out.append((t, load_json(os.path.join(turn_dir(chain, t), "turn.json"))))
        t += 1
    return out


def module_name(module_path):
    assert module_path.endswith(".py"), module_path
    return module_path[: -len(".py")].replace("/", ".")


def place(workspace, module_path, source_text):
    """Write one module into a workspace at its required path."""
    dest = os.path.join(workspace, module_path)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    with open(dest, "w", encoding="utf-8") as f:
        f.write(source_text)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def reference_workspace(workspace, chain, upto):
    """Place the references of turns 1..upto of `chain` at their module paths."""
    for t, turn in turns(chain):
        if t > upto:
            break
        place(workspace, turn["module_path"], read(os.path.join(turn_dir(chain, t), "reference.py")))


def empty_module(turn):
    """The module an agent that did nothing useful would leave: the 3 functions
    with the required signatures, each raising NotImplementedError."""
    lines = ['"""Empty implementation (verify.py: every test must fail)."""', ""]
    for fn in turn["functions"]:
        lines.append("def %s:" % fn["signature"])
        lines.append("    raise NotImplementedError")
        lines.append("")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def rmtree(path):
    shutil.rmtree(path, ignore_errors=True)
