// A fabric split among partitions for a parallel run (fabric.h, FabricOptions::partitions).
#include <algorithm>

#include "sim/core/calendar_process.h"
#include "sim/core/error.h"
#include "sim/fabric/fabric.h"

namespace ibfsim {

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
  if (partitioning_.parts > 1) calendar.add_barrier_hook([this] { pool_.balance(); });
}

}  // namespace ibfsim
