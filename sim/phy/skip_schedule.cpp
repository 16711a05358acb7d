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
  const std::uint64_t first = std::max(s.next_due(), free);
  if (first < c) {
    // SKIPs at first, first + interval, ... before c: each ends before the next is due.
    r.skips = (c - 1 - first) / interval + 1;
    const std::uint64_t last = first + (r.skips - 1) * interval;
    s.sent(last);
    c = std::max(c, last + skip_edges);
  }
  if (s.due(c)) {
    s.sent(c);
    c += skip_edges;
    ++r.skips;
  }
  r.start = c;
  return r;
}

}  // namespace ibfsim
