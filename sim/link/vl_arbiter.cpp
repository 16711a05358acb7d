#include "sim/link/vl_arbiter.h"

#include <algorithm>

#include "sim/core/error.h"

namespace ibfsim {

namespace {
std::uint16_t weighted_vls(const std::vector<VlArbEntry>& entries) {
  std::uint16_t m = 0;
  for (const auto& e : entries)
    if (e.weight > 0 && e.vl < kMaxDataVls) m |= static_cast<std::uint16_t>(1u << e.vl);
  return m;
}
}  // namespace

VlArbConfig default_vl_arbitration(unsigned op_vls) {
  VlArbConfig c;
  for (unsigned v = 0; v < op_vls; ++v) c.low.push_back({static_cast<std::uint8_t>(v), 64});
  c.high_limit = 0;
  return c;
}

VlArbiter::VlArbiter(VlArbConfig config) : high_limit_(config.high_limit) {
  high_.entries = std::move(config.high);
  low_.entries = std::move(config.low);
  high_.prepare();
  low_.prepare();
  if (!high_.entries.empty()) high_.remaining = high_.entries[0].weight;
  if (!low_.entries.empty()) low_.remaining = low_.entries[0].weight;
}


void VlArbiter::Table::prepare() {
  vls = weighted_vls(entries);
  const std::size_t n = entries.size();
  step.assign(kMaxDataVls * n, 0);
  for (unsigned v = 0; v < kMaxDataVls; ++v) {
    if (!(vls >> v & 1)) continue;
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t k = 1; k <= n; ++k) {
        const VlArbEntry& e = entries[(i + k) % n];
        if (e.vl == v && e.weight > 0) {
          step[v * n + i] = static_cast<std::uint8_t>(k);
          break;
        }
      }
    }
  }
}

int VlArbiter::pick(Table& t, std::uint16_t ready) {
  const std::size_t n = t.entries.size();
  if (n == 0 || (ready & t.vls) == 0) return -1;
  // The current entry keeps the link while it has weight left and its VL has a packet.
  const VlArbEntry& cur = t.entries[t.current];
  if (t.remaining > 0 && cur.weight > 0 && cur.vl < kMaxDataVls && (ready >> cur.vl & 1)) return cur.vl;
  // Otherwise move on to the next entry with weight whose VL is ready; it starts with full weight.
  std::size_t best = n + 1;
  for (std::uint16_t m = ready & t.vls; m; m &= static_cast<std::uint16_t>(m - 1)) {
    const unsigned v = static_cast<unsigned>(__builtin_ctz(m));
    best = std::min<std::size_t>(best, t.step[v * n + t.current]);
  }
  t.current = (t.current + best) % n;
  t.remaining = t.entries[t.current].weight;
  return t.entries[t.current].vl;
}

int VlArbiter::choose(std::uint16_t ready, bool vl15_ready) {
  if (vl15_ready) return kVl15;
  if (ready == 0) return -1;
  const bool low_ready = (ready & low_.vls) != 0;
  low_waiting_ = low_ready;
  bool high_allowed = true;
  if (low_ready && high_limit_ != 255) {
    const std::uint32_t limit = static_cast<std::uint32_t>(high_limit_) * 4096;
    high_allowed = high_limit_ == 0 ? high_bytes_ == 0 : high_bytes_ < limit;
  }
  if (high_allowed) {
    const int v = pick(high_, ready);
    if (v >= 0) {
      last_from_high_ = true;
      return v;
    }
  }
  const int v = pick(low_, ready);
  if (v >= 0) {
    last_from_high_ = false;
    return v;
  }
  // Only high-priority traffic is ready (the limit only yields to waiting low traffic).
  const int h = pick(high_, ready);
  last_from_high_ = h >= 0;
  return h;
}

void VlArbiter::sent(int vl, std::uint32_t bytes) {
  if (vl == kVl15) return;
  const auto units = static_cast<std::int32_t>((bytes + 63) / 64);
  Table& t = last_from_high_ ? high_ : low_;
  IBFSIM_CHECK(!t.entries.empty() && t.entries[t.current].vl == vl, "VL arbiter told of a packet it did not choose");
  t.remaining -= units;
  if (t.remaining <= 0) {
    // Weight used up: the next entry starts with its full weight next time.
    t.current = (t.current + 1) % t.entries.size();
    t.remaining = t.entries[t.current].weight;
  }
  if (last_from_high_) {
    if (low_waiting_) high_bytes_ += bytes;
  } else {
    high_bytes_ = 0;
  }
}

}  // namespace ibfsim
