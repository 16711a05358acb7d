#include "sim/fabric/roce_fabric_statistics.h"

#include <algorithm>
#include <string>

#include "sim/core/rank_exchange.h"

namespace ibfsim {

namespace {

// The fabric's totals, each summed over the nodes this rank simulates and then across MPI ranks
// (the peak: the largest of any rank), once when registered: the same on every rank.
struct RoceFabricRow {
  const PacketLedger* ledger = nullptr;
  std::uint64_t tx_frames = 0, tx_bytes = 0, rx_frames = 0, pause_sent = 0, pause_received = 0, ecn_marked = 0,
                forwarded = 0, switch_dropped = 0, buffer_peak = 0;
};
using R = const RoceFabricRow&;

// A field of EthernetPortStats summed over every port of the fabric (hosts' and switches').
template <class Field>
std::uint64_t port_total(RoceHcaFabric& f, Field field) {
  std::uint64_t n = 0;
  for (std::size_t node = 0; node < f.plan().nodes.size(); ++node) {
    if (!f.here(node)) continue;
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
    if (!f.here(node)) continue;
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
  for (const std::size_t node : f.plan().switches())
    if (f.here(node)) n += get(*f.switch_at(node));
  return n;
}

}  // namespace

void register_roce_fabric_statistics(StatsRegistry& r, RoceHcaFabric& fabric, const PacketLedger& ledger) {
  RoceFabricRow row;
  row.ledger = &ledger;
  std::vector<std::uint64_t> sums{
      port_total(fabric, &EthernetPortStats::tx_frames),
      port_total(fabric, &EthernetPortStats::tx_bytes),
      port_total(fabric, &EthernetPortStats::rx_frames),
      pfc_total(fabric, &PfcPortStats::pause_frames_sent),
      pfc_total(fabric, &PfcPortStats::pause_frames_received),
      switch_total(fabric, [](const EthernetSwitch& s) { return s.ecn().marked_total(); }),
      switch_total(fabric, [](const EthernetSwitch& s) { return s.stats().forwarded; }),
      switch_total(fabric, [](const EthernetSwitch& s) { return s.stats().dropped_total(); })};
  ranks::sum(sums);
  row.tx_frames = sums[0], row.tx_bytes = sums[1], row.rx_frames = sums[2], row.pause_sent = sums[3];
  row.pause_received = sums[4], row.ecn_marked = sums[5], row.forwarded = sums[6], row.switch_dropped = sums[7];
  std::uint64_t peak = 0;
  for (const std::size_t node : fabric.plan().switches())
    if (fabric.here(node)) peak = std::max(peak, fabric.switch_at(node)->stats().buffer_peak_bytes);
  row.buffer_peak = static_cast<std::uint64_t>(ranks::max_time(static_cast<Time>(peak)));

  auto kind = r.add_kind<RoceFabricRow>("fabric", {});
  kind.counter("packets.created", "packets", kResultsTop, [](R f) { return f.ledger->created_count(); })
      .counter("packets.delivered", "packets", kResultsTop, [](R f) { return f.ledger->delivered_count(); })
      .counter("packets.dropped_total", "packets", kResultsTop, [](R f) { return f.ledger->dropped_total(); })
      .counter("ethernet.tx_frames", "frames", kResultsTop, [](R f) { return f.tx_frames; })
      .counter("ethernet.tx_bytes", "bytes", kResultsTop, [](R f) { return f.tx_bytes; })
      .counter("ethernet.rx_frames", "frames", kResultsTop, [](R f) { return f.rx_frames; })
      .counter("ethernet.pause_frames_sent", "frames", kResultsTop, [](R f) { return f.pause_sent; })
      .counter("ethernet.pause_frames_received", "frames", kResultsTop, [](R f) { return f.pause_received; })
      .counter("ethernet.ecn_marked", "frames", kResultsTop, [](R f) { return f.ecn_marked; })
      .counter("ethernet.switch_forwarded", "frames", kResultsTop, [](R f) { return f.forwarded; })
      .counter("ethernet.switch_dropped", "frames", kResultsTop, [](R f) { return f.switch_dropped; })
      .figure("ethernet.switch_buffer_peak_bytes", "bytes", Merge::kMax, kResultsTop,
              [](R f) { return f.buffer_peak; });
  kind.add(row, kNoStatParent);
}

}  // namespace ibfsim
