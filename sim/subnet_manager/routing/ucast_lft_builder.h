// OpenSM's unicast table builder (osm_ucast_mgr.c with osm_switch_recommend_path; no port
// shifting, scattering or port profiling of switch destinations), shared by minhop, updn and dor,
// which differ only in the hop matrix they give it and in dor's choice rule. The rules, checked
// entry by entry against the golden data (tests/subnet_manager/golden/README.md and
// scripts/opensm_model.py), for every switch S independently:
//   1. Destination order: the HCA ports of each switch, switches taken by number of HCA links
//      (most first, ties in switch GUID table order; a stable sort), a switch's HCA ports by its
//      port number; then every other LID-owning port (the switches' port 0) in port GUID table
//      order. With LMC > 0 an outer loop over the LID offset i = 0..2^LMC-1 takes every port's
//      base + i in that order.
//   2. S's own LID goes to port 0, an HCA port cabled to S to that port. Otherwise the candidates
//      are S's ports with the least hop count to the destination's switch; none: no entry.
//   3. Ports are scanned cyclically from `start` (port 0 skipped): start 1, except minhop with
//      i > 0, which starts one past the port chosen for base + i - 1.
//      minhop, LMC 0: the first scanned candidate with the fewest HCA LIDs routed through it.
//      minhop, LMC > 0: among candidates leading to a neighbour switch none of this destination's
//        LIDs used yet at S, the first with the fewest LIDs; if there is none, the fewest LIDs,
//        ties to the candidate whose neighbour carried fewer of this destination's LIDs.
//      dor: only candidates to the neighbour behind the first scanned candidate; the fewest LIDs,
//        with LMC > 0 ties to the cable (neighbour port) that carried fewer of this destination's
//        LIDs.
//   4. Routing an HCA LID counts one on the chosen port and on its neighbour for that
//      destination; switch LIDs count nothing (port_profile_switch_nodes FALSE).
#pragma once
#include <vector>

#include "sim/subnet_manager/routing/hop_matrix.h"
#include "sim/subnet_manager/routing/routing_tables.h"
#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim {

// Rule 1's destination order: LID-owning ports (HCA ports with a link, switch port 0s).
std::vector<SubnetPortRef> ucast_destination_order(const SubnetGraph& g, const SwitchIndex& sw);

// Requires LIDs assigned. `dor` selects dor's choice rule.
RoutingTables build_ucast_lfts(const SubnetGraph& g, const SwitchIndex& sw, const HopMatrix& hops, bool dor);

}  // namespace ibfsim
