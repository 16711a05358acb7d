#include "sim/workload/message_pattern.h"

#include <algorithm>

namespace ibfsim {

std::uint64_t pattern_mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

namespace {
std::uint64_t word(std::uint64_t key, std::uint64_t index, std::uint32_t offset) {
  return offset == 0 ? index : pattern_mix(key ^ (index * 0xD6E8FEB86659FD93ull) ^ offset);
}
}  // namespace

void fill_pattern(std::uint8_t* dst, std::uint64_t key, std::uint64_t index, std::uint32_t len) {
  for (std::uint32_t j = 0; j < len; j += 8) {
    const std::uint64_t w = word(key, index, j);
    const std::uint32_t n = std::min<std::uint32_t>(8, len - j);
    for (std::uint32_t b = 0; b < n; ++b) dst[j + b] = static_cast<std::uint8_t>(w >> (8 * b));
  }
}

bool pattern_matches(const std::uint8_t* got, std::uint64_t key, std::uint64_t index, std::uint32_t len) {
  for (std::uint32_t j = 0; j < len; j += 8) {
    const std::uint64_t w = word(key, index, j);
    const std::uint32_t n = std::min<std::uint32_t>(8, len - j);
    for (std::uint32_t b = 0; b < n; ++b)
      if (got[j + b] != static_cast<std::uint8_t>(w >> (8 * b))) return false;
  }
  return true;
}

std::uint64_t pattern_index(const std::uint8_t* got, std::uint32_t len, std::uint64_t near) {
  const std::uint32_t n = std::min<std::uint32_t>(len, 8);
  std::uint64_t low = 0;
  for (std::uint32_t k = 0; k < n; ++k) low |= std::uint64_t{got[k]} << (8 * k);
  const std::uint64_t mask = n == 8 ? ~0ull : ((1ull << (8 * n)) - 1);
  return (near & ~mask) | low;
}

}  // namespace ibfsim
