#include "sim/transport/aeth.h"

#include "sim/core/big_endian.h"

namespace ibfsim {

void encode_aeth(const Aeth& aeth, std::uint8_t* out4) {
  out4[0] = aeth.syndrome;
  store_be24(out4 + 1, aeth.msn);
}

Aeth decode_aeth(const std::uint8_t* in4) { return {in4[0], load_be24(in4 + 1)}; }

}  // namespace ibfsim
