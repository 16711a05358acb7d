#include "sim/core/symbol_clock.h"

#include <numeric>
#include <stdexcept>

namespace ibfsim {

SymbolClock::SymbolClock(std::uint64_t period_num_fs, std::uint64_t period_den) {
  if (period_num_fs == 0 || period_den == 0) throw std::invalid_argument("symbol clock period must be > 0");
  std::uint64_t g = std::gcd(period_num_fs, period_den);
  num_ = period_num_fs / g;
  den_ = period_den / g;
}

}  // namespace ibfsim
