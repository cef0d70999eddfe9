"""Build dependency graph, turn 4: redundant and implied links."""
from networkx.algorithms.dag import transitive_closure_dag, transitive_reduction

from solutions.build_graph.order import build_order, prerequisites


def redundant_links(G):
    reduced = transitive_reduction(G)
    return {(u, v) for u, v in G.edges() if not reduced.has_edge(u, v)}


def implied_links(G):
    position = {v: i for i, v in enumerate(build_order(G))}
    closure = transitive_closure_dag(G)
    implied = [(u, v) for u, v in closure.edges() if not G.has_edge(u, v)]
    return sorted(implied, key=lambda e: (position[e[0]], position[e[1]]))


def shared_prerequisites(G, a, b):
    return prerequisites(G, a) & prerequisites(G, b)
