// The minhop routing engine (OpenSM's default): shortest paths through switches, balanced per
// switch by the number of HCA LIDs routed through each port (ucast_lft_builder.h gives the exact
// rules and tie-breaking).
#pragma once
#include "sim/subnet_manager/routing/routing_tables.h"
#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim {

// Requires LIDs assigned (lid_assignment.h).
RoutingTables route_minhop(const SubnetGraph& g);

}  // namespace ibfsim
