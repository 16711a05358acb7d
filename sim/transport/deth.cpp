#include "sim/transport/deth.h"

#include "sim/core/big_endian.h"

namespace ibfsim {

void encode_deth(const Deth& deth, std::uint8_t* out8) {
  store_be32(out8, deth.q_key);
  out8[4] = 0;
  store_be24(out8 + 5, deth.src_qp);
}

Deth decode_deth(const std::uint8_t* in8) { return {load_be32(in8), load_be24(in8 + 5)}; }

}  // namespace ibfsim
