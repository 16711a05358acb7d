#include "sim/fabric/fabric_statistics.h"

#include <optional>

#include "sim/core/error.h"
#include "sim/core/rank_exchange.h"
#include "sim/link/port_statistics.h"
#include "sim/network/switch_statistics.h"
#include "sim/transport/hca_statistics.h"

namespace ibfsim {

namespace {

using F = Fabric*;
// One drop reason of the ledger: data packets, or management packets.
struct LedgerDrops {
  const PacketLedger* ledger = nullptr;
  DropReason reason = DropReason::kCount;
};
using Drops = const LedgerDrops&;

// Congestion control totals over the fabric: the MADs that configured it, marks at switch ports,
// counts at HCAs' QPs. Across MPI ranks each rank counts the nodes it runs and the counts are
// summed (a collective: register_fabric_statistics runs on every rank alike); the subnet manager's
// MADs only its host's rank sent and saw answered (the others' copy never ran: zero), while a
// static configuration was applied alike on every rank.
struct CcTotals {
  std::uint64_t mads_sent = 0, mads_applied = 0, fecn_marked = 0, fecn_received = 0, becn_on_response = 0, cnp_sent = 0, cnp_received = 0,
                becn_received = 0;
};
CcTotals cc_totals(Fabric& f) {
  const Partitioning& part = f.partitioning();
  const auto nranks = static_cast<unsigned>(ranks::size()), me = static_cast<unsigned>(ranks::rank());
  auto mine = [&](std::size_t n) {
    return nranks == 1 || ranks::rank_of_partition(part.part.at(n), part.parts, nranks) == me;
  };
  CcTotals t;
  for (std::size_t node = 0; node < f.topology().nodes.size(); ++node) {
    const Switch* sw = f.switch_at(node);
    if (!sw || !sw->congestion_detector() || !mine(node)) continue;
    for (unsigned p = 1; p <= sw->num_ports(); ++p)
      t.fecn_marked += sw->congestion_detector()->stats(static_cast<PortNum>(p)).fecn_marked;
  }
  for (std::size_t node : f.topology().hcas()) {
    if (!mine(node)) continue;
    for (const auto& [qpn, c] : f.hca(node)->cc_counters()) {
      t.fecn_received += c.fecn_received;
      t.becn_on_response += c.becn_on_response;
      t.cnp_sent += c.cnp_sent;
      t.cnp_received += c.cnp_received;
      t.becn_received += c.becn_received;
    }
  }
  const bool in_band = f.subnet_manager() != nullptr;
  std::vector<std::uint64_t> v{in_band ? f.cc_mads_sent() : 0, in_band ? f.cc_mads_applied() : 0,
                               t.fecn_marked, t.fecn_received, t.becn_on_response, t.cnp_sent, t.cnp_received,
                               t.becn_received};
  ranks::sum(v);
  if (!in_band) v[0] = f.cc_mads_sent(), v[1] = f.cc_mads_applied();
  return CcTotals{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]};
}

// Adaptive routing's totals over every switch (each switch's counts: ar_switches.csv). Across MPI
// ranks each rank sums the switches it runs (the others' copies never routed: zero) and the sums
// are added (a collective, as cc_totals).
struct ArTotals {
  std::uint64_t adaptive = 0, off_static = 0, flowlet_kept = 0, fell_back = 0, notifications_sent = 0;
  std::uint64_t congestion_notifications_sent = 0, notified_moves = 0;
};
ArTotals ar_totals(Fabric& f) {
  const Partitioning& part = f.partitioning();
  const auto nranks = static_cast<unsigned>(ranks::size()), me = static_cast<unsigned>(ranks::rank());
  std::vector<std::uint64_t> v(7, 0);
  for (std::size_t node = 0; node < f.topology().nodes.size(); ++node) {
    const Switch* sw = f.switch_at(node);
    if (!sw || (nranks > 1 && ranks::rank_of_partition(part.part.at(node), part.parts, nranks) != me)) continue;
    const ArStats& s = sw->adaptive_selector().stats();
    v[0] += s.adaptive;
    v[1] += s.off_static;
    v[2] += s.flowlet_kept;
    v[3] += s.fell_back;
    v[4] += sw->fault_notifier().stats().sent;
    v[5] += sw->ar_congestion().stats().sent;
    v[6] += s.notified_moves;
  }
  ranks::sum(v);
  return ArTotals{v[0], v[1], v[2], v[3], v[4], v[5], v[6]};
}

void register_fabric_kinds(StatsRegistry& r, const FabricStatsOptions& o, const CcTotals& cc, const ArTotals& ar) {
  auto fabric = r.add_kind<F>("fabric", {});
  fabric.counter("packets.created", "packets", kResultsTop, [](F f) { return f->ledger().created_count(); })
      .counter("packets.replicated", "packets", kResultsTop, [](F f) { return f->ledger().replicated_count(); })
      .counter("packets.injected", "packets", kResultsTop, [](F f) { return f->ledger().injected_count(); })
      .counter("packets.delivered", "packets", kResultsTop, [](F f) { return f->ledger().delivered_count(); })
      .counter("packets.dropped_total", "packets", kResultsTop, [](F f) { return f->ledger().dropped_total(); })
      .counter("packets.queued_at_sources_at_end", "packets", kResultsTop, [](F f) { return f->queued_at_sources(); })
      .counter("packets.in_network_at_end", "packets", kResultsTop,
               [](F f) { return f->pool().live() - f->queued_at_sources(); })
      .counter("management_packets.created", "packets", kResultsTop,
               [](F f) { return f->ledger().management_created_count(); })
      .counter("management_packets.delivered", "packets", kResultsTop,
               [](F f) { return f->ledger().management_delivered_count(); })
      .counter("simulation.actions", "actions", kResultsTop, [](F f) { return f->events_run(); })
      .counter("simulation.packet_hops", "packets", kResultsTop, [](F f) { return f->packet_hops(); });
  // Every reason for data packets, zero or not; only those that happened for management packets.
  r.add_kind<LedgerDrops>("packets.dropped", {"reason"}, Nesting::kMap, fabric.index())
      .counter("packets", "packets", kResultsTop, [](Drops d) { return d.ledger->dropped_count(d.reason); });
  r.add_kind<LedgerDrops>("management_packets.dropped", {"reason"}, Nesting::kMap, fabric.index())
      .counter("packets", "packets", kResultsTop, [](Drops d) {
        const std::uint64_t n = d.ledger->management_dropped_count(d.reason);
        return n ? std::optional<std::uint64_t>(n) : std::nullopt;
      });
  if (o.adaptive_routing) {
    constexpr StatOutputs kAr = kResultsAdaptiveRouting;
    fabric.counter("totals.adaptive", "packets", kAr, [ar](F) { return ar.adaptive; })
        .counter("totals.off_static", "packets", kAr, [ar](F) { return ar.off_static; })
        .counter("totals.flowlet_kept", "packets", kAr, [ar](F) { return ar.flowlet_kept; })
        .counter("totals.fell_back", "packets", kAr, [ar](F) { return ar.fell_back; })
        .counter("totals.notifications_sent", "packets", kAr, [ar](F) { return ar.notifications_sent; })
        .counter("totals.congestion_notifications_sent", "packets", kAr,
                 [ar](F) { return ar.congestion_notifications_sent; })
        .counter("totals.notified_moves", "flows", kAr, [ar](F) { return ar.notified_moves; });
  }
  if (!o.congestion_control) return;
  constexpr StatOutputs kCc = kResultsCongestionControl;
  fabric.counter("mads_sent", "MADs", kCc, [cc](F) { return cc.mads_sent; })
      .counter("mads_applied", "MADs", kCc, [cc](F) { return cc.mads_applied; })
      .counter("totals.fecn_marked", "packets", kCc, [cc](F) { return cc.fecn_marked; })
      .counter("totals.fecn_received", "packets", kCc, [cc](F) { return cc.fecn_received; })
      .counter("totals.becn_on_response", "packets", kCc, [cc](F) { return cc.becn_on_response; })
      .counter("totals.cnp_sent", "packets", kCc, [cc](F) { return cc.cnp_sent; })
      .counter("totals.cnp_received", "packets", kCc, [cc](F) { return cc.cnp_received; })
      .counter("totals.becn_received", "packets", kCc, [cc](F) { return cc.becn_received; });
}

// Each connected port's peer, from the cables: "node/port" at the cable's other end.
std::vector<std::vector<std::string>> peer_names(const Topology& topo) {
  std::vector<std::vector<std::string>> peer(topo.nodes.size());
  for (std::size_t n = 0; n < topo.nodes.size(); ++n) peer[n].resize(topo.nodes[n].num_ports + 1);
  for (const TopoCable& c : topo.cables) {
    peer[c.node_a][c.port_a] = topo.nodes[c.node_b].name + "/" + std::to_string(c.port_b);
    peer[c.node_b][c.port_b] = topo.nodes[c.node_a].name + "/" + std::to_string(c.port_a);
  }
  return peer;
}

}  // namespace

