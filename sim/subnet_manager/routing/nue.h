// The nue routing engine (Domke, Hoefler, Matsuoka: "Routing on the dependency graph", HPDC 2016),
// as OpenSM 3.3.23's osm_ucast_nue.c computes it without METIS (Debian's OpenSM is built so):
// deadlock-free on any topology within the VLs it may use, by routing on the complete channel
// dependency graph itself (nue_graph.h, nue_search.h).
//
// The CA ports' base LIDs, in OpenSM's port GUID table order, are dealt round robin to the virtual
// layers (nue_max_num_vls of them, or as many as every switch port's VLs with 0; OpenSM uses more
// than one only with QoS on, which ibfsim assumes). Per layer: its escape paths are marked
// (nue_network.h), then for each destination LID in turn (its own colour) the search finds every
// switch's path to it, the switches route it through the port their path arrives on, and every
// link on those paths gains the switch's terminal count as weight. Switch LIDs come last, over a
// weighted spanning tree of the network each. A path's SL is its destination's layer (with one
// layer no SLs are set, as OpenSM then leaves the path SL to QoS); SL i maps to VL i as OpenSM's
// default QoS tables program it.
//
// A fabric nue cannot route (switches that cannot reach each other) falls back to minhop with a
// note, as OpenSM does.
#pragma once
#include "sim/subnet_manager/routing/routing_tables.h"
#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim {

struct NueOptions {
  // OpenSM's nue_max_num_vls: the layers nue may use (1, its default: one, no SLs; 0: as many
  // as the data VLs every switch port has; more than the fabric has: that many).
  unsigned max_vls = 1;
};

// Requires LIDs assigned.
RoutingTables route_nue(const SubnetGraph& g, const NueOptions& options = {});

}  // namespace ibfsim
