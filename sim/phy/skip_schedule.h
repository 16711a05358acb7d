// When SKIP ordered sets go out, and how they delay the packets behind them (IBA Vol 2).
//
// A SKIP is due once `interval` edges have passed since the previous one started (or since the
// link came up, edge 0). The transmitter never puts one inside a packet: it sends it at the first
// edge it is due on which the line is free, and a packet (data or link) that could start then, or
// while the SKIP is on the line, starts right after it. A SKIP takes 4 edges on 8b/10b (COM and
// three SKP on every lane) and 1 edge on 64b/66b (one SKIP block per lane).
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
// A plausible SKIP interval in edges (IB sends SKIPs every few thousand symbols; the exact bound is
// in Vol 2, not at hand: confirm there).
constexpr std::uint64_t kDefaultSkipIntervalEdges = 4608;

class SkipScheduler {
 public:
  // interval 0: never. Otherwise it must exceed the length of a SKIP.
  explicit SkipScheduler(std::uint64_t interval = kDefaultSkipIntervalEdges) : interval_(interval) {}

  bool enabled() const { return interval_ != 0; }
  std::uint64_t interval() const { return interval_; }
  // Edge at which the next SKIP is due (meaningless when disabled).
  std::uint64_t next_due() const { return last_ + interval_; }
  bool due(std::uint64_t edge) const { return enabled() && edge >= next_due(); }
  // A SKIP started at `edge`.
  void sent(std::uint64_t edge) { last_ = edge; }

 private:
  std::uint64_t interval_;
  std::uint64_t last_ = 0;
};

struct SkipPlacement {
  std::uint64_t start = 0;  // edge the packet starts on
  std::uint64_t skips = 0;  // SKIPs sent before it (since `free`)
};

// The line is free from edge `free` and a packet may start at `earliest`: every SKIP that falls due
// before the packet could start goes first (while the line idles, each on its due edge; one that
// fell due while the line was busy, at `free`), then one due on the very edge the packet would
// start. Records the SKIPs in `s` and returns where the packet starts. O(1) however long the idle.
SkipPlacement place_after_skips(SkipScheduler& s, std::uint64_t free, std::uint64_t earliest, unsigned skip_edges);

}  // namespace ibfsim
