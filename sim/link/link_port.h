// The link layer of one port: its transmitter (serialization on the link's symbol clock, credit
// check, flow-control packets slotted between data packets) and its receiver (buffer, ABR).
//
// Timing on a link, all in edges of the link's symbol clock: a packet that starts at edge c and
// takes s edges leaves the transmitter at c+s; its head (LRH decoded) reaches the peer at
// c+prop+h and its tail at c+prop+s, where prop is the cable's propagation rounded up to whole
// edges and h the edges needed for the start delimiter and the 8-byte LRH.
#pragma once
#include <cstdint>
#include <string>

#include "sim/core/event_calendar.h"
#include "sim/core/ids.h"
#include "sim/core/packet.h"
#include "sim/core/scheduled_module.h"
#include "sim/core/symbol_clock.h"
#include "sim/link/credit_counter.h"
#include "sim/link/port_owner.h"
#include "sim/link/receive_buffer.h"
#include "sim/phy/link_speed.h"

namespace ibfsim {

struct LinkPortStats {
  std::uint64_t tx_packets = 0, tx_bytes = 0, rx_packets = 0, rx_bytes = 0;
  std::uint64_t tx_flow_control = 0, rx_flow_control = 0;
  std::uint64_t rx_flow_control_errors = 0;  // bad LPCRC or reserved Op (R6)
  std::uint64_t abr_resyncs = 0;             // FCTBS disagreed with ABR (a data packet was lost)
  Time tx_busy = 0;                          // time spent sending data and link packets
};

class LinkPort : public ActionHandler {
 public:
  LinkPort(ScheduledModule& module, PortOwner& owner, PortNum number, std::uint32_t rx_capacity_blocks, std::string name);

  // Wires this port's transmitter to `peer`'s receiver. Called once for each direction of a cable.
  void connect(LinkPort& peer, const LinkRate& rate, std::uint64_t prop_cycles, std::uint32_t link_id);
  bool connected() const { return peer_ != nullptr; }
  // Link initialisation: sends the first flow-control packet (Op 1) so the peer learns our buffer.
  void start_link();

  // --- transmitter ---
  // True when a data packet could start now: the link is idle and no flow-control packet waits.
  bool can_start_data() const { return !fc_pending_ && !data_in_flight_ && idle_now(); }
  bool has_credits_for(std::uint32_t blocks) const { return tx_credits_.can_send(blocks); }
  // Starts sending `p` at the current edge (precondition: can_start_data and credits). Returns
  // the start time.
  Time transmit(Packet* p);
  // The owner has something to send but the port is busy: call on_output_free when it is idle.
  void notify_when_free();
  // Advertise our receive buffer to the peer now, or right after the packet being sent.
  void request_flow_control();

  // --- receiver ---
  // The owner is done with a received packet of `blocks`: free the space and advertise it.
  void free_rx(std::uint32_t blocks);

  void set_capture(CaptureSink* sink) { capture_ = sink; }

  PortNum number() const { return number_; }
  const std::string& name() const { return name_; }
  const LinkRate& rate() const { return rate_; }
  const SymbolClock& clock() const { return clock_; }
  std::uint64_t prop_cycles() const { return prop_cycles_; }
  std::uint32_t link_id() const { return link_id_; }
  LinkPort* peer() const { return peer_; }
  const LinkPortStats& stats() const { return stats_; }
  const CreditCounter& tx_credits() const { return tx_credits_; }
  const ReceiveBuffer& rx_buffer() const { return rx_; }
  // Edges a packet of `bytes` occupies on this link.
  std::uint64_t symbols_for(std::uint64_t bytes) const;

  void on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) override;

 private:
  enum Kind : std::uint32_t { kRxHead = 1, kRxFlowControl, kTxDone, kIdle };
  bool idle_now() const { return clock_.cycle_at_or_after(module_.now()) >= busy_until_; }
  void send_flow_control(std::uint8_t op);
  void ensure_end_event();
  void link_became_idle();

  ScheduledModule& module_;
  PortOwner& owner_;
  PortNum number_;
  std::string name_;

  LinkPort* peer_ = nullptr;
  LinkRate rate_;
  SymbolClock clock_;
  std::uint64_t prop_cycles_ = 0;
  std::uint64_t head_cycles_ = 0;  // start delimiter + LRH
  std::uint64_t fc_cycles_ = 0;    // one 6-byte link packet
  std::uint32_t link_id_ = 0;

  std::uint64_t busy_until_ = 0;  // first edge at which the transmitter is free
  bool end_event_pending_ = false;
  bool fc_pending_ = false;
  bool waiter_ = false;
  bool data_in_flight_ = false;  // until its tx-done action has run, even at the instant it ends

  CreditCounter tx_credits_;
  ReceiveBuffer rx_;
  CaptureSink* capture_ = nullptr;
  LinkPortStats stats_;
};

}  // namespace ibfsim