FabricStatRows register_fabric_statistics(StatsRegistry& r, Fabric& fabric, const FabricStatsOptions& o) {
  register_fabric_kinds(r, o, o.congestion_control ? cc_totals(fabric) : CcTotals{},
                        o.adaptive_routing ? ar_totals(fabric) : ArTotals{});
  register_port_kinds(r, o.end);
  // Congestion control's tables (cc_switch_ports.csv, cc_qps.csv, cc_sl_throttles.csv) only with it.
  if (o.congestion_control) {
    register_switch_kinds(r);
    register_hca_kinds(r, o.cc_per_sl);
  }
  if (o.adaptive_routing) register_ar_switch_kinds(r);
  FabricStatRows rows;
  rows.fabric = r.kind<F>("fabric").add(&fabric, kNoStatParent);
  auto dropped = r.kind<LedgerDrops>("packets.dropped");
  auto management_dropped = r.kind<LedgerDrops>("management_packets.dropped");
  for (int i = 0; i < static_cast<int>(DropReason::kCount); ++i) {
    const auto reason = static_cast<DropReason>(i);
    dropped.add(LedgerDrops{&fabric.ledger(), reason}, rows.fabric, drop_reason_name(reason));
    management_dropped.add(LedgerDrops{&fabric.ledger(), reason}, rows.fabric, drop_reason_name(reason));
  }

  const Topology& topo = fabric.topology();
  std::vector<std::vector<std::string>> peer = peer_names(topo);
  rows.ports.resize(topo.nodes.size());
  for (std::size_t n = 0; n < topo.nodes.size(); ++n) {
    const std::string& node = topo.nodes[n].name;
    const Switch* sw = fabric.switch_at(n);
    const Hca* hca = fabric.hca(n);
    rows.ports[n].assign(topo.nodes[n].num_ports + 1, kNoStatParent);
    for (unsigned p = 1; p <= topo.nodes[n].num_ports; ++p) {
      const LinkPort& lp = fabric.port(n, p);
      if (!lp.connected()) continue;
      IBFSIM_CHECK(!peer[n][p].empty(), "statistics: a connected port on no cable: " + lp.name());
      const std::size_t row = register_port_statistics(r, PortStatsSource{&lp, std::move(peer[n][p])}, node, p);
      rows.ports[n][p] = row;
      if (sw) register_switch_port_discards(r, *sw, static_cast<PortNum>(p), row);
      else if (hca) register_hca_port_discards(r, *hca, static_cast<PortNum>(p), row);
    }
    if (sw && o.adaptive_routing) register_ar_switch_statistics(r, *sw, node);
    if (!o.congestion_control) continue;
    if (sw) register_switch_statistics(r, *sw, node);
    if (hca) register_hca_statistics(r, *hca, node, o.cc_per_sl);
  }
  return rows;
}

}  // namespace ibfsim
