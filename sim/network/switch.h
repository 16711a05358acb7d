// An InfiniBand switch: input-buffered per (input port, VL), LFT routing on the DLID read from the
// packet bytes, SL->VL mapping per (input, output) port, virtual cut-through, and per output a VL
// arbiter (VL15 first, then the high/low tables) with round robin among the inputs within a VL.
//
// Forwarding timing: a packet whose LRH is in at `head` and whose tail arrives at `tail` may
// leave on output o at the first edge c of o's clock with
//   time(c) >= head + latency   and   time(c + s_out) >= tail + latency,
// i.e. cut-through after the port-to-port latency, but never so early that the output (which
// takes s_out edges) would run ahead of a slower input. Each (input, VL) is a FIFO: its head
// packet requests its output once eligible (head-of-line blocking within a VL, none across VLs),
// and frees its buffer space (returning credits upstream) when its last symbol has left.
//
// Discards, each counted with its reason: unknown DLID or above LinearFDBTop (R15), SL mapped to
// VL15 or a non-operational VL (R16), payload above the output MTU (R10), head of queue longer
// than HOQLife (R17), older than LifeTimeValue (R18), output not Active or down (R20), DLID 0 or
// an SLID that is not unicast (0xFFFF is allowed on VL15 only, for directed-route SMPs) (R13).
//
// Management port 0: a VL15 packet whose DLID is the permissive LID or the switch's own LID goes
// to the switch's ManagementAgent (its SMA) once its tail is in, instead of an output; the agent
// sends SMPs out of any port with send_management, and a management packet goes before the VL15
// packets of the inputs. The SMA programs the switch through the setters below (LID, LFT, MTU,
// HOQLife, LifeTimeValue, SL->VL, VL arbitration), which take effect for the next packet.
//
// Bad packets (a PHY error, a failed VCRC, an EBP end: LinkPort::check_tail) are known only at
// their tail, so the switch forwards as usual and checks at the tail time, with an event only for
// packets on an input where the line can corrupt them or whose sender may still stomp them. A bad
// packet that has not started on its output is discarded then (counted at the input); one that a
// cut-through already started is ended with EBP on the output (LinkPort::stomp), as are the
// multicast copies on the wire (the copies not yet started are not sent), and the next receiver
// drops it.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "sim/core/packet.h"
#include "sim/core/packet_ledger.h"
#include "sim/core/ring_queue.h"
#include "sim/core/scheduled_module.h"
#include "sim/link/link_port.h"
#include "sim/link/port_output.h"
#include "sim/link/sl_to_vl_table.h"
#include "sim/link/vl_arbiter.h"
#include "sim/network/congestion_detector.h"
#include "sim/network/lft.h"
#include "sim/network/management_agent.h"
#include "sim/network/mft.h"

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
  const SwitchConfig& config() const { return config_; }
  const SwitchStats& stats() const { return stats_; }
  // Drop counters per output port (PortXmitDiscards) and input port (PortRcvErrors,
  // PortRcvSwitchRelayErrors), by reason.
  std::uint64_t port_discards(PortNum n, DropReason r) const { return discards_.at(n - 1)[static_cast<int>(r)]; }
  // Queue depth (packets) of input (port, VL), for waveforms.
  std::size_t queue_depth(PortNum in, std::uint8_t vl) const { return inputs_.at(in - 1).at(vl).size(); }
  // The output queue of port `out`: 64-byte blocks of the unicast packets in this switch's input
  // buffers routed to it (every VL), counted by walking the inputs (for samplers, not the hot path).
  std::uint32_t output_queue_blocks(PortNum out) const;

  // Congestion control (IBA Annex A10, congestion_detector.h): from now on, mark FECN as `config`
  // says (what SwitchCongestionSetting and SwitchPortCongestionSetting Sets program). A config
  // that marks nothing leaves the switch without a detector, at no cost.
  void set_congestion_control(const SwitchCongestionConfig& config);
  const SwitchCongestionConfig& congestion_config() const { return cc_config_; }
  const CongestionDetector* congestion_detector() const { return cc_.get(); }

  // --- management port 0 ---
  void set_management_agent(ManagementAgent* agent) { agent_ = agent; }
  // Sends an SMP (a VL15 packet, counted by the agent as created) out of port `out`; on a port
  // that is down or not cabled it is dropped and counted.
  void send_management(PortNum out, Packet* p);
  // Sends a GMP (QP1, e.g. a Congestion Control GetResp) out of `out` on the data VL in its LRH:
  // it needs that VL's credits and goes ahead of the crossbar's packets of every VL once it has
  // them (GMPs are rare). A data-VL packet to the switch's own LID reaches the agent like an SMP.
  void send_gsi(PortNum out, Packet* p);
  PacketPool& pool() { return pool_; }
  PacketLedger& ledger() { return ledger_; }
  // The switch's LID and LMC (PortInfo of port 0): VL15 packets to LID .. LID + 2^LMC - 1 are its own.
  void set_lid(Lid lid, std::uint8_t lmc = 0) { config_.lid = lid; lmc_ = lmc; }
  Lid lid() const { return config_.lid; }
  bool is_own_lid(Lid dlid) const {
    return config_.lid != 0 && dlid >= config_.lid && static_cast<unsigned>(dlid - config_.lid) < (1u << lmc_);
  }
  Lft& lft() { return config_.lft; }
  Mft& mft() { return config_.mft; }
  void set_neighbor_mtu(PortNum out, std::uint32_t bytes) { out_mtu_.at(out - 1) = bytes; }
  std::uint32_t neighbor_mtu(PortNum out) const { return out_mtu_.at(out - 1); }
  void set_hoq_life(PortNum out, unsigned code) { hoq_life_.at(out - 1) = lifetime_from_code(code); }
  Time hoq_life(PortNum out) const { return hoq_life_.at(out - 1); }
  void set_life_time(unsigned code) {
    config_.life_time_code = code;
    life_time_ = lifetime_from_code(code);
  }
  // SL->VL of packets from input `in` to output `out` (both 1..num_ports).
  void set_sl_to_vl(PortNum in, PortNum out, const SlToVlTable& table);
  const SlToVlTable& sl_to_vl_table(PortNum in, PortNum out) const { return sl_to_vl(in, out); }
  // The VL arbitration tables of output `out` (the arbiter starts afresh).
  void set_vl_arbitration(PortNum out, const VlArbConfig& config);
  const VlArbConfig& vl_arbitration(PortNum out) const { return outputs_.at(out - 1)->stage.vl_arbitration(); }
  // End of the run, when it becomes known after construction (lifetime timers beyond it are not set).
  void set_horizon(Time horizon) { config_.horizon = horizon; }

  void on_packet_head(LinkPort& port, Packet* p, Time head, Time tail) override;
  void on_tx_done(LinkPort& port, Packet* p) override;
  void on_output_free(LinkPort& port) override;
  void on_credits(LinkPort& port) override;
  void on_link_discard(LinkPort& port, Packet* p, DropReason reason) override;
  void on_port_state_change(LinkPort& port) override;

  // --- events (event.h) ---
  // A queued packet: the entry `serial` of input (in, vl); for a multicast copy, `out` names the
  // copy's output (0: the packet's own output).
  struct EntryRef {
    std::uint64_t serial;
    PortNum in;
    std::uint8_t vl;
    PortNum out;
  };
  // A packet discarded on its header, counted at its tail (where a link error found then counts first).
  struct TailDiscard {
    PortNum in;
    DropReason reason;
    bool check;  // its tail needs the link layer's verdict
  };
  // The head of input (in, vl) may now request its output (the cut-through rule), or a copy its.
  void head_eligible(EntryRef r);
  void copy_eligible(EntryRef r);
  void discard_at_tail(Packet* p, TailDiscard d);
  // HOQLife (R17) or the switch lifetime (R18) of a queued head ran out.
  void hoq_expired(EntryRef r);
  void lifetime_expired(EntryRef r);
  // The tail of a packet that may turn out bad has arrived: the link layer's verdict (tail_check).
  void tail_arrives(EntryRef r);
  // An SMP to the management port (or a GMP to the switch's LID) is in whole.
  void management_arrives(Packet* p, TailDiscard where);

 private:
  struct Entry {
    Packet* p;
    Time head, tail;
    PortNum out;
    std::uint8_t out_vl;
    std::uint32_t blocks;
    bool requesting = false;  // registered with its output
    bool granted = false;     // on the wire
    std::uint64_t serial = 0;
    bool fecn = false;        // met congestion on arrival: leaves with FECN (congestion_detector.h)
    // Multicast: the MFT entry (copies go to each port but the input), copies not yet started
    // and copies on the wire. The entry leaves the input when both are 0.
    const std::vector<PortNum>* mcast = nullptr;
    std::uint16_t copies_left = 0;
    std::uint16_t copies_active = 0;
    // Checked at the tail (LinkPort::tail_check_needed): its numbers on the input and output
    // links, whether the check has run, and whether it failed (multicast: send no more copies).
    bool check = false;
    bool tail_checked = false;
    bool bad = false;
    std::uint64_t in_seq = 0;
    std::uint64_t out_seq = 0;
  };
  using Requester = std::uint16_t;  // (input port << 4) | input VL
  // One output: the inputs' requests per output VL, offered to its port output stage
  // (port_output.h), which also sends the management port's own SMPs and GMPs.
  struct Output : PortOutput::Source {
    Output(Switch& sw, PortNum out, const VlArbConfig& arbitration)
        : sw(sw), out(out), stage(sw.port(out), *this, arbitration, false) {
      next_rr.fill(1);
    }
    Switch& sw;
    PortNum out;
    std::array<std::vector<Requester>, kMaxDataVls + 1> requesters;  // per output VL
    std::uint16_t waiting = 0;  // bit v: requesters[v] not empty (bit 15: VL15 packets passing through)
    std::array<PortNum, kMaxDataVls + 1> next_rr{};
    std::array<std::int16_t, kMaxDataVls + 1> winner{};  // per VL: the request candidate() found
    Requester sending = 0;          // the input whose packet is on the wire (0: none of the inputs')
    std::uint64_t sending_seq = 0;  // its link_seq on this output
    PortOutput stage;

    void prepare() override { sw.discard_unsendable(out); }
    std::uint16_t waiting_vls() const override { return waiting; }
    PortOutput::Candidacy candidate(std::uint8_t vl) override { return sw.candidate(*this, vl); }
    Packet* take(std::uint8_t vl) override { return sw.grant(*this, vl); }
    void sent(std::uint8_t vl, Packet* p, Time start) override;
    bool blocked_after_send(std::uint8_t vl) override { return sw.blocked_after_send(*this, vl); }
    void tx_done(Packet* p) override { sw.output_done(*this, p); }
    void drop_own(Packet* p, DropReason reason) override { sw.count_discard(out, reason, *p); }
  };

  Time eligible_time(const Entry& e, PortNum out) const;
  void consider_head(PortNum in, std::uint8_t vl);
  void schedule_request(PortNum in, std::uint8_t vl, PortNum out);
  void request(PortNum in, std::uint8_t vl);
  void request_copy(PortNum in, std::uint8_t vl, PortNum out);
  void drop_copy(PortNum in, std::uint8_t vl, PortNum out, DropReason reason);
  void retire_multicast(PortNum in, std::uint8_t vl);
  void try_start(PortNum out) { outputs_[out - 1]->stage.try_send(); }
  // The crossbar's side of an output (Output's PortOutput::Source).
  void discard_unsendable(PortNum out);
  PortOutput::Candidacy candidate(Output& o, std::uint8_t vl);
  Packet* grant(Output& o, std::uint8_t vl);
  bool blocked_after_send(Output& o, std::uint8_t vl);
  void output_done(Output& o, Packet* p);
  void schedule_discard_at_tail(PortNum in, Packet* p, Time tail, DropReason reason, bool check);
  void expired(EntryRef r, bool hoq);
  void tail_check(PortNum in, std::uint8_t vl, std::uint64_t serial);
  // Takes requester r off every VL of output `out`.
  void withdraw(PortNum out, std::uint16_t r);
  // Discards entry i of input (in, vl), which has not started on any output, counted at the input.
  void drop_queued(PortNum in, std::uint8_t vl, std::size_t i, DropReason reason);
  void discard_head(PortNum in, std::uint8_t vl, DropReason reason);  // a queued head packet
  void count_discard(PortNum port, DropReason reason, const Packet& p);
  // Clears output VL v's waiting bit when nothing waits for it any more.
  static void clear_if_idle(Output& o, unsigned v) {
    if (o.requesters[v].empty()) o.waiting &= static_cast<std::uint16_t>(~(1u << v));
  }
  const SlToVlTable& sl_to_vl(PortNum in, PortNum out) const;
  // Whether the packet of `e` leaves (out, vl) with FECN (out of line: the hot path keeps a null test).
  bool cc_depart(PortNum out, std::uint8_t vl, const Entry& e, const LinkPort& port);

  SwitchConfig config_;
  PacketPool& pool_;
  PacketLedger& ledger_;
  Time life_time_;
  std::vector<Time> hoq_life_;          // per output
  std::vector<std::uint32_t> out_mtu_;  // per output
  std::uint8_t lmc_ = 0;
  ManagementAgent* agent_ = nullptr;
  SlToVlTable default_sl_to_vl_;
  std::vector<std::unique_ptr<LinkPort>> ports_;
  std::vector<std::array<RingQueue<Entry>, kMaxDataVls + 1>> inputs_;  // [port-1][vl]
  std::vector<std::unique_ptr<Output>> outputs_;
  std::vector<std::array<std::uint64_t, static_cast<int>(DropReason::kCount)>> discards_;
  std::uint64_t next_serial_ = 1;
  SwitchStats stats_;
  SwitchCongestionConfig cc_config_;
  std::unique_ptr<CongestionDetector> cc_;  // null while congestion control marks nothing
};

}  // namespace ibfsim
