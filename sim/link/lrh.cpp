#include "sim/link/lrh.h"

namespace ibfsim {

void encode_lrh(const Lrh& lrh, std::uint8_t* out8) {
  out8[0] = static_cast<std::uint8_t>((lrh.vl & 0x0F) << 4 | (lrh.lver & 0x0F));
  out8[1] = static_cast<std::uint8_t>((lrh.sl & 0x0F) << 4 | (lrh.lnh & 0x03));
  store_be16(out8 + 2, lrh.dlid);
  store_be16(out8 + 4, lrh.pkt_len & kLrhPktLenMask);
  store_be16(out8 + 6, lrh.slid);
}

Lrh decode_lrh(const std::uint8_t* in8) {
  Lrh lrh;
  lrh.vl = in8[0] >> 4;
  lrh.lver = in8[0] & 0x0F;
  lrh.sl = in8[1] >> 4;
  lrh.lnh = in8[1] & 0x03;
  lrh.dlid = load_be16(in8 + 2);
  lrh.pkt_len = load_be16(in8 + 4) & kLrhPktLenMask;
  lrh.slid = load_be16(in8 + 6);
  return lrh;
}

}  // namespace ibfsim
