// When SKIP ordered sets go out, and how they delay the packets behind them (IBA Vol 2).
//
// SKIPs are due on a fixed schedule: the k-th at edge k * interval after the link came up (edge
// 0), k = 1, 2, ... A SKIP never goes inside a packet: it goes out at the first edge at or after
// its due edge on which the line is free, and a packet (data or link) that could start then, or
// while the SKIP is on the line, starts right after it. A SKIP held back by a packet does not move
// the schedule: the next one is still due one interval after this one's due edge, so a saturated
// link sends exactly one SKIP per interval on average, and two can go back to back when a packet
// longer than an interval held both. This is the spacing clock compensation needs (the far end's
// elastic buffer gains or loses a fixed number of symbols per interval whatever the traffic); a
// schedule restarted at each sent SKIP would stretch to interval plus half a packet on average on
// a busy link (about 8,250 edges on a 1x SDR link carrying 4 KiB packets).
// A SKIP takes 4 edges on 8b/10b (COM and three SKP on every lane) and 1 edge on 64b/66b (one
// SKIP block per lane).
//
// The bit-exact PHY places SKIPs edge by edge as it fills the line (bit_exact_link.cpp); the timing
// model asks place_after_skips() only when it has a packet to send, so SKIPs during idle cost no
// events. Both use SkipScheduler, and must agree on every packet's start edge.
#pragma once
#include <cstdint>

#include "sim/phy/link_speed.h"

namespace ibfsim {

// Edges one SKIP ordered set takes.
constexpr unsigned kSkipEdges8b10b = 4;
constexpr unsigned kSkipEdges64b66b = 1;
constexpr unsigned skip_edges(LineCode c) { return c == LineCode::k8b10b ? kSkipEdges8b10b : kSkipEdges64b66b; }
// The SKIP interval in edges (IB sends SKIPs every few thousand symbols; the exact bound is in
// Vol 2, not at hand: confirm there).
constexpr std::uint64_t kDefaultSkipIntervalEdges = 4608;

class SkipScheduler {
 public:
  // interval 0: never. Otherwise it must exceed the length of a SKIP.
  explicit SkipScheduler(std::uint64_t interval = kDefaultSkipIntervalEdges)
      : interval_(interval), next_due_(interval) {}

  bool enabled() const { return interval_ != 0; }
  std::uint64_t interval() const { return interval_; }
  // Edge at which the next SKIP is due (meaningless when disabled).
  std::uint64_t next_due() const { return next_due_; }
  bool due(std::uint64_t edge) const { return enabled() && edge >= next_due_; }
  // The `n` SKIPs due first went out (each on its due edge or later): the next is due `n`
  // intervals after the first of them.
  void sent(std::uint64_t n = 1) { next_due_ += n * interval_; }

 private:
  std::uint64_t interval_;
  std::uint64_t next_due_;
};

struct SkipPlacement {
  std::uint64_t start = 0;  // edge the packet starts on
  std::uint64_t skips = 0;  // SKIPs sent before it (since `free`)
};

// The line is free from edge `free` and a packet may start at `earliest`: every SKIP due on or
// before the edge the packet would start goes first, each at the first free edge at or after its
// due edge (those that fell due while the line was busy back to back from `free`, those due while
// it idles on their due edges). Records the SKIPs in `s` and returns where the packet starts.
// O(1) however long the idle.
SkipPlacement place_after_skips(SkipScheduler& s, std::uint64_t free, std::uint64_t earliest, unsigned skip_edges);

}  // namespace ibfsim
