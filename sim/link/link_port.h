// The link layer of one port: its transmitter (serialization on the link's symbol clock, per-VL
// credit checks, flow-control packets slotted between data packets) and its receiver (per-VL
// buffers and ABR, the VL15 buffer), and the port's logical state. The two ends of a cable meet
// only on their wires (wire.h): what the far end sends arrives here as events.
//
// Timing on a link, all in edges of the link's symbol clock: a packet that starts at edge c and
// takes s edges leaves the transmitter at c+s; its head (LRH decoded) reaches the far end at
// c+prop+h and its tail at c+prop+s (wire.h).
//
// Flow control (IBA Vol1 ch. 7; R3-R7 in docs/compliance.md): one 6-byte packet per operational
// data VL at link initialisation (Op 1), whenever buffer space of that VL frees, and for every VL
// at least every 65,536 edges. Those periodic refreshes are exact but lazy: while the link idles
// they change nothing at the peer (same FCTBS, same FCCL), so they are accounted for (wire time,
// counters) when the port next does something, not simulated one by one; an idle link costs no
// events.
// When link packets are captured, refreshes are sent as real events instead.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/event_calendar.h"
#include "sim/core/ids.h"
#include "sim/core/packet.h"
#include "sim/core/scheduled_module.h"
#include "sim/core/symbol_clock.h"
#include "sim/link/credit_counter.h"
#include "sim/link/port_owner.h"
#include "sim/link/receive_buffer.h"
#include "sim/link/vl_arbiter.h"
#include "sim/link/wire.h"
#include "sim/phy/bit_exact_link.h"
#include "sim/phy/link_speed.h"
#include "sim/phy/skip_schedule.h"

namespace ibfsim {

// PortInfo.PortState values (IBA Vol1 14.2.5.6).
enum class PortState : std::uint8_t { kDown = 1, kInit = 2, kArmed = 3, kActive = 4 };
const char* port_state_name(PortState s);

struct PortBuffers {
  unsigned op_vls = 1;                  // operational data VLs: 1, 2, 4, 8 or 15
  std::uint32_t data_vl_blocks = 128;   // receive buffer per data VL, 64-byte blocks
  std::uint32_t vl15_blocks = 10;       // management VL buffer, 64-byte blocks
};

struct VlStats {
  std::uint64_t tx_packets = 0, tx_bytes = 0, rx_packets = 0, rx_bytes = 0;
  Time credit_stall = 0;  // time a packet waited for this VL with no credits
};

struct LinkPortStats {
  std::uint64_t tx_packets = 0, tx_bytes = 0, rx_packets = 0, rx_bytes = 0;
  std::uint64_t tx_flow_control = 0, rx_flow_control = 0;
  std::uint64_t rx_flow_control_errors = 0;  // bad LPCRC or reserved Op (R6)
  std::uint64_t abr_resyncs = 0;             // FCTBS disagreed with ABR (a data packet was lost)
  std::uint64_t vl15_dropped = 0;            // VL15Dropped
  Time tx_busy = 0;                          // time spent sending data and link packets
  // PortRcvErrors by cause: data packets found bad at their tail (check_tail).
  std::uint64_t rx_phy_errors = 0, rx_vcrc_errors = 0, rx_ebp = 0;
  std::uint64_t tx_ebp = 0;                  // data packets this port ended with EBP (stomp)
  std::uint64_t tx_skips = 0;                // SKIP ordered sets sent (skip_schedule.h)
  std::uint64_t rx_errors() const { return rx_phy_errors + rx_vcrc_errors + rx_ebp; }
};

class LinkPort {
 public:
  static constexpr std::uint64_t kFlowControlRefreshEdges = 65536;

  LinkPort(ScheduledModule& module, PortOwner& owner, PortNum number, PortBuffers buffers, std::string name);

