// LinearForwardingTable and MulticastForwardingTable codecs: blocks, entry order, modifiers.
#include <catch2/catch.hpp>

#include "sim/subnet_manager/mad/linear_forwarding_table.h"
#include "sim/subnet_manager/mad/multicast_forwarding_table.h"
#include "tests/subnet_manager/smp_data.h"

using namespace ibfsim;
using ibfsim::test::filled;

TEST_CASE("An LFT block is 64 egress ports in LID order: a fresh block routes nothing",
          "[subnet_manager][codec]") {
  CHECK(IB_MAD_ATTR_LIN_FWD_TBL == 0x0019);
  CHECK(encode_linear_forwarding_table(LinearForwardingTableBlock{}) == filled(kNoRoute));
  // Block 1 covers LIDs 64-127: LID 0x0042 is entry 2, LID 127 entry 63.
  CHECK(lft_block_of(0x0042) == 1);
  CHECK(lft_entry_of(0x0042) == 2);
  CHECK(lft_block_first_lid(1) == 64);
  CHECK(lft_block_of(kLidUnicastMax) == 767);
  LinearForwardingTableBlock block;
  block.ports[lft_entry_of(0x0042)] = 7;
  block.ports[63] = 36;
  block.ports[0] = 0;  // LID 64 is the switch itself: port 0
  SmpData expected = filled(0xFF);
  expected[0] = 0x00;
  expected[2] = 0x07;
  expected[63] = 0x24;
  CHECK(encode_linear_forwarding_table(block) == expected);
  CHECK(decode_linear_forwarding_table(expected.data()).ports == block.ports);
}

TEST_CASE("An MFT block is 32 big-endian port masks: the modifier carries position and block",
          "[subnet_manager][codec]") {
  CHECK(IB_MAD_ATTR_MCAST_FWD_TBL == 0x001B);
  // MLID 0xC021 is entry 1 of block 1. Ports 17 and 20 are bits 1 and 4 at position 1.
  CHECK(mft_block_of(0xC021) == 1);
  CHECK(mft_entry_of(0xC021) == 1);
  CHECK(mft_block_of(0xFFFE) == 511);
  MulticastForwardingTableBlock block;
  block.port_masks[1] = (1u << (17 - 16)) | (1u << (20 - 16));
  block.port_masks[31] = 0x8001;
  SmpData expected{};
  expected[2] = 0x00;
  expected[3] = 0x12;
  expected[62] = 0x80;
  expected[63] = 0x01;
  CHECK(encode_multicast_forwarding_table(block) == expected);
  CHECK(decode_multicast_forwarding_table(expected.data()).port_masks == block.port_masks);
  CHECK(encode_multicast_forwarding_table(decode_multicast_forwarding_table(filled(0xFF).data())) ==
        filled(0xFF));

  CHECK(encode_mft_attribute_modifier({1, 1}) == 0x10000001);
  CHECK(encode_mft_attribute_modifier({15, 511}) == 0xF00001FF);
  CHECK(encode_mft_attribute_modifier({0x1F, 0x3FF}) == 0xF00001FF);  // masked to 4 and 9 bits
  const MftAttributeModifier m = decode_mft_attribute_modifier(0x200001FF | 0x0FFFFE00);
  CHECK(m.position == 2);
  CHECK(m.block == 511);  // reserved bits 27-9 ignored
}
