#include "sim/network/adaptive_routing.h"

namespace ibfsim {

void ArTable::set_group(std::uint16_t g, std::vector<PortNum> ports) {
  if (groups_.size() <= g) groups_.resize(static_cast<std::size_t>(g) + 1);
  groups_[g] = std::move(ports);
}

void ArTable::set_group_of(Lid lid, std::uint16_t g) {
  if (group_of_lid_.size() <= lid) {
    if (g == 0) return;
    group_of_lid_.resize(static_cast<std::size_t>(lid) + 1, 0);
  }
  group_of_lid_[lid] = g;
}

std::int64_t ar_credit_level(std::uint32_t credits, std::uint32_t queued, std::uint32_t far_buffer, unsigned levels) {
  const std::int64_t free = std::int64_t{credits} - std::int64_t{queued};
  if (levels == 0 || far_buffer == 0) return free;
  // floor(free x levels / far_buffer), rounding down below zero too.
  const std::int64_t scaled = free * levels;
  const std::int64_t b = far_buffer;
  return scaled >= 0 ? scaled / b : -((-scaled + b - 1) / b);
}

std::size_t ar_choose(const ArCandidate* c, std::size_t n, PortNum last, PortNum keep, unsigned margin) {
  std::size_t best = 0;
  // Distance after `last` in cyclic port order: the round robin (ports above `last` first).
  auto after = [last](PortNum p) { return static_cast<unsigned>(static_cast<std::uint8_t>(p - last - 1)); };
  for (std::size_t i = 1; i < n; ++i) {
    const ArCandidate& a = c[i];
    const ArCandidate& b = c[best];
    if (a.penalized != b.penalized) {
      if (b.penalized) best = i;
      continue;
    }
    if (a.level != b.level) {
      if (a.level > b.level) best = i;
      continue;
    }
    if (keep != 0 && (a.port == keep || b.port == keep)) {
      if (a.port == keep) best = i;
      continue;
    }
    if (a.queued_blocks != b.queued_blocks) {
      if (a.queued_blocks < b.queued_blocks) best = i;
      continue;
    }
    if (after(a.port) < after(b.port)) best = i;
  }
  // The hysteresis: the flow stays unless the best is `margin` levels better (margin 1: any level).
  if (keep != 0 && margin > 1 && c[best].port != keep)
    for (std::size_t i = 0; i < n; ++i)
      if (c[i].port == keep && c[i].penalized == c[best].penalized && c[best].level - c[i].level < std::int64_t{margin})
        return i;
  return best;
}

}  // namespace ibfsim
