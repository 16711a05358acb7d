// A `fabric: roce` run across MPI ranks (core/rank_exchange.h; docs/architecture.md, "Ranks"), as
// an InfiniBand run's (run_rank_tallies.cpp, run_write.cpp): what it supports so far, which verbs
// flows run on this rank (their results: rank_gather.h), the delivery tallies every rank's
// hosts keep put together, and the tables gathered to rank 0 from the rank that simulates each row's
// node. Every function but the first two is a collective: every rank calls it, in the same order.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/stats_rank_merge.h"
#include "sim/core/stats_registry.h"
#include "sim/fabric/roce_hca_fabric.h"
#include "sim/workload/rank_gather.h"
#include "sim/workload/rank_tallies.h"
#include "sim/workload/run_observer.h"
#include "sim/workload/scenario.h"
#include "sim/workload/traffic_stats.h"
#include "sim/workload/verbs_flow.h"

namespace ibfsim {

// Started as one of several ranks: throws InputError naming what a RoCE run does not support
// across ranks yet (traffic classes, collectives, a trace replay: their figures are not gathered
// yet).
void check_roce_runs_across_ranks(const Scenario& sc);

// [verbs flow]: whether this rank runs it (its hosts share a partition).
std::vector<bool> roce_verbs_flows_here(const Scenario& sc, const RoceHcaFabric& fabric);

// The delivery statistics (every flow's together and each flow's, the generators' latency
// histograms) as every rank's hosts saw them, and each generator flow's source counts (`sources`:
// this rank's, summed), merged on every rank (workload/rank_tallies.h).
void take_in_roce_traffic(TrafficStats& all, std::vector<TrafficStats>& flows, RunObserver& observer,
                          std::vector<FlowSourceCounts>& sources);

// `output`'s rows on rank 0, each from the rank that simulates the plan node its first key (or its
// top-level parent's) names (core/stats_rank_merge.h); the other ranks get nothing.
RankRowsMerge gather_roce_table(const StatsRegistry& stats, StatOutputs output, const RoceHcaFabric& fabric);

}  // namespace ibfsim
