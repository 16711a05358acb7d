// A link's symbol clock. Its period is an exact rational number of femtoseconds (an FDR 64b/66b
// block lasts 14,080,000/3 fs), so edge n is at floor(n * num / den) fs: computed from the cycle
// index every time, never accumulated, so no rounding error builds up over a run.
#pragma once
#include <cstdint>

#include "sim/core/time.h"

namespace ibfsim {

class SymbolClock {
 public:
  SymbolClock() = default;
  // period = period_num_fs / period_den femtoseconds. Both must be > 0.
  SymbolClock(std::uint64_t period_num_fs, std::uint64_t period_den);

  // Time of edge `cycle` (edge 0 is at time 0: all clocks start in phase at the start of the run).
  Time time_of(std::uint64_t cycle) const {
    if (den_ == 1) return cycle * num_;  // whole-fs periods (all but FDR): no 128-bit division
    return static_cast<Time>(static_cast<unsigned __int128>(cycle) * num_ / den_);
  }
  // Smallest cycle whose edge is at or after t.
  std::uint64_t cycle_at_or_after(Time t) const {
    if (den_ == 1) return t / num_ + (t % num_ != 0);
    unsigned __int128 x = static_cast<unsigned __int128>(t) * den_;
    return static_cast<std::uint64_t>((x + num_ - 1) / num_);
  }
  Time edge_at_or_after(Time t) const { return time_of(cycle_at_or_after(t)); }

  std::uint64_t period_num_fs() const { return num_; }
  std::uint64_t period_den() const { return den_; }
  // Period rounded to whole fs, for reports only.
  double period_fs() const { return static_cast<double>(num_) / static_cast<double>(den_); }

 private:
  std::uint64_t num_ = 1;
  std::uint64_t den_ = 1;
};

}  // namespace ibfsim
