// P_KeyTable codec: 32 big-endian entries, membership bit, block/port modifier.
#include <catch2/catch.hpp>

#include "sim/subnet_manager/mad/p_key_table.h"
#include "tests/subnet_manager/smp_data.h"

using namespace ibfsim;
using ibfsim::test::filled;
using ibfsim::test::smp_data;

TEST_CASE("A P_KeyTable block is 32 big-endian P_Keys", "[subnet_manager][codec]") {
  CHECK(IB_MAD_ATTR_P_KEY_TABLE == 0x0016);
  PKeyTableBlock b;
  b.p_keys[0] = IB_DEFAULT_PKEY;
  b.p_keys[1] = 0x8001;  // full member of partition 1
  b.p_keys[2] = 0x0001;  // limited member
  b.p_keys[31] = 0x7FFF;
  SmpData expected = smp_data({0xFF, 0xFF, 0x80, 0x01, 0x00, 0x01});
  expected[62] = 0x7F;
  expected[63] = 0xFF;
  CHECK(encode_p_key_table(b) == expected);
  const PKeyTableBlock back = decode_p_key_table(expected.data());
  CHECK(back.p_keys == b.p_keys);
  CHECK((back.p_keys[1] & IB_PKEY_TYPE_MASK) != 0);
  CHECK((back.p_keys[2] & IB_PKEY_TYPE_MASK) == 0);
  CHECK((back.p_keys[2] & IB_PKEY_BASE_MASK) == 1);
  CHECK(encode_p_key_table(decode_p_key_table(filled(0xFF).data())) == filled(0xFF));
}

TEST_CASE("P_KeyTable modifier: block in 15-0, switch port in 31-16", "[subnet_manager][codec]") {
  CHECK(encode_p_key_attribute_modifier({0, 0}) == 0);
  CHECK(encode_p_key_attribute_modifier({2, 0}) == 0x00000002);
  CHECK(encode_p_key_attribute_modifier({1, 36}) == 0x00240001);
  const PKeyAttributeModifier m = decode_p_key_attribute_modifier(0x00050003);
  CHECK(m.block == 3);
  CHECK(m.port == 5);
}
