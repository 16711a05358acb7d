#include "sim/subnet_manager/mad/p_key_table.h"

#include "sim/core/big_endian.h"

namespace ibfsim {

std::uint32_t encode_p_key_attribute_modifier(const PKeyAttributeModifier& m) {
  return std::uint32_t{m.port} << 16 | m.block;
}

PKeyAttributeModifier decode_p_key_attribute_modifier(std::uint32_t attribute_modifier) {
  return {static_cast<std::uint16_t>(attribute_modifier & 0xFFFF),
          static_cast<PortNum>(attribute_modifier >> 16)};
}

SmpData encode_p_key_table(const PKeyTableBlock& block) {
  SmpData out{};
  for (std::size_t i = 0; i < kPKeyBlockEntries; ++i) store_be16(&out[2 * i], block.p_keys[i]);
  return out;
}

PKeyTableBlock decode_p_key_table(const std::uint8_t* in64) {
  PKeyTableBlock block;
  for (std::size_t i = 0; i < kPKeyBlockEntries; ++i) block.p_keys[i] = load_be16(in64 + 2 * i);
  return block;
}

}  // namespace ibfsim
