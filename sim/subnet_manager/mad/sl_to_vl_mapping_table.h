// SLtoVLMappingTable (SMP attribute 0x0017, IBA Vol1 14.2.5.8): the VL each of the 16 SLs uses.
// 8 bytes: byte k holds SL 2k in bits 7-4 and SL 2k+1 in bits 3-0 (the layout of
// SlToVlTable::encode in sim/link).
// AttributeModifier (a switch has one table per input/output port pair; a CA one per port):
//   input port (15-8), output port (7-0); bit 16 "all output ports" and bit 17 "all input ports"
//   program many pairs at once (switches with OptimizedSLtoVLMappingProgramming).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

#include "sim/core/ids.h"
#include "sim/subnet_manager/mad/smp.h"

namespace ibfsim {

constexpr std::uint16_t IB_MAD_ATTR_SLVL_TABLE = 0x0017;
constexpr std::size_t kSlToVlMappingTableBytes = 8;

// A decoded table: vl_of_sl[sl] for SL 0-15; 15 means "drop". VLs are masked to 4 bits on encode.
struct SlToVlMappingTable {
  std::array<std::uint8_t, 16> vl_of_sl{};
};

// The AttributeModifier's fields.
struct SlToVlAttributeModifier {
  PortNum input_port = 0;
  PortNum output_port = 0;
  bool all_input_ports = false;
  bool all_output_ports = false;
};

std::uint32_t encode_sl_to_vl_attribute_modifier(const SlToVlAttributeModifier& m);
SlToVlAttributeModifier decode_sl_to_vl_attribute_modifier(std::uint32_t attribute_modifier);

SmpData encode_sl_to_vl_mapping_table(const SlToVlMappingTable& table);
SlToVlMappingTable decode_sl_to_vl_mapping_table(const std::uint8_t* in8);

}  // namespace ibfsim
