// A fabric split among partitions for a parallel run (fabric.h, FabricOptions::partitions).
#include <algorithm>

#include "sim/core/calendar_process.h"
#include "sim/core/error.h"
#include "sim/core/rank_event_codec.h"
#include "sim/core/rank_exchange.h"
#include "sim/fabric/fabric.h"

namespace ibfsim {

namespace {
// Every rank's `mine`, rank by rank, on every rank (a collective).
std::vector<std::uint8_t> every_ranks_bytes(const std::vector<std::uint8_t>& mine) {
  std::vector<std::uint8_t> all;
  for (const auto& b : ranks::gather(mine)) all.insert(all.end(), b.begin(), b.end());
  ranks::broadcast(all);
  return all;
}
}  // namespace

PartitionGraph Fabric::partition_graph() const {
  PartitionGraph g;
  g.node_weight.assign(topo_.nodes.size(), 1);
  for (std::size_t k = 0; k < topo_.cables.size(); ++k) {
    const TopoCable& c = topo_.cables[k];
    ++g.node_weight[c.node_a];
    ++g.node_weight[c.node_b];
    // Both directions have the same rate and propagation: the first edge the far end can see
    // anything on is prop + 1 edges after the sender's.
    Wire& w = links_[k]->a_to_b();
    g.cables.push_back({c.node_a, c.node_b, w.clock().time_of(w.prop_cycles() + 1)});
  }
  return g;
}

void Fabric::partition(const FabricOptions::Partitions& options) {
  PartitionGraph g = partition_graph();
  g.together = options.together;
  partitioning_ = partition_fabric(g, options.parts, options.method);
  // The window is the shortest latency of *any* cable, however the fabric is split, so that the
  // windows (and every barrier) are the same with any number of partitions: results do not
  // depend on it. A fabric without cables has nothing to cross: windows of a microsecond.
  window_ = kUs;
  if (!g.cables.empty()) {
    window_ = kTimeNever;
    for (const auto& c : g.cables) window_ = std::min(window_, std::max<Time>(1, c.latency));
  }
  std::vector<std::uint32_t> of_module;
  for (std::size_t n = 0; n < topo_.nodes.size(); ++n) {
    const std::uint32_t id = module(n).id();
    if (of_module.size() <= id) of_module.resize(id + 1, 0);
    of_module[id] = partitioning_.part[n];
  }
  // Each partition counts and recycles packets in its own slot (packet.h, packet_ledger.h): the
  // partitions of a window run on threads of their own.
  pool_.set_partitions(partitioning_.parts);
  ledger_.set_partitions(partitioning_.parts);
  CalendarProcess& calendar = CalendarProcess::shared();
  calendar.set_partitions(std::move(of_module), partitioning_.parts, window_);
  if (ranks::several()) {
    // Across MPI ranks (rank_exchange.h): packets from other ranks come from this pool, and at
    // every barrier, before anything reads them, the ledger and pool take in the others' counts.
    set_rank_packet_pool(&pool_);
    ledger_.set_rank_base();
    pool_.set_rank_base();
    calendar.add_barrier_hook([this] {
      ledger_.gather_ranks();
      pool_.gather_ranks();
    });
  }
  if (partitioning_.parts > 1) calendar.add_barrier_hook([this] { pool_.balance(); });
}

void Fabric::share_port_lids() {
  if (!ranks::several()) return;
  const auto parts = static_cast<unsigned>(partitioning_.parts), nranks = static_cast<unsigned>(ranks::size());
  const auto me = static_cast<unsigned>(ranks::rank());
  auto owner = [&](std::size_t n) { return ranks::rank_of_partition(partitioning_.part[n], parts, nranks); };
  // Port 0 stands for a switch's own LID. Routers' ports and switches' LIDs are read too: the static
  // router manager fills every router's tables with them (router_manager.h), on every rank, and
  // SHARP's aggregation manager addresses its TreeConfig MADs and the jobs their chunks to switches.
  std::vector<std::uint8_t> mine;
  ByteWriter w(mine);
  auto put = [&w](std::size_t n, PortNum p, Lid lid, std::uint8_t lmc) {
    w.put(static_cast<std::uint64_t>(n));
    w.put(p);
    w.put(lid);
    w.put(lmc);
  };
  for (std::size_t n = 0; n < topo_.nodes.size(); ++n) {
    if (owner(n) != me) continue;
    if (const Hca* h = hcas_[n].get()) {
      for (PortNum p = 1; p <= h->num_ports(); ++p) put(n, p, h->lid(p), h->lmc(p));
    } else if (Router* r = routers_[n]) {
      for (PortNum p = 1; p <= topo_.nodes[n].num_ports; ++p) put(n, p, r->port_lid(p), r->forwarding().port_lmc(p));
    } else if (const Switch* s = switches_[n].get()) {
      // Its LMC as its SMA was told it (the switch keeps it only for its own checks).
      const SwitchSma* sma = switch_smas_[n].get();
      put(n, 0, s->lid(), sma ? sma->state().ports[0].info.lmc : std::uint8_t{0});
    }
  }
  const std::vector<std::uint8_t> all = every_ranks_bytes(mine);
  ByteReader r(all);
  while (!r.done()) {
    const auto n = r.get<std::uint64_t>();
    const auto p = r.get<PortNum>();
    const auto lid = r.get<Lid>();
    const auto lmc = r.get<std::uint8_t>();
    if (owner(n) == me) continue;
    if (hcas_.at(n)) hcas_[n]->set_port_lid(p, lid, lmc);
    else if (routers_.at(n)) routers_[n]->set_port_lid(p, lid, lmc);
    else switches_.at(n)->set_lid(lid, lmc);
  }
}

namespace {

// A port's rx_flow_control adds the idle refreshes its link's sender accounts on the wire
// (LinkPort::stats): on a cable cut between ranks only the sender's rank counted them, so each
// rank sends what its senders counted and the receiver's rank takes it onto its copy of the wire.
void share_idle_refreshes(Fabric& fabric) {
  const Partitioning& part = fabric.partitioning();
  const auto nranks = static_cast<unsigned>(ranks::size()), me = static_cast<unsigned>(ranks::rank());
  auto owner = [&](std::size_t n) { return ranks::rank_of_partition(part.part[n], part.parts, nranks); };
  const Topology& topo = fabric.topology();
  std::vector<std::uint8_t> mine;
  ByteWriter w(mine);
  for (std::size_t k = 0; k < topo.cables.size(); ++k) {
    const TopoCable& c = topo.cables[k];
    if (owner(c.node_a) == owner(c.node_b)) continue;
    const bool a_to_b = owner(c.node_a) == me;  // the direction this rank sent on
    if (!a_to_b && owner(c.node_b) != me) continue;
    Wire& out = a_to_b ? fabric.link(k).a_to_b() : fabric.link(k).b_to_a();
    w.put(static_cast<std::uint64_t>(k));
    w.put(a_to_b);
    w.put(out.idle_refreshes());
  }
  const std::vector<std::uint8_t> all = every_ranks_bytes(mine);
  ByteReader r(all);
  while (!r.done()) {
    const auto k = static_cast<std::size_t>(r.get<std::uint64_t>());
    const bool a_to_b = r.get<bool>();
    const auto n = r.get<std::uint64_t>();
    const TopoCable& c = topo.cables.at(k);
    if (owner(a_to_b ? c.node_a : c.node_b) == me) continue;
    Wire& in = a_to_b ? fabric.link(k).a_to_b() : fabric.link(k).b_to_a();
    // The sender's count replaces this copy's (which has only what global instants, run on every
    // rank, counted): unsigned arithmetic wraps to exactly n.
    in.count_idle_refreshes(n - in.idle_refreshes());
  }
}

}  // namespace

const std::vector<Time>& Fabric::port_active_times(std::size_t node, PortNum p) {
  const auto it = others_active_.find({node, p});
  return it != others_active_.end() ? it->second : port(node, p).active_times();
}

void Fabric::share_port_active_times() {
  // Every end of a cable its rank simulated, to every rank: each rank's copies of the other ranks'
  // ports never left Down, and a link's row (links.csv) needs both of its ends.
  const auto parts = static_cast<unsigned>(partitioning_.parts), nranks = static_cast<unsigned>(ranks::size());
  const auto me = static_cast<unsigned>(ranks::rank());
  auto owner = [&](std::size_t n) { return ranks::rank_of_partition(partitioning_.part[n], parts, nranks); };
  std::vector<std::uint8_t> mine;
  ByteWriter w(mine);
  for (const TopoCable& c : topo_.cables)
    for (const auto& [n, p] : {std::pair{c.node_a, c.port_a}, std::pair{c.node_b, c.port_b}}) {
      if (owner(n) != me) continue;
      w.put(static_cast<std::uint64_t>(n));
      w.put(static_cast<PortNum>(p));
      const std::vector<Time>& t = port(n, p).active_times();
      w.put(static_cast<std::uint64_t>(t.size()));
      for (const Time x : t) w.put(x);
    }
  const std::vector<std::uint8_t> all = every_ranks_bytes(mine);
  ByteReader r(all);
  while (!r.done()) {
    const auto n = static_cast<std::size_t>(r.get<std::uint64_t>());
    const auto p = r.get<PortNum>();
    std::vector<Time> t(static_cast<std::size_t>(r.get<std::uint64_t>()));
    for (Time& x : t) x = r.get<Time>();
    if (owner(n) != me) others_active_[{n, p}] = std::move(t);
  }
}

Fabric::Work Fabric::work_across_ranks() {
  if (!ranks::several()) return Work{events_run(), packet_hops()};
  const auto parts = static_cast<unsigned>(partitioning_.parts), nranks = static_cast<unsigned>(ranks::size());
  const auto me = static_cast<unsigned>(ranks::rank());
  auto mine = [&](std::size_t n) { return ranks::rank_of_partition(partitioning_.part[n], parts, nranks) == me; };
  std::uint64_t hops = 0;
  for (const TopoCable& c : topo_.cables) {
    if (mine(c.node_a)) hops += port(c.node_a, c.port_a).stats().tx_packets;
    if (mine(c.node_b)) hops += port(c.node_b, c.port_b).stats().tx_packets;
  }
  const std::uint64_t serial = CalendarProcess::total_events() - CalendarProcess::partition_events();
  std::vector<std::uint64_t> sums{CalendarProcess::partition_events(), hops};
  ranks::sum(sums);
  return Work{serial + sums[0], sums[1]};
}

void Fabric::finish_ranks() {
  if (!ranks::several()) return;
  ranks_work_ = work_across_ranks();
  release_deferred(kTimeNever);
  ledger_.gather_ranks();
  pool_.gather_ranks();
  share_port_active_times();
  share_idle_refreshes(*this);
  // Only the rank that runs an HCA has anything queued at it.
  others_queued_ = 0;
  const std::size_t mine = queued_at_sources();
  std::vector<std::uint64_t> all{mine};
  ranks::sum(all);
  others_queued_ = static_cast<std::size_t>(all[0]) - mine;
}

}  // namespace ibfsim
