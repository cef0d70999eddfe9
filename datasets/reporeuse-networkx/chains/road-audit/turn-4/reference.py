"""Road network audit, turn 4: critical links."""
from networkx.algorithms.bridges import bridges
from networkx.utils.misc import pairwise

from solutions.road_audit.closures import detour_penalty
from solutions.road_audit.distances import best_route


def route_links(G, source, target, weight="length"):
    return list(pairwise(best_route(G, source, target, weight)))


def link_criticality(G, source, target, weight="length"):
    return [
        (u, v, detour_penalty(G, source, target, closed_edges=[(u, v)], weight=weight))
        for u, v in route_links(G, source, target, weight)
    ]


def cut_links(G):
    return {(min(u, v), max(u, v)) for u, v in bridges(G)}
