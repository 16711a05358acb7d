// IETH, the 4-byte Invalidate extended transport header of SEND Last / Only with Invalidate
// (RC opcodes 0x16, 0x17): the R_Key the responder invalidates once the message is received.
// Big-endian.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ibfsim {

constexpr std::size_t kIethBytes = 4;

// A decoded IETH.
struct Ieth {
  std::uint32_t r_key = 0;
};

void encode_ieth(const Ieth& ieth, std::uint8_t* out4);
Ieth decode_ieth(const std::uint8_t* in4);

}  // namespace ibfsim
