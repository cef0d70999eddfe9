"""Pipeline capacity, turn 5: network report."""
from networkx.algorithms.components.weakly_connected import number_weakly_connected_components
from networkx.algorithms.dag import ancestors, descendants

from solutions.pipeline_capacity.capacity import bottleneck_links, max_throughput
from solutions.pipeline_capacity.failures import single_points_of_failure


def dead_stations(G, source, sink):
    useful = (descendants(G, source) | {source}) & (ancestors(G, sink) | {sink})
    return set(G) - useful


def useful_links(G, source, sink):
    dead = dead_stations(G, source, sink)
    return {(u, v) for u, v in G.edges() if u not in dead and v not in dead}


def network_report(G, source, sink, capacity="capacity"):
    return {
        "stations": G.number_of_nodes(),
        "pipes": G.number_of_edges(),
        "parts": number_weakly_connected_components(G),
        "throughput": max_throughput(G, source, sink, capacity),
        "bottlenecks": len(bottleneck_links(G, source, sink, capacity)),
        "single_points": sorted(single_points_of_failure(G, source, sink, capacity)),
        "dead_stations": len(dead_stations(G, source, sink)),
    }
