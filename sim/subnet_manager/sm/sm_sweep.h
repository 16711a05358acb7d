// One heavy sweep of the subnet manager (IBA Vol1 ch. 14; OpenSM's do_sweep), as a pure state
// machine: it says which SMPs to send next and consumes their answers; the SystemC shell
// (subnet_manager.h) puts them on the wire, bounds how many are outstanding, and retries lost ones.
// Every request is a directed-route SMP from the SM's port (as OpenSM sends them).
//
// Phases, each waiting for every answer of the one before (OpenSM's wait for pending transactions):
//   1. Discovery, breadth first from the SM's own node (HopCount 0): NodeInfo of a node; then its
//      NodeDescription, SwitchInfo (switches) and PortInfo of every port (a CA: the port the SMP
//      came in on); every switch port whose link is up (PortPhysicalState LinkUp) and whose far end
//      is not known yet is explored with a NodeInfo one hop further. A NodeInfo answer names the far
//      end (node GUID, LocalPortNum), which joins the two ports; a node already known is not
//      explored again.
//   2. LIDs (lid_assignment.h; ports that had LIDs in an earlier sweep keep them, new ones take the
//      next free aligned ranges) and routes (routing_engine.h) over the discovered SubnetGraph.
//   3. PortInfo Sets: the SM's port first, then every other port whose settings differ from what
//      it reported: LID, LMC, MasterSMLID and the M_Key settings (CA ports, switch port 0), NeighborMTU (the smaller
//      MTUCap of the two ends, at most the configured MTU), OperationalVLs (the smaller VLCap),
//      HOQLife, PortState NoChange.
//   4. LFTs: per switch SwitchInfo (LinearFDBTop, LifeTimeValue, PortStateChange cleared) and every
//      64-LID block up to LinearFDBTop that differs from what this SM programmed before (all of
//      them the first time). With an adaptive routing engine (ar_ftree, ar_updn), then per switch
//      the AdaptiveRoutingGroupTable and AdaptiveRoutingLFT blocks that differ from what it
//      programmed before, and AdaptiveRoutingInfo (enable, SLs, GroupTop, flowlet gap) when it
//      changed (mad/adaptive_routing.h).
//   5. QoS, only when configured (OpenSM's qos option; or when the routing engine needs SLs): an
//      SLtoVLMappingTable per CA port and one per switch (the all-ports modifier bits), VL
//      arbitration blocks per port; for ports configured for the first time.
//   6. Activation (R40: only now that LIDs and LFTs are programmed): every port in Init is Set to
//      Armed; once all answered, every Armed port is Set to Active.
#pragma once
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/core/time.h"
#include "sim/link/sl_to_vl_table.h"
#include "sim/link/vl_arbiter.h"
#include "sim/subnet_manager/mad/adaptive_routing.h"
#include "sim/subnet_manager/mad/node_info.h"
#include "sim/subnet_manager/mad/port_info.h"
#include "sim/subnet_manager/routing/routing_engine.h"
#include "sim/subnet_manager/routing/routing_tables.h"
#include "sim/subnet_manager/mad/smp.h"
#include "sim/subnet_manager/routing/subnet_graph.h"
#include "sim/subnet_manager/mad/switch_info.h"

namespace ibfsim {

// What the SM programs into every switch's AdaptiveRoutingInfo with an adaptive routing engine.
struct ArSweepSettings {
  std::uint16_t sl_mask = 0xFFFF;  // the SLs routed adaptively
  Time flowlet_gap = 0;            // 0: per packet
  bool fast_recovery = true;       // routing notifications when a port goes down
  std::uint8_t credit_levels = 2;  // free credits compared in levels of the next buffer / this (0: exactly)
  std::uint8_t flowlet_margin = 1;  // a flow leaves its port only for one this many levels better
  // Congestion notifications (AdaptiveRoutingInfo.CongestionThreshold, CongestionHold): an output
  // queue of this many blocks notifies the switch upstream (0: off), which ranks that port last
  // for the DLID for `congestion_hold`.
  std::uint16_t congestion_threshold = 0;
  Time congestion_hold = 0;
  // Not programmed: the switches' hardware (SwitchConfig::ar_notification_latency), set by the
  // fabric from here.
  Time notification_latency = 200 * kNs;
};

struct SmSweepConfig {
  unsigned lmc = 0;
  RoutingOptions routing;
  std::uint8_t max_mtu_code = 5;       // NeighborMTU at most this (5: 4096 bytes)
  std::uint8_t hoq_life = 20;          // PortInfo.HOQLife of every switch port
  std::uint8_t life_time = 20;         // SwitchInfo.LifeTimeValue
  // QoS (set: programmed). sl_to_vl on CA ports, switch_sl_to_vl (else sl_to_vl) on switches.
  std::optional<SlToVlTable> sl_to_vl;
  std::optional<SlToVlTable> switch_sl_to_vl;
  std::optional<VlArbConfig> vl_arbitration;  // every port; its high_limit is VLHighLimit
  // M_Key protection (IBA Vol1 14.2.4; OpenSM's m_key, m_key_protection_level, m_key_lease_period):
  // every port whose LID the SM sets (CA ports, switch port 0) gets this M_Key, protection level
  // and lease period with its LID, and every SMP the SM sends carries the M_Key. 0: none.
  std::uint64_t m_key = 0;
  std::uint8_t m_key_protect_bits = 0;   // 0..3
  std::uint16_t m_key_lease_period = 0;  // seconds; 0: the protection never lapses
  ArSweepSettings adaptive_routing;      // with routing ar_ftree or ar_updn
};

enum class SweepPhase : std::uint8_t { kIdle, kDiscovery, kLids, kLfts, kQos, kArm, kActivate, kDone };
const char* sweep_phase_name(SweepPhase p);

struct SweepStats {
  std::uint64_t requests = 0;        // SMPs the sweep asked for (retries not counted)
  std::uint64_t errors = 0;          // answers with a bad status, and requests given up on
  std::uint64_t lft_blocks = 0;      // LFT blocks programmed
  std::uint64_t ar_smps = 0;         // adaptive routing Sets (info, group table and AR LFT blocks)
  std::size_t nodes = 0, switches = 0, cas = 0, links = 0;
};

class SmSweep {
 public:
  // The SM runs on port `sm_port` of the node that sends these SMPs (0: a switch's management port).
  SmSweep(SmSweepConfig config, PortNum sm_port);

