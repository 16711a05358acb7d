#include "sim/transport/ipoib/ipoib_cm.h"

#include "sim/core/big_endian.h"

namespace ibfsim {

void encode_ipoib_cm_data(const IpoibCmData& d, std::uint8_t* out8) {
  store_be32(out8, d.qpn);
  store_be32(out8 + 4, d.buffer);
}

IpoibCmData decode_ipoib_cm_data(const std::uint8_t* in8) { return IpoibCmData{load_be32(in8), load_be32(in8 + 4)}; }

}  // namespace ibfsim
