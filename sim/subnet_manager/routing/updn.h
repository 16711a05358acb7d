// The updn (up/down) routing engine, as OpenSM 3.3's osm_ucast_updn.c: switches are ranked by
// their distance from the root switches; a step to a higher rank goes DOWN, to a lower one UP,
// between equal ranks UP from the larger node GUID to the smaller (plain numeric order), and
// between two roots always UP. A path never goes UP after going DOWN, which makes the routes
// deadlock-free on any topology. The hop matrix comes from a breadth-first search outwards from
// every target switch that never takes an UP step after a DOWN step: it sets each port's hop count
// the first time the port is reached and re-queues a switch (with the direction of that step)
// whenever one of its ports gets a count while it is not queued. The tables are then built like
// minhop's (ucast_lft_builder.h) on those hop counts; a LID that no port reaches gets no entry
// (updn cannot route from one root to another).
#pragma once
#include <vector>

#include "sim/core/ids.h"
#include "sim/subnet_manager/routing/hop_matrix.h"
#include "sim/subnet_manager/routing/routing_tables.h"
#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim {

// OpenSM's automatic root detection (updn_find_root_nodes_by_min_hop): weighting each switch's
// least hop count to every switch holding HCAs by that switch's number of HCA links, a switch is a
// root if exactly one hop value holds more than 90% of the HCA links and no other more than 5%.
// Graph node indices in switch GUID table order; empty if none qualifies.
std::vector<std::size_t> updn_auto_roots(const SubnetGraph& g);

// The root switches (graph node indices) updn routes from: the nodes of `root_guids` (OpenSM's
// root_guid_file), or found automatically when it is empty. Throws InputError for a GUID that is
// not a switch of the subnet.
std::vector<std::size_t> updn_roots(const SubnetGraph& g, const std::vector<Guid>& root_guids);

// The switches' ranks (per switch number of `sw`): breadth-first distance from the roots (graph
// node indices), 0xFFFFFFFF for switches no root reaches.
std::vector<unsigned> updn_ranks(const SubnetGraph& g, const SwitchIndex& sw, const std::vector<std::size_t>& roots);

// updn's hop matrix for the given root switches (graph node indices).
HopMatrix updn_hop_matrix(const SubnetGraph& g, const SwitchIndex& sw, const std::vector<std::size_t>& roots);

// Requires LIDs assigned. `root_guids`: the roots' node GUIDs (OpenSM's root_guid_file); empty
// means find them automatically. Like OpenSM, with no roots (none found) it falls back to minhop
// and says so in notes. Throws InputError for a GUID that is not a switch of the subnet.
RoutingTables route_updn(const SubnetGraph& g, const std::vector<Guid>& root_guids);

}  // namespace ibfsim
