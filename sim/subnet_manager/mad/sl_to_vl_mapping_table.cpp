#include "sim/subnet_manager/mad/sl_to_vl_mapping_table.h"

namespace ibfsim {

std::uint32_t encode_sl_to_vl_attribute_modifier(const SlToVlAttributeModifier& m) {
  return std::uint32_t{m.all_input_ports} << 17 | std::uint32_t{m.all_output_ports} << 16 |
         std::uint32_t{m.input_port} << 8 | m.output_port;
}

SlToVlAttributeModifier decode_sl_to_vl_attribute_modifier(std::uint32_t attribute_modifier) {
  SlToVlAttributeModifier m;
  m.input_port = static_cast<PortNum>(attribute_modifier >> 8);
  m.output_port = static_cast<PortNum>(attribute_modifier);
  m.all_input_ports = attribute_modifier & (1u << 17);
  m.all_output_ports = attribute_modifier & (1u << 16);
  return m;
}

SmpData encode_sl_to_vl_mapping_table(const SlToVlMappingTable& table) {
  SmpData out{};
  for (std::size_t k = 0; k < kSlToVlMappingTableBytes; ++k)
    out[k] = static_cast<std::uint8_t>((table.vl_of_sl[2 * k] & 0x0F) << 4 |
                                       (table.vl_of_sl[2 * k + 1] & 0x0F));
  return out;
}

SlToVlMappingTable decode_sl_to_vl_mapping_table(const std::uint8_t* in8) {
  SlToVlMappingTable table;
  for (std::size_t k = 0; k < kSlToVlMappingTableBytes; ++k) {
    table.vl_of_sl[2 * k] = in8[k] >> 4;
    table.vl_of_sl[2 * k + 1] = in8[k] & 0x0F;
  }
  return table;
}

}  // namespace ibfsim
