// The statistics of connection management (`connect: cm` flows): results.json's
// "connection_management" (the SA's requests and answers by attribute, the CM messages of every
// agent by type, retries, timeouts, REJ by reason, MRA, the connections' outcomes and the time
// until all were connected), cm_agents.csv (each HCA's CM agent and SA client) and
// cm_connections.csv (each flow's connection: its outcome and times).
#pragma once
#include <map>
#include <memory>
#include <vector>

#include "sim/core/stats_registry.h"
#include "sim/fabric/fabric.h"
#include "sim/subnet_manager/cm/cm_agent.h"
#include "sim/workload/verbs_flow.h"

namespace ibfsim {

// Registers the kinds "connection_management", "cm_agents" and "cm_connections"; nothing when
// no flow connects through the CM. `agents`: by node.
void register_cm_statistics(StatsRegistry& registry, Fabric& fabric,
                            const std::map<std::size_t, std::unique_ptr<CmAgent>>& agents,
                            const std::vector<std::unique_ptr<VerbsFlow>>& flows);

}  // namespace ibfsim
