"""Build dependency graph, turn 1: order, waves, prerequisites."""
import networkx as nx
from networkx.algorithms.dag import lexicographical_topological_sort, topological_generations
from networkx.algorithms.traversal.breadth_first_search import generic_bfs_edges


def build_order(G):
    return list(lexicographical_topological_sort(G))


def build_waves(G):
    return [sorted(wave) for wave in topological_generations(G)]


def prerequisites(G, target):
    if target not in G:
        raise nx.NodeNotFound(f"{target} is not a build target")
    return {v for _, v in generic_bfs_edges(G, target, neighbors=G.predecessors)}
