#include "sim/network/switch_statistics.h"

#include <optional>

#include "sim/link/port_statistics.h"

namespace ibfsim {

namespace {

using Marks = const CongestionDetector::PortStats*;
constexpr StatOutputs kOut = kCcSwitchPortsCsv;

// A figure of a port that met congestion; nothing for the others, which are left out.
std::optional<std::uint64_t> congested(Marks m, std::uint64_t value) {
  if (m->congested_root + m->congested_victim + m->credit_starved == 0) return std::nullopt;
  return value;
}

}  // namespace

void register_switch_kinds(StatsRegistry& r) {
  r.add_kind<Marks>("switch_ports", {"node", "port"})
      .counter("fecn_marked", "packets", kOut, [](Marks m) { return congested(m, m->fecn_marked); })
      .counter("congested_root", "packets", kOut, [](Marks m) { return congested(m, m->congested_root); })
      .counter("congested_victim", "packets", kOut, [](Marks m) { return congested(m, m->congested_victim); })
      .counter("credit_starved", "packets", kOut, [](Marks m) { return congested(m, m->credit_starved); })
      .counter("eligible", "packets", kOut, [](Marks m) { return congested(m, m->eligible); })
      .counter("too_small", "packets", kOut, [](Marks m) { return congested(m, m->too_small); });
}

void register_switch_port_discards(StatsRegistry& r, const Switch& sw, PortNum port, std::size_t port_row) {
  for (int i = 0; i < static_cast<int>(DropReason::kCount); ++i) {
    const auto reason = static_cast<DropReason>(i);
    // Registered once the run is over: only the reasons this port discarded for get a row (most
    // ports discard nothing; a row per port and reason would be most of a large fabric's rows).
    if (sw.port_discards(port, reason) == 0) continue;
    register_port_discards(r, port_row, reason, [&sw, port, reason] { return sw.port_discards(port, reason); });
  }
}

void register_ar_switch_kinds(StatsRegistry& r) {
  using S = const Switch*;
  constexpr StatOutputs kOut = kArSwitchesCsv;
  r.add_kind<S>("ar_switches", {"node"})
      .counter("adaptive", "packets", kOut, [](S s) { return s->adaptive_selector().stats().adaptive; })
      .counter("off_static", "packets", kOut, [](S s) { return s->adaptive_selector().stats().off_static; })
      .counter("flowlet_kept", "packets", kOut, [](S s) { return s->adaptive_selector().stats().flowlet_kept; })
      .counter("fell_back", "packets", kOut, [](S s) { return s->adaptive_selector().stats().fell_back; })
      .counter("notifications_sent", "packets", kOut, [](S s) { return s->fault_notifier().stats().sent; })
      .counter("notifications_received", "packets", kOut, [](S s) { return s->fault_notifier().stats().received; })
      .counter("lids_excluded", "entries", kOut, [](S s) { return s->fault_notifier().stats().excluded; })
      .counter("congestion_notifications_sent", "packets", kOut, [](S s) { return s->ar_congestion().stats().sent; })
      .counter("congestion_notifications_received", "packets", kOut,
               [](S s) { return s->ar_congestion().stats().received; })
      .counter("ports_penalized", "entries", kOut, [](S s) { return s->ar_congestion().stats().penalized; })
      .counter("notified_moves", "flows", kOut, [](S s) { return s->adaptive_selector().stats().notified_moves; })
      .figure("first_notified_move_ns", "ns", Merge::kMin, kOut, [](S s) {
        const Time t = s->adaptive_selector().stats().first_notified_move;
        return t == kTimeNever ? std::optional<double>() : std::optional<double>(static_cast<double>(t) / 1e6);
      })
      .figure("last_exclusion_ns", "ns", Merge::kMax, kOut, [](S s) {
        const auto& t = s->fault_notifier().stats().applied;
        return t.empty() ? std::optional<double>() : std::optional<double>(static_cast<double>(t.back()) / 1e6);
      });
}

void register_ar_switch_statistics(StatsRegistry& r, const Switch& sw, const std::string& node) {
  r.kind<const Switch*>("ar_switches").add(&sw, kNoStatParent, node);
}

void register_switch_statistics(StatsRegistry& r, const Switch& sw, const std::string& node) {
  const CongestionDetector* cd = sw.congestion_detector();
  if (!cd) return;
  auto ports = r.kind<Marks>("switch_ports");
  for (unsigned p = 1; p <= sw.num_ports(); ++p) ports.add(&cd->stats(static_cast<PortNum>(p)), kNoStatParent, node, p);
}

}  // namespace ibfsim