  // Cabling (link.h does it for both ends of a cable): this port's transmitter drives `out`, and
  // `in` is the wire from the far end (read only for the per-link counts in stats()).
  // `far_buffer_blocks`: the far receiver's buffer per data VL (its configuration, as a switch
  // knows its neighbour's: congestion control compares credits with it).
  void connect(Wire& out, const Wire& in, std::uint32_t far_buffer_blocks);
  bool connected() const { return out_ != nullptr; }
  // The physical link came up (link training is over): the port enters `state` (Init, or Active
  // while no subnet manager runs) and sends the initialising flow-control packet (Op 1) of every
  // operational VL. A bit-exact PHY starts afresh (edge 0 is this edge), as after a real retrain.
  void link_up(PortState state);
  // The physical link went down: the port is Down; what is on the wire is lost at the far end.
  void link_down();
  PortState state() const { return state_; }
  void set_state(PortState s) {
    if (s == PortState::kActive && state_ != PortState::kActive) active_times_.push_back(module_.now());
    state_ = s;
  }
  // Every time the port entered Active (at link up without a subnet manager, by a Set from the
  // SM, or on data in Armed).
  const std::vector<Time>& active_times() const { return active_times_; }
  // Changes the operational data VLs (PortInfo.OperationalVLs), 1..vl_cap(). Only in Down or Init,
  // when no data flows: VLs that stay operational keep their credit state, VLs that stop lose
  // their buffers, and VLs that start are initialised as at link-up: this port sends their Op 1,
  // and answers the far end's Op 1 for them with its own credits (the far end may have set them
  // up first and missed ours).
  void set_op_vls(unsigned op_vls);
  // The data VLs the port's buffers were built for (PortInfo.VLCap), and each one's receive buffer.
  unsigned vl_cap() const { return vl_cap_; }
  std::uint32_t buffer_blocks() const { return buffers_.data_vl_blocks; }
  // Switch external ports go from Armed to Active on the first data packet received (R21).
  void set_activate_on_data(bool on) { activate_on_data_ = on; }

  // --- transmitter ---
  // True when a packet could start now: the link is idle and no flow-control packet waits.
  bool can_start_data();
  // Whether a packet of `blocks` may go on `vl` now: credits (R4) and the port state (R20: only
  // VL15 outside Active). VL15 needs no credits (R3).
  bool may_send(std::uint8_t vl, std::uint32_t blocks) const;
  // Starts sending `p` (on the VL in its LRH) at the current edge; precondition: can_start_data
  // and may_send. Returns the start time.
  Time transmit(Packet* p);
  // The owner has something to send but the port is busy: call on_output_free when it is idle.
  void notify_when_free();
  // Advertise the receive buffer of data VL `vl` now, or right after the packet being sent.
  void request_flow_control(std::uint8_t vl);
  // A packet waits for `vl` and none of its credits are left (stalled = true), or that ended.
  void set_credit_stalled(std::uint8_t vl, bool stalled);
  // Transmit busy time up to `now` (window statistics): stats().tx_busy counts a packet whole when
  // it starts, so the part of the one in progress that lies after `now` is taken off.
  Time tx_busy_until(Time now) const {
    const Time free = clock_.time_of(busy_until_);
    return stats_.tx_busy - (free > now ? free - now : 0);
  }
  // Credit-stall time of `vl` up to `now`, a stall still going on included (window statistics).
  Time credit_stall_until(std::uint8_t vl, Time now) const {
    return vls_[vl].stats.credit_stall + ((stalled_ >> vl & 1) ? now - vls_[vl].stall_since : 0);
  }
  // The far receiver's buffer per data VL (connect).
  std::uint32_t far_buffer_blocks() const { return far_buffer_blocks_; }

  // Ends the data packet this port is sending as number `link_seq` (Packet::link_seq) with EBP
  // instead of EGP: a cut-through switch found, at the packet's tail on its input, that it was bad.
  // Call before the packet's last edge has left. The next receiver drops it (check_tail).
  void stomp(std::uint64_t link_seq);

  // --- receiver ---
  // The owner is done with a received packet of `blocks` on `vl`: free the space and advertise it.
  void free_rx(std::uint8_t vl, std::uint32_t blocks);
  // Whether a packet whose head has just arrived may turn out bad at its tail, so that its owner
  // must call check_tail then: the wire it came on can corrupt it, or its transmitter may still
  // stomp it (Packet::tail_check, set by the wire). Otherwise it is good and needs no check.
  static bool tail_check_needed(const Packet& p) { return p.tail_check; }
  // The link layer's verdict at the tail of the packet received as number `link_seq`: why it is
  // dropped (kPhyError: the PHY saw a code or framing error; kEbp: it ended with EBP; kVcrcError),
  // counted as a receive error, or nullopt if it is good. Errors are known only now, never at the
  // head (the wire's verdict arrives at the tail, before the owner looks). `held`: the packet, if
  // the owner still holds it (a cut-through switch may have passed it on): bytes a PHY changed
  // without breaking the VCRC are attached to it for the ICRC check.
  std::optional<DropReason> check_tail(std::uint64_t link_seq, Packet* held);

