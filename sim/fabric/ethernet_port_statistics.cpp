#include "sim/fabric/ethernet_port_statistics.h"

#include <string>

namespace ibfsim {

namespace {

struct PortRow {
  const EthernetPort* port = nullptr;
  const EthernetSwitch* sw = nullptr;  // null for a host's port
  Time end = 0;
  unsigned prio = 0;                   // ethernet_priorities.csv only
};
using P = const PortRow&;

const PfcPortStats& pfc(P r) { return r.port->pfc().stats(); }

Time paused_total(P r) {
  Time t = 0;
  for (unsigned p = 0; p < kPfcClasses; ++p) t += r.port->pfc().time_paused(p, r.end);
  return t;
}

std::uint64_t storms_total(P r) {
  std::uint64_t n = 0;
  for (unsigned p = 0; p < kPfcClasses; ++p) n += pfc(r).storms[p];
  return n;
}

bool any_pfc(const PfcPortStats& s, unsigned p) {
  return s.xoff_sent[p] + s.xon_sent[p] + s.xoff_received[p] + s.xon_received[p] != 0;
}

}  // namespace

void register_ethernet_port_statistics(StatsRegistry& r, RoceHcaFabric& fabric, Time end) {
  auto ports = r.add_kind<PortRow>("ethernet_ports", {"node", "port"});
  constexpr StatOutputs kOut = kEthernetPortsCsv;
  ports.counter("tx_frames", "frames", kOut, [](P p) { return p.port->stats().tx_frames; })
      .counter("tx_bytes", "bytes", kOut, [](P p) { return p.port->stats().tx_bytes; })
      .counter("rx_frames", "frames", kOut, [](P p) { return p.port->stats().rx_frames; })
      .counter("rx_bytes", "bytes", kOut, [](P p) { return p.port->stats().rx_bytes; })
      .figure("tx_busy_ns", "ns", Merge::kSum, kOut, [](P p) { return to_ns(p.port->stats().tx_busy); }, 3)
      .counter("ecn_marked", "frames", kOut, [](P p) { return p.sw ? p.sw->ecn().marked(p.port->number()) : 0; })
      .counter("pause_frames_sent", "frames", kOut, [](P p) { return pfc(p).pause_frames_sent(); })
      .counter("pause_frames_received", "frames", kOut, [](P p) { return pfc(p).pause_frames_received(); })
      .figure("paused_ns", "ns", Merge::kSum, kOut, [](P p) { return to_ns(paused_total(p)); }, 3)
      .counter("storms", "events", kOut, [](P p) { return storms_total(p); });

  auto prios = r.add_kind<PortRow>("ethernet_priorities", {"node", "port", "priority"});
  constexpr StatOutputs kPrio = kEthernetPrioritiesCsv;
  prios.counter("xoff_sent", "frames", kPrio, [](P p) { return pfc(p).xoff_sent[p.prio]; })
      .counter("xon_sent", "frames", kPrio, [](P p) { return pfc(p).xon_sent[p.prio]; })
      .counter("xoff_received", "frames", kPrio, [](P p) { return pfc(p).xoff_received[p.prio]; })
      .counter("xon_received", "frames", kPrio, [](P p) { return pfc(p).xon_received[p.prio]; })
      .figure("paused_ns", "ns", Merge::kSum, kPrio, [](P p) { return to_ns(p.port->pfc().time_paused(p.prio, p.end)); }, 3)
      .counter("storms", "events", kPrio, [](P p) { return pfc(p).storms[p.prio]; });

  auto switches = r.add_kind<const EthernetSwitch*>("ethernet_switches", {"node"});
  using S = const EthernetSwitch* const&;
  constexpr StatOutputs kSw = kEthernetSwitchesCsv;
  switches.counter("forwarded", "frames", kSw, [](S s) { return s->stats().forwarded; });
  for (int d = 0; d < static_cast<int>(EthernetDrop::kCount); ++d)
    switches.counter(std::string("dropped_") + ethernet_drop_name(static_cast<EthernetDrop>(d)), "frames", kSw,
                     [d](S s) { return s->stats().dropped[d]; });
  switches.counter("buffer_peak_bytes", "bytes", kSw, [](S s) { return s->stats().buffer_peak_bytes; })
      .counter("ecn_marked", "frames", kSw, [](S s) { return s->ecn().marked_total(); });

  const EthernetFabricPlan& plan = fabric.plan();
  const auto add_port = [&](const std::string& node, const EthernetPort& port, const EthernetSwitch* sw) {
    const PortRow row{&port, sw, end, 0};
    ports.add(row, kNoStatParent, node, port.number());
    for (unsigned p = 0; p < kPfcClasses; ++p)
      if (any_pfc(port.pfc().stats(), p)) prios.add(PortRow{&port, sw, end, p}, kNoStatParent, node, port.number(), p);
  };
  for (std::size_t n = 0; n < plan.nodes.size(); ++n) {
    const std::string& name = plan.nodes[n].name;
    if (EthernetSwitch* sw = fabric.switch_at(n)) {
      for (PortNum p = 1; p <= sw->num_ports(); ++p) add_port(name, sw->port(p), sw);
      switches.add(sw, kNoStatParent, name);
    } else {
      add_port(name, fabric.hca(n)->ethernet_port(), nullptr);
    }
  }
}

}  // namespace ibfsim
