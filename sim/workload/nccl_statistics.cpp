#include "sim/workload/nccl_statistics.h"

namespace ibfsim {

void register_nccl_statistics(StatsRegistry& r, const std::vector<std::unique_ptr<NcclCollective>>& colls) {
  if (colls.empty()) return;
  using Row = const NcclStatsSource&;
  constexpr StatOutputs kOut = kCollectivesCsv;
  // Each row is one size of one collective: figures merge as kSame (a partitioned run has them once).
  auto k = r.add_kind<NcclStatsSource>("collectives", {"op", "algorithm", "size_bytes"});
  k.counter("count", "elements", kOut, [](Row s) { return s.row->count; })
      .figure("time_us", "us", Merge::kSame, kOut, [](Row s) { return s.row->time_us; }, 6)
      .figure("algbw_GBps", "GB/s", Merge::kSame, kOut, [](Row s) { return s.row->algbw_gbps; }, 3)
      .figure("busbw_GBps", "GB/s", Merge::kSame, kOut, [](Row s) { return s.row->busbw_gbps; }, 3);
  for (const auto& c : colls)
    for (const NcclResultRow& row : c->rows())
      k.add(NcclStatsSource{c.get(), &row}, kNoStatParent, nccl_op_name(c->spec().op),
            nccl_algorithm_name(c->spec().algorithm), row.size_bytes);
}

}  // namespace ibfsim
