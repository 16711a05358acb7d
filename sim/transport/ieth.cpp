#include "sim/transport/ieth.h"

#include "sim/core/big_endian.h"

namespace ibfsim {

void encode_ieth(const Ieth& ieth, std::uint8_t* out4) { store_be32(out4, ieth.r_key); }

Ieth decode_ieth(const std::uint8_t* in4) { return {load_be32(in4)}; }

}  // namespace ibfsim
