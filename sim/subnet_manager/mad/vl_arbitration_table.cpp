#include "sim/subnet_manager/mad/vl_arbitration_table.h"

namespace ibfsim {

std::uint32_t encode_vl_arb_attribute_modifier(const VlArbAttributeModifier& m) {
  return std::uint32_t{m.block_selector} << 16 | m.port;
}

VlArbAttributeModifier decode_vl_arb_attribute_modifier(std::uint32_t attribute_modifier) {
  return {static_cast<std::uint16_t>(attribute_modifier >> 16),
          static_cast<PortNum>(attribute_modifier & 0xFFFF)};
}

SmpData encode_vl_arbitration_table(const VlArbitrationTableBlock& block) {
  SmpData out{};
  for (std::size_t i = 0; i < kVlArbBlockEntries; ++i) {
    out[2 * i] = block.entries[i].vl & 0x0F;
    out[2 * i + 1] = block.entries[i].weight;
  }
  return out;
}

VlArbitrationTableBlock decode_vl_arbitration_table(const std::uint8_t* in64) {
  VlArbitrationTableBlock block;
  for (std::size_t i = 0; i < kVlArbBlockEntries; ++i)
    block.entries[i] = {static_cast<std::uint8_t>(in64[2 * i] & 0x0F), in64[2 * i + 1]};
  return block;
}

}  // namespace ibfsim
