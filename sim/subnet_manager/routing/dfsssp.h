// A deadlock-free routing engine for arbitrary topologies, OpenSM 3.3.23's dfsssp (Domke, Hoefler,
// Nagel: "Deadlock-free oblivious routing for arbitrary topologies", IPDPS 2011): sssp's paths
// (sssp.h; its LFTs are OpenSM's dfsssp's entry for entry), spread over virtual lanes so that no
// VL's channel dependency graph has a cycle, the spare VLs shared out among the layers
// (dfsssp_layers.h). Each (SLID, DLID) path gets an SL range; SL i maps to VL i as OpenSM's default
// QoS tables program it (routing_tables.h). Checked against OpenSM's own path-to-VL table and
// SL-to-VL tables on the golden runs.
//
// More layers needed than every switch link has data VLs: OpenSM's dfsssp fails and OpenSM routes
// with minhop instead; so does this, with a note.
#pragma once
#include "sim/subnet_manager/routing/routing_tables.h"
#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim {

// Requires LIDs assigned.
RoutingTables route_dfsssp(const SubnetGraph& g);

}  // namespace ibfsim
