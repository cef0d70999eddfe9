# Prelude for the networkx chains: executed before a case's call is evaluated.
# It is the hand-built reporeuse-networkx dataset's tools/prelude.py; calls use networkx
# both as `networkx` and as `nx`, and the seeded graph builders below.
# Helpers available to the argument expressions in every cases.json.
# This file is copied verbatim into every generated tests/test_turn.py, so the
# tests are self-contained: they need only networkx 3.4.2 and pytest.
# Everything here is deterministic: graphs come from seeded networkx
# generators or explicit edge lists; attribute values come from random.Random(seed).
import random

import networkx
import networkx as nx


def label_edges(G, attr, seed, lo, hi, integer=False):
    """Give every edge of G the attribute `attr`, drawn from random.Random(seed)
    in [lo, hi] (integers when integer=True, else floats rounded to 3 places),
    in the order of G.edges(). Returns G."""
    rng = random.Random(seed)
    for u, v in list(G.edges()):
        G[u][v][attr] = rng.randint(lo, hi) if integer else round(rng.uniform(lo, hi), 3)
    return G


def label_nodes(G, attr, seed, lo, hi, integer=False):
    """Give every node of G the attribute `attr` like label_edges. Returns G."""
    rng = random.Random(seed)
    for n in list(G.nodes()):
        G.nodes[n][attr] = rng.randint(lo, hi) if integer else round(rng.uniform(lo, hi), 3)
    return G


def grid(rows, cols):
    """A rows x cols grid graph with integer node labels 0..rows*cols-1 (row-major)."""
    return nx.convert_node_labels_to_integers(nx.grid_2d_graph(rows, cols), ordering="sorted")


def random_dag(n, p, seed):
    """A DiGraph on nodes 0..n-1 with the edges u -> v (u < v) of a seeded G(n, p) digraph."""
    D = nx.DiGraph()
    D.add_nodes_from(range(n))
    D.add_edges_from((u, v) for u, v in nx.gnp_random_graph(n, p, seed=seed, directed=True).edges() if u < v)
    return D
