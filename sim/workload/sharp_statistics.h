// The statistics of SHARP's aggregation nodes (aggregation_nodes.csv): one row per switch that ran
// one (algorithm: sharp collectives), in switch order.
#pragma once
#include "sim/core/stats_registry.h"
#include "sim/fabric/fabric.h"

namespace ibfsim {

struct AggregationNodeRow {
  const AggregationNode* node = nullptr;
};

// Registers the kind "aggregation_nodes" (key switch) and its rows; nothing without nodes.
void register_sharp_statistics(StatsRegistry& registry, Fabric& fabric);

}  // namespace ibfsim
