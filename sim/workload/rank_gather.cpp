#include "sim/workload/rank_gather.h"

#include "sim/core/error.h"
#include "sim/core/rank_event_codec.h"
#include "sim/core/rank_exchange.h"

namespace ibfsim {

RankRowsMerge gather_table_by_node(const StatsRegistry& stats, StatOutputs output, const Partitioning& p,
                                   const NodeByName& node_by_name) {
  const StatsSnapshot mine = stats.snapshot(output);
  const std::vector<std::vector<std::uint8_t>> all = ranks::gather(encode_stat_rows(mine.rows));
  if (ranks::rank() != 0) return {};
  std::vector<std::vector<StatRow>> per_rank;
  for (const auto& bytes : all) per_rank.push_back(decode_stat_rows(bytes));
  const auto nranks = static_cast<unsigned>(ranks::size());
  auto node_owner = [&](const StatRow& top) -> std::optional<RankRowOwner> {
    const std::string* name = top.keys.empty() ? nullptr : std::get_if<std::string>(&top.keys.front());
    const std::optional<std::size_t> node = name ? node_by_name(*name) : std::nullopt;
    if (!node) return std::nullopt;
    return RankRowOwner{ranks::rank_of_partition(p.part.at(*node), p.parts, nranks), *node};
  };
  auto owner = [&](const StatRow& top) -> std::optional<std::size_t> {
    const std::optional<RankRowOwner> o = node_owner(top);
    return o ? std::optional<std::size_t>(o->rank) : std::nullopt;
  };
  RankRowsMerge m = merge_rank_rows(per_rank, mine.kinds, owner);
  if (m.merged()) return m;
  // Rows registered only where a rank had something to say (stats_rank_merge.h; a RoCE QP's
  // DCQCN reaction point).
  RankRowsMerge owned = merge_owned_rank_rows(per_rank, mine.kinds, node_owner);
  return owned.merged() ? owned : m;
}

VerbsFlowResults gather_verbs_results(const std::vector<std::unique_ptr<VerbsFlow>>& flows, const std::vector<bool>& here) {
  VerbsFlowResults out;
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

}  // namespace ibfsim
