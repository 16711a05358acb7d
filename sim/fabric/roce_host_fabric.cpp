#include "sim/fabric/roce_host_fabric.h"

#include "sim/core/error.h"
#include "sim/ethernet/ethernet_frame_timing.h"
#include "sim/transport/roce/roce_hca_port.h"

namespace ibfsim {

RoceHostFabric::RoceHostFabric(RoceHcaFabric& fabric, const Topology& topo, const PacketPool& pool)
    : fabric_(fabric), topo_(topo), pool_(pool), plan_node_(topo.nodes.size()) {
  for (std::size_t n = 0; n < topo.nodes.size(); ++n) {
    plan_node_[n] = fabric.plan().find(topo.nodes[n].name);
    IBFSIM_CHECK(plan_node_[n] < fabric.plan().nodes.size(), "RoceHostFabric: a topology node is not in the plan");
  }
}

Hca* RoceHostFabric::hca(std::size_t node) { return fabric_.hca(plan_node_.at(node)); }

Hca& RoceHostFabric::host(std::size_t node) {
  Hca* h = hca(node);
  IBFSIM_CHECK(h != nullptr, "RoceHostFabric: a host's link asked of a switch");
  return *h;
}

std::uint64_t RoceHostFabric::wire_edges(std::size_t, const Packet& p) { return ethernet_wire_edges(p.wire_bytes()); }

std::uint64_t RoceHostFabric::ib_sized_wire_edges(std::size_t node, std::uint64_t ib_wire_bytes) {
  return ethernet_wire_edges(roce_frame_bytes(host(node).roce_port(1), ib_wire_bytes));
}

double RoceHostFabric::wire_edge_fs(std::size_t node) { return host(node).ethernet_port(1).clock().period_fs(); }

std::size_t RoceHostFabric::queued_at_sources() const {
  std::size_t n = 0;
  for (const std::size_t h : fabric_.plan().hosts()) n += fabric_.hca(h)->queued_packets();
  return n;
}

}  // namespace ibfsim
