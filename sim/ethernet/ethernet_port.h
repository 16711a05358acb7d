// One port of an Ethernet node (an L3 switch, a RoCE host): its MAC transmitter and receiver. The
// shape of the InfiniBand link (sim/link: a port drives one wire of a cable and hears the far end
// only through events the other wire schedules), without what Ethernet lacks: no credits, no VLs,
// no flow-control packets but PFC's (IEEE 802.1Qbb, pfc_frame.h): a port acts on the PFC frames it
// receives itself (its transmitter starts no frame of a paused priority; a frame already started
// finishes) and sends those its node asks for ahead of any data frame. A node that does not ask
// for PFC frames and gets none sees no difference.
//
// Timing, in edges of the link's byte clock (phy/ethernet_speed.h: one byte of the MAC's stream
// per edge, 80 ps at 100GbE): a frame of B bytes (destination MAC .. FCS) that starts on edge c
// sends its preamble and SFD on c .. c+7, its bytes on c+8 .. c+8+B-1, and then the inter-frame gap;
// the transmitter may start the next frame on c + 8 + B + 12 (ethernet_frame_timing.h). Edges count
// from time 0: the link is up from the start of the run (no link training on Ethernet yet).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/ids.h"
#include "sim/core/packet.h"
#include "sim/core/scheduled_module.h"
#include "sim/core/symbol_clock.h"
#include "sim/ethernet/pfc_pause_state.h"
#include "sim/phy/ethernet_speed.h"

namespace ibfsim {

class EthernetPort;
class EthernetWire;

// What a node provides to its Ethernet ports. Calls happen at the instant the event occurs.
class EthernetPortOwner {
 public:
  virtual ~EthernetPortOwner() = default;
  // The first bytes of frame `p` that an L3 switch decides on (l3_decision_bytes) have been
  // received at `head`; its FCS arrives at `tail`. The owner now owns the packet.
  virtual void on_frame_head(EthernetPort& port, Packet* p, Time head, Time tail) = 0;
  // The frame this port sent, and its inter-frame gap, are over: the transmitter is idle.
  virtual void on_tx_done(EthernetPort& port) = 0;
  // The transmitter may start a frame it could not before, with no frame of the owner's having
  // ended: a PFC frame it sent is over, or a pause of one of its priorities ended.
  virtual void on_tx_ready(EthernetPort&) {}
  // A PFC frame began a pause of priority `prio` of this port's transmitter (not a refresh).
  virtual void on_paused(EthernetPort&, unsigned /*prio*/) {}
};

// Receives a copy of every frame a port starts sending (pcap captures of Ethernet links).
class FrameCaptureSink {
 public:
  virtual ~FrameCaptureSink() = default;
  // `start`: when the frame's first byte after the SFD leaves.
  virtual void capture_frame(Time start, const Packet& p, std::uint32_t link_id) = 0;
};

struct EthernetPortStats {
  std::uint64_t tx_frames = 0, tx_bytes = 0, rx_frames = 0, rx_bytes = 0;  // bytes: MAC .. FCS
  Time tx_busy = 0;  // preamble, frame and gap of every frame sent
};

class EthernetPort {
 public:
  EthernetPort(ScheduledModule& module, EthernetPortOwner& owner, PortNum number, std::string name);
  EthernetPort(const EthernetPort&) = delete;
  EthernetPort& operator=(const EthernetPort&) = delete;

  // Cabling (ethernet_link.h does it for both ends): this port's transmitter drives `out`.
  void connect(EthernetWire& out);
  bool connected() const { return out_ != nullptr; }
  const EthernetRate& rate() const { return rate_; }
  const SymbolClock& clock() const { return clock_; }

  // Whether a frame could start now (the previous one and its gap are over).
  bool idle() const { return !busy_; }
  // Starts sending Ethernet frame `p` on the first edge at or after now; precondition: idle(). The
  // owner hears on_tx_done when the transmitter is free again. Returns the time the preamble starts.
  Time transmit(Packet* p);
  // Bytes (MAC .. FCS) of the owner's frame sent last (PFC frames are the port's own).
  std::uint64_t last_frame_bytes() const { return last_frame_bytes_; }
  const EthernetWire* wire() const { return out_; }

  // --- PFC (pfc_frame.h, pfc_pause_state.h) ---
  // The pool PFC frames come from and go back to: a port that sends or may receive them needs it
  // (a PFC frame arriving at a port without one is an error).
  void set_packet_pool(PacketPool* pool) { pool_ = pool; }
  // Whether the far end's PFC frames keep priority `prio` from starting now.
  bool paused(unsigned prio) const { return pfc_.paused(prio, ScheduledModule::now()); }
  // Asks the far end to pause priority `prio` for `quanta` (0: resume) with a PFC frame from `src`,
  // which leaves as soon as the frame on the line (if any) is over, ahead of the owner's frames;
  // requests made before it leaves go in the same frame.
  void send_pause(const MacAddress& src, unsigned prio, std::uint16_t quanta);
  const PfcPauseState& pfc() const { return pfc_; }
  void set_storm_threshold(Time t) { pfc_.set_storm_threshold(t); }

  void set_capture(FrameCaptureSink* sink) { capture_ = sink; }
  PortNum number() const { return number_; }
  const std::string& name() const { return name_; }
  const EthernetPortStats& stats() const { return stats_; }

  // --- events (the far end's wire and the port's own) ---
  // Frame `p`'s decision bytes have arrived; its FCS arrives at `tail`.
  void head_arrives(Packet* p, Time tail);
  // The frame sent last and its inter-frame gap are over.
  void tx_done();
  // The FCS of MAC control frame `p` has arrived: acted on (PFC) and released.
  void control_frame_tail(Packet* p);
  // A pause of priority `prio` may be over.
  void pause_expires(std::uint8_t prio);

 private:
  ScheduledModule& module_;
  EthernetPortOwner& owner_;
  PortNum number_;
  std::string name_;
  EthernetWire* out_ = nullptr;
  EthernetRate rate_;
  SymbolClock clock_;
  FrameCaptureSink* capture_ = nullptr;
  // Puts `p` on the line on the first edge at or after now.
  Time start_frame(Packet* p);
  void start_pause_frame();

  bool busy_ = false;
  bool sending_control_ = false;  // the frame on the line is a PFC frame
  std::uint64_t last_frame_bytes_ = 0;
  EthernetPortStats stats_;
  PacketPool* pool_ = nullptr;
  MacAddress pause_src_{};
  PfcPauseState pfc_;
  std::vector<std::uint8_t> scratch_;  // a received control frame's bytes
};

}  // namespace ibfsim
