// The dnup (down/up) routing engine, as OpenSM 3.3's osm_ucast_dnup.c: updn's mirror image, ranked
// from the leaves instead of from roots. Every switch with a link to a CA has rank 0 and a
// breadth-first search ranks the others by their distance from the nearest such leaf. A step to a
// higher rank goes DOWN (OpenSM's name: away from the leaves), to a lower one UP, between equal
// ranks EQUAL; a path never takes a DOWN step after an UP step. The hop matrix comes from a
// breadth-first search outwards from every target switch, starting in the DOWN direction, that
// skips such steps, sets a port's hop count when it improves on it and queues the switch it leads
// to (with the direction of that step) unless it is already queued. The tables are then built like
// minhop's (ucast_lft_builder.h) on those hop counts; a LID no port reaches gets no entry. A fabric
// with no switch linked to a CA falls back to minhop with a note, as OpenSM does.
#pragma once
#include "sim/subnet_manager/routing/hop_matrix.h"
#include "sim/subnet_manager/routing/routing_tables.h"
#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim {

// dnup's hop matrix (every switch ranked from the leaves).
HopMatrix dnup_hop_matrix(const SubnetGraph& g, const SwitchIndex& sw);

// Requires LIDs assigned.
RoutingTables route_dnup(const SubnetGraph& g);

}  // namespace ibfsim
