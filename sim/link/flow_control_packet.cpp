#include "sim/link/flow_control_packet.h"

#include "sim/link/vcrc.h"

namespace ibfsim {

std::array<std::uint8_t, kFlowControlPacketBytes> encode_flow_control(const FlowControlPacket& fc) {
  const std::uint16_t fctbs = fc.fctbs & kFcCounterMask;
  const std::uint16_t fccl = fc.fccl & kFcCounterMask;
  std::array<std::uint8_t, kFlowControlPacketBytes> b{};
  b[0] = static_cast<std::uint8_t>((fc.op & 0x0F) << 4 | fctbs >> 8);
  b[1] = static_cast<std::uint8_t>(fctbs);
  b[2] = static_cast<std::uint8_t>((fc.vl & 0x0F) << 4 | fccl >> 8);
  b[3] = static_cast<std::uint8_t>(fccl);
  store_crc16(&b[4], lpcrc16(b.data()));
  return b;
}

std::optional<FlowControlPacket> decode_flow_control(const std::uint8_t* bytes6) {
  if (lpcrc16(bytes6) != load_crc16(bytes6 + 4)) return std::nullopt;
  FlowControlPacket fc;
  fc.op = bytes6[0] >> 4;
  if (fc.op > kFcOpInit) return std::nullopt;
  fc.fctbs = static_cast<std::uint16_t>((bytes6[0] & 0x0F) << 8 | bytes6[1]);
  fc.vl = bytes6[2] >> 4;
  fc.fccl = static_cast<std::uint16_t>((bytes6[2] & 0x0F) << 8 | bytes6[3]);
  return fc;
}

}  // namespace ibfsim
