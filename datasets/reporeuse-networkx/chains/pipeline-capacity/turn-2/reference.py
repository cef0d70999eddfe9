"""Pipeline capacity, turn 2: failures."""
from networkx.algorithms.dominance import immediate_dominators
from networkx.classes.function import restricted_view

from solutions.pipeline_capacity.capacity import max_throughput


def throughput_without(G, source, sink, failed_links=(), failed_nodes=(), capacity="capacity"):
    failed_nodes = set(failed_nodes)
    if source in failed_nodes or sink in failed_nodes:
        return 0
    return max_throughput(restricted_view(G, failed_nodes, list(failed_links)), source, sink, capacity)


def link_importance(G, source, sink, capacity="capacity"):
    base = max_throughput(G, source, sink, capacity)
    out = {}
    for u, v in G.edges():
        loss = base - throughput_without(G, source, sink, failed_links=[(u, v)], capacity=capacity)
        if loss > 0:
            out[(u, v)] = loss
    return out


def single_points_of_failure(G, source, sink, capacity="capacity"):
    if max_throughput(G, source, sink, capacity) == 0:
        return set()
    idom = immediate_dominators(G, source)
    points, v = set(), sink
    while v != source:
        v = idom[v]
        points.add(v)
    return points - {source}
