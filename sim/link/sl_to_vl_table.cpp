#include "sim/link/sl_to_vl_table.h"

namespace ibfsim {

SlToVlTable SlToVlTable::identity_modulo(unsigned op_vls) {
  SlToVlTable t;
  for (unsigned s = 0; s < 16; ++s) t.vl_[s] = static_cast<std::uint8_t>(op_vls ? s % op_vls : 0);
  return t;
}

std::array<std::uint8_t, 8> SlToVlTable::encode() const {
  std::array<std::uint8_t, 8> b{};
  for (unsigned k = 0; k < 8; ++k) b[k] = static_cast<std::uint8_t>((vl_[2 * k] << 4) | (vl_[2 * k + 1] & 15));
  return b;
}

SlToVlTable SlToVlTable::decode(const std::array<std::uint8_t, 8>& bytes) {
  SlToVlTable t;
  for (unsigned k = 0; k < 8; ++k) {
    t.vl_[2 * k] = bytes[k] >> 4;
    t.vl_[2 * k + 1] = bytes[k] & 15;
  }
  return t;
}

}  // namespace ibfsim
