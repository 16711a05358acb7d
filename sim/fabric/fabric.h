// Builds the SystemC modules of a fabric from a Topology: one Hca, Switch or Router per node, both
// directions of every cable wired, LIDs and LFTs from the static routing, optional pcap capture.
// With routers, every subnet (topology_subnets.h) has its own subnet manager, and the static router
// manager (router_manager.h) fills the routers' tables once the subnets are up.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/packet.h"
#include "sim/core/packet_ledger.h"
#include "sim/fabric/fabric_partition.h"
#include "sim/fabric/host_fabric.h"
#include "sim/fabric/link_bring_up.h"
#include "sim/fabric/static_multicast.h"
#include "sim/fabric/static_routing.h"
#include "sim/fabric/topology.h"
#include "sim/link/link.h"
#include "sim/link/sl_to_vl_table.h"
#include "sim/link/vl_arbiter.h"
#include "sim/phy/link_training.h"
#include "sim/phy/skip_schedule.h"
#include "sim/link/port_owner.h"
#include "sim/fabric/topology_subnets.h"
#include "sim/network/router.h"
#include "sim/network/switch.h"
#include "sim/subnet_manager/sm/cc_configuration.h"
#include "sim/subnet_manager/sma/hca_sma.h"
#include "sim/subnet_manager/sma/router_sma.h"
#include "sim/subnet_manager/sm/subnet_manager.h"
#include "sim/subnet_manager/sma/switch_sma.h"
#include "sim/transport/hca.h"
#include "sim/transport/sharp/aggregation_node.h"

namespace ibfsim {

class PcapWriter;

// Link-layer settings a subnet manager would program (PortInfo, SwitchInfo, SL->VL and VL
// arbitration tables); until one exists, a scenario's `link:` section sets them for every port.
struct LinkSettings {
  std::uint32_t mtu = 4096;             // NeighborMTU: largest payload a switch forwards
  unsigned hoq_life_code = 20;          // PortInfo.HOQLife: 4.096 us x 2^code, >= 20 infinite
  unsigned switch_lifetime_code = 20;   // SwitchInfo.LifeTimeValue, same encoding
  std::optional<SlToVlTable> sl_to_vl;  // unset: SL s -> VL s mod OperationalVLs
  std::optional<SlToVlTable> switch_sl_to_vl;  // switches only, every (in, out); unset: sl_to_vl
  VlArbConfig vl_arbitration;           // empty tables: every VL in the low table, weight 64
  // Link training takes its simulated time (link_training.h) before a cable's ports leave Down;
  // off: every cable that trains is up at time 0.
  bool training_delay = true;
};

// PHY settings (scenario `phy:`).
struct PhySettings {
  bool bit_exact = false;        // encode and decode every symbol on the selected links
  double bit_error_rate = 0.0;   // per line bit, on bit-exact links
  std::vector<std::pair<std::size_t, unsigned>> links;  // (node, port) of bit-exact cables; empty = all
  // SKIP ordered sets every this many symbol-clock edges on every link, in both modes (0: none).
  // On by default: the wire carries them, so the timing counts them (skip_schedule.h).
  std::uint64_t skip_interval_edges = kDefaultSkipIntervalEdges;
  // The FEC decoder's latency on every link that runs FEC (fec.h), rounded up to whole edges of the
  // link's symbol clock; the wait for the rest of a codeword comes on top.
  Time fec_decoder_latency = 0;
};

// The in-band subnet manager (scenario `subnet_manager:`): it runs on `port` of HCA `host`, or on
// port 0 of switch `host`, and configures the fabric with SMPs. The modules then start as after
// power-up (no LIDs, empty LFTs, ports Init once trained, default SL->VL and VL arbitration,
// 4096-byte MTU, infinite HOQLife and LifeTimeValue), and the SM programs the `link` settings of
// FabricOptions: link.mtu as the largest NeighborMTU, link.hoq_life, link.switch_lifetime, and,
// when given, the SL->VL and VL arbitration tables (OpenSM's QoS). `config.sweep`'s MTU, HOQLife,
// LifeTimeValue and QoS fields are filled in from there. Multicast forwarding tables stay the
// static trees (static_multicast.h).
struct SubnetManagerSettings {
  std::size_t host = 0;
  PortNum port = 1;
  SubnetManagerConfig config;
};

struct FabricOptions {
  bool carry_payload = false;      // real payload bytes (data checking) instead of elided ones
  std::string pcap_path;           // empty: no capture
  bool pcap_link_packets = false;  // also capture 6-byte flow-control packets
  std::uint32_t pcap_snaplen = 0;  // bytes kept of each frame in the capture; 0 whole frames
  LinkSettings link;
  Time horizon = kTimeNever;       // end of the run (lifetime timers beyond it are never set)
  std::vector<MulticastGroup> multicast;  // group i has MLID 0xC000 + i
  PhySettings phy;
  std::uint64_t seed = 1;          // bit errors draw from streams of this seed
  // How long every node's SMA takes per SMP (sma_shell.h), and per-node exceptions by node index.
  SmaTiming sma_timing;
  std::vector<std::pair<std::size_t, SmaTiming>> sma_timing_by_node;
  // Unset: the static LIDs and routes (static_routing.h) and ports straight to Active, as before a
  // subnet manager existed (fabric tests about other things use it).
  std::optional<SubnetManagerSettings> subnet_manager;
  // With routers: the subnet managers of the other subnets, one each (subnet_manager runs in its
  // host's subnet), with the same settings but the host.
  std::vector<SubnetManagerSettings> other_subnet_managers;
  // Called for every HCA (node index, its configuration) before it is built: the scenario's HCA
  // model settings (`hca_model:`). Unset: HcaConfig's defaults.
  std::function<void(std::size_t, HcaConfig&)> configure_hca;
  // Congestion control (IBA Annex A10, scenario `congestion_control:`); off unless enabled.
  CongestionControlSettings congestion_control;
  // A run in windows and partitions (calendar_process.h, "Partitions and windows"): the fabric-wide
  // calendar runs in windows of the shortest cable's latency, the nodes split among `parts`
  // partitions (fabric_partition.h). Unset: one calendar without windows (tests of blocks).
  struct Partitions {
    unsigned parts = 1;
    std::vector<std::vector<std::size_t>> together;  // nodes that must share a partition
    PartitionMethod method = PartitionMethod::kMetis;
  };
  std::optional<Partitions> partitions;
};

// A scheduled change of a cable's state (scenario `faults:`).
struct LinkFault {
  Time at = 0;
  std::size_t node = 0;
  unsigned port = 0;
  bool up = false;
};

class Fabric final : public HostFabric {
 public:
  // Must run during elaboration (before sc_start).
  Fabric(const Topology& topo, const FabricOptions& options);
  ~Fabric();

