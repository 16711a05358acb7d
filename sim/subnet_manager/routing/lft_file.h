// The `file` routing engine: LFTs loaded from a dump in OpenSM's dump_ucast_lfts format
// (ucast_lft_dump.h), as OpenSM's file engine loads them (its ucast_dump_file option). Switches are
// matched by node GUID; the LIDs are the subnet's own (assigned before), so a dump from OpenSM on
// the same fabric and GUIDs routes exactly as OpenSM did.
#pragma once
#include <string>

#include "sim/subnet_manager/routing/routing_tables.h"
#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim {

// Requires LIDs assigned. Throws InputError naming FILE:LINE for an unreadable file, a line that
// does not parse, a switch GUID that is not a switch of the subnet, a LID above the subnet's
// highest LID, or an egress port the switch does not have; and naming the switch for a switch of
// the subnet that the file does not mention.
RoutingTables route_from_lft_file(const SubnetGraph& g, const std::string& path);

}  // namespace ibfsim
