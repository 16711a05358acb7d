// The dor (dimension-order) routing engine: minhop's shortest paths, but a switch always sends a
// destination towards the neighbour behind its lowest-numbered shortest-path port, without
// balancing across neighbours (only across parallel cables to that neighbour). On meshes and tori
// whose port numbers follow the dimensions (as ibfsim's generators number them: port 2i+1 up and
// 2i+2 down along dimension i, after the hosts) that is dimension-order routing, lowest dimension
// first. Exact rules in ucast_lft_builder.h.
#pragma once
#include "sim/subnet_manager/routing/routing_tables.h"
#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim {

// Requires LIDs assigned.
RoutingTables route_dor(const SubnetGraph& g);

}  // namespace ibfsim