  const Topology& topology() const override { return topo_; }
  // The static LIDs and routes; empty when a subnet manager runs.
  const StaticRouting& routing() const { return routing_; }
  // The subnet manager, when one runs (with routers: the first subnet's; all: subnet_managers()).
  SubnetManager* subnet_manager() { return sm_.get(); }
  std::vector<SubnetManager*> subnet_managers();
  // The subnets and their GID prefixes (one, fe80::, without routers).
  const TopologySubnets& subnets() const { return subnets_; }
  // nullptr when the node is not of that type. A router is a switch with a GRH routing unit
  // (router.h): switch_at() returns it too.
  Hca* hca(std::size_t node) override { return hcas_.at(node).get(); }
  Switch* switch_at(std::size_t node) { return switches_.at(node).get(); }
  Router* router(std::size_t node) { return routers_.at(node); }
  // SHARP: switch `node`'s aggregation node, made with `config` the first time it is asked for
  // (sharp_allreduce.h); and a tree id for each job that uses them (0, 1, ...).
  AggregationNode& aggregation_node(std::size_t node, const AggregationNodeConfig& config) {
    auto& an = aggregation_nodes_[node];
    if (!an) an = std::make_unique<AggregationNode>(*switches_.at(node), config);
    return *an;
  }
  const AggregationNode* find_aggregation_node(std::size_t node) const {
    const auto it = aggregation_nodes_.find(node);
    return it == aggregation_nodes_.end() ? nullptr : it->second.get();
  }
  std::uint8_t next_aggregation_tree() { return aggregation_trees_++; }
  // Every node runs an SMA; nullptr when the node is not of that type.
  HcaSma* hca_sma(std::size_t node) { return hca_smas_.at(node).get(); }
  SwitchSma* switch_sma(std::size_t node) { return switch_smas_.at(node).get(); }
  std::vector<std::size_t> hca_nodes() const { return topo_.hcas(); }
  // The link port at (node, port), and the module it belongs to.
  LinkPort& port(std::size_t node, unsigned port);
  ScheduledModule& module(std::size_t node);
  // Cable k: its two ports and wires.
  Link& link(std::size_t k) { return *links_.at(k); }
  // Propagation delay of cable `k` rounded up to whole symbol edges of its link, so that every
  // arrival lands on an edge of the link clock.
  std::uint64_t prop_cycles(std::size_t k) const;

