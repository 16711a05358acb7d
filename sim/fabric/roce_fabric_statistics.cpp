#include "sim/fabric/roce_fabric_statistics.h"

#include <algorithm>
#include <string>

namespace ibfsim {

namespace {

struct RoceFabricRow {
  RoceHcaFabric* fabric = nullptr;
  const PacketLedger* ledger = nullptr;
};
using R = const RoceFabricRow&;

// A field of EthernetPortStats summed over every port of the fabric (hosts' and switches').
template <class Field>
std::uint64_t port_total(RoceHcaFabric& f, Field field) {
  std::uint64_t n = 0;
  for (std::size_t node = 0; node < f.plan().nodes.size(); ++node) {
    if (EthernetSwitch* sw = f.switch_at(node)) {
      for (PortNum p = 1; p <= sw->num_ports(); ++p) n += sw->port(p).stats().*field;
    } else {
      n += f.hca(node)->ethernet_port().stats().*field;
    }
  }
  return n;
}

// A PfcPortStats total summed over every port of the fabric.
std::uint64_t pfc_total(RoceHcaFabric& f, std::uint64_t (PfcPortStats::*total)() const) {
  std::uint64_t n = 0;
  for (std::size_t node = 0; node < f.plan().nodes.size(); ++node) {
    if (EthernetSwitch* sw = f.switch_at(node)) {
      for (PortNum p = 1; p <= sw->num_ports(); ++p) n += (sw->port(p).pfc().stats().*total)();
    } else {
      n += (f.hca(node)->ethernet_port().pfc().stats().*total)();
    }
  }
  return n;
}

template <class F>
std::uint64_t switch_total(RoceHcaFabric& f, F get) {
  std::uint64_t n = 0;
  for (const std::size_t node : f.plan().switches()) n += get(*f.switch_at(node));
  return n;
}

}  // namespace

void register_roce_fabric_statistics(StatsRegistry& r, RoceHcaFabric& fabric, const PacketLedger& ledger) {
  auto kind = r.add_kind<RoceFabricRow>("fabric", {});
  kind.counter("packets.created", "packets", kResultsTop, [](R f) { return f.ledger->created_count(); })
      .counter("packets.delivered", "packets", kResultsTop, [](R f) { return f.ledger->delivered_count(); })
      .counter("packets.dropped_total", "packets", kResultsTop, [](R f) { return f.ledger->dropped_total(); })
      .counter("ethernet.tx_frames", "frames", kResultsTop,
               [](R f) { return port_total(*f.fabric, &EthernetPortStats::tx_frames); })
      .counter("ethernet.tx_bytes", "bytes", kResultsTop,
               [](R f) { return port_total(*f.fabric, &EthernetPortStats::tx_bytes); })
      .counter("ethernet.rx_frames", "frames", kResultsTop,
               [](R f) { return port_total(*f.fabric, &EthernetPortStats::rx_frames); })
      .counter("ethernet.pause_frames_sent", "frames", kResultsTop,
               [](R f) { return pfc_total(*f.fabric, &PfcPortStats::pause_frames_sent); })
      .counter("ethernet.pause_frames_received", "frames", kResultsTop,
               [](R f) { return pfc_total(*f.fabric, &PfcPortStats::pause_frames_received); })
      .counter("ethernet.ecn_marked", "frames", kResultsTop, [](R f) {
        return switch_total(*f.fabric, [](const EthernetSwitch& s) { return s.ecn().marked_total(); });
      })
      .counter("ethernet.switch_forwarded", "frames", kResultsTop,
               [](R f) { return switch_total(*f.fabric, [](const EthernetSwitch& s) { return s.stats().forwarded; }); })
      .counter("ethernet.switch_dropped", "frames", kResultsTop, [](R f) {
        return switch_total(*f.fabric, [](const EthernetSwitch& s) { return s.stats().dropped_total(); });
      })
      .figure("ethernet.switch_buffer_peak_bytes", "bytes", Merge::kMax, kResultsTop, [](R f) {
        std::uint64_t peak = 0;
        for (const std::size_t node : f.fabric->plan().switches())
          peak = std::max(peak, f.fabric->switch_at(node)->stats().buffer_peak_bytes);
        return peak;
      });
  kind.add(RoceFabricRow{&fabric, &ledger}, kNoStatParent);
}

}  // namespace ibfsim
