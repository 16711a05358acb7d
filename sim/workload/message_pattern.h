// The bytes a checked verbs message carries: its first 8 bytes are its index (little-endian, as
// many as fit), the rest a hash of (key, index, offset), so a receiver can tell which message it
// got and verify every byte without a copy of what was sent. Pure functions, no SystemC.
#pragma once
#include <cstdint>

namespace ibfsim {

// A 64-bit mixing function (splitmix64's finaliser): distinct inputs give unrelated outputs.
std::uint64_t pattern_mix(std::uint64_t x);

// Writes message `index` of the stream `key` (len bytes) into dst.
void fill_pattern(std::uint8_t* dst, std::uint64_t key, std::uint64_t index, std::uint32_t len);

// True if `got` (len bytes) is exactly message `index` of stream `key`.
bool pattern_matches(const std::uint8_t* got, std::uint64_t key, std::uint64_t index, std::uint32_t len);

// The index a message carries, from its first min(len, 8) bytes. With fewer than 8 bytes only the
// low bits travel: the rest is taken from `near`, the index expected.
std::uint64_t pattern_index(const std::uint8_t* got, std::uint32_t len, std::uint64_t near);

}  // namespace ibfsim
