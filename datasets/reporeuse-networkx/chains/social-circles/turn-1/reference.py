"""Friendship network, turn 1: circles and reach."""
import networkx as nx
from networkx.algorithms.components.connected import _plain_bfs
from networkx.algorithms.shortest_paths.unweighted import _single_shortest_path_length


def circle_of(G, person):
    if person not in G:
        raise nx.NodeNotFound(f"{person} is not in the network")
    return _plain_bfs(G, len(G), person)


def all_circles(G):
    seen, circles = set(), []
    for person in G:
        if person not in seen:
            circle = _plain_bfs(G, len(G), person)
            seen |= circle
            circles.append(sorted(circle))
    circles.sort(key=lambda c: (-len(c), c[0]))
    return circles


def hops_from(G, person, max_hops=None):
    if person not in G:
        raise nx.NodeNotFound(f"{person} is not in the network")
    cutoff = float("inf") if max_hops is None else max_hops
    return dict(_single_shortest_path_length(G.adj, [person], cutoff))
