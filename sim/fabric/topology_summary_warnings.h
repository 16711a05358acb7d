// The warnings of the topology summary (topology_summary.h): things that are legal but probably
// not meant.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "sim/fabric/topology.h"

namespace ibfsim {

// In this order: HCAs without a cable (`uncabled`, by name), topology_warnings() (a split fabric,
// links that negotiate down), cables at `rates` different rates, switches with more host than
// switch-link bandwidth, names too long for an IB node description. `cables_at` is
// topo.port_cables().
std::vector<std::string> topology_summary_warnings(const Topology& topo, const Topology::PortCables& cables_at,
                                                   const std::vector<std::string>& uncabled, std::size_t rates);

}  // namespace ibfsim
