// VLArbitrationTable codec: (VL, weight) pairs, reserved nibble, block-selector modifier.
#include <catch2/catch.hpp>

#include "sim/subnet_manager/mad/vl_arbitration_table.h"
#include "tests/subnet_manager/smp_data.h"

using namespace ibfsim;
using ibfsim::test::filled;

TEST_CASE("A VLArbitrationTable block is 32 (VL, weight) byte pairs", "[subnet_manager][codec]") {
  CHECK(IB_MAD_ATTR_VL_ARBITRATION == 0x0018);
  VlArbitrationTableBlock b;
  b.entries[0] = {0, 64};
  b.entries[1] = {1, 192};
  b.entries[31] = {0x1E, 1};  // VL masked to 4 bits
  SmpData expected{};
  expected[0] = 0x00;
  expected[1] = 0x40;
  expected[2] = 0x01;
  expected[3] = 0xC0;
  expected[62] = 0x0E;
  expected[63] = 0x01;
  const SmpData d = encode_vl_arbitration_table(b);
  CHECK(d == expected);
  const VlArbitrationTableBlock back = decode_vl_arbitration_table(d.data());
  CHECK(back.entries[1].vl == 1);
  CHECK(back.entries[1].weight == 192);
  CHECK(back.entries[31].vl == 14);
  // The upper nibble of each VL byte is reserved.
  SmpData ones = filled(0xFF);
  for (std::size_t i = 0; i < 64; i += 2) ones[i] = 0x0F;
  CHECK(encode_vl_arbitration_table(decode_vl_arbitration_table(filled(0xFF).data())) == ones);
}

TEST_CASE("VLArbitrationTable modifier: block 1-2 low, 3-4 high priority, then the port",
          "[subnet_manager][codec]") {
  CHECK(encode_vl_arb_attribute_modifier({kVlArbLowPriorityFirst, 0}) == 0x00010000);
  CHECK(encode_vl_arb_attribute_modifier({kVlArbLowPriorityLast, 5}) == 0x00020005);
  CHECK(encode_vl_arb_attribute_modifier({kVlArbHighPriorityFirst, 36}) == 0x00030024);
  CHECK(encode_vl_arb_attribute_modifier({kVlArbHighPriorityLast, 1}) == 0x00040001);
  const VlArbAttributeModifier m = decode_vl_arb_attribute_modifier(0x00030011);
  CHECK(m.block_selector == kVlArbHighPriorityFirst);
  CHECK(m.port == 17);
}
