// A scenario run with `fabric: roce` (roce_spec.h): the topology as an Ethernet L3 fabric of real
// HCAs (fabric/roce_hca_fabric.h), no subnet manager (addresses and routes are static, the links up
// from time 0), the verbs flows set up and run exactly as on InfiniBand (verbs_flow.h, watched by
// the same RunObserver), as are the other workloads (roce_workloads.h), and results.json written
// from the same facts with the same names, plus the Ethernet counters ("ethernet.*") and the
// fabric's settings ("fabric", "roce").
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "sim/fabric/ethernet_topology.h"
#include "sim/fabric/roce_hca_fabric.h"
#include "sim/workload/scenario_run.h"

namespace ibfsim {

// The fabric's options from `roce:`, `hca_model:` and outputs.data_check; `models[node]` (by plan
// node) receives each HCA's configuration as it is built.
RoceHcaFabricOptions roce_fabric_options(const Scenario& sc, const EthernetFabricPlan& plan,
                                         std::vector<HcaConfig>& models);

// The topology's cables per Ethernet rate they run in a RoCE run (their own, else roce.speed and
// roce.fec), slowest first, each named as "100GbE RS(528,514)" (RunFacts::cable_rates).
std::vector<std::pair<std::string, std::size_t>> roce_cable_rates(const Topology& topo, const EthernetRate& fabric_rate);

RunResult run_roce_scenario(const Scenario& sc, const std::string& out_dir);

}  // namespace ibfsim
