#include "sim/transport/tcp/tcp_reassembly.h"

#include <algorithm>
#include <iterator>

namespace ibfsim {

TcpReassembly::Arrival TcpReassembly::receive(std::uint64_t start, std::uint64_t end) {
  if (end <= next_) return Arrival::kDuplicate;
  start = std::max(start, next_);
  if (start == next_) {
    const bool had_holes = !blocks_.empty();
    next_ = end;
    // Absorb the blocks it reaches (and the parts of them it overlaps).
    while (!blocks_.empty() && blocks_.begin()->first <= next_) {
      auto it = blocks_.begin();
      ooo_bytes_ -= it->second - it->first;
      next_ = std::max(next_, it->second);
      blocks_.erase(it);
    }
    recent_.erase(std::remove_if(recent_.begin(), recent_.end(), [&](std::uint64_t p) { return p < next_; }),
                  recent_.end());
    return had_holes ? Arrival::kFilledHole : Arrival::kInOrder;
  }
  // Out of order: merge with every block it overlaps or touches.
  std::uint64_t first = start, last = end;
  auto it = blocks_.upper_bound(start);
  if (it != blocks_.begin() && std::prev(it)->second >= start) --it;
  bool dup = false;
  while (it != blocks_.end() && it->first <= last) {
    if (it->first <= start && it->second >= end) dup = true;
    first = std::min(first, it->first);
    last = std::max(last, it->second);
    ooo_bytes_ -= it->second - it->first;
    it = blocks_.erase(it);
  }
  blocks_.emplace(first, last);
  ooo_bytes_ += last - first;
  // The block holding this segment goes first; positions of blocks merged into it go.
  recent_.erase(std::remove_if(recent_.begin(), recent_.end(),
                               [&](std::uint64_t p) { return p >= first && p < last; }),
                recent_.end());
  recent_.insert(recent_.begin(), start);
  return dup ? Arrival::kDuplicate : Arrival::kOutOfOrder;
}

std::vector<TcpReassembly::Range> TcpReassembly::sack_blocks(std::size_t max_blocks) const {
  std::vector<Range> out;
  for (std::uint64_t p : recent_) {
    if (out.size() == max_blocks) break;
    auto it = blocks_.upper_bound(p);
    if (it == blocks_.begin()) continue;
    --it;
    if (p < it->second) out.emplace_back(it->first, it->second);
  }
  return out;
}

}  // namespace ibfsim
