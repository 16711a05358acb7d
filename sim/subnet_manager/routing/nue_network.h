// nue's network side (osm_ucast_nue.c): building the switch network and its complete channel
// dependency graph from a subnet, the escape paths of a virtual layer (the convex hull of its
// destinations' switches, its most central switch by Brandes' betweenness, a weighted spanning
// tree from it marked in the CDG), and falling back to them.
#pragma once
#include <vector>

#include "sim/subnet_manager/routing/nue_graph.h"
#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim::nue {

// nue_discover_network + build_complete_cdg; `init_weight` is every link's starting weight.
void build_network(const SubnetGraph& g, std::uint64_t init_weight, Network& net, Ccdg& cdg);

// The LID of the switch a LID's port is (or hangs off).
Lid switch_lid(const SubnetGraph& g, const std::vector<SubnetPortRef>& port_of_lid, Lid lid);

// calculate_spanning_tree_in_network: Dijkstra on the weighted network from `root`; each node's
// escape_path is the link it was reached by.
void spanning_tree(Network& net, int root);

// mark_escape_paths: false if some switch is unreachable (OpenSM's ERR NUE45) when `verify`.
bool mark_escape_paths(const SubnetGraph& g, const std::vector<SubnetPortRef>& port_of_lid, Network& net, Ccdg& cdg,
                       const std::vector<Lid>& destinations, bool verify);

// use_escape_paths_to_solve_impass: every switch's used link becomes its escape path, reversed
// from the destination's switch to the tree's root.
void use_escape_paths(Network& net, Lid dest_switch_lid);

}  // namespace ibfsim::nue
