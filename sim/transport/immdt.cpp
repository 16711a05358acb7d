#include "sim/transport/immdt.h"

#include "sim/core/big_endian.h"

namespace ibfsim {

void encode_immdt(const Immdt& immdt, std::uint8_t* out4) { store_be32(out4, immdt.data); }

Immdt decode_immdt(const std::uint8_t* in4) { return {load_be32(in4)}; }

}  // namespace ibfsim
