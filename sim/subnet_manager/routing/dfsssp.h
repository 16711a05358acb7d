// A deadlock-free routing engine for arbitrary topologies, after OpenSM's dfsssp (Domke, Hoefler,
// Nagel: "Deadlock-free oblivious routing for arbitrary topologies", IPDPS 2011): single-source
// shortest paths with balancing weights, then the paths spread over virtual layers (SLs, one VL
// each) so that no layer's channel dependency graph has a cycle.
//
// Routing: exactly OpenSM's (sssp.h; its LFTs equal OpenSM's dfsssp's entry for entry, checked on
// the golden runs). Layers: ibfsim's own, not yet OpenSM's (whose cycle search walks its channel
// dependency graph in its own order and then balances the layers over the spare VLs); they are
// checked for what they promise (every LID reached, no dependency cycle in any VL;
// tests/subnet_manager/deadlock_check_test.cpp).
//
// Layers: every (source switch, destination LID) path starts in layer 0. While layer L's
// dependency graph has a cycle, the dependency of that cycle used by the fewest paths is broken by
// moving those paths to layer L+1. SL = layer, and SL i maps to VL i on every port. The layer
// count may not exceed the data VLs every port has (SubnetPort::data_vls).
#pragma once
#include "sim/subnet_manager/routing/routing_tables.h"
#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim {

// Requires LIDs assigned. Throws InputError if the paths need more layers than the fabric has VLs.
RoutingTables route_dfsssp(const SubnetGraph& g);

}  // namespace ibfsim
