"""Build dependency graph, turn 3: dependency loops (module loops.py)."""
from networkx.algorithms.components.strongly_connected import condensation, strongly_connected_components

from solutions.build_graph.impact import rebuild_set
from solutions.build_graph.order import build_waves


def dependency_loops(G):
    loops = [sorted(c) for c in strongly_connected_components(G)
             if len(c) > 1 or any(G.has_edge(v, v) for v in c)]
    return sorted(loops, key=lambda c: c[0])


def condensed_waves(G):
    C = condensation(G)
    members = {n: sorted(C.nodes[n]["members"]) for n in C}
    return [sorted((members[n] for n in wave), key=lambda g: g[0]) for wave in build_waves(C)]


def blocked_targets(G):
    in_loops = [v for loop in dependency_loops(G) for v in loop]
    return rebuild_set(G, in_loops)
