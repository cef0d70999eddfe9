#!/usr/bin/env python3
"""Write requirement.md of every turn from its chain.json and turn.json.

requirement.md is the base requirement q_t (memory setting "none"): the scorer adds the
interface or source notes of earlier turns itself. It describes behaviour only; verify.py
checks that it names no repository target.

Usage: python tools/render_requirements.py [chain ...]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def render(chain_doc, turn):
    out = [
        "# %s, turn %d: %s" % (chain_doc["title"], turn["turn"], turn["title"]),
        "",
        "The workspace has networkx %s installed (import it as `networkx`)." % common.dataset()["repository"]["version"],
        "Write ONE new module at `%s` (create the directories if needed) that defines exactly the"
        % turn["module_path"],
        "three functions below. Tests import the module by this path and call the functions.",
        "",
        turn["context"],
        "",
    ]
    for fn in turn["functions"]:
        out += [
            "## `%s`" % fn["signature"],
            "",
            "Returns %s." % fn["returns"],
            "",
            fn["behaviour"],
            "",
        ]
    return "\n".join(out)


def main(argv):
    for chain in argv or common.dataset()["chains"]:
        chain_doc = common.load_json(os.path.join(common.ROOT, "chains", chain, "chain.json"))
        for t, turn in common.turns(chain):
            with open(os.path.join(common.turn_dir(chain, t), "requirement.md"), "w", encoding="utf-8") as f:
                f.write(render(chain_doc, turn))
            print("%s turn-%d: requirement.md" % (chain, t))


if __name__ == "__main__":
    main(sys.argv[1:])
