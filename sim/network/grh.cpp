#include "sim/network/grh.h"

#include <algorithm>

#include "sim/core/big_endian.h"

namespace ibfsim {

void encode_grh(const Grh& grh, std::uint8_t* out40) {
  store_be32(out40, std::uint32_t{grh.ipver & 0x0Fu} << 28 | std::uint32_t{grh.tclass} << 20 |
                        (grh.flow_label & kGrhFlowLabelMask));
  store_be16(out40 + 4, grh.pay_len);
  out40[6] = grh.nxt_hdr;
  out40[7] = grh.hop_lmt;
  std::copy(grh.sgid.begin(), grh.sgid.end(), out40 + 8);
  std::copy(grh.dgid.begin(), grh.dgid.end(), out40 + 24);
}

Grh decode_grh(const std::uint8_t* in40) {
  Grh grh;
  const std::uint32_t w0 = load_be32(in40);
  grh.ipver = static_cast<std::uint8_t>(w0 >> 28);
  grh.tclass = static_cast<std::uint8_t>(w0 >> 20);
  grh.flow_label = w0 & kGrhFlowLabelMask;
  grh.pay_len = load_be16(in40 + 4);
  grh.nxt_hdr = in40[6];
  grh.hop_lmt = in40[7];
  std::copy(in40 + 8, in40 + 24, grh.sgid.begin());
  std::copy(in40 + 24, in40 + 40, grh.dgid.begin());
  return grh;
}

}  // namespace ibfsim
