// The switch side of InfiniBand congestion control (IBA Vol1 Annex A10, rule R42): per output port
// and VL, whether packets leaving it meet congestion, and which of them get FECN.
//
// The output queue of (port, VL) is what this input-buffered switch holds for it: the 64-byte
// blocks of every packet in its input buffers routed to that port and VL (from the head's arrival,
// when the buffer space is taken, until the packet's last symbol leaves). A departing packet finds
// the port congested when
//   - Threshold T != 0 and the blocks waiting behind it for the same port and VL reach
//     ceil((16 - T) x B / 16), B being one VL's receive buffer of this switch (T 1 = loose: 15/16
//     of a buffer; T 15 = aggressive: 1/16), or
//   - the port is in Credit_Mask, CS_Threshold C != 0, and after this packet the transmitter has
//     fewer than ceil(C x P / 16) credits left on the VL, P being the peer's receive buffer
//     (credit starvation; C 1 loose .. 15 aggressive).
// A port is the victim of congestion downstream, rather than its root, when the departing packet
// had to wait for credits (the VL was out of credits since the previous departure on it). Queue
// congestion marks only at a root, or at a victim whose port is in Victim_Mask; credit starvation
// marks on the Credit_Mask ports that apply it. Packets smaller than Packet_Size credits are never
// marked. Of the eligible packets, one is marked, then Marking_Rate are passed over, then one is
// marked again (0: every one), counted per port and VL.
// The thresholds' meaning is the project's choice: the annex leaves the mapping from Threshold to
// a queue level to the implementation [K]. CS_ReturnDelay is kept but not applied.
#pragma once
#include <bitset>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/core/ids.h"

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
    std::uint64_t congested_root = 0;    // departures that found queue congestion as its root
    std::uint64_t congested_victim = 0;  // ... as its victim (they had waited for credits)
    std::uint64_t credit_starved = 0;    // departures that found credit starvation (Credit_Mask ports)
    std::uint64_t eligible = 0;          // departures that could be marked
    std::uint64_t too_small = 0;         // ... but were smaller than Packet_Size
    std::uint64_t fecn_marked = 0;
  };

  // `vl_buffer_blocks`: one VL's receive buffer of this switch (B above).
  CongestionDetector(const SwitchCongestionConfig& config, unsigned num_ports, std::uint32_t vl_buffer_blocks);

  static std::uint32_t queue_level_blocks(std::uint8_t threshold, std::uint32_t buffer_blocks);
  static std::uint32_t starvation_level_blocks(std::uint8_t cs_threshold, std::uint32_t buffer_blocks);

  void enqueued(PortNum out, std::uint8_t vl, std::uint32_t blocks) { at(out, vl).queued += blocks; }
  void dequeued(PortNum out, std::uint8_t vl, std::uint32_t blocks) { at(out, vl).queued -= blocks; }
  // A packet waits for (out, vl) and the VL has no credits for it.
  void credit_wait(PortNum out, std::uint8_t vl) { at(out, vl).starved = true; }
  // A packet of `blocks` credits starts on (out, vl); the transmitter has `credits_left` after it
  // and the peer buffers `peer_buffer_blocks` for the VL. Returns whether it gets FECN.
  bool depart(PortNum out, std::uint8_t vl, std::uint32_t blocks, std::uint32_t credits_left,
              std::uint32_t peer_buffer_blocks);

  std::uint32_t queued_blocks(PortNum out, std::uint8_t vl) const { return vls_[index(out, vl)].queued; }
  const PortStats& stats(PortNum out) const { return stats_.at(out); }
  const PortCongestionParams& params(PortNum out) const { return params_.at(out); }

 private:
  static constexpr unsigned kVls = 15;
  struct VlState {
    std::uint32_t queued = 0;
    std::uint16_t countdown = 0;  // eligible packets still to pass over before the next mark
    bool starved = false;
  };
  std::size_t index(PortNum out, std::uint8_t vl) const { return std::size_t{out} * kVls + vl; }
  VlState& at(PortNum out, std::uint8_t vl) { return vls_[index(out, vl)]; }

  std::vector<PortCongestionParams> params_;  // [port]
  std::vector<std::uint32_t> queue_level_;    // [port], blocks
  std::vector<VlState> vls_;                  // [port * 15 + vl]
  std::vector<PortStats> stats_;              // [port]
};

}  // namespace ibfsim
