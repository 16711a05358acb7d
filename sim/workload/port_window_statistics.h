// The statistics of the measurement window (port_window.h): each port's utilization
// (port_utilization.csv: busy_fraction) and each data VL's credit stall time (credit_stall.csv:
// credit_stall_ns), on the ports' rows of the fabric's
// statistics (fabric_statistics.h). A window that did not close (a run stopped early) shows nothing.
#pragma once
#include "sim/core/stats_registry.h"
#include "sim/fabric/fabric_statistics.h"
#include "sim/workload/port_window.h"

namespace ibfsim {

// Call once the run is over, after register_fabric_statistics.
void register_port_window_statistics(StatsRegistry& registry, const PortWindow& window, Fabric& fabric,
                                     const FabricStatRows& rows);

}  // namespace ibfsim
