// SLtoVLMappingTable codec: nibble order, agreement with the link layer's table, modifier.
#include <catch2/catch.hpp>

#include "sim/link/sl_to_vl_table.h"
#include "sim/subnet_manager/mad/sl_to_vl_mapping_table.h"
#include "tests/subnet_manager/smp_data.h"

using namespace ibfsim;
using ibfsim::test::filled;
using ibfsim::test::smp_data;

TEST_CASE("SLtoVLMappingTable puts even SLs in the high nibble of 8 bytes",
          "[subnet_manager][codec]") {
  CHECK(IB_MAD_ATTR_SLVL_TABLE == 0x0017);
  SlToVlMappingTable t;
  for (unsigned sl = 0; sl < 16; ++sl) t.vl_of_sl[sl] = static_cast<std::uint8_t>(sl % 4);
  t.vl_of_sl[15] = 15;  // dropped
  const SmpData d = encode_sl_to_vl_mapping_table(t);
  CHECK(d == smp_data({0x01, 0x23, 0x01, 0x23, 0x01, 0x23, 0x01, 0x2F}));
  CHECK(decode_sl_to_vl_mapping_table(d.data()).vl_of_sl == t.vl_of_sl);
  // Same bytes as the link layer's table writes.
  const auto link_bytes = SlToVlTable::from(t.vl_of_sl).encode();
  for (std::size_t k = 0; k < kSlToVlMappingTableBytes; ++k) CHECK(d[k] == link_bytes[k]);
  SmpData eight_ones{};
  for (std::size_t k = 0; k < kSlToVlMappingTableBytes; ++k) eight_ones[k] = 0xFF;
  CHECK(encode_sl_to_vl_mapping_table(decode_sl_to_vl_mapping_table(filled(0xFF).data())) ==
        eight_ones);
}

TEST_CASE("SLtoVLMappingTable modifier: input port 15-8, output port 7-0, all-ports bits 17/16",
          "[subnet_manager][codec]") {
  CHECK(encode_sl_to_vl_attribute_modifier({3, 7, false, false}) == 0x00000307);
  CHECK(encode_sl_to_vl_attribute_modifier({0, 0, true, true}) == 0x00030000);
  CHECK(encode_sl_to_vl_attribute_modifier({0, 9, true, false}) == 0x00020009);
  const SlToVlAttributeModifier m = decode_sl_to_vl_attribute_modifier(0x00012405);
  CHECK(m.input_port == 0x24);
  CHECK(m.output_port == 5);
  CHECK_FALSE(m.all_input_ports);
  CHECK(m.all_output_ports);
}
