// The bisection figure of the topology summary (topology_summary.h, where the method is
// described): the fewest cables to cut so that the hosts fall into two halves, exact for a fat tree
// of one or two levels and otherwise a heuristic upper bound; also as data rate and, when all host
// links share one rate, as a fraction of full bisection.
#pragma once
#include <cstddef>
#include <optional>
#include <vector>

#include "sim/fabric/topology.h"
#include "sim/fabric/topology_summary.h"

namespace ibfsim {

// `hosts`: the cabled HCAs (at least two); `cables_at` is topo.port_cables().
BisectionEstimate estimate_bisection(const Topology& topo, const std::vector<std::size_t>& hosts,
                                     const Topology::PortCables& cables_at);

}  // namespace ibfsim
