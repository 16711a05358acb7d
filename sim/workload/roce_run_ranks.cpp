#include "sim/workload/roce_run_ranks.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/core/error.h"
#include "sim/core/rank_event_codec.h"
#include "sim/core/rank_exchange.h"
#include "sim/workload/rank_tallies.h"

namespace ibfsim {

void check_roce_runs_across_ranks(const Scenario& sc) {
  std::vector<std::string> unsupported;
  if (!sc.classes.empty()) unsupported.push_back("traffic classes");
  if (!sc.collectives.empty()) unsupported.push_back("collectives");
  if (sc.trace) unsupported.push_back("a trace replay");
  if (unsupported.empty()) return;
  throw InputError(fmt::format("{}: started as one of {} MPI ranks, but a run with fabric: roce does not support {} "
                               "across ranks yet: run it without mpirun (--threads N)",
                               sc.file, ranks::size(), fmt::join(unsupported, ", ")));
}

std::vector<bool> roce_verbs_flows_here(const Scenario& sc, const RoceHcaFabric& fabric) {
  std::vector<bool> here;
  for (const VerbsFlowSpec& v : sc.verbs_flows) here.push_back(fabric.here(fabric.plan().find(v.from)));
  return here;
}

void take_in_roce_traffic(TrafficStats& all, std::vector<TrafficStats>& flows, RunObserver& observer,
                          std::vector<FlowSourceCounts>& sources) {
  if (!ranks::several()) return;
  RankTallies mine;
  mine.sources = sources;
  mine.traffic.push_back(all);
  for (const TrafficStats& s : flows) mine.traffic.push_back(s);
  mine.generator_message_latency = observer.generator_message_latency;
  mine.generator_network_latency = observer.generator_network_latency;
  std::vector<RankTallies> per_rank;
  for (const auto& bytes : ranks::all_gather(encode_rank_tallies(mine))) per_rank.push_back(decode_rank_tallies(bytes, mine));
  RankTallies merged = merge_rank_tallies(per_rank);
  all = merged.traffic.front();
  for (std::size_t k = 0; k < flows.size(); ++k) flows[k] = merged.traffic.at(k + 1);
  observer.generator_message_latency = merged.generator_message_latency;
  observer.generator_network_latency = merged.generator_network_latency;
  sources = merged.sources;
}

RankRowsMerge gather_roce_table(const StatsRegistry& stats, StatOutputs output, const RoceHcaFabric& fabric) {
  const EthernetFabricPlan& plan = fabric.plan();
  return gather_table_by_node(stats, output, fabric.partitioning(), [&plan](const std::string& name) {
    for (std::size_t n = 0; n < plan.nodes.size(); ++n)
      if (plan.nodes[n].name == name) return std::optional<std::size_t>(n);
    return std::optional<std::size_t>();
  });
}

}  // namespace ibfsim
