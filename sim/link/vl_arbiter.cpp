#include "sim/link/vl_arbiter.h"

#include <algorithm>

#include "sim/core/error.h"

namespace ibfsim {

VlArbConfig default_vl_arbitration(unsigned op_vls) {
  VlArbConfig c;
  for (unsigned v = 0; v < op_vls; ++v) c.low.push_back({static_cast<std::uint8_t>(v), 64});
  c.high_limit = 0;
  return c;
}

VlArbiter::VlArbiter(VlArbConfig config) : high_limit_(config.high_limit) {
  high_.load(config.high);
  low_.load(config.low);
}

void VlArbiter::Table::load(const std::vector<VlArbEntry>& config) {
  IBFSIM_CHECK(config.size() <= kMaxEntries, "a VL arbitration table has at most 64 entries");
  n = static_cast<std::uint8_t>(config.size());
  std::copy(config.begin(), config.end(), entries.begin());
  vls = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (entries[i].weight > 0 && entries[i].vl < kMaxDataVls) vls |= static_cast<std::uint16_t>(1u << entries[i].vl);
  current = 0;
  remaining = n ? entries[0].weight : 0;
}

int VlArbiter::pick(Table& t, std::uint16_t ready) {
  if ((ready & t.vls) == 0) return -1;  // also an empty table
  // The current entry keeps the link while it has weight left and its VL has a packet.
  const VlArbEntry& cur = t.entries[t.current];
  if (t.remaining > 0 && cur.weight > 0 && cur.vl < kMaxDataVls && (ready >> cur.vl & 1)) return cur.vl;
  // Otherwise move on to the next entry with weight whose VL is ready; it starts with full weight.
  // One exists (ready & vls), so the scan ends within n steps.
  std::size_t i = t.current;
  for (;;) {
    i = i + 1 == t.n ? 0 : i + 1;
    const VlArbEntry& e = t.entries[i];
    if (e.weight > 0 && e.vl < kMaxDataVls && (ready >> e.vl & 1)) break;
  }
  t.current = static_cast<std::uint8_t>(i);
  t.remaining = t.entries[i].weight;
  return t.entries[i].vl;
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
  IBFSIM_CHECK(t.n > 0 && t.entries[t.current].vl == vl, "VL arbiter told of a packet it did not choose");
  t.remaining -= units;
  if (t.remaining <= 0) {
    // Weight used up: the next entry starts with its full weight next time.
    t.current = static_cast<std::uint8_t>(t.current + 1 == t.n ? 0 : t.current + 1);
    t.remaining = t.entries[t.current].weight;
  }
  if (last_from_high_) {
    if (low_waiting_) high_bytes_ += bytes;
  } else {
    high_bytes_ = 0;
  }
}

}  // namespace ibfsim
