#include "sim/link/port_statistics.h"

#include <optional>

namespace ibfsim {

namespace {

using Port = const PortStatsSource&;
using Vl = const VlStatsSource&;
constexpr StatOutputs kPort = kPortsCsv;
constexpr StatOutputs kVl = kPortVlsCsv;

double ns(Time t) { return static_cast<double>(t) / 1e6; }

}  // namespace

void register_port_kinds(StatsRegistry& r, Time end) {
  // In the order of the columns of ports.csv. Figures print in full (no fixed decimals): the tables
  // are where they are kept.
  auto ports = r.add_kind<PortStatsSource>("ports", {"node", "port"});
  ports.attribute("peer", kPort | kPortUtilizationCsv, [](Port p) { return p.peer; })
      .attribute("rate", kPortsCsv, [](Port p) { return p.port->rate().name(); })
      .attribute("state", kPort, [](Port p) { return port_state_name(p.port->state()); })
      .counter("tx_packets", "packets", kPort, [](Port p) { return p.port->stats().tx_packets; })
      .counter("tx_bytes", "bytes", kPort, [](Port p) { return p.port->stats().tx_bytes; })
      .counter("rx_packets", "packets", kPort, [](Port p) { return p.port->stats().rx_packets; })
      .counter("rx_bytes", "bytes", kPort, [](Port p) { return p.port->stats().rx_bytes; })
      .counter("tx_flow_control", "packets", kPort, [](Port p) { return p.port->stats().tx_flow_control; })
      .counter("rx_flow_control", "packets", kPort, [](Port p) { return p.port->stats().rx_flow_control; })
      // Over the whole run, bring-up included; the measurement window's is window.busy_fraction
      // (port_utilization.csv's busy_fraction): two names for two figures.
      .figure("run_busy_fraction", "fraction", Merge::kSame, kPort, [end](Port p) {
        return end ? static_cast<double>(p.port->stats().tx_busy) / static_cast<double>(end) : 0.0;
      })
      .counter("vl15_dropped", "packets", kPort, [](Port p) { return p.port->stats().vl15_dropped; })
      .counter("rcv_errors", "packets", kPortsCsv, [](Port p) { return p.port->stats().rx_errors(); })
      .counter("rcv_errors.phy_error", "packets", kPortsCsv, [](Port p) { return p.port->stats().rx_phy_errors; })
      .counter("rcv_errors.vcrc_error", "packets", kPortsCsv, [](Port p) { return p.port->stats().rx_vcrc_errors; })
      .counter("rcv_errors.ebp", "packets", kPortsCsv, [](Port p) { return p.port->stats().rx_ebp; })
      .counter("tx_ebp", "packets", kPort, [](Port p) { return p.port->stats().tx_ebp; })
      .counter("tx_skips", "ordered sets", kPortsCsv, [](Port p) { return p.port->stats().tx_skips; })
      .counter("vl15_tx_packets", "packets", kPortsCsv, [](Port p) { return p.port->vl_stats(kVl15).tx_packets; })
      .counter("vl15_rx_packets", "packets", kPortsCsv, [](Port p) { return p.port->vl_stats(kVl15).rx_packets; });

  auto vls = r.add_kind<VlStatsSource>("vls", {"vl"}, Nesting::kObjects, ports.index());
  vls.counter("tx_packets", "packets", kVl, [](Vl v) { return v.port->vl_stats(v.vl).tx_packets; })
      .counter("tx_bytes", "bytes", kVl, [](Vl v) { return v.port->vl_stats(v.vl).tx_bytes; })
      .counter("rx_packets", "packets", kVl, [](Vl v) { return v.port->vl_stats(v.vl).rx_packets; })
      .counter("rx_bytes", "bytes", kVl, [](Vl v) { return v.port->vl_stats(v.vl).rx_bytes; })
      .figure("credit_stall_ns", "ns", Merge::kSum, kVl, [](Vl v) { return ns(v.port->vl_stats(v.vl).credit_stall); })
      .figure("rx_buffer_blocks", "blocks", Merge::kSame, kVl, [](Vl v) { return v.port->rx_buffer(v.vl).capacity(); })
      .figure("rx_buffer_mean_blocks", "blocks", Merge::kSame, kVl,
              [end](Vl v) { return v.port->rx_buffer(v.vl).mean_occupied(end); })
      .figure("rx_buffer_max_blocks", "blocks", Merge::kMax, kVl, [](Vl v) { return v.port->rx_buffer(v.vl).max_occupied(); });

  // Most reasons never happen at most ports: a reason appears once it has a discard.
  r.add_kind<DiscardCount>("discards", {"reason"}, Nesting::kMap, ports.index())
      .counter("packets", "packets", kDiscardsCsv, [](const DiscardCount& c) {
        const std::uint64_t n = c();
        return n ? std::optional<std::uint64_t>(n) : std::nullopt;
      });
}

std::size_t register_port_statistics(StatsRegistry& r, PortStatsSource source, const std::string& node,
                                     unsigned number) {
  const LinkPort* lp = source.port;
  const std::size_t row = r.kind<PortStatsSource>("ports").add(std::move(source), kNoStatParent, node, number);
  auto vls = r.kind<VlStatsSource>("vls");
  for (unsigned v = 0; v < lp->op_vls(); ++v) vls.add(VlStatsSource{lp, static_cast<std::uint8_t>(v)}, row, v);
  return row;
}

void register_port_discards(StatsRegistry& r, std::size_t port_row, DropReason reason, DiscardCount count) {
  r.kind<DiscardCount>("discards").add(std::move(count), port_row, drop_reason_name(reason));
}

}  // namespace ibfsim
