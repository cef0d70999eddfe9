"""Pipeline capacity, turn 4: delivery costs."""
from networkx.algorithms.flow.mincost import cost_of_flow, max_flow_min_cost
from networkx.algorithms.flow.networksimplex import network_simplex

from solutions.pipeline_capacity.capacity import max_throughput


def cheapest_delivery(G, source, sink, amount, capacity="capacity", cost="cost"):
    H = G.copy()
    for n in H:
        H.nodes[n]["_demand"] = 0
    H.nodes[source]["_demand"] = -amount
    H.nodes[sink]["_demand"] = amount
    total, _ = network_simplex(H, demand="_demand", capacity=capacity, weight=cost)
    return total


def max_flow_cost(G, source, sink, capacity="capacity", cost="cost"):
    return cost_of_flow(G, max_flow_min_cost(G, source, sink, capacity=capacity, weight=cost), weight=cost)


def can_deliver(G, source, sink, amount, capacity="capacity"):
    return amount <= max_throughput(G, source, sink, capacity)
