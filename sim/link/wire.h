// One direction of a cable. The transmitting port puts packets on it; the port at the far end
// learns of them only as events on its own calendar, at the time they arrive there: a data
// packet's head (its LRH decoded), a flow-control packet, and the verdict about a packet's bits at
// its tail (what the bit-exact PHY made of it, or an EBP end). Nothing else passes between the two
// ports, so each can live on its own calendar (and, later, its own thread).
//
// The wire owns what lies between the ports: propagation, the bit-exact PHY of this direction
// (design: docs/architecture.md, "PHY fidelity"), and the counts the transmitter keeps for the far
// receiver's statistics (flow-control refreshes an idle link sent, which the receiver never sees
// one by one: link_port.h, "lazy"). It is written by the transmitting port only.
//
// Timing, in edges of the link's symbol clock: a packet that starts at edge c and takes s edges
// has its head at the far end at c+prop+h and its tail at c+prop+s (prop: the cable's propagation
// in whole edges; h: the edges of the start delimiter and the 8-byte LRH). With FEC (fec.h) the
// far end has each of them only at the end of the codeword holding its last edge, plus the
// decoder: the head of a packet that starts at c at F(c+h)+prop, its tail at F(c+s)+prop, a
// flow-control packet and a tail verdict likewise.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/packet.h"
#include "sim/core/packet_ledger.h"
#include "sim/core/scheduled_module.h"
#include "sim/core/symbol_clock.h"
#include "sim/phy/bit_exact_link.h"
#include "sim/phy/fec.h"
#include "sim/phy/link_speed.h"

namespace ibfsim {

class LinkPort;

// What the far end learns at a data packet's tail when it did not arrive as sent: why it is
// dropped (a PHY error, an EBP end, a failed VCRC) or, with no reason, the bytes that arrived when
// the PHY changed them without breaking the VCRC (the ICRC may still catch it).
struct TailVerdict {
  std::uint64_t seq = 0;  // the packet's number on this wire (Packet::link_seq)
  std::optional<DropReason> reason;
  std::vector<std::uint8_t> bytes;
};

// A 6-byte flow-control packet as it arrives: `lost` if the PHY lost it (a symbol error).
struct FlowControlArrival {
  std::array<std::uint8_t, 6> bytes;
  bool lost;
  std::uint32_t epoch;  // the link epoch it was sent in: a link that went down since loses it
  std::string text() const;  // in event traces: the decoded fields
};

class Wire {
 public:
  Wire(LinkPort& far_end, ScheduledModule& far_module, const LinkRate& rate, std::uint64_t prop_cycles,
       std::uint32_t link_id, FecTiming fec = {});
  ~Wire();
  Wire(const Wire&) = delete;
  Wire& operator=(const Wire&) = delete;

  const LinkRate& rate() const { return rate_; }
  const FecTiming& fec() const { return fec_; }
  const SymbolClock& clock() const { return clock_; }
  std::uint64_t prop_cycles() const { return prop_cycles_; }
  std::uint32_t link_id() const { return link_id_; }

  // Data packet `p` (numbered p->link_seq) starts at edge `c` and takes `edges`: its head reaches
  // the far end c+prop+h later. A bit-exact PHY encodes it at its end (end_data), when whether it
  // ends good or bad (EBP) is known.
  void carry_data(Packet* p, std::uint64_t c, std::uint64_t edges);
  // The data packet on the wire ends now (its last edge left): its frame goes through the PHY,
  // and the far end gets the verdict at the packet's tail if it did not arrive as sent.
  void end_data();
  // The transmitter ends data packet `seq`, whose last edge is `end_edge`, with EBP instead of EGP.
  void stomp(std::uint64_t seq, std::uint64_t end_edge);
  // A 6-byte link packet starts at edge `c` and takes `edges`; sent in link epoch `epoch`.
  void carry_link_packet(const std::array<std::uint8_t, 6>& bytes, std::uint64_t c, std::uint64_t edges,
                         std::uint32_t epoch);
  // Flow-control refreshes the transmitter sent while the link idled (counted for the far end).
  void count_idle_refreshes(std::uint64_t n) { idle_refreshes_ += n; }
  std::uint64_t idle_refreshes() const { return idle_refreshes_; }

  // --- bit-exact PHY of this direction ---
  void set_bit_exact(const BitExactLinkConfig& config);
  bool bit_exact() const { return phy_ != nullptr; }
  const BitExactLink* phy() const { return phy_.get(); }
  // The link came up (training is over) on edge `up_edge`, in link epoch `epoch`: the PHY starts
  // afresh (disparity, scrambler, lane alignment), with bit errors from streams of its own.
  void restart(std::uint64_t up_edge, std::uint64_t epoch);
  // The run is over: the PHY encodes the frame still pending (for its counts; no verdict goes).
  void finish_frames();
  // The line idles until edge `c` (the end of the run): the PHY sends its SKIPs up to there.
  void idle_until(std::uint64_t c);
  // The PHY's counts over every time the link came up.
  struct PhyTotals {
    std::uint64_t bits_flipped = 0;
    std::uint64_t skips = 0;
    PhyRxCounters rx;
  };
  PhyTotals phy_totals() const;

 private:
  // Encodes the pending frame; `deliver`: the far end gets its verdict.
  void flush_pending(bool deliver = true);
  void send_verdict(TailVerdict v, std::uint64_t tail_edge);
  // The edge at which the far end has what ended on the line at edge `end`: propagation, and with
  // FEC the rest of its codeword and the decoder (codewords count from the link-up edge).
  std::uint64_t arrival(std::uint64_t end) const { return up_edge_ + fec_.available(end - up_edge_) + prop_cycles_; }

  LinkPort& far_end_;
  ScheduledModule& far_module_;
  LinkRate rate_;
  SymbolClock clock_;
  std::uint64_t prop_cycles_;
  std::uint64_t head_cycles_;  // start delimiter + LRH
  std::uint32_t link_id_;
  FecTiming fec_;
  std::uint64_t idle_refreshes_ = 0;

  std::unique_ptr<BitExactLink> phy_;
  bool can_corrupt_ = false;   // the PHY may change a packet's bits
  std::uint64_t up_edge_ = 0;  // edge 0 of the PHY
  PhyTotals phy_retired_;      // counts of the PHYs of earlier link-ups
  // The data packet on the wire whose frame the PHY has not encoded yet (its end delimiter is
  // known only at its end): encoded before the PHY sends anything else, never touching the Packet
  // (the far end may have let go of it).
  struct PendingFrame {
    bool valid = false;
    bool end_bad = false;
    std::uint64_t seq = 0;
    std::uint64_t edge = 0;   // edge it starts on (since up_edge_)
    std::uint64_t edges = 0;  // its length
  };
  PendingFrame pending_;
  std::vector<std::uint8_t> frame_;  // its bytes
  // The PHY's bits_flipped() when the last packet arrived as sent: a packet that does not arrive
  // as sent needs a bit error since then.
  std::uint64_t flipped_when_in_step_ = 0;
};

}  // namespace ibfsim
