// Registers the statistics of a whole fabric (stats_registry.h): the fabric's own figures (the
// packet ledger, simulation work, congestion control totals), and every connected port, switch and
// HCA through their registrations (port_statistics.h, switch_statistics.h, hca_statistics.h), with
// what only the topology knows (node names, each port's peer).
#pragma once
#include <cstddef>
#include <vector>

#include "sim/core/stats_registry.h"
#include "sim/fabric/fabric.h"

namespace ibfsim {

// What the fabric's statistics depend on beyond the fabric.
struct FabricStatsOptions {
  Time end = 0;                     // when the figures are read (the end of the run)
  bool congestion_control = false;  // register its figures (results.json "congestion_control")
  bool cc_per_sl = false;           // HCA throttles per port and SL rather than per QP
  bool adaptive_routing = false;    // register its figures (results.json "adaptive_routing")
};

// The rows a caller may hang more of its own figures on.
struct FabricStatRows {
  std::size_t fabric = kNoStatParent;
  std::vector<std::vector<std::size_t>> ports;  // [node][port]; kNoStatParent where not connected
};

// Registers the kinds and adds a row for the fabric and for every connected port, in node then
// port order. Call once the run is over (QPs' congestion counters appear as they are met).
FabricStatRows register_fabric_statistics(StatsRegistry& registry, Fabric& fabric, const FabricStatsOptions& options);

}  // namespace ibfsim
