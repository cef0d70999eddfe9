"""Friendship network, turn 3: cores."""
from networkx.algorithms.core import _core_subgraph, core_number

from solutions.social_circles.circles import all_circles
from solutions.social_circles.triads import triangle_count


def core_levels(G):
    return core_number(G)


def inner_circle(G, k=None):
    core = core_number(G)
    return set(_core_subgraph(G, lambda v, k, c: c[v] >= k, k, core))


def core_profile(G, k):
    H = G.subgraph(inner_circle(G, k))
    return {
        "members": H.number_of_nodes(),
        "circles": len(all_circles(H)),
        "triangles": sum(triangle_count(H).values()) // 3,
    }
