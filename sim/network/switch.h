// An InfiniBand switch: input-buffered per (input port, VL), LFT routing on the DLID read from the
// packet bytes, SL->VL mapping per (input, output) port, virtual cut-through, and per output a VL
// arbiter (VL15 first, then the high/low tables) with round robin among the inputs within a VL.
//
// The module owns its ports (LinkPort, one per physical port 1..n) and its hardware blocks, as
// Garnet's router owns its units; the blocks of one switch call each other, and everything they
// do later is an event on the switch's calendar:
//   input_unit.h            per input port: the per-VL FIFOs, the cut-through rule, HOQLife and
//                           LifeTimeValue, tail checks and the discards at the tail;
//   routing_unit.h          the forwarding decision on the LRH (LFT, MFT, SL->VL, MTU, LIDs) and
//                           its discards (R8, R10, R13, R15, R16);
//   adaptive_selector.h     the adaptive routing choice among an AR group's ports;
//   fault_notification.h    adaptive routing's fast recovery: notifications of lost LIDs;
//   ar_congestion_notification.h  adaptive routing's congestion notifications to the switch upstream;
//   output_unit.h           per output port: the requests per output VL, round robin among the
//                           inputs, the port's output stage (port_output.h), R20;
//   multicast_replicator.h  the copies of multicast packets;
//   management_port.h       port 0, towards the SMA;
//   congestion_detector.h   FECN marking (IBA Annex A10), when congestion control is on.
// Discards are counted per port and reason (port_discards): at the input for what the routing
// unit refuses and for bad packets, at the output for what waits there too long or cannot go.
#pragma once
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/packet.h"
#include "sim/core/packet_ledger.h"
#include "sim/core/scheduled_module.h"
#include "sim/link/link_port.h"
#include "sim/link/sl_to_vl_table.h"
#include "sim/link/vl_arbiter.h"
#include "sim/network/adaptive_selector.h"
#include "sim/network/ar_congestion_notification.h"
#include "sim/network/congestion_detector.h"
#include "sim/network/fault_notification.h"
#include "sim/network/input_unit.h"
#include "sim/network/lft.h"
#include "sim/network/management_agent.h"
#include "sim/network/management_port.h"
#include "sim/network/mft.h"
#include "sim/network/multicast_replicator.h"
#include "sim/network/output_unit.h"
#include "sim/network/routing_unit.h"

namespace ibfsim {

// 4.096 us x 2^value; values >= 20 mean infinite (HOQLife, LifeTimeValue).
Time lifetime_from_code(unsigned code);

struct SwitchConfig {
  unsigned num_ports = 36;
  Time latency = 100 * kNs;   // port-to-port, LRH in to first symbol out
  PortBuffers buffers;        // per port
  Lid lid = 0;                // the switch's own LID (management port 0)
  Lft lft;
  Mft mft;
  std::uint32_t mtu = 4096;   // payload bytes every output accepts (NeighborMTU)
  unsigned hoq_life_code = 20;       // PortInfo.HOQLife, all ports
  unsigned life_time_code = 20;      // SwitchInfo.LifeTimeValue
  Time horizon = kTimeNever;  // end of the run: no lifetime timer is set past it
  // Random stream of FECN marking at Marking_Rate: RngStream(seed, kCcMarkingStream + node_index).
  std::uint64_t seed = 1;
  std::uint32_t node_index = 0;
  // SL->VL per (input, output); empty = SL s -> VL s mod op_vls everywhere.
  std::vector<std::vector<SlToVlTable>> sl_to_vl;  // [in][out], ports 1-based (index 0 unused)
  VlArbConfig vl_arbitration;  // every output; empty tables = default_vl_arbitration(op_vls)
  // Adaptive routing's fast recovery: how long the switch takes to send a fault notification after
  // a port went down, and to act on one it received (fault_notification.h); likewise for
  // congestion notifications (ar_congestion_notification.h).
  Time ar_notification_latency = 200 * kNs;
};

struct SwitchStats {
  std::uint64_t forwarded = 0;
  std::uint64_t discarded = 0;
};

class Switch : public ScheduledModule, public PortOwner {
 public:
  Switch(const sc_core::sc_module_name& name, SwitchConfig config, PacketPool& pool, PacketLedger& ledger);