  PacketPool& pool() { return pool_; }
  PacketLedger& ledger() { return ledger_; }
  std::size_t queued_at_sources() const override;
  // HostFabric: a host's time on its link in symbols of port 1.
  std::uint64_t wire_edges(std::size_t node, const Packet& p) override { return port(node, 1).symbols_for(p.wire_bytes()); }
  std::uint64_t ib_sized_wire_edges(std::size_t node, std::uint64_t ib_wire_bytes) override {
    return port(node, 1).symbols_for(ib_wire_bytes);
  }
  double wire_edge_fs(std::size_t node) override { return port(node, 1).clock().period_fs(); }
  std::size_t packets_alive() const override { return pool_.live(); }
  Fabric* infiniband() override { return this; }
  // Throws SimError if the packet ledger does not balance.
  void check_invariants() const;
  // The end of the run, once known (switch lifetime timers beyond it are not set).
  void set_horizon(Time horizon);
  // Schedules link down/up events (at times not before now).
  void schedule_faults(const std::vector<LinkFault>& faults);
  // Brings lazy per-port accounting up to now, then flushes and closes the capture file (if any).
  void finish();
  // Congestion control: every node's Congestion Control Agent takes the CC MADs a subnet manager
  // sends (cc_configuration.h: SwitchCongestionSetting, SwitchPortCongestionSetting,
  // CACongestionSetting, CongestionControlTable) and the node runs with the result. The
  // constructor calls it when options.congestion_control.enabled, at time 0: the stand-in for the
  // SM's congestion control step, which will send the same MADs in-band. Returns the MADs applied.
  std::size_t configure_congestion_control(const CongestionControlSettings& s);
  // The CC MADs the nodes' agents applied: at setup, or (with the SM) the SM's answered Sets.
  std::size_t cc_mads_applied() const { return sm_ ? sm_->cc_mads_answered() : cc_mads_applied_; }
  std::size_t cc_mads_sent() const { return sm_ ? sm_->cc_mads_sent() : cc_mads_applied_; }
  // Every node's CC Sets, as the SM sends them (switches at port 0, HCAs at port 1).
  std::vector<CcTarget> cc_targets(const CongestionControlSettings& s) const;
  // The cables as the partitioner sees them: node weights (1 + cabled ports) and each cable's
  // latency, its propagation plus one symbol edge (nothing crosses it faster).
  PartitionGraph partition_graph() const;
  // How the nodes were split (FabricOptions::partitions; one partition without it), and the
  // window: the shortest cable latency (0: no windows).
  const Partitioning& partitioning() const { return partitioning_; }
  Time window() const { return window_; }
  // A run across several MPI ranks, once its simulation is over (a collective): this rank lets go
  // of the packets it handed to others, and the ledger, the pool and queued_at_sources count every
  // rank's packets.
  void finish_ranks();
  // When a port's link became Active (LinkPort::active_times), as the rank that simulated the port
  // saw it: after finish_ranks, also for the ports of other ranks' nodes.
  const std::vector<Time>& port_active_times(std::size_t node, PortNum p);
  // Across MPI ranks, after the subnet manager's first sweep (a collective): every HCA's and
  // router's port LIDs and every switch's LID as its own rank's SMA set them, so that set-up on any
  // rank, the static router manager and SHARP's aggregation manager read them right.
  void share_port_lids();
  // Total actions run by all modules (a measure of simulation work).
  std::uint64_t events_run() const;
  // Data packets sent over all links (one per packet per hop).
  std::uint64_t packet_hops();
  // Both so far, of every rank (a collective across ranks): the serial and global actions once,
  // each partition's and each port's from the rank that runs it. After finish_ranks, events_run
  // and packet_hops answer these.
  struct Work {
    std::uint64_t events = 0, hops = 0;
  };
  Work work_across_ranks();
  // Link training of cable k: the speed and width both ends' enabled sets and the cable allow.
  const TrainingResult& training(std::size_t k) const { return training_.at(k); }
  // When cable k's ports became Active (after its first training, then after each retrain), and
  // when faults took it down.
  const std::vector<Time>& link_up_times(std::size_t k) const;
  const std::vector<Time>& link_down_times(std::size_t k) const;

 private:
  void share_port_active_times();  // in finish_ranks: fills others_active_
  Topology topo_;
  StaticRouting routing_;
  PacketPool pool_;
  PacketLedger ledger_;
  std::vector<std::unique_ptr<Hca>> hcas_;
  std::vector<std::unique_ptr<Switch>> switches_;
  std::vector<std::unique_ptr<HcaSma>> hca_smas_;
  std::vector<std::unique_ptr<SwitchSma>> switch_smas_;
  std::vector<Router*> routers_;  // owned by switches_
  std::vector<std::unique_ptr<RouterSma>> router_smas_;
  TopologySubnets subnets_;
  std::unique_ptr<SubnetManager> sm_;
  std::vector<std::unique_ptr<SubnetManager>> other_sms_;
  std::unique_ptr<CaptureSink> capture_;
  std::unique_ptr<LinkBringUp> bring_up_;
  std::vector<TrainingResult> training_;
  std::vector<std::unique_ptr<Link>> links_;  // by cable
  std::map<std::size_t, std::unique_ptr<AggregationNode>> aggregation_nodes_;  // by switch node
  std::uint8_t aggregation_trees_ = 0;
  std::size_t cc_mads_applied_ = 0;
  Partitioning partitioning_;
  Time window_ = 0;
  std::optional<Work> ranks_work_;  // finish_ranks: every rank's
  std::size_t others_queued_ = 0;  // finish_ranks: the other ranks' queued_at_sources
  std::map<std::pair<std::size_t, PortNum>, std::vector<Time>> others_active_;  // finish_ranks: their ports'

  // The constructor's steps, in order.
  void build_nodes(const FabricOptions& options);
  void build_management_agents(const FabricOptions& options);
  void cable(const FabricOptions& options);
  void partition(const FabricOptions::Partitions& p);  // fabric_partitions.cpp
  void start_links(const FabricOptions& options);
  void start_subnet_manager(const FabricOptions& options);
};

}  // namespace ibfsim
