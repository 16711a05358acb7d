// AETH, the 4-byte ACK extended transport header: Syndrome (8), MSN (24). Big-endian.
// Syndrome bits 6-5: 00 ACK, 01 RNR NAK, 11 NAK; bits 4-0: credit code, RNR timer or NAK code.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ibfsim {

constexpr std::size_t kAethBytes = 4;

// A decoded AETH; msn is masked to 24 bits on encode.
struct Aeth {
  std::uint8_t syndrome = 0;
  std::uint32_t msn = 0;
};

void encode_aeth(const Aeth& aeth, std::uint8_t* out4);
Aeth decode_aeth(const std::uint8_t* in4);

}  // namespace ibfsim
