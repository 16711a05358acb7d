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

// Syndrome kinds (bits 6-5) and NAK codes (bits 4-0 of a NAK).
enum class AethKind : std::uint8_t { kAck = 0, kRnrNak = 1, kReserved = 2, kNak = 3 };
enum class NakCode : std::uint8_t {
  kPsnSequenceError = 0,
  kInvalidRequest = 1,
  kRemoteAccessError = 2,
  kRemoteOperationalError = 3,
  kInvalidRdRequest = 4,
};
constexpr std::uint8_t kAckCreditsInvalid = 31;  // "no end-to-end credit information"

constexpr AethKind aeth_kind(std::uint8_t syndrome) { return static_cast<AethKind>((syndrome >> 5) & 3); }
constexpr std::uint8_t aeth_value(std::uint8_t syndrome) { return syndrome & 0x1F; }
constexpr std::uint8_t ack_syndrome(std::uint8_t credit_code = kAckCreditsInvalid) { return credit_code & 0x1F; }
constexpr std::uint8_t rnr_nak_syndrome(std::uint8_t timer_code) { return 0x20 | (timer_code & 0x1F); }
constexpr std::uint8_t nak_syndrome(NakCode code) { return 0x60 | static_cast<std::uint8_t>(code); }

}  // namespace ibfsim
