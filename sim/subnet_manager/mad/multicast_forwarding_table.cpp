#include "sim/subnet_manager/mad/multicast_forwarding_table.h"

#include "sim/core/big_endian.h"

namespace ibfsim {

std::uint32_t encode_mft_attribute_modifier(const MftAttributeModifier& m) {
  return std::uint32_t{m.position & 0x0Fu} << 28 | (m.block & 0x01FFu);
}

MftAttributeModifier decode_mft_attribute_modifier(std::uint32_t attribute_modifier) {
  return {static_cast<std::uint8_t>(attribute_modifier >> 28),
          static_cast<std::uint16_t>(attribute_modifier & 0x01FF)};
}

SmpData encode_multicast_forwarding_table(const MulticastForwardingTableBlock& block) {
  SmpData out{};
  for (std::size_t i = 0; i < kMftBlockEntries; ++i) store_be16(&out[2 * i], block.port_masks[i]);
  return out;
}

MulticastForwardingTableBlock decode_multicast_forwarding_table(const std::uint8_t* in64) {
  MulticastForwardingTableBlock block;
  for (std::size_t i = 0; i < kMftBlockEntries; ++i) block.port_masks[i] = load_be16(in64 + 2 * i);
  return block;
}

}  // namespace ibfsim
