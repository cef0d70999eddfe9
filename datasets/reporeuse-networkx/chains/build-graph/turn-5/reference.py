"""Build dependency graph, turn 5: build timing."""
from networkx.algorithms.dag import dag_longest_path
from networkx.classes.function import get_node_attributes

from solutions.build_graph.impact import rebuild_set
from solutions.build_graph.order import build_order


def earliest_finish(G, duration="duration"):
    dur = get_node_attributes(G, duration, default=1)
    finish = {}
    for v in build_order(G):
        finish[v] = dur[v] + max((finish[p] for p in G.predecessors(v)), default=0)
    return finish


def critical_chain(G, duration="duration"):
    if len(G) == 0:
        return []
    dur = get_node_attributes(G, duration, default=1)
    start = object()
    H = G.__class__()
    H.add_edges_from((u, v, {"w": dur[v]}) for u, v in G.edges())
    H.add_edges_from((start, v, {"w": dur[v]}) for v in G)
    return dag_longest_path(H, weight="w")[1:]


def rebuild_time(G, changed, duration="duration"):
    finish = earliest_finish(G.subgraph(rebuild_set(G, changed)), duration)
    return max(finish.values(), default=0)
