#include "sim/transport/ipoib/ipoib_header.h"

#include "sim/core/big_endian.h"

namespace ibfsim {

void encode_ipoib_header(const IpoibHeader& h, std::uint8_t* out4) {
  store_be16(out4, h.type);
  store_be16(out4 + 2, h.reserved);
}

IpoibHeader decode_ipoib_header(const std::uint8_t* in4) { return IpoibHeader{load_be16(in4), load_be16(in4 + 2)}; }

void encode_ipoib_hw_address(const IpoibHwAddress& a, std::uint8_t* out20) {
  store_be32(out20, (std::uint32_t{a.flags} << 24) | (a.qpn & 0xFFFFFFu));
  for (std::size_t i = 0; i < 16; ++i) out20[4 + i] = a.gid[i];
}

IpoibHwAddress decode_ipoib_hw_address(const std::uint8_t* in20) {
  IpoibHwAddress a;
  const std::uint32_t w = load_be32(in20);
  a.flags = static_cast<std::uint8_t>(w >> 24);
  a.qpn = w & 0xFFFFFFu;
  for (std::size_t i = 0; i < 16; ++i) a.gid[i] = in20[4 + i];
  return a;
}

IpoibGid ipoib_broadcast_mgid(std::uint16_t p_key) {
  const std::uint16_t key = p_key | 0x8000;
  return IpoibGid{0xff, 0x12, 0x40, 0x1b, static_cast<std::uint8_t>(key >> 8), static_cast<std::uint8_t>(key),
                  0,    0,    0,    0,    0,                                     0,
                  0xff, 0xff, 0xff, 0xff};
}

IpoibHwAddress ipoib_broadcast_address(std::uint16_t p_key) {
  IpoibHwAddress a;
  a.qpn = 0xFFFFFF;
  a.gid = ipoib_broadcast_mgid(p_key);
  return a;
}

}  // namespace ibfsim
