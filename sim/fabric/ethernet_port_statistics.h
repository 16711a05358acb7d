// The per-port, per-priority and per-switch tables of a RoCE run's Ethernet fabric
// (roce_hca_fabric.h), registered once after the run:
//   ethernet_ports.csv       (node, port): every port of hosts and switches: frames and bytes each
//                            way, line busy time, ECN marks (switch ports), PFC frames sent and
//                            received, time paused and storms summed over priorities;
//   ethernet_priorities.csv  (node, port, priority): PFC per priority, for each (port, priority)
//                            that sent or received a PFC frame;
//   ethernet_switches.csv    (node): frames forwarded, drops by reason, buffer peak, ECN marks.
#pragma once
#include "sim/core/stats_registry.h"
#include "sim/core/time.h"
#include "sim/fabric/roce_hca_fabric.h"

namespace ibfsim {

// `end`: the time the run ended (time paused counts up to it).
void register_ethernet_port_statistics(StatsRegistry& registry, RoceHcaFabric& fabric, Time end);

}  // namespace ibfsim
