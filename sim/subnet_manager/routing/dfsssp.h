// A deadlock-free routing engine for arbitrary topologies, after OpenSM's dfsssp (Domke, Hoefler,
// Nagel: "Deadlock-free oblivious routing for arbitrary topologies", IPDPS 2011): single-source
// shortest paths with balancing weights, then the paths spread over virtual layers (SLs, one VL
// each) so that no layer's channel dependency graph has a cycle. Not a port of OpenSM's code and
// not compared with it: its tables are checked for what they promise (every LID reached, no
// dependency cycle in any VL; tests/subnet_manager/deadlock_check_test.cpp).
//
// Routing: every channel (direction of a switch-to-switch link) starts with weight 1. For each
// destination LID in ascending order, Dijkstra from the destination's switch over the reversed
// channels gives every switch the port of its cheapest path (ties: the smaller distance found
// first, switches in GUID table order, lower port first); then each channel on the path of a
// switch gains the number of HCA ports cabled to that switch, so later destinations avoid busy
// channels. An HCA on the switch itself is reached by its port, the switch's own LID by port 0.
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
