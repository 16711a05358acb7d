#include "sim/transport/congestion_control_table.h"

#include <algorithm>

namespace ibfsim {

CongestionControlTable linear_cct(std::uint16_t limit, std::uint8_t shift, std::uint16_t step) {
  CongestionControlTable t;
  t.ccti_limit = limit;
  t.entries.resize(std::size_t{limit} + 1);
  for (std::size_t i = 0; i < t.entries.size(); ++i) {
    const std::uint64_t m = std::min<std::uint64_t>(i * step, kCctMultiplierMax);
    t.entries[i] = CctEntry{static_cast<std::uint8_t>(shift & 3), static_cast<std::uint16_t>(m)};
  }
  return t;
}

}  // namespace ibfsim
