// The adaptive routing groups (ar_groups.h) as `ibfsim routes --ar-groups` prints them, in the
// shape of OpenSM's LFT dump (ucast_lft_dump.h) so that the two read side by side. Per switch, in
// the same switch order:
//   Adaptive routing groups of switch Lid L guid 0xGGGGGGGGGGGGGGGG ('NAME'): G groups, E LIDs
//   group 1: ports 9 10 11 12
//   ...
//   0xLLLL group 1 # Channel Adapter portguid 0xGGGGGGGGGGGGGGGG: 'NAME'
//   ...
// (a LID line for every LID with a group; the others follow the LFT). Without groups (a routing
// engine other than ar_ftree and ar_updn) one line says so.
#pragma once
#include <ostream>

#include "sim/subnet_manager/routing/routing_tables.h"
#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim {

void write_ar_groups_dump(std::ostream& out, const SubnetGraph& g, const RoutingTables& t);

}  // namespace ibfsim
