"""Friendship network, turn 2: triangles, cohesion and closure."""
from networkx.algorithms.cluster import _triangles_and_degree_iter
from networkx.classes.function import common_neighbors

from solutions.social_circles.circles import all_circles, hops_from


def triangle_count(G, nodes=None):
    return {v: t // 2 for v, _, t, _ in _triangles_and_degree_iter(G, nodes)}


def circle_cohesion(G):
    local = {}
    for v, d, t, _ in _triangles_and_degree_iter(G):
        local[v] = 0.0 if d < 2 else t / (d * (d - 1))
    return [(c[0], len(c), sum(local[v] for v in c) / len(c)) for c in all_circles(G)]


def closure_candidates(G, person):
    two_hops = [v for v, h in hops_from(G, person, 2).items() if h == 2]
    scored = [(v, len(list(common_neighbors(G, person, v)))) for v in two_hops]
    return sorted(scored, key=lambda vc: (-vc[1], vc[0]))
