#include "sim/phy/skip_schedule.h"

#include <algorithm>

#include "sim/core/error.h"

namespace ibfsim {

SkipPlacement place_after_skips(SkipScheduler& s, std::uint64_t free, std::uint64_t earliest, unsigned skip_edges) {
  std::uint64_t c = std::max(free, earliest);
  if (!s.enabled()) return {c, 0};
  const std::uint64_t interval = s.interval();
  IBFSIM_CHECK(interval > skip_edges, "a SKIP interval must be longer than a SKIP");
  SkipPlacement r;
  // SKIPs that fell due while the line was busy go back to back from `free`; each takes less than
  // an interval, so the backlog runs out after a few (one, unless a packet outlasted an interval).
  std::uint64_t line = free;
  while (s.next_due() < line) {
    line += skip_edges;
    s.sent();
    ++r.skips;
  }
  c = std::max(c, line);
  // The line idles from `line`: SKIPs on their due edges next_due, next_due + interval, ... up to
  // c (one due on the packet's own start edge goes first). Each ends before the next is due, so
  // only the last can push the packet back.
  if (s.next_due() <= c) {
    const std::uint64_t n = (c - s.next_due()) / interval + 1;
    const std::uint64_t last = s.next_due() + (n - 1) * interval;
    s.sent(n);
    r.skips += n;
    c = std::max(c, last + skip_edges);
  }
  r.start = c;
  return r;
}

}  // namespace ibfsim
