// One direction of an Ethernet cable: what lies between a transmitting port and the far end
// (propagation, the FEC decoder's wait), as sim/link/wire.h is for InfiniBand. It turns a frame
// that starts on the line into the far end's event at the instant its head has been received.
//
// Timing, in edges of the byte clock, for a frame of B bytes whose preamble starts on edge c
// (ethernet_frame_timing.h): its first n bytes have left the transmitter on edge c + 8 + n. The far
// end has them `prop` edges later, and with RS-FEC only at the end of the FEC block (640 or 1,280
// bytes of the MAC's stream, counted from edge 0) holding that edge, plus the decoder's latency:
//   head (the l3_decision_bytes h an L3 switch decides on) at F(c + 8 + h) + prop,
//   tail (the FCS)                                          at F(c + 8 + B) + prop,
// F(e) = e without FEC, ceil(e / block) x block + decoder edges with it.
#pragma once
#include <cstdint>

#include "sim/core/packet.h"
#include "sim/core/scheduled_module.h"
#include "sim/core/symbol_clock.h"
#include "sim/phy/ethernet_speed.h"
#include "sim/phy/fec.h"

namespace ibfsim {

class EthernetPort;

class EthernetWire {
 public:
  // `decoder_latency`: the FEC decoder's own time (rounded up to whole edges; unused without FEC).
  EthernetWire(EthernetPort& far_end, ScheduledModule& far_module, const EthernetRate& rate,
               std::uint64_t prop_edges, Time decoder_latency, std::uint32_t link_id);
  // The far port is a target of events from other MPI ranks while the wire exists.
  ~EthernetWire();
  EthernetWire(const EthernetWire&) = delete;
  EthernetWire& operator=(const EthernetWire&) = delete;

  const EthernetRate& rate() const { return rate_; }
  const FecTiming& fec() const { return fec_; }
  std::uint64_t prop_edges() const { return prop_edges_; }
  std::uint32_t link_id() const { return link_id_; }

  // Frame `p` of `bytes` bytes (MAC .. FCS) starts (its preamble) on edge `c`.
  void carry(Packet* p, std::uint64_t c, std::uint64_t bytes);
  // The edge on which the far end has the frame's first `n` bytes.
  std::uint64_t arrival_edge(std::uint64_t c, std::uint64_t n) const;
  // The least time from a transmitter's act to the far end's event: propagation plus one edge (a
  // frame starts on the next edge and its preamble alone takes 8), however it is framed or coded.
  // What a run in partitions waits for before another partition may see anything it did.
  Time least_latency() const { return clock_.time_of(prop_edges_ + 1); }

 private:
  EthernetPort& far_end_;
  ScheduledModule& far_module_;
  EthernetRate rate_;
  SymbolClock clock_;
  std::uint64_t prop_edges_;
  FecTiming fec_;
  std::uint32_t link_id_;
};

}  // namespace ibfsim
