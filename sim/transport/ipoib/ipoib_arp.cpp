#include "sim/transport/ipoib/ipoib_arp.h"

#include "sim/core/big_endian.h"

namespace ibfsim {

void encode_ipoib_arp(const IpoibArp& a, std::uint8_t* out) {
  store_be16(out, kArpHardwareInfiniBand);
  store_be16(out + 2, kEtherTypeIpv4);
  out[4] = kIpoibHwAddressBytes;
  out[5] = 4;
  store_be16(out + 6, a.operation);
  encode_ipoib_hw_address(a.sender_hw, out + 8);
  for (std::size_t i = 0; i < 4; ++i) out[28 + i] = a.sender_ip[i];
  encode_ipoib_hw_address(a.target_hw, out + 32);
  for (std::size_t i = 0; i < 4; ++i) out[52 + i] = a.target_ip[i];
}

std::optional<IpoibArp> decode_ipoib_arp(const std::uint8_t* in) {
  if (load_be16(in) != kArpHardwareInfiniBand || load_be16(in + 2) != kEtherTypeIpv4 ||
      in[4] != kIpoibHwAddressBytes || in[5] != 4)
    return std::nullopt;
  IpoibArp a;
  a.operation = load_be16(in + 6);
  if (a.operation != kArpRequest && a.operation != kArpReply) return std::nullopt;
  a.sender_hw = decode_ipoib_hw_address(in + 8);
  for (std::size_t i = 0; i < 4; ++i) a.sender_ip[i] = in[28 + i];
  a.target_hw = decode_ipoib_hw_address(in + 32);
  for (std::size_t i = 0; i < 4; ++i) a.target_ip[i] = in[52 + i];
  return a;
}

}  // namespace ibfsim
