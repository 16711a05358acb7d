// CRC-32 of IEEE 802.3, which is also zlib's crc32 and the IBA ICRC's: polynomial 0x04C11DB7
// processed least significant bit first (reflected 0xEDB88320), init and final xor 0xFFFFFFFF.
// The Ethernet FCS and the ICRC (IB and RoCE v2) are this CRC over different bytes; both are sent
// least significant byte first.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "sim/core/packet.h"

namespace ibfsim {

constexpr std::uint32_t kCrc32ReflectedPoly = 0xEDB88320;
constexpr std::size_t kCrc32Bytes = 4;

// The CRC over the concatenation of runs [first, last); a run with data == nullptr stands for
// len zero bytes and costs O(log len) (core/crc_zero_run.h).
std::uint32_t crc32_runs(const ByteRun* first, const ByteRun* last);
inline std::uint32_t crc32_runs(std::initializer_list<ByteRun> runs) {
  return crc32_runs(runs.begin(), runs.end());
}

// Wire order: least significant byte first.
inline void store_crc32(std::uint8_t* out4, std::uint32_t crc) {
  for (std::size_t i = 0; i < kCrc32Bytes; ++i) out4[i] = static_cast<std::uint8_t>(crc >> (8 * i));
}
inline std::uint32_t load_crc32(const std::uint8_t* in4) {
  std::uint32_t crc = 0;
  for (std::size_t i = 0; i < kCrc32Bytes; ++i) crc |= std::uint32_t{in4[i]} << (8 * i);
  return crc;
}

}  // namespace ibfsim
