"""Friendship network, turn 4: brokers."""
from networkx.algorithms.centrality.betweenness import (
    _accumulate_basic,
    _rescale,
    _single_source_shortest_path_basic,
)

from solutions.social_circles.circles import all_circles
from solutions.social_circles.cores import core_levels


def broker_scores(G, normalized=True):
    scores = dict.fromkeys(G, 0.0)
    for s in G:
        S, P, sigma, _ = _single_source_shortest_path_basic(G, s)
        scores, _ = _accumulate_basic(scores, S, P, sigma, s)
    return _rescale(scores, len(G), normalized=normalized, directed=G.is_directed())


def _ranked(scores, candidates):
    return sorted(candidates, key=lambda v: (-round(scores[v], 9), v))


def top_brokers(G, k, min_core=0):
    core = core_levels(G)
    scores = broker_scores(G)
    return _ranked(scores, [v for v in G if core[v] >= min_core])[:k]


def circle_brokers(G):
    out = {}
    for circle in all_circles(G):
        scores = broker_scores(G.subgraph(circle), normalized=False)
        out[circle[0]] = _ranked(scores, circle)[0]
    return out