  // Starts a heavy sweep from scratch (what the last sweep learned about LIDs and LFTs is kept).
  void start();
  SweepPhase phase() const { return phase_; }
  bool done() const { return phase_ == SweepPhase::kDone; }
  // The next request to send, if the current phase has one (nullopt: wait for answers).
  std::optional<Smp> next_request();
  std::size_t outstanding() const { return pending_.size(); }
  // An answer to an outstanding request (matched by TransactionID; anything else is ignored).
  void on_answer(const Smp& answer);
  // A request the shell gave up on: the sweep goes on without it.
  void on_lost(std::uint64_t tid);

  // What the last sweep found and computed (valid once past discovery / routing).
  const SubnetGraph& graph() const { return graph_; }
  const RoutingTables& tables() const { return tables_; }
  const SweepStats& stats() const { return stats_; }
  // The SM's LID (0 before the first LID assignment).
  Lid sm_lid() const { return sm_lid_; }
  // NodeInfo and PortInfo of graph node `node` as it last reported them (a Set's answer included),
  // for the SA (sa/subnet_administrator.h); nullptr when unknown.
  const NodeInfo* node_info(std::size_t node) const { return node < views_.size() ? &views_[node].info : nullptr; }
  const PortInfo* port_info(std::size_t node, PortNum port) const {
    if (node >= views_.size() || port >= views_[node].ports.size() || !views_[node].port_known[port]) return nullptr;
    return &views_[node].ports[port];
  }
  // What the engine said (updn falling back, ports that could not be configured, ...).
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  enum class Ask : std::uint8_t { kNodeInfo, kNodeDesc, kSwitchInfo, kPortInfo, kSet };
  struct Pending {
    Ask ask;
    std::size_t node;     // graph node (kNoSubnetNode for an unexplored NodeInfo)
    PortNum port;         // PortInfo: the port; explore: the port of `from` it leaves by
    std::size_t from;     // NodeInfo exploration: the node and port it leaves by
    std::vector<PortNum> path;
  };
  struct NodeView {
    NodeInfo info;
    SwitchInfo switch_info;
    std::vector<PortNum> path;                 // a switch's DR path
    std::vector<std::vector<PortNum>> port_paths;  // a CA's DR path per port
    std::vector<PortInfo> ports;               // 0..N, as last reported
    std::vector<bool> port_known;
  };

  std::vector<PortNum> path_to(std::size_t node, PortNum port) const;
  void ask(Ask what, std::uint8_t method, std::uint16_t attr, std::uint32_t mod, std::vector<PortNum> path,
           std::size_t node, PortNum port, std::size_t from = kNoSubnetNode, const SmpData& data = {});
  void explore(std::size_t from, PortNum port);
  void on_node_info(const Pending& p, const Smp& a);
  void on_port_info(const Pending& p, const Smp& a);
  void advance();
  bool compute();  // false: nothing to configure
  void plan_lids();
  void plan_lfts();
  void plan_ar(std::size_t s);
  void plan_qos();
  void plan_state(std::uint8_t from, std::uint8_t to);
  void set_port_info(std::size_t node, PortNum port, const PortInfo& pi);
  bool port_up(std::size_t node, PortNum port) const;

  SmSweepConfig config_;
  PortNum sm_port_;
  SweepPhase phase_ = SweepPhase::kIdle;
  std::uint64_t next_tid_ = 1;
  std::deque<Smp> ready_;
  std::unordered_map<std::uint64_t, Pending> pending_;
  std::vector<NodeView> views_;
  std::unordered_map<Guid, std::size_t> node_by_guid_;
  SubnetGraph graph_;
  RoutingTables tables_;
  SweepStats stats_;
  Lid sm_lid_ = 0;
  std::vector<std::string> notes_;
  // Kept across sweeps: LIDs by port GUID, LFTs programmed by switch GUID, ports given QoS tables.
  std::unordered_map<Guid, LidRange> lid_cache_;
  unsigned cached_lmc_ = 0;
  std::unordered_map<Guid, std::vector<PortNum>> programmed_lft_;
  std::unordered_map<Guid, std::vector<bool>> qos_done_;
  // Adaptive routing programmed, by switch GUID: group masks by group, AR LFT by LID, the info.
  struct ArProgrammed {
    std::vector<std::vector<PortNum>> groups;  // [group], entry 0 unused
    std::vector<std::uint16_t> lft;
    std::optional<AdaptiveRoutingInfo> info;
  };
  std::unordered_map<Guid, ArProgrammed> programmed_ar_;
};

}  // namespace ibfsim
