// What the workloads that run on the hosts (traffic classes, NCCL-style collectives, the trace
// replay, the load figures of a run) need from a fabric, whichever it is: the topology that names
// the hosts, each host's HCA, and how long a packet holds a host's link. InfiniBand's Fabric
// (fabric.h) and RoCE's (roce_host_fabric.h: the Ethernet fabric of RoceHcaFabric) implement it,
// so the same workload objects run on either.
#pragma once
#include <cstddef>
#include <cstdint>

#include "sim/core/packet.h"
#include "sim/fabric/topology.h"

namespace ibfsim {

class Fabric;
class Hca;

class HostFabric {
 public:
  virtual ~HostFabric() = default;
  // Node indices are the topology's.
  virtual const Topology& topology() const = 0;
  // The HCA of topology node `node`; nullptr when it is not a host.
  virtual Hca* hca(std::size_t node) = 0;
  // Edges of the clock of host `node`'s port (wire_edge_fs each) that a packet holds its link for,
  // the next packet's start included: on InfiniBand its symbols with the delimiters; on Ethernet
  // its frame with preamble, SFD and inter-frame gap. `p` as the port sends or receives it;
  // `ib_wire_bytes` the size the packet has on InfiniBand without a GRH (LRH .. VCRC:
  // workload/message_packets.h), on Ethernet framed as RoCE v2 by that host's port.
  virtual std::uint64_t wire_edges(std::size_t node, const Packet& p) = 0;
  virtual std::uint64_t ib_sized_wire_edges(std::size_t node, std::uint64_t ib_wire_bytes) = 0;
  virtual double wire_edge_fs(std::size_t node) = 0;
  // Packets alive (the pool's), and those of them still queued at their sources.
  virtual std::size_t packets_alive() const = 0;
  virtual std::size_t queued_at_sources() const = 0;
  // The InfiniBand fabric, for what only it has (SHARP's switches, IPoIB's SMAs); nullptr on RoCE.
  virtual Fabric* infiniband() { return nullptr; }
};

}  // namespace ibfsim
