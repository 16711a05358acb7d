// The switch side of InfiniBand congestion control (IBA Vol1 Annex A10, rule R42): per output port
// and VL, whether packets meet congestion there, and which of them leave with FECN.
//
// The output queue of (port, VL) is what this input-buffered switch holds for it: the 64-byte
// blocks of every packet in its input buffers routed to that port and VL (from the head's arrival,
// when the buffer space is taken, until the packet's last symbol leaves). A packet meets queue
// congestion when Threshold T != 0 and, as it arrives, the queue ahead of it holds at least
// ceil((16 - T) x B / 16) blocks, B being one VL's receive buffer of this switch (T 1 = loose:
// 15/16 of a buffer; T 15 = aggressive: 1/16). Judging packets as they join the queue, as an
// output-queued switch does, marks each source in proportion to what it sends; judging them as
// they leave would not, since the output serves its inputs in turn whatever they send. With
// T <= 4 one input alone can never reach the level (its buffer minus the packet is below it), so
// only several inputs competing for the port count as congestion. The port is the victim of
// congestion further on, rather than its root, when the VL has run out of credits since its queue
// was last empty: a queue that built up while the port waited for credits is the downstream
// congestion's doing, even while it drains with credits back. Queue congestion marks only at a
// root, or at a victim whose port is in Victim_Mask.
// Credit starvation is judged as a packet leaves: on a port in Credit_Mask with CS_Threshold
// C != 0, when the transmitter has fewer than ceil(C x P / 16) credits left on the VL after it, P
// being the peer's receive buffer (C 1 loose .. 15 aggressive).
// Packets smaller than Packet_Size credits are never marked. Marking_Rate R is the mean number of
// eligible packets passed over between two marked ones: each eligible packet is marked with
// probability 1 / (R + 1) (R 0: every one), drawn from the switch's own random stream. A fixed
// count would alias with the round robin among inputs and mark the same input's packets each time.
// The thresholds' meaning is the project's choice: the annex leaves the mapping from Threshold to
// a queue level to the implementation [K]. CS_ReturnDelay is kept but not applied.
#pragma once
#include <bitset>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/core/ids.h"
#include "sim/core/rng.h"

namespace ibfsim {

// Marking parameters of one port, after its SwitchPortCongestionSetting overrides.
struct PortCongestionParams {
  std::uint8_t threshold = 0;     // 0: never congested by queue length
  std::uint8_t packet_size = 0;   // 64-byte credits
  std::uint16_t marking_rate = 0;
  std::uint8_t cs_threshold = 0;  // 0: no credit starvation marking
  bool victim = false;            // Victim_Mask
  bool credit = false;            // Credit_Mask
};

// A switch's congestion control settings as its Congestion Control Agent holds them:
// SwitchCongestionSetting (switch-wide) and SwitchPortCongestionSetting (per-port overrides).
struct SwitchCongestionConfig {
  std::bitset<256> victim_mask, credit_mask;
  std::uint8_t threshold = 0;
  std::uint8_t packet_size = 0;
  std::uint8_t cs_threshold = 0;
  std::uint16_t cs_return_delay = 0;
  std::uint16_t marking_rate = 0;
  struct MarkingOverride {  // Control_Type 0
    bool valid = false;
    std::uint8_t threshold = 0, packet_size = 0;
    std::uint16_t marking_rate = 0;
  };
  std::vector<MarkingOverride> marking_override;           // [port]
  std::vector<std::optional<std::uint8_t>> cs_override;    // [port], Control_Type 1

  PortCongestionParams port(PortNum p) const;
  // Whether any port can mark at all (otherwise the switch runs without a detector).
  bool marks(unsigned num_ports) const;
};

class CongestionDetector {
 public:
  struct PortStats {
    std::uint64_t congested_root = 0;    // arrivals that met queue congestion at its root
    std::uint64_t congested_victim = 0;  // ... as its victim (the VL was out of credits)
    std::uint64_t credit_starved = 0;    // departures that met credit starvation (Credit_Mask ports)
    std::uint64_t eligible = 0;          // packets that could be marked
    std::uint64_t too_small = 0;         // ... but were smaller than Packet_Size
    std::uint64_t fecn_marked = 0;       // packets that left with FECN
  };

  // `vl_buffer_blocks`: one VL's receive buffer of this switch (B above); `rng`: the stream that
  // picks marked packets at Marking_Rate.
  CongestionDetector(const SwitchCongestionConfig& config, unsigned num_ports, std::uint32_t vl_buffer_blocks,
                     RngStream rng);

  static std::uint32_t queue_level_blocks(std::uint8_t threshold, std::uint32_t buffer_blocks);
  static std::uint32_t starvation_level_blocks(std::uint8_t cs_threshold, std::uint32_t buffer_blocks);

  // A packet of `blocks` credits joins the queue of (out, vl): returns whether it is to leave
  // with FECN (queue congestion).
  bool arrive(PortNum out, std::uint8_t vl, std::uint32_t blocks);
  // A packet counted in the queue without a marking decision (queued before detection began).
  void enqueued(PortNum out, std::uint8_t vl, std::uint32_t blocks) { at(out, vl).queued += blocks; }
  // A packet that arrived leaves the queue (its last symbol left, or it was discarded).
  void dequeued(PortNum out, std::uint8_t vl, std::uint32_t blocks) {
    VlState& s = at(out, vl);
    s.queued -= blocks;
    if (s.queued == 0) s.starved = false;  // the queue that built while out of credits is gone
  }
  // A packet waits for (out, vl) and the VL has no credits for it.
  void credit_wait(PortNum out, std::uint8_t vl) { at(out, vl).starved = true; }
  // A packet of `blocks` credits starts on (out, vl), `marked` by its arrival; the transmitter has
  // `credits_left` after it and the peer buffers `peer_buffer_blocks` for the VL. Returns whether
  // it leaves with FECN (marked, or credit starvation).
  bool depart(PortNum out, std::uint8_t vl, std::uint32_t blocks, bool marked, std::uint32_t credits_left,
              std::uint32_t peer_buffer_blocks);

  std::uint32_t queued_blocks(PortNum out, std::uint8_t vl) const { return vls_[index(out, vl)].queued; }
  const PortStats& stats(PortNum out) const { return stats_.at(out); }
  const PortCongestionParams& params(PortNum out) const { return params_.at(out); }

 private:
  static constexpr unsigned kVls = 15;
  struct VlState {
    std::uint32_t queued = 0;
    bool starved = false;  // the VL ran out of credits since its queue was last empty
  };
  std::size_t index(PortNum out, std::uint8_t vl) const { return std::size_t{out} * kVls + vl; }
  VlState& at(PortNum out, std::uint8_t vl) { return vls_[index(out, vl)]; }
  bool pick(const PortCongestionParams& p, PortStats& st, std::uint32_t blocks);

  std::vector<PortCongestionParams> params_;  // [port]
  std::vector<std::uint32_t> queue_level_;    // [port], blocks
  std::vector<VlState> vls_;                  // [port * 15 + vl]
  std::vector<PortStats> stats_;              // [port]
  RngStream rng_;
};

}  // namespace ibfsim
