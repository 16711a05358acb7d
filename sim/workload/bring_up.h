// Subnet manager bring-up of a scenario's fabric and nothing else (`ibfsim routes SCENARIO`):
// the fabric is built as `ibfsim run` builds it, the SM runs its first sweep in-band, and the run
// stops there. The result is the subnet as the SM discovered it, with the LFTs read back from the
// switches (what their SMAs were programmed with), ready for the routes report (routes_report.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sim/subnet_manager/routing/routing_tables.h"
#include "sim/subnet_manager/routing/subnet_graph.h"
#include "sim/workload/scenario.h"

namespace ibfsim {

struct BringUpResult {
  SubnetGraph graph;
  RoutingTables tables;       // LFTs as the switches hold them; SL information from the SM
  Time done = 0;              // when the first sweep ended
  std::uint64_t smps = 0;     // SMPs the SM sent for it
  std::vector<std::string> notes;
};

// Requires subnet_manager.in_band (throws InputError otherwise). Runs SystemC: once per process.
BringUpResult bring_up_scenario(const Scenario& sc);

}  // namespace ibfsim
