#include "sim/workload/sharp_statistics.h"

#include <string>

namespace ibfsim {

void register_sharp_statistics(StatsRegistry& r, Fabric& fabric, const SharpAggregationManager* manager) {
  if (manager) {
    using M = const SharpAggregationManager*;
    r.add_kind<M>("sharp", {})
        .counter("sharp.jobs", "jobs", kResultsTop, [](M m) { return m->stats().jobs; })
        .counter("sharp.jobs_refused", "jobs", kResultsTop, [](M m) { return m->stats().jobs_refused; })
        .counter("sharp.jobs_failed", "jobs", kResultsTop, [](M m) { return m->stats().jobs_failed; })
        .counter("sharp.mads_sent", "packets", kResultsTop, [](M m) { return m->stats().mads_sent; })
        .counter("sharp.mads_answered", "packets", kResultsTop, [](M m) { return m->stats().mads_answered; })
        .counter("sharp.mads_resent", "packets", kResultsTop, [](M m) { return m->stats().mads_resent; })
        .counter("sharp.mads_unanswered", "packets", kResultsTop, [](M m) { return m->stats().mads_unanswered; })
        .counter("sharp.jobs_unanswered", "jobs", kResultsTop, [](M m) { return m->stats().jobs_unanswered; })
        .figure("sharp.setup_ns", "ns", Merge::kSame, kResultsTop,
                [](M m) { return static_cast<double>(m->stats().setup_time) / 1e6; }, 6)
        .add(manager, kNoStatParent);
  }
  std::vector<std::size_t> nodes;
  for (std::size_t n : fabric.topology().switches())
    if (fabric.find_aggregation_node(n)) nodes.push_back(n);
  if (nodes.empty()) return;
  using Row = const AggregationNodeRow&;
  constexpr StatOutputs kOut = kAggregationNodesCsv;
  auto k = r.add_kind<AggregationNodeRow>("aggregation_nodes", {"switch"});
  k.counter("chunks_in", "packets", kOut, [](Row s) { return s.node->stats().chunks_in; })
      .counter("operations", "operations", kOut, [](Row s) { return s.node->stats().operations; })
      .counter("results_up", "packets", kOut, [](Row s) { return s.node->stats().results_up; })
      .counter("results_down", "packets", kOut, [](Row s) { return s.node->stats().results_down; })
      .counter("waited", "operations", kOut, [](Row s) { return s.node->stats().waited; })
      .figure("wait_ns", "ns", Merge::kSum, kOut, [](Row s) { return static_cast<double>(s.node->stats().wait_time) / 1e6; }, 6)
      .counter("most_active", "operations", kOut, [](Row s) { return std::uint64_t{s.node->stats().most_active}; })
      .counter("lost", "packets", kOut, [](Row s) { return s.node->stats().lost; })
      .counter("mads_answered", "packets", kOut, [](Row s) { return s.node->stats().mads_answered; })
      .counter("trees", "trees", kOut, [](Row s) { return std::uint64_t{s.node->trees()}; })
      .counter("trees_refused", "trees", kOut, [](Row s) { return s.node->stats().trees_refused; });
  for (std::size_t n : nodes)
    k.add(AggregationNodeRow{fabric.find_aggregation_node(n)}, kNoStatParent, fabric.topology().nodes[n].name);
}

}  // namespace ibfsim
