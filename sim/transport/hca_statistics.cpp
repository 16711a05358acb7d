#include "sim/transport/hca_statistics.h"

#include <optional>

#include "sim/link/port_statistics.h"

namespace ibfsim {

namespace {

using Qp = const QpCcStatsSource&;
using Throttle = const CcThrottle::State*;
constexpr StatOutputs kQps = kCcQpsCsv;

// A throttle's figures, for a kind whose owners may have one (`state` finds it).
template <class T, class F>
void register_throttle_figures(StatsRegistry::Kind<T> k, StatOutputs out, F state) {
  auto of = [state](auto field) {
    return [state, field](const T& o) {
      const CcThrottle::State* s = state(o);
      return s ? std::optional<std::uint64_t>(s->*field) : std::nullopt;
    };
  };
  k.figure("ccti", "index", Merge::kSame, out, of(&CcThrottle::State::ccti))
      .figure("max_ccti", "index", Merge::kMax, out, of(&CcThrottle::State::max_ccti))
      .counter("becns_taken", "packets", out, of(&CcThrottle::State::becns))
      .counter("timer_decrements", "events", out, of(&CcThrottle::State::timer_decrements))
      .counter("trigger_events", "events", out, of(&CcThrottle::State::trigger_events))
      .counter("delayed_packets", "packets", out, of(&CcThrottle::State::delayed_packets));
}

}  // namespace

void register_hca_kinds(StatsRegistry& r, bool per_sl) {
  auto qps = r.add_kind<QpCcStatsSource>("qps", {"hca", "qpn"});
  qps.counter("fecn_received", "packets", kQps, [](Qp q) { return q.counters->fecn_received; })
      .counter("becn_on_response", "packets", kQps, [](Qp q) { return q.counters->becn_on_response; })
      .counter("cnp_sent", "packets", kQps, [](Qp q) { return q.counters->cnp_sent; })
      .counter("becn_received", "packets", kQps, [](Qp q) { return q.counters->becn_received; })
      .counter("cnp_received", "packets", kQps, [](Qp q) { return q.counters->cnp_received; });
  register_throttle_figures(qps, kQps, [](Qp q) { return q.throttle; });
  if (!per_sl) return;
  register_throttle_figures(r.add_kind<Throttle>("sl_throttles", {"hca", "port", "sl"}), kCcSlThrottlesCsv,
                            [](Throttle t) { return t; });
}

void register_hca_port_discards(StatsRegistry& r, const Hca& hca, PortNum port, std::size_t port_row) {
  for (int i = 0; i < static_cast<int>(DropReason::kCount); ++i) {
    const auto reason = static_cast<DropReason>(i);
    // Registered once the run is over: only the reasons this port discarded for get a row (most
    // ports discard nothing; a row per port and reason would be most of a large fabric's rows).
    if (hca.port_discards(port, reason) == 0) continue;
    register_port_discards(r, port_row, reason, [&hca, port, reason] { return hca.port_discards(port, reason); });
  }
}

void register_hca_statistics(StatsRegistry& r, const Hca& hca, const std::string& node, bool per_sl) {
  const CcThrottle* throttle = hca.cc_throttle();
  auto qps = r.kind<QpCcStatsSource>("qps");
  for (const auto& [qpn, counters] : hca.cc_counters())
    qps.add(QpCcStatsSource{&counters, per_sl || !throttle ? nullptr : throttle->state(qpn)}, kNoStatParent, node, qpn);
  if (!per_sl || !throttle) return;
  auto sls = r.kind<Throttle>("sl_throttles");
  for (const auto& [key, state] : throttle->states()) sls.add(&state, kNoStatParent, node, (key >> 4) & 0xFF, key & 15);
}

}  // namespace ibfsim
