// What a run gathers across MPI ranks by node (core/rank_exchange.h; docs/architecture.md,
// "Ranks"), alike for an InfiniBand and a RoCE run: a table's rows to rank 0, each from the rank
// that simulates the node its first key names, and each verbs flow's results from the rank that
// runs it. Both are collectives: every rank calls them, in the same order.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/stats_rank_merge.h"
#include "sim/core/stats_registry.h"
#include "sim/fabric/fabric_partition.h"
#include "sim/workload/verbs_flow.h"

namespace ibfsim {

// The node a row's first key names (an index into the partitioning's nodes), if it names one.
using NodeByName = std::function<std::optional<std::size_t>(const std::string& name)>;

// `output`'s rows on rank 0, each from the rank that simulates the node its first key (or its
// top-level parent's: a port's, a switch's, an HCA's) names; other rows must be the same on every
// rank (core/stats_rank_merge.h). The other ranks get nothing.
RankRowsMerge gather_table_by_node(const StatsRegistry& stats, StatOutputs output, const Partitioning& p,
                                   const NodeByName& node_by_name);

// Each verbs flow's results (results.json "flows") and summary line, computed once on the rank
// that runs it (`here[k]`: this rank runs flow k) and sent to every rank.
struct VerbsFlowResults {
  std::vector<nlohmann::json> results;
  std::vector<std::string> summaries;
};
VerbsFlowResults gather_verbs_results(const std::vector<std::unique_ptr<VerbsFlow>>& flows, const std::vector<bool>& here);

}  // namespace ibfsim
