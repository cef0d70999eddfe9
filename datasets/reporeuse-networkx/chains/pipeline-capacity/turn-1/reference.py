"""Pipeline capacity, turn 1: throughput and bottlenecks."""
from networkx.algorithms.flow.edmondskarp import edmonds_karp
from networkx.algorithms.traversal.breadth_first_search import generic_bfs_edges


def max_throughput(G, source, sink, capacity="capacity"):
    return edmonds_karp(G, source, sink, capacity=capacity).graph["flow_value"]


def supply_side(G, source, sink, capacity="capacity"):
    R = edmonds_karp(G, source, sink, capacity=capacity)

    def residual(u):
        return (v for v, a in R[u].items() if a["flow"] < a["capacity"])

    return {source} | {v for _, v in generic_bfs_edges(R, source, neighbors=residual)}


def bottleneck_links(G, source, sink, capacity="capacity"):
    side = supply_side(G, source, sink, capacity)
    return {(u, v) for u, v in G.edges() if u in side and v not in side}
