#include "sim/transport/reth.h"

#include "sim/core/big_endian.h"

namespace ibfsim {

void encode_reth(const Reth& reth, std::uint8_t* out16) {
  store_be64(out16, reth.va);
  store_be32(out16 + 8, reth.r_key);
  store_be32(out16 + 12, reth.dma_len);
}

Reth decode_reth(const std::uint8_t* in16) {
  return {load_be64(in16), load_be32(in16 + 8), load_be32(in16 + 12)};
}

}  // namespace ibfsim