  // Ports are numbered 1..num_ports.
  LinkPort& port(PortNum n) { return *ports_.at(n - 1); }
  unsigned num_ports() const { return static_cast<unsigned>(ports_.size()); }
  // The configuration the switch was built with, and its horizon (set_horizon). What the SMA has
  // programmed since is read through the accessors below (lid(), lft(), mft(), neighbor_mtu(),
  // hoq_life(), life_time(), sl_to_vl_table(), vl_arbitration()).
  const SwitchConfig& config() const { return config_; }
  const SwitchStats& stats() const { return stats_; }
  // Drop counters per output port (PortXmitDiscards) and input port (PortRcvErrors,
  // PortRcvSwitchRelayErrors), by reason.
  std::uint64_t port_discards(PortNum n, DropReason r) const { return discards_.at(n - 1)[static_cast<int>(r)]; }
  // Queue depth (packets) of input (port, VL), for waveforms.
  std::size_t queue_depth(PortNum in, std::uint8_t vl) const { return inputs_.at(in - 1).queue_depth(vl); }
  // The output queue of port `out`: 64-byte blocks of the unicast packets in this switch's input
  // buffers routed to it (every VL), counted by walking the inputs (for samplers, not the hot path).
  std::uint32_t output_queue_blocks(PortNum out) const;
  // The 64-byte blocks of the unicast packets in this switch's input buffers routed to output
  // `out` on its VL `vl` (kept as they come and go: what adaptive routing weighs).
  std::uint32_t queued_blocks(PortNum out, std::uint8_t vl) const { return queued_[out - 1][vl]; }

  // Congestion control (IBA Annex A10, congestion_detector.h): from now on, mark FECN as `config`
  // says (what SwitchCongestionSetting and SwitchPortCongestionSetting Sets program). A config
  // that marks nothing leaves the switch without a detector, at no cost.
  void set_congestion_control(const SwitchCongestionConfig& config);
  const SwitchCongestionConfig& congestion_config() const { return cc_config_; }
  const CongestionDetector* congestion_detector() const { return cc_.get(); }

  // --- management port 0 (management_port.h) ---
  void set_management_agent(ManagementAgent* agent) { management_.set_agent(agent); }
  void send_management(PortNum out, Packet* p) { management_.send_management(out, p); }
  void send_gsi(PortNum out, Packet* p) { management_.send_gsi(out, p); }
  PacketPool& pool() { return pool_; }
  PacketLedger& ledger() { return ledger_; }
  // The switch's LID and LMC (PortInfo of port 0): VL15 packets to LID .. LID + 2^LMC - 1 are its own.
  void set_lid(Lid lid, std::uint8_t lmc = 0) { routing_.set_lid(lid, lmc); }
  Lid lid() const { return routing_.lid(); }
  bool is_own_lid(Lid dlid) const { return routing_.is_own_lid(dlid); }
  Lft& lft() { return routing_.lft(); }
  Mft& mft() { return routing_.mft(); }
  void set_neighbor_mtu(PortNum out, std::uint32_t bytes) { routing_.set_neighbor_mtu(out, bytes); }
  std::uint32_t neighbor_mtu(PortNum out) const { return routing_.neighbor_mtu(out); }
  // PortInfo.HOQLife of output `out` (R17) and SwitchInfo.LifeTimeValue (R18), as codes
  // (lifetime_from_code).
  void set_hoq_life(PortNum out, unsigned code) { outputs_.at(out - 1)->set_hoq_life(lifetime_from_code(code)); }
  Time hoq_life(PortNum out) const { return outputs_.at(out - 1)->hoq_life(); }
  void set_life_time(unsigned code) { life_time_ = lifetime_from_code(code); }
  Time life_time() const { return life_time_; }
  // SL->VL of packets from input `in` to output `out` (both 1..num_ports).
  void set_sl_to_vl(PortNum in, PortNum out, const SlToVlTable& table) { routing_.set_sl_to_vl(in, out, table); }
  const SlToVlTable& sl_to_vl_table(PortNum in, PortNum out) const { return routing_.sl_to_vl(in, out); }
  // The VL arbitration tables of output `out` (the arbiter starts afresh).
  void set_vl_arbitration(PortNum out, const VlArbConfig& config) {
    outputs_.at(out - 1)->stage().set_vl_arbitration(config);
  }
  const VlArbConfig& vl_arbitration(PortNum out) const { return outputs_.at(out - 1)->stage().vl_arbitration(); }
  // End of the run, when it becomes known after construction (lifetime timers beyond it are not set).
  void set_horizon(Time horizon) { config_.horizon = horizon; }

