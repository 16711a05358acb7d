// The 6-byte flow-control link packet (IBA Vol1 ch. 7):
//   byte 0 bits 7-4 Op, bits 3-0 + byte 1 FCTBS (12), byte 2 bits 7-4 VL, bits 3-0 + byte 3 FCCL
//   (12), bytes 4-5 LPCRC = vcrc16 over bytes 0-3, in the same wire order as the VCRC.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace ibfsim {

constexpr std::size_t kFlowControlPacketBytes = 6;
constexpr std::uint8_t kFcOpNormal = 0;           // periodic / on freed buffers
constexpr std::uint8_t kFcOpInit = 1;             // during link initialisation
constexpr std::uint16_t kFcCounterMask = 0x0FFF;  // FCTBS and FCCL count modulo 4096

// A decoded flow-control packet. FCTBS and FCCL are 12-bit counters; Op and VL 4-bit fields.
struct FlowControlPacket {
  std::uint8_t op = kFcOpNormal;
  std::uint16_t fctbs = 0;
  std::uint8_t vl = 0;
  std::uint16_t fccl = 0;
};

// Encodes the packet with its LPCRC; fields wider than their bit width are masked.
std::array<std::uint8_t, kFlowControlPacketBytes> encode_flow_control(const FlowControlPacket& fc);

// Decodes 6 bytes; nullopt if the LPCRC is wrong or Op is reserved (> 1), which the receiver
// must discard (rule R6, docs/compliance.md).
std::optional<FlowControlPacket> decode_flow_control(const std::uint8_t* bytes6);

}  // namespace ibfsim
