#include "sim/workload/class_statistics.h"

#include <optional>

#include "sim/workload/destination_pattern.h"
#include "sim/workload/message_packets.h"

namespace ibfsim {

namespace {

using Row = const ClassStatsSource&;
constexpr StatOutputs kOut = kClassesCsv;

// A figure of a class's own results (results.json "flows"): `of` its offered or accepted traffic.
// Nothing for collectives, which run to completion rather than at a load.
std::optional<double> class_load(Row r, const char* of, const char* figure) {
  if (r.cls->spec().collective()) return std::nullopt;
  return r.cls->results()[of][figure].get<double>();
}

enum class Dist { kMessage, kPacket, kNetwork };
const LatencyHistogram& dist(Row r, Dist d) {
  switch (d) {
    case Dist::kMessage: return r.cls ? r.cls->message_latency() : r.totals->message_latency;
    case Dist::kPacket: return r.cls ? r.cls->packet_latency() : r.totals->packet_latency;
    case Dist::kNetwork: break;
  }
  return r.cls ? r.cls->network_latency() : r.totals->network_latency;
}

constexpr double kMean = -1, kMax = 101;
// The mean, a percentile or the maximum of a latency distribution, in ns; nothing while it is empty.
auto latency(Dist d, double which) {
  return [d, which](Row r) -> std::optional<double> {
    const LatencyHistogram& h = dist(r, d);
    if (h.count() == 0) return std::nullopt;
    if (which == kMean) return h.mean_fs() / 1e6;
    return static_cast<double>(which == kMax ? h.max() : h.percentile(which)) / 1e6;
  };
}

// What only a class has (its pattern, transport, ...): nothing on the totals row.
template <class F>
auto of_class(F f) {
  return [f](Row r) { return r.cls ? std::optional(f(r.cls->spec())) : std::nullopt; };
}

}  // namespace

void register_class_statistics(StatsRegistry& r, const std::vector<std::unique_ptr<TrafficClass>>& classes,
                               const StudyFigures& totals) {
  // Figures a class computes from its own counts (loads, percentiles) merge as kSame: a partitioned
  // run would merge the class's counts and histograms first, then compute them.
  auto k = r.add_kind<ClassStatsSource>("classes", {"name"});
  using Spec = const TrafficClassSpec&;
  k.attribute("pattern", kOut, of_class([](Spec s) { return pattern_name(s.pattern.kind); }))
      .attribute("transport", kOut, of_class([](Spec s) { return class_transport_name(s.transport); }))
      .attribute("verb", kOut, of_class([](Spec s) { return class_verb_name(s.verb); }))
      .attribute("sl", kOut, of_class([](Spec s) { return s.sl; }))
      .figure("offered_load", "fraction", Merge::kSame, kOut,
              [](Row c) { return c.cls ? class_load(c, "offered", "load") : c.totals->offered_load; }, 6)
      .figure("accepted_load", "fraction", Merge::kSame, kOut,
              [](Row c) { return c.cls ? class_load(c, "accepted", "load") : c.totals->accepted_load; }, 6)
      .figure("offered_payload_gbps", "Gb/s", Merge::kSame, kOut,
              [](Row c) { return c.cls ? class_load(c, "offered", "payload_gbps") : c.totals->offered_gbps; }, 4)
      .figure("accepted_payload_gbps", "Gb/s", Merge::kSame, kOut,
              [](Row c) { return c.cls ? class_load(c, "accepted", "payload_gbps") : c.totals->accepted_gbps; }, 4)
      .counter("messages_measured", "messages", kOut, [](Row c) {
        return c.cls ? c.cls->results()["messages"]["measured"].get<std::uint64_t>()
                     : c.totals->message_latency.count() + c.totals->measured_undelivered;
      })
      .counter("messages_undelivered", "messages", kOut,
               [](Row c) { return c.cls ? c.cls->measured_undelivered() : c.totals->measured_undelivered; })
      .figure("msg_mean_ns", "ns", Merge::kSame, kOut, latency(Dist::kMessage, kMean), 3)
      .figure("msg_p50_ns", "ns", Merge::kSame, kOut, latency(Dist::kMessage, 50), 3)
      .figure("msg_p90_ns", "ns", Merge::kSame, kOut, latency(Dist::kMessage, 90), 3)
      .figure("msg_p99_ns", "ns", Merge::kSame, kOut, latency(Dist::kMessage, 99), 3)
      .figure("msg_p99_9_ns", "ns", Merge::kSame, kOut, latency(Dist::kMessage, 99.9), 3)
      .figure("msg_max_ns", "ns", Merge::kMax, kOut, latency(Dist::kMessage, kMax), 3)
      .figure("pkt_mean_ns", "ns", Merge::kSame, kOut, latency(Dist::kPacket, kMean), 3)
      .figure("pkt_p99_ns", "ns", Merge::kSame, kOut, latency(Dist::kPacket, 99), 3)
      .figure("net_mean_ns", "ns", Merge::kSame, kOut, latency(Dist::kNetwork, kMean), 3)
      .figure("net_p99_ns", "ns", Merge::kSame, kOut, latency(Dist::kNetwork, 99), 3)
      .figure("fct_mean_ns", "ns", Merge::kSame, kOut, [](Row c) -> std::optional<double> {
        if (!c.cls || !c.cls->spec().collective()) return std::nullopt;
        const nlohmann::json r = c.cls->results();
        if (!r["collective"].contains("fct_ns")) return std::nullopt;
        return r["collective"]["fct_ns"]["mean"].get<double>();
      }, 3);
  for (const auto& c : classes) k.add(ClassStatsSource{c.get(), nullptr}, kNoStatParent, c->spec().name);
  if (totals.load_driven) k.add(ClassStatsSource{nullptr, &totals}, kNoStatParent, "all");
}

}  // namespace ibfsim
