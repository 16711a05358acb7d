#include "sim/transport/bth.h"

#include "sim/core/big_endian.h"

namespace ibfsim {

void encode_bth(const Bth& bth, std::uint8_t* out12) {
  out12[0] = bth.opcode;
  out12[1] = static_cast<std::uint8_t>(bth.se << 7 | bth.m << 6 | (bth.pad_cnt & 0x03) << 4 |
                                       (bth.tver & 0x0F));
  store_be16(out12 + 2, bth.p_key);
  out12[4] = static_cast<std::uint8_t>(bth.fecn << 7 | bth.becn << 6);
  store_be24(out12 + 5, bth.dest_qp);
  out12[8] = static_cast<std::uint8_t>(bth.ack_req << 7);
  store_be24(out12 + 9, bth.psn);
}

Bth decode_bth(const std::uint8_t* in12) {
  Bth bth;
  bth.opcode = in12[0];
  bth.se = in12[1] & 0x80;
  bth.m = in12[1] & 0x40;
  bth.pad_cnt = (in12[1] >> 4) & 0x03;
  bth.tver = in12[1] & 0x0F;
  bth.p_key = load_be16(in12 + 2);
  bth.fecn = in12[4] & 0x80;
  bth.becn = in12[4] & 0x40;
  bth.dest_qp = load_be24(in12 + 5);
  bth.ack_req = in12[8] & 0x80;
  bth.psn = load_be24(in12 + 9);
  return bth;
}

}  // namespace ibfsim
