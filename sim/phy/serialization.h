// How long a packet occupies a link, in symbol-clock edges (timing mode; the bit-exact PHY must
// reproduce these counts).
//
// Framing model: a packet is a start delimiter (SDP data / SLP link), its bytes, and an end
// delimiter (EGP/EBP); each delimiter takes one byte slot. Bytes are striped across the lanes in
// order, a packet always starts on lane 0 at a code-unit boundary, and the last code unit is
// filled (PAD on 8b/10b, the rest of the 64b/66b block), so a packet of B bytes takes
// ceil((B + 2) / bytes_per_symbol) edges. A data packet of 4n+2 bytes on 4x 8b/10b is n+1 edges;
// a 6-byte flow-control packet is 8 slots.
#pragma once
#include <cstdint>

#include "sim/phy/link_speed.h"

namespace ibfsim {

// Delimiters around every packet (start + end), in byte slots.
constexpr unsigned kDelimiterSlots = 2;

// Edges a packet of `bytes` (LRH..VCRC, or the 6-byte link packet) occupies on the link.
inline std::uint64_t symbols_for_packet(const LinkRate& rate, std::uint64_t bytes) {
  const unsigned per = rate.bytes_per_symbol();
  return (bytes + kDelimiterSlots + per - 1) / per;
}

// Edges after the start of a packet until its first `bytes` bytes (plus the start delimiter) have
// been received: a switch can route once the 8-byte LRH is in.
inline std::uint64_t symbols_until_bytes(const LinkRate& rate, std::uint64_t bytes) {
  const unsigned per = rate.bytes_per_symbol();
  return (bytes + 1 + per - 1) / per;
}

}  // namespace ibfsim
