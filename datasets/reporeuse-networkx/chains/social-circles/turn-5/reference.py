"""Friendship network, turn 5: profiles and digest."""
from networkx.algorithms.centrality.closeness import closeness_centrality
from networkx.algorithms.link_prediction import jaccard_coefficient
from networkx.classes.function import degree_histogram

from solutions.social_circles.brokers import broker_scores
from solutions.social_circles.circles import circle_of
from solutions.social_circles.cores import core_levels


def person_profile(G, person):
    return {
        "circle_size": len(circle_of(G, person)),
        "core": core_levels(G)[person],
        "broker": broker_scores(G)[person],
        "closeness": closeness_centrality(G, u=person),
    }


def similar_people(G, person, k):
    others = [v for v in G if v != person and not G.has_edge(person, v)]
    scored = [(v, s) for _, v, s in jaccard_coefficient(G, [(person, v) for v in others]) if s > 0]
    return sorted(scored, key=lambda vs: (-round(vs[1], 9), vs[0]))[:k]


def network_digest(G):
    scores = broker_scores(G)
    return {
        "people": G.number_of_nodes(),
        "friendships": G.number_of_edges(),
        "degree_counts": degree_histogram(G),
        "max_core": max(core_levels(G).values()) if len(G) else 0,
        "top_broker": min(G, key=lambda v: (-round(scores[v], 9), v)) if len(G) else None,
    }
