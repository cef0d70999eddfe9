"""Road network audit, turn 2: road closures and detours."""
import networkx as nx
from networkx.classes.filters import hide_diedges, hide_edges, hide_nodes
from networkx.classes.graphviews import subgraph_view

from solutions.road_audit.distances import best_route, distances_from, route_length


def _closed(G, closed_nodes, closed_edges):
    hide = hide_diedges if G.is_directed() else hide_edges
    return subgraph_view(G, filter_node=hide_nodes(closed_nodes), filter_edge=hide(closed_edges))


def detour_route(G, source, target, closed_nodes=(), closed_edges=(), weight="length"):
    closed_nodes = list(closed_nodes)
    if source in closed_nodes or target in closed_nodes:
        raise nx.NetworkXNoPath("an endpoint is closed")
    return best_route(_closed(G, closed_nodes, list(closed_edges)), source, target, weight)


def detour_penalty(G, source, target, closed_nodes=(), closed_edges=(), weight="length"):
    base = route_length(G, best_route(G, source, target, weight), weight)
    try:
        detour = detour_route(G, source, target, closed_nodes, closed_edges, weight)
    except nx.NetworkXNoPath:
        return None
    return route_length(G, detour, weight) - base


def closure_impact(G, sources, closed_nodes=(), closed_edges=(), weight="length"):
    closed_nodes = set(closed_nodes)
    before = distances_from(G, sources, weight)
    open_sources = [s for s in sources if s not in closed_nodes]
    after = distances_from(_closed(G, closed_nodes, list(closed_edges)), open_sources, weight) if open_sources else {}
    impact = {}
    for n, d in before.items():
        if n in closed_nodes:
            continue
        if n not in after:
            impact[n] = None
        elif after[n] > d:
            impact[n] = after[n] - d
    return impact
