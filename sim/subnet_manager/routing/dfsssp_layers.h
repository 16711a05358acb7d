// dfsssp's assignment of paths to virtual lanes, as OpenSM 3.3.23's dfsssp_remove_deadlocks does
// it (osm_ucast_dfsssp.c), on the paths sssp routed:
//
// Every path between two ports of the port order (sssp.h: CA ports, then switch port 0s), for
// every LID pair of the two (destination ports outer, source ports inner), goes into VL 0's channel
// dependency graph: its switch-to-switch channels (local switch LID and port, remote switch LID
// and port) are the nodes, kept in a binary search tree by that key in insertion order, and each
// pair of consecutive channels is a dependency listing the (SLID, DLID) pairs that use it.
// Then for VL 0, 1, ..., up to the second-to-last available VL: a depth-first search (from the
// tree's root, then from each cycle found, then from the first unvisited channel in the tree's
// pre-order) finds a cycle; its dependency with the fewest remaining pairs is cut and every pair on
// it that is still in this VL moves to the next VL. A cycle left in the last VL means dfsssp fails.
// Finally the spare VLs are shared out: each goes to the layer with the most paths per VL; each
// layer's paths move to the first VL of its share (SL ranges, routing_tables.h). The search's
// colours, the predecessor marks and the cleared pair lists of finished channels carry over from
// one search to the next exactly as OpenSM leaves them; the table of (SLID, DLID) is indexed by the
// LIDs in OpenSM's order (their network-order bytes compared as host integers).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/subnet_manager/routing/routing_tables.h"
#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim {

struct DfssspLayers {
  // [SLID][DLID] -> first SL of the path (LIDs 0..lft_top; 0 where there is no path).
  std::vector<std::vector<std::uint8_t>> first_sl;
  std::array<std::uint8_t, 16> spread{};  // SLs per first SL (1 where unused)
  unsigned vls_needed = 1;   // layers before balancing
  unsigned vls_available = 1;
};

// The paths are sssp's (`t`). Empty when the layers need more VLs than every switch link has
// (OpenSM's ERR AD25: dfsssp gives up); `vls_needed` then says how many were missing.
std::optional<DfssspLayers> dfsssp_layers(const SubnetGraph& g, const RoutingTables& t, unsigned* needed = nullptr);

}  // namespace ibfsim
