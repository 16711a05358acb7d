// The diameter figure of the topology summary (topology_summary.h): the most switches a packet
// crosses between two hosts over shortest paths through switches, and how many host pairs no such path joins.
#pragma once
#include <cstddef>
#include <optional>
#include <vector>

#include "sim/fabric/topology.h"
#include "sim/fabric/topology_summary.h"

namespace ibfsim {

// Sets s.diameter and s.unreachable_host_pairs; `cables_at` is topo.port_cables().
void compute_diameter(const Topology& topo, const Topology::PortCables& cables_at, TopologySummary& s);

}  // namespace ibfsim