  // Brings lazy accounting (periodic flow control, stall and occupancy time) up to `end`.
  void finish(Time end);

  // SKIP ordered sets every `interval` edges (0: none), in both PHY modes: a SKIP that is due goes
  // out before the next data or link packet and delays it (skip_schedule.h). Those due while the
  // link idles are accounted when it next sends, or at finish: no events. Set before link_up; a
  // bit-exact PHY must be configured with the same interval.
  void set_skip_interval(std::uint64_t interval) { skip_ = SkipScheduler(interval); }
  std::uint64_t skip_interval() const { return skip_.interval(); }

  void set_capture(CaptureSink* sink) { capture_ = sink; }
  // Bit-exact PHY for this port's transmit direction (docs/architecture.md, "PHY fidelity"):
  // every packet is encoded, striped, corrupted at the bit error rate and decoded on its wire. The
  // timing is unchanged: the PHY must start and end each packet on the same edges as the timing
  // model (checked).
  void set_bit_exact(const BitExactLinkConfig& config);
  bool bit_exact() const { return out_ && out_->bit_exact(); }
  const BitExactLink* phy() const { return out_ ? out_->phy() : nullptr; }
  // The PHY's counts over every time the link came up (each link_up starts a fresh PHY).
  using PhyTotals = Wire::PhyTotals;
  PhyTotals phy_totals() const { return out_ ? out_->phy_totals() : PhyTotals{}; }
  PortNum number() const { return number_; }
  const std::string& name() const { return name_; }
  const LinkRate& rate() const { return rate_; }
  const SymbolClock& clock() const { return clock_; }
  // The FEC this port's transmit direction runs (both directions of a cable run the same).
  FecTiming fec() const { return out_ ? out_->fec() : FecTiming{}; }
  std::uint64_t prop_cycles() const { return out_ ? out_->prop_cycles() : 0; }
  std::uint32_t link_id() const { return out_ ? out_->link_id() : 0; }
  unsigned op_vls() const { return buffers_.op_vls; }
  // The port's counters; rx_flow_control includes the refreshes the far end sent while its link
  // idled, which it counted on the wire (wire.h) instead of sending one by one.
  LinkPortStats stats() const;
  // Per-VL counters; vl 15 is the management VL.
  const VlStats& vl_stats(std::uint8_t vl) const { return vls_[vl].stats; }
  const CreditCounter& tx_credits(std::uint8_t vl) const { return vls_[vl].tx; }
  const ReceiveBuffer& rx_buffer(std::uint8_t vl) const { return vls_[vl].rx; }
  std::uint32_t vl15_occupied() const { return vl15_occupied_; }
  // Edges a packet of `bytes` occupies on this link.
  std::uint64_t symbols_for(std::uint64_t bytes) const;

  // --- events (event.h): what the wire from the far end and the port's own timers deliver ---
  // The LRH of data packet `p` has arrived; its tail arrives at `tail`.
  void head_arrives(Packet* p, Time tail);
  void flow_control_arrives(FlowControlArrival fc);
  // What a packet's tail brought when it did not arrive as sent (early in the tail's instant).
  void verdict_arrives(TailVerdict* v);
  // The last edge of data packet `p` has left the transmitter.
  void tx_done(Packet* p);
  // The transmitter became idle (the end of a flow-control packet or a wait).
  void tx_idle();
  // Periodic flow-control refreshes are due (eager mode: captures or a bit-exact PHY).
  void refresh_due();

