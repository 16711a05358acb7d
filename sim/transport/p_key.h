// Partition keys (IBA Vol1 ch. 9-10; R37 in docs/compliance.md): bit 15 is membership (1 full,
// 0 limited), bits 14-0 the partition. Two keys match iff their partitions are equal and non-zero
// and at least one side is a full member.
#pragma once
#include <cstdint>

namespace ibfsim {

constexpr std::uint16_t kDefaultPKey = 0xFFFF;

constexpr bool p_key_valid(std::uint16_t k) { return (k & 0x7FFF) != 0; }
constexpr bool p_key_full(std::uint16_t k) { return (k & 0x8000) != 0; }
constexpr bool p_key_match(std::uint16_t a, std::uint16_t b) {
  return p_key_valid(a) && (a & 0x7FFF) == (b & 0x7FFF) && (p_key_full(a) || p_key_full(b));
}

}  // namespace ibfsim