  void on_packet_head(LinkPort& port, Packet* p, Time head, Time tail) override {
    inputs_[port.number() - 1].packet_arrives(p, head, tail);
  }
  void on_tx_done(LinkPort& port, Packet* p) override { outputs_[port.number() - 1]->stage().tx_done(p); }
  void on_output_free(LinkPort& port) override { outputs_[port.number() - 1]->try_start(); }
  void on_credits(LinkPort& port) override { outputs_[port.number() - 1]->try_start(); }
  void on_link_discard(LinkPort& port, Packet* p, DropReason reason) override;
  void on_port_state_change(LinkPort& port) override {
    management_.port_state_changed(port.number());
    notifier_.port_changed(port.number());
  }

  // --- the blocks (they call each other; tests drive them) ---
  InputUnit& input_unit(PortNum in) { return inputs_[in - 1]; }
  OutputUnit& output_unit(PortNum out) { return *outputs_[out - 1]; }
  RoutingUnit& routing_unit() { return routing_; }
  const RoutingUnit& routing_unit() const { return routing_; }
  AdaptiveSelector& adaptive_selector() { return adaptive_; }
  const AdaptiveSelector& adaptive_selector() const { return adaptive_; }
  FaultNotifier& fault_notifier() { return notifier_; }
  const FaultNotifier& fault_notifier() const { return notifier_; }
  ArCongestionNotifier& ar_congestion() { return arn_; }
  const ArCongestionNotifier& ar_congestion() const { return arn_; }
  MulticastReplicator& replicator() { return replicator_; }
  ManagementPort& management_port() { return management_; }

 private:
  friend class InputUnit;
  friend class OutputUnit;
  friend class AdaptiveSelector;
  friend class FaultNotifier;
  friend class ArCongestionNotifier;
  friend class MulticastReplicator;
  friend class ManagementPort;

  // The ports as the routing unit sees them (RoutingUnit::route's `ports`).
  struct PortLinks {
    const std::vector<std::unique_ptr<LinkPort>>& ports;
    unsigned count() const { return static_cast<unsigned>(ports.size()); }
    bool connected(PortNum o) const { return ports[o - 1]->connected(); }
    unsigned op_vls(PortNum o) const { return ports[o - 1]->op_vls(); }
  };
  PortLinks port_links() const { return PortLinks{ports_}; }
  LinkPort& link(PortNum n) { return *ports_[n - 1]; }  // port(n), unchecked: for the blocks
  // Null while congestion control marks nothing.
  CongestionDetector* cc() { return cc_.get(); }

  // Counts a packet discarded at `port` (input or output), by reason.
  void count_discard(PortNum port, DropReason reason, const Packet& p) {
    ++discards_[port - 1][static_cast<int>(reason)];
    ++stats_.discarded;
    ledger_.dropped(reason, counts_as_management(p));
  }
  // A multicast copy dropped at its output: the original is no drop.
  void count_copy_discard(PortNum out, DropReason reason) { ++discards_[out - 1][static_cast<int>(reason)]; }
  // A packet of the management port that port `out` (maybe no port at all) cannot send.
  void count_lost_own(PortNum out, DropReason reason);
  void count_forwarded() { ++stats_.forwarded; }
  // A unicast packet of `blocks` joins (leaves) the queue of output `out`, VL `vl`.
  void queue_joined(PortNum out, std::uint8_t vl, std::uint32_t blocks) { queued_[out - 1][vl] += blocks; }
  void queue_left(PortNum out, std::uint8_t vl, std::uint32_t blocks) { queued_[out - 1][vl] -= blocks; }

  SwitchConfig config_;
  PacketPool& pool_;
  PacketLedger& ledger_;
  Time life_time_;
  std::vector<std::unique_ptr<LinkPort>> ports_;
  RoutingUnit routing_;
  AdaptiveSelector adaptive_;
  FaultNotifier notifier_;
  ArCongestionNotifier arn_;
  std::vector<std::array<std::uint32_t, kMaxDataVls + 1>> queued_;  // [out - 1][vl]
  // Built once, in the constructor: events point at its elements, which must never move.
  std::vector<InputUnit> inputs_;
  std::vector<std::unique_ptr<OutputUnit>> outputs_;
  MulticastReplicator replicator_;
  ManagementPort management_;
  std::vector<std::array<std::uint64_t, static_cast<int>(DropReason::kCount)>> discards_;
  SwitchStats stats_;
  SwitchCongestionConfig cc_config_;
  std::unique_ptr<CongestionDetector> cc_;  // null while congestion control marks nothing
};

}  // namespace ibfsim
