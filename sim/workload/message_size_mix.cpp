#include "sim/workload/message_size_mix.h"

#include <algorithm>

#include "sim/core/error.h"

namespace ibfsim {

MessageSizeMix::MessageSizeMix(std::vector<Entry> entries) : entries_(std::move(entries)) {
  IBFSIM_CHECK(!entries_.empty(), "a message size mix needs an entry");
  for (const Entry& e : entries_) IBFSIM_CHECK(e.weight > 0, "message size weights must be positive");
}

std::uint32_t MessageSizeMix::largest() const {
  std::uint32_t m = 0;
  for (const Entry& e : entries_) m = std::max(m, e.bytes);
  return m;
}

double MessageSizeMix::mean() const {
  double w = 0, s = 0;
  for (const Entry& e : entries_) w += e.weight, s += e.weight * e.bytes;
  return s / w;
}

std::uint32_t MessageSizeMix::draw(RngStream& rng) const {
  if (entries_.size() == 1) return entries_[0].bytes;
  double total = 0;
  for (const Entry& e : entries_) total += e.weight;
  double x = rng.uniform() * total;
  for (const Entry& e : entries_) {
    if (x < e.weight) return e.bytes;
    x -= e.weight;
  }
  return entries_.back().bytes;  // x rounded up to total
}

}  // namespace ibfsim
