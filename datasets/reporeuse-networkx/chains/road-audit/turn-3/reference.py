"""Road network audit, turn 3: facilities and service coverage."""
from networkx.algorithms.components.connected import _plain_bfs
from networkx.algorithms.shortest_paths.weighted import _dijkstra_multisource, _weight_function

from solutions.road_audit.distances import distances_from


def nearest_facility(G, facilities, weight="length"):
    facilities = list(facilities)
    paths = {f: [f] for f in facilities}
    _dijkstra_multisource(G, facilities, _weight_function(G, weight), paths=paths)
    return {n: path[0] for n, path in paths.items()}


def service_area(G, facilities, budget, weight="length"):
    return set(distances_from(G, facilities, weight, cutoff=budget))


def coverage_gaps(G, facilities, budget, weight="length"):
    uncovered = set(G) - service_area(G, facilities, budget, weight)
    H = G.subgraph(uncovered)
    gaps, seen = [], set()
    for n in sorted(uncovered):
        if n not in seen:
            gap = _plain_bfs(H, len(H), n)
            seen |= gap
            gaps.append(sorted(gap))
    gaps.sort(key=lambda g: (-len(g), g[0]))
    return gaps