 private:
  std::uint64_t now_cycle() const { return clock_.cycle_at_or_after(module_.now()); }
  bool idle_now() const { return now_cycle() >= busy_until_; }
  void send_flow_control(std::uint8_t op, std::uint8_t vl);
  void send_pending_flow_control();
  void ensure_end_event();
  void link_became_idle();
  // Periodic flow-control refreshes due by now; the test is inline because it runs on every call.
  void catch_up() {
    if (ScheduledModule::now() >= next_refresh_time_) catch_up_due();
  }
  void catch_up_due();
  // The idle link sent its periodic refreshes, due at `start` (lazy accounting).
  void account_idle_refreshes(std::uint64_t start);
  // Before the refreshes due before edge c are accounted one by one: over a long idle, accounts
  // whole blocks of periods in one step (the SKIP schedule's phase against the refresh period
  // repeats every few periods), leaving the last ones to the period-by-period loop.
  void account_idle_blocks(std::uint64_t c);
  void schedule_refresh();
  // The edge a packet that may start at `earliest` starts on, after the SKIPs due before it.
  std::uint64_t place(std::uint64_t earliest) {
    const std::uint64_t c = std::max(busy_until_, earliest);
    if (!skip_.enabled() || c - up_edge_ < skip_.next_due()) return c;  // none due yet: the usual case
    const SkipPlacement p = place_after_skips(skip_, busy_until_ - up_edge_, earliest - up_edge_, skip_edges_);
    stats_.tx_skips += p.skips;
    return up_edge_ + p.start;
  }
  std::uint16_t all_vls_mask() const { return static_cast<std::uint16_t>((1u << buffers_.op_vls) - 1); }

  ScheduledModule& module_;
  PortOwner& owner_;
  PortNum number_;
  std::string name_;
  PortBuffers buffers_;
  unsigned vl_cap_;

  Wire* out_ = nullptr;       // this port's transmit direction
  const Wire* in_ = nullptr;  // the far end's (its idle-refresh count only)
  std::uint32_t far_buffer_blocks_ = 0;
  LinkRate rate_;
  SymbolClock clock_;
  std::uint64_t fc_cycles_ = 0;    // one 6-byte link packet
  SkipScheduler skip_{0};
  unsigned skip_edges_ = 0;        // one SKIP ordered set

  PortState state_ = PortState::kDown;
  std::vector<Time> active_times_;
  bool activate_on_data_ = false;
  std::uint64_t busy_until_ = 0;  // first edge at which the transmitter is free
  bool end_event_pending_ = false;
  bool data_in_flight_ = false;   // until its tx-done event has run, even at the instant it ends
  std::uint64_t in_flight_seq_ = 0, in_flight_end_ = 0;  // that packet's link_seq and last edge
  bool waiter_ = false;
  std::uint16_t fc_pending_ = 0;  // data VLs whose flow-control packet waits for a gap
  // Data VLs this port made operational after link-up (set_op_vls): it answers the far end's
  // Op 1 for them with a flow-control packet of its own.
  std::uint16_t reinit_vls_ = 0;
  std::uint64_t next_refresh_ = ~std::uint64_t{0};  // edge at which every VL's refresh is due
  Time next_refresh_time_ = kTimeNever;              // its time: a cheap test on the hot path
  void set_next_refresh(std::uint64_t edge) {
    next_refresh_ = edge;
    next_refresh_time_ = edge == ~std::uint64_t{0} ? kTimeNever : clock_.time_of(edge);
  }
  bool refresh_event_pending_ = false;
  std::uint64_t link_epoch_ = 0;  // bumps at link down: packets of an older epoch are lost

  // Everything about one VL in one place, so a packet touches few cache lines (index 15: VL15,
  // whose credits and buffer are unused).
  struct VlState {
    CreditCounter tx;
    std::uint32_t pad_ = 0;
    ReceiveBuffer rx;
    VlStats stats;
    Time stall_since = 0;
  };
  std::array<VlState, kMaxDataVls + 1> vls_{};
  std::uint32_t vl15_occupied_ = 0;
  std::uint16_t stalled_ = 0;
  CaptureSink* capture_ = nullptr;
  std::uint64_t up_edge_ = 0;   // the edge the link came up on: edge 0 of the PHY and of the SKIP schedule
  std::uint64_t tx_seq_ = 0;    // data packets sent so far (Packet::link_seq)
  // What the wire brought at the tails of packets that did not arrive as sent, by link_seq; the
  // receiver takes them at the tails (check_tail).
  std::deque<TailVerdict> rx_verdicts_;
  LinkPortStats stats_;
};

}  // namespace ibfsim
