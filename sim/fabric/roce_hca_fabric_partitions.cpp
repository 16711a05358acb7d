// A RoCE fabric split among partitions for a parallel run (roce_hca_fabric.h), as fabric_partitions.cpp
// splits an InfiniBand one: the only edges between modules are frames on cables (PFC pause frames
// and DCQCN's CNPs among them), each at least its cable's least latency ahead.
#include <algorithm>

#include "sim/core/calendar_process.h"
#include "sim/core/rank_event_codec.h"
#include "sim/core/rank_exchange.h"
#include "sim/fabric/roce_hca_fabric.h"

namespace ibfsim {

PartitionGraph RoceHcaFabric::partition_graph() const {
  PartitionGraph g;
  g.node_weight.assign(plan_.nodes.size(), 1);
  for (std::size_t k = 0; k < plan_.cables.size(); ++k) {
    const EthernetCablePlan& c = plan_.cables[k];
    ++g.node_weight[c.a];
    ++g.node_weight[c.b];
    // Both directions have the same rate and propagation.
    g.cables.push_back({c.a, c.b, links_[k]->a_to_b().least_latency()});
  }
  return g;
}

void RoceHcaFabric::partition(unsigned parts, std::vector<std::vector<std::size_t>> together, PartitionMethod method) {
  PartitionGraph g = partition_graph();
  g.together = std::move(together);
  partitioning_ = partition_fabric(g, parts, method);
  // The shortest latency of *any* cable (cables may each have their own speed and length), not of
  // the cut ones: the windows then do not depend on the split. Without cables: a microsecond.
  Time window = kUs;
  if (!g.cables.empty()) {
    window = kTimeNever;
    for (const auto& c : g.cables) window = std::min(window, std::max<Time>(1, c.latency));
  }
  std::vector<std::uint32_t> of_module;
  for (std::size_t n = 0; n < plan_.nodes.size(); ++n) {
    const std::uint32_t id = switches_[n] ? switches_[n]->id() : hcas_[n]->id();
    if (of_module.size() <= id) of_module.resize(id + 1, 0);
    of_module[id] = partitioning_.part[n];
  }
  pool_.set_partitions(partitioning_.parts);
  ledger_.set_partitions(partitioning_.parts);
  CalendarProcess& calendar = CalendarProcess::shared();
  calendar.set_partitions(std::move(of_module), partitioning_.parts, window);
  if (ranks::several()) {
    // Across MPI ranks, as an InfiniBand fabric (fabric_partitions.cpp): frames from other ranks
    // come from this pool, and at every barrier, before anything reads them, the ledger and the
    // pool take in the others' counts.
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

bool RoceHcaFabric::here(std::size_t node) const {
  if (!ranks::several() || partitioning_.part.empty()) return true;
  return ranks::rank_of_partition(partitioning_.part.at(node), partitioning_.parts,
                                  static_cast<unsigned>(ranks::size())) == static_cast<unsigned>(ranks::rank());
}

void RoceHcaFabric::finish_ranks() {
  if (!ranks::several()) return;
  release_deferred(kTimeNever);
  ledger_.gather_ranks();
  pool_.gather_ranks();
}

}  // namespace ibfsim
