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

RoceVerbsResults take_in_roce_verbs_results(const std::vector<std::unique_ptr<VerbsFlow>>& flows,
                                            const std::vector<bool>& here) {
  RoceVerbsResults out;
  if (!ranks::several()) {
    for (const auto& f : flows) {
      out.results.push_back(f->results());
      out.summaries.push_back(f->summary());
    }
    return out;
  }
  std::vector<std::uint8_t> mine;
  ByteWriter w(mine);
  for (std::size_t k = 0; k < flows.size(); ++k) {
    if (!here.at(k)) continue;
    const std::string results = flows[k]->results().dump(), summary = flows[k]->summary();
    w.put(static_cast<std::uint64_t>(k));
    w.bytes(std::vector<std::uint8_t>(results.begin(), results.end()));
    w.bytes(std::vector<std::uint8_t>(summary.begin(), summary.end()));
  }
  out.results.assign(flows.size(), nullptr);
  out.summaries.assign(flows.size(), std::string());
  std::vector<bool> seen(flows.size(), false);
  for (const auto& bytes : ranks::all_gather(mine)) {
    ByteReader r(bytes);
    while (!r.done()) {
      const auto k = static_cast<std::size_t>(r.get<std::uint64_t>());
      IBFSIM_CHECK(k < seen.size() && !seen[k], "a verbs flow's results from exactly one rank");
      seen[k] = true;
      const std::vector<std::uint8_t> results = r.bytes(), summary = r.bytes();
      out.results[k] = nlohmann::json::parse(results.begin(), results.end());
      out.summaries[k].assign(summary.begin(), summary.end());
    }
  }
  for (std::size_t k = 0; k < seen.size(); ++k) IBFSIM_CHECK(seen[k], "a verbs flow's results from its rank");
  return out;
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
  const StatsSnapshot mine = stats.snapshot(output);
  const std::vector<std::vector<std::uint8_t>> all = ranks::gather(encode_stat_rows(mine.rows));
  if (ranks::rank() != 0) return {};
  std::vector<std::vector<StatRow>> per_rank;
  for (const auto& bytes : all) per_rank.push_back(decode_stat_rows(bytes));
  const EthernetFabricPlan& plan = fabric.plan();
  const Partitioning& p = fabric.partitioning();
  const auto nranks = static_cast<unsigned>(ranks::size());
  auto node_owner = [&](const StatRow& top) -> std::optional<RankRowOwner> {
    const std::string* name = top.keys.empty() ? nullptr : std::get_if<std::string>(&top.keys.front());
    if (!name) return std::nullopt;
    for (std::size_t n = 0; n < plan.nodes.size(); ++n)
      if (plan.nodes[n].name == *name) return RankRowOwner{ranks::rank_of_partition(p.part.at(n), p.parts, nranks), n};
    return std::nullopt;
  };
  auto owner = [&](const StatRow& top) -> std::optional<std::size_t> {
    const std::optional<RankRowOwner> o = node_owner(top);
    return o ? std::optional<std::size_t>(o->rank) : std::nullopt;
  };
  RankRowsMerge m = merge_rank_rows(per_rank, mine.kinds, owner);
  if (m.merged()) return m;
  // Rows registered only where a rank had something to say (a QP's DCQCN reaction point).
  RankRowsMerge owned = merge_owned_rank_rows(per_rank, mine.kinds, node_owner);
  return owned.merged() ? owned : m;
}

}  // namespace ibfsim
