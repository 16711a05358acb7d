// Builds the SystemC modules of a fabric from a Topology: one Hca or Switch per node, both
// directions of every cable wired, LIDs and LFTs from the static routing, optional pcap capture.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "sim/core/packet.h"
#include "sim/core/packet_ledger.h"
#include "sim/fabric/static_routing.h"
#include "sim/fabric/topology.h"
#include "sim/link/port_owner.h"
#include "sim/network/switch.h"
#include "sim/transport/hca.h"

namespace ibfsim {

class PcapWriter;

struct FabricOptions {
  bool carry_payload = false;      // real payload bytes (data checking) instead of elided ones
  std::string pcap_path;           // empty: no capture
  bool pcap_link_packets = false;  // also capture 6-byte flow-control packets
};

class Fabric {
 public:
  // Must run during elaboration (before sc_start).
  Fabric(const Topology& topo, const FabricOptions& options);
  ~Fabric();

  const Topology& topology() const { return topo_; }
  const StaticRouting& routing() const { return routing_; }
  // nullptr when the node is not of that type.
  Hca* hca(std::size_t node) { return hcas_.at(node).get(); }
  Switch* switch_at(std::size_t node) { return switches_.at(node).get(); }
  std::vector<std::size_t> hca_nodes() const { return topo_.hcas(); }
  // The link port at (node, port).
  LinkPort& port(std::size_t node, unsigned port);
  // Propagation delay of cable `k` rounded up to whole symbol edges of its link, so that every
  // arrival lands on an edge of the link clock.
  std::uint64_t prop_cycles(std::size_t k) const;

  PacketPool& pool() { return pool_; }
  PacketLedger& ledger() { return ledger_; }
  std::size_t queued_at_sources() const;
  // Throws SimError if the packet ledger does not balance.
  void check_invariants() const;
  // Flushes and closes the capture file (if any).
  void finish();
  // Total actions run by all modules (a measure of simulation work).
  std::uint64_t actions_run() const;
  // Data packets sent over all links (one per packet per hop).
  std::uint64_t packet_hops();

 private:
  Topology topo_;
  StaticRouting routing_;
  PacketPool pool_;
  PacketLedger ledger_;
  std::vector<std::unique_ptr<Hca>> hcas_;
  std::vector<std::unique_ptr<Switch>> switches_;
  std::unique_ptr<CaptureSink> capture_;
};

}  // namespace ibfsim
