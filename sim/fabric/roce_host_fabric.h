// The Ethernet fabric of a `fabric: roce` run (roce_hca_fabric.h) as the workloads on its hosts see
// it (host_fabric.h): by the topology's node indices (the plan numbers its nodes switches first),
// a packet's time on a host's link that of its RoCE v2 frame with preamble, SFD and inter-frame
// gap on the byte clock. Load 1.0 of a host is therefore its Ethernet link's full rate.
#pragma once
#include <cstddef>
#include <vector>

#include "sim/core/packet.h"
#include "sim/fabric/host_fabric.h"
#include "sim/fabric/roce_hca_fabric.h"
#include "sim/fabric/topology.h"

namespace ibfsim {

class RoceHostFabric final : public HostFabric {
 public:
  // `topo` is the one `fabric`'s plan was made from (ethernet_plan_from_topology): nodes match by name.
  RoceHostFabric(RoceHcaFabric& fabric, const Topology& topo, const PacketPool& pool);

  const Topology& topology() const override { return topo_; }
  const EthernetFabricPlan& plan() const { return fabric_.plan(); }
  Hca* hca(std::size_t node) override;
  std::uint64_t wire_edges(std::size_t node, const Packet& p) override;
  std::uint64_t ib_sized_wire_edges(std::size_t node, std::uint64_t ib_wire_bytes) override;
  double wire_edge_fs(std::size_t node) override;
  std::size_t packets_alive() const override { return pool_.live(); }
  std::size_t queued_at_sources() const override;

 private:
  Hca& host(std::size_t node);  // the HCA of a host node (checked)

  RoceHcaFabric& fabric_;
  const Topology& topo_;
  const PacketPool& pool_;
  std::vector<std::size_t> plan_node_;  // [topology node]
};

}  // namespace ibfsim
