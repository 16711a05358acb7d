// The sssp routing engine, as OpenSM 3.3.23's osm_ucast_dfsssp.c computes the forwarding tables for
// both sssp and dfsssp (dfsssp then spreads the same paths over virtual lanes, dfsssp.h):
// single-source shortest paths with balancing weights (Domke, Hoefler, Nagel, IPDPS 2011).
//
// Graph: the switches in switch GUID table order; from each, one link per switch-to-switch port
// (ports ascending, loops left out), every link starting at weight P^2, P being the number of LIDs
// of CA ports and switch port 0s in the subnet (so that the balancing never outweighs a hop).
// Each switch counts its "CAs": one for its port 0, 2^LMC for each CA port cabled to it.
//
// Sources, in this order: the CA ports cabled to each switch (switches sorted by that count,
// most first, stable; ports ascending), then every switch's port 0 in the same switch order; for
// each, every LID of its range in turn: Dijkstra outward from the source over the links (a CA
// source reaches its switch by one link of weight 1), with OpenSM's 4-ary heap (complib cl_heap):
// the tie-breaking of equal distances is that heap's, which this file reproduces operation for
// operation. Each switch the search reached routes the LID back through the port its search link
// arrived on; then every link on the path from each such switch back to the source gains that
// switch's CA count, so later sources avoid loaded links.
#pragma once
#include <vector>

#include "sim/subnet_manager/routing/routing_tables.h"
#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim {

// OpenSM's port order for (df)sssp (its port_order_list): the CA ports cabled to each switch
// (switches by CA count, most first, stable; ports ascending), then every switch's port 0 in the
// same switch order. Routing and dfsssp's layering walk the ports in this order.
std::vector<SubnetPortRef> sssp_port_order(const SubnetGraph& g);

// Requires LIDs assigned. A subnet some switch of which the search cannot reach falls back to
// minhop with a note, as OpenSM's engine gives up there.
RoutingTables route_sssp(const SubnetGraph& g);

}  // namespace ibfsim
