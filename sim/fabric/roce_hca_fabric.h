// The modules of an Ethernet L3 fabric (ethernet/ethernet_fabric_plan.h) with real HCAs as its
// hosts: an EthernetSwitch per switch, an Hca with one Ethernet port per host (its MAC, IP and
// gateway from the plan), an EthernetLink per cable, each at the cable's own rate and propagation
// where the plan gives them (EthernetCablePlan::own), else at the options' one. No subnet manager:
// the routes are the plan's L3 tables, the links are up from time 0. Each host port gets a LID as
// its handle (1, 2, ... in the plan's host order): QPs name their peers by it, as on InfiniBand,
// and the fabric's RoceAddressBook maps it to the host's IP. What a scenario's `fabric: roce`
// builds (workload/roce_run.h).
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/ids.h"
#include "sim/core/packet.h"
#include "sim/core/packet_ledger.h"
#include "sim/ethernet/ethernet_fabric_plan.h"
#include "sim/ethernet/ethernet_link.h"
#include "sim/ethernet/ethernet_switch.h"
#include "sim/fabric/fabric_partition.h"
#include "sim/transport/hca.h"

namespace ibfsim {

struct RoceHcaFabricOptions {
  // Every cable's that has none of its own (the plan's EthernetCablePlan::own).
  EthernetRate rate{EthernetSpeed::k100G, true};
  std::uint64_t propagation_edges = 125;  // per cable, in edges of the byte clock
  Time fec_decoder = 100 * kNs;           // RS-FEC decoder latency (every link with FEC)
  bool cut_through = true;
  Time switch_latency = 300 * kNs;
  std::uint64_t switch_buffer_bytes = 16u << 20;
  EthernetPfcConfig pfc;  // every switch's (pfc_ingress.h): off by default
  // RED/ECN marking at every switch egress queue (ethernet/ecn_marking.h; off by default), its
  // draws from RngStream(seed, kEcnMarkStream + the switch's node index).
  EcnMarkingConfig ecn;
  std::uint64_t seed = 1;
  // Every HCA's configuration before the fabric sets its ports, LID, node index and addresses.
  HcaConfig hca;
  // Called per host (node index, its config) before the Hca is built: a test's or run's changes.
  std::function<void(std::size_t, HcaConfig&)> configure_hca;
};

class RoceHcaFabric {
 public:
  RoceHcaFabric(EthernetFabricPlan plan, RoceHcaFabricOptions options, PacketPool& pool, PacketLedger& ledger);
  RoceHcaFabric(const RoceHcaFabric&) = delete;
  RoceHcaFabric& operator=(const RoceHcaFabric&) = delete;

  const EthernetFabricPlan& plan() const { return plan_; }
  // By node index; nullptr when the node is not of that kind.
  Hca* hca(std::size_t node) { return hcas_.at(node).get(); }
  EthernetSwitch* switch_at(std::size_t node) { return switches_.at(node).get(); }
  Hca& hca(const std::string& name) { return *hcas_.at(plan_.find(name)); }
  const RoceAddressBook& addresses() const { return *book_; }
  // Every transmitter of the fabric writes the frames it starts to `sink` (pcap captures).
  void set_capture(FrameCaptureSink* sink);
  // Each cable direction's id in captures and its name, "h1/1->sw1/1" (plan node names, ports).
  const std::vector<std::pair<std::uint32_t, std::string>>& link_names() const { return link_names_; }

  // --- partitions (roce_hca_fabric_partitions.cpp; docs/architecture.md, "Partitions") ---
  // The fabric as partition_fabric's graph, by plan node: each node weighs 1 + its cabled ports,
  // each cable its least latency (EthernetWire::least_latency, at its own rate and propagation).
  PartitionGraph partition_graph() const;
  // Splits the modules into `parts` partitions (`together`: plan nodes that must share one) and
  // runs the shared calendar in windows of the shortest latency of any cable, whatever the split,
  // so that the windows, and every result, are the same with any number of partitions. The pool's
  // and ledger's counts go per partition. Once, after the fabric is built, before it runs.
  void partition(unsigned parts, std::vector<std::vector<std::size_t>> together,
                 PartitionMethod method = PartitionMethod::kMetis);
  const Partitioning& partitioning() const { return partitioning_; }
  // Across MPI ranks (core/rank_exchange.h): whether this rank simulates plan node `node` (always,
  // before the split or with one rank).
  bool here(std::size_t node) const;
  // At the end of a run across ranks, before anything reads the ledger: lets go of the frames this
  // rank handed to another (their copies live there) and sums the ledger's and the pool's counts
  // across ranks. Every rank calls it; nothing with one rank.
  void finish_ranks();

 private:
  EthernetPort& port(std::size_t node, PortNum p);
  ScheduledModule& module(std::size_t node);

  EthernetFabricPlan plan_;
  std::shared_ptr<RoceAddressBook> book_;
  std::vector<std::unique_ptr<Hca>> hcas_;                // by node index
  std::vector<std::unique_ptr<EthernetSwitch>> switches_;  // by node index
  std::vector<std::unique_ptr<EthernetLink>> links_;
  std::vector<std::pair<std::uint32_t, std::string>> link_names_;
  PacketPool& pool_;
  PacketLedger& ledger_;
  Partitioning partitioning_;
};

}  // namespace ibfsim
