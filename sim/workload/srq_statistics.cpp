#include "sim/workload/srq_statistics.h"

#include <optional>

namespace ibfsim {

void register_srq_statistics(StatsRegistry& r, const Fabric& fabric,
                             const std::map<std::size_t, std::unique_ptr<ServerSrq>>& srqs) {
  if (srqs.empty()) return;
  using S = const ServerSrq*;
  constexpr StatOutputs kOut = kSrqsCsv;
  auto k = r.add_kind<const ServerSrq*>("shared_receive_queues", {"hca"});
  k.counter("max_wr", "WQEs", kOut, [](S s) { return std::uint64_t{s->spec().max_wr}; })
      .counter("limit", "WQEs", kOut, [](S s) { return std::uint64_t{s->spec().limit}; })
      .counter("buffer_bytes", "bytes", kOut, [](S s) { return std::uint64_t{s->slot_bytes()}; })
      .counter("qps", "QPs", kOut, [](S s) { return std::uint64_t{s->queue().qps()}; })
      .counter("posted", "WQEs", kOut, [](S s) { return s->queue().posted(); })
      .counter("taken", "WQEs", kOut, [](S s) { return s->queue().taken(); })
      .counter("held_at_end", "WQEs", kOut, [](S s) { return std::uint64_t{s->queue().size()}; })
      .counter("limit_events", "events", kOut, [](S s) { return s->limit_events(); })
      .figure("limit_reached_ns", "ns", Merge::kSame, kOut,
              [](S s) -> std::optional<double> {
                if (s->limit_reached_at() == kTimeNever) return std::nullopt;
                return static_cast<double>(s->limit_reached_at()) / 1e6;
              },
              3);
  for (const auto& [node, s] : srqs) k.add(s.get(), kNoStatParent, fabric.topology().nodes[node].name);
}

}  // namespace ibfsim
