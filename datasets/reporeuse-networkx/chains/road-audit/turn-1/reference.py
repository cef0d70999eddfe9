"""Road network audit, turn 1: weighted distances and routes."""
import networkx as nx
from networkx.algorithms.shortest_paths.weighted import _dijkstra_multisource, _weight_function
from networkx.utils.misc import pairwise


def distances_from(G, sources, weight="length", cutoff=None):
    sources = list(sources)
    if not sources:
        raise ValueError("sources must not be empty")
    for s in sources:
        if s not in G:
            raise nx.NodeNotFound(f"Node {s} not found in graph")
    return dict(_dijkstra_multisource(G, sources, _weight_function(G, weight), cutoff=cutoff))


def best_route(G, source, target, weight="length"):
    for n in (source, target):
        if n not in G:
            raise nx.NodeNotFound(f"Node {n} not found in graph")
    paths = {source: [source]}
    _dijkstra_multisource(G, [source], _weight_function(G, weight), paths=paths, target=target)
    if target not in paths:
        raise nx.NetworkXNoPath(f"No route from {source} to {target}")
    return paths[target]


def route_length(G, route, weight="length"):
    wf = _weight_function(G, weight)
    total = 0
    for u, v in pairwise(route):
        if not G.has_edge(u, v):
            raise nx.NetworkXNoPath(f"No road from {u} to {v}")
        total += wf(u, v, G[u][v])
    return total
