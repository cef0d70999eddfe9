"""Build dependency graph, turn 2: change impact."""
from networkx.algorithms.dag import descendants
from networkx.classes.function import induced_subgraph

from solutions.build_graph.order import build_waves, prerequisites


def rebuild_set(G, changed):
    out = set()
    for c in changed:
        out.add(c)
        out |= descendants(G, c)
    return out


def rebuild_plan(G, changed):
    return build_waves(induced_subgraph(G, rebuild_set(G, changed)))


def affected_by(G, changed, target):
    relevant = prerequisites(G, target) | {target}
    return sorted(c for c in set(changed) if c in relevant)
