// The statistics of SHARP's aggregation nodes (aggregation_nodes.csv): one row per switch that ran
// one (algorithm: sharp collectives), in switch order; and the aggregation manager's totals.
#pragma once
#include "sim/core/stats_registry.h"
#include "sim/fabric/fabric.h"
#include "sim/workload/sharp_aggregation_manager.h"

namespace ibfsim {

struct AggregationNodeRow {
  const AggregationNode* node = nullptr;
};

// Registers the kind "aggregation_nodes" (key switch) and its rows; nothing without nodes. With
// the aggregation manager, results.json's "sharp" figures: jobs, jobs_refused, jobs_failed,
// mads_sent, mads_answered, mads_resent, mads_unanswered, jobs_unanswered, setup_ns (the jobs'
// set-up times, summed).
void register_sharp_statistics(StatsRegistry& registry, Fabric& fabric, const SharpAggregationManager* manager);

}  // namespace ibfsim
