"""Road network audit, turn 5: audit report."""
from networkx.classes.function import get_node_attributes
from networkx.utils.misc import groups

from solutions.road_audit.coverage import coverage_gaps, nearest_facility
from solutions.road_audit.critical import cut_links


def catchments(G, facilities, weight="length"):
    return {f: sorted(members) for f, members in groups(nearest_facility(G, facilities, weight)).items()}


def catchment_demand(G, facilities, weight="length", demand="demand"):
    demands = get_node_attributes(G, demand, default=1)
    totals = {f: 0 for f in facilities}
    for node, f in nearest_facility(G, facilities, weight).items():
        totals[f] += demands[node]
    return totals


def audit_summary(G, facilities, budget, weight="length"):
    gaps = coverage_gaps(G, facilities, budget, weight)
    served = nearest_facility(G, facilities, weight)
    return {
        "junctions": G.number_of_nodes(),
        "roads": G.number_of_edges(),
        "unreachable": G.number_of_nodes() - len(served),
        "uncovered": sum(len(g) for g in gaps),
        "largest_gap": len(gaps[0]) if gaps else 0,
        "cut_links": len(cut_links(G)),
    }
