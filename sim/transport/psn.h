// 24-bit packet sequence numbers (IBA Vol1 ch. 9): arithmetic wraps modulo 2^24, and two PSNs
// compare by the sign of their 24-bit difference, so "behind" and "ahead" each span 2^23.
#pragma once
#include <cstdint>

#include "sim/core/ids.h"

namespace ibfsim {

constexpr Psn kPsnMask = 0xFFFFFF;

constexpr Psn psn_add(Psn a, std::int64_t n) { return static_cast<Psn>((static_cast<std::int64_t>(a) + n) & kPsnMask); }
// a - b as a signed distance in [-2^23, 2^23).
constexpr std::int32_t psn_diff(Psn a, Psn b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a - b) << 8) >> 8;
}
constexpr bool psn_before(Psn a, Psn b) { return psn_diff(a, b) < 0; }

}  // namespace ibfsim
