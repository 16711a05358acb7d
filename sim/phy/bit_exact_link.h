// One direction of a link in bit-exact mode (docs/architecture.md, "PHY fidelity"): everything between the
// link layer's bytes at the transmitter and its bytes at the receiver.
//
//   transmit: stripe across lanes (lane_striping.h) -> per lane 8b/10b encode with running
//             disparity, or 64b/66b scramble (sync header in clear) -> bit errors at the BER
//             (bit_error_injector.h, one RNG stream per lane)
//   wire:     lane reversal (transmit lane i -> receive lane w-1-i) and a skew per receive lane
//   receive:  per lane decode / descramble -> deskew and undo reversal (lane_deskew.h) ->
//             deframe (lane_striping.h), flagging code violations, disparity errors, bad sync
//             headers and framing errors.
//
// HDR/NDR (PAM4 + RS-FEC) use the 64b/66b block path at their post-FEC block rate: the 256b/257b
// transcoding and the RS-FEC are not modelled bit for bit (their cost is in the symbol period).
//
// Time. Edges are counted on the link's symbol clock from the moment the link came up (edge 0).
// Training is over by then: the last TS2 set, which the receiver aligned its lanes on, went out
// just before edge 0. The transmitter is a cursor: idle_until() fills the line with idle, send()
// puts a packet (after idle up to `earliest`, and after a SKIP ordered set if one is due) and
// returns the edge it started on; the packet then takes exactly symbols_for_packet() edges.
// A frame comes back with start_edge / end_edge on the receiver, which are the transmitter's
// edges plus the largest lane skew: with no skew, end_edge = start + symbols_for_packet(), the
// edge at which LinkPort's timing mode delivers the tail (before propagation delay, which is the
// cable's business and not modelled here).
//
// SKIP ordered sets go out every skip_interval_edges (skip_schedule.h; 0, this config's default,
// turns them off). The link layer counts the same schedule in its timing, so a packet starts on
// the same edge in both modes; a fabric turns them on for both (PhySettings).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/phy/link_speed.h"
#include "sim/phy/phy_frame.h"

namespace ibfsim {

// A bit error at a chosen place, on top of the random ones (deterministic tests): bit `bit` (line
// order, bit_error_injector.h) of the unit that transmit lane `lane` sends at edge `edge`.
struct ForcedBitError {
  unsigned lane = 0;
  std::uint64_t edge = 0;
  unsigned bit = 0;
};

struct BitExactLinkConfig {
  LinkRate rate;                        // speed and trained width
  bool lanes_reversed = false;          // from training (TrainingResult::lane_reversed)
  std::vector<unsigned> lane_skew;      // per receive (physical) lane, in code units; empty = none
  unsigned deskew_tolerance = 32;       // largest skew the receiver absorbs, code units
  double bit_error_rate = 0.0;
  std::uint64_t seed = 1;
  // Lane i's bit errors come from RngStream(seed, stream_id + i * 2^48).
  std::uint64_t stream_id = 0;
  std::uint64_t skip_interval_edges = 0;  // 0: no SKIP ordered sets
  std::vector<ForcedBitError> forced_errors;

  // Whether the line can change what it carries.
  bool can_corrupt() const { return bit_error_rate > 0 || !forced_errors.empty(); }
};

class BitExactLink {
 public:
  explicit BitExactLink(const BitExactLinkConfig& config);
  ~BitExactLink();
  BitExactLink(BitExactLink&&) noexcept;
  BitExactLink& operator=(BitExactLink&&) noexcept;

  const BitExactLinkConfig& config() const;

  // The first edge the transmitter has not filled yet.
  std::uint64_t next_free_edge() const;
  // Sends one packet no earlier than `earliest_edge` (and no earlier than next_free_edge()).
  // Returns the edge it started on.
  std::uint64_t send(const std::uint8_t* bytes, std::size_t size, FrameKind kind, FrameEnd end,
                     std::uint64_t earliest_edge = 0);
  std::uint64_t send(const std::vector<std::uint8_t>& bytes, FrameKind kind, FrameEnd end = FrameEnd::kGood,
                     std::uint64_t earliest_edge = 0) {
    return send(bytes.data(), bytes.size(), kind, end, earliest_edge);
  }
  // Fills the line with idle (and due SKIPs) up to `edge`.
  void idle_until(std::uint64_t edge);

  // Frames the receiver has completed so far, oldest first (and forgets them). Every frame is
  // complete as soon as send() returns: the deskew delay is in its edges, not in when it appears.
  std::vector<PhyRxFrame> take_frames();
  PhyRxCounters rx_counters() const;
  // Receiver edges = transmitter edges + this (the largest lane skew).
  std::uint64_t skew_latency_edges() const;
  std::uint64_t bits_flipped() const;
  std::uint64_t skips_sent() const;

  struct Impl;  // one implementation per line code

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ibfsim
