"""Pipeline capacity, turn 3: routes."""
import networkx as nx
from networkx.algorithms.simple_paths import all_simple_paths
from networkx.utils.misc import pairwise

from solutions.pipeline_capacity.capacity import bottleneck_links


def path_capacity(G, path, capacity="capacity"):
    if len(path) < 2:
        raise ValueError("a route needs at least two stations")
    caps = []
    for u, v in pairwise(path):
        if not G.has_edge(u, v):
            raise nx.NetworkXNoPath(f"no pipe from {u} to {v}")
        caps.append(G[u][v][capacity])
    return min(caps)


def widest_route_capacity(G, source, sink, cutoff=None, capacity="capacity"):
    return max((path_capacity(G, p, capacity) for p in all_simple_paths(G, source, sink, cutoff=cutoff)), default=0)


def bottleneck_routes(G, source, sink, cutoff=None, capacity="capacity"):
    links = bottleneck_links(G, source, sink, capacity)
    return {
        tuple(p)
        for p in all_simple_paths(G, source, sink, cutoff=cutoff)
        if any(e in links for e in pairwise(p))
    }
