// SwitchInfo codec: exact bytes including the packed LifeTimeValue and capability bits.
#include <catch2/catch.hpp>

#include "sim/subnet_manager/mad/switch_info.h"
#include "tests/subnet_manager/smp_data.h"

using namespace ibfsim;
using ibfsim::test::filled;
using ibfsim::test::smp_data;

namespace {
SwitchInfo example() {
  SwitchInfo si;
  si.linear_fdb_cap = 0xC000;
  si.random_fdb_cap = 0;
  si.multicast_fdb_cap = 0x1000;
  si.linear_fdb_top = 0x0012;
  si.default_port = 0;
  si.default_multicast_primary_port = 0xFF;
  si.default_multicast_not_primary_port = 0xFF;
  si.life_time_value = 18;  // 4.096 us x 2^18, about 1.07 s
  si.port_state_change = true;
  si.optimized_sl_to_vl_mapping_programming = 1;
  si.lids_per_port = 0;
  si.partition_enforcement_cap = 8;
  si.inbound_enforcement_cap = true;
  si.outbound_enforcement_cap = true;
  si.filter_raw_inbound_cap = false;
  si.filter_raw_outbound_cap = true;
  si.enhanced_port0 = true;
  si.multicast_fdb_top = 0xC01F;
  return si;
}
}  // namespace

TEST_CASE("SwitchInfo encodes each field at its offset", "[subnet_manager][codec]") {
  CHECK(IB_MAD_ATTR_SWITCH_INFO == 0x0012);
  // Byte 11: LifeTimeValue 18 = 10010 in 7-3, PortStateChange in 2, OptSL2VL 01 in 1-0 -> 0x95.
  // Byte 16: inbound, outbound, -, raw outbound, enhanced port 0 -> 1101 1000 = 0xD8.
  CHECK(encode_switch_info(example()) ==
        smp_data({0xC0, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x12, 0x00, 0xFF, 0xFF, 0x95, 0x00,
                  0x00, 0x00, 0x08, 0xD8, 0x00, 0xC0, 0x1F}));
}

TEST_CASE("SwitchInfo decodes what it encodes and drops reserved bits", "[subnet_manager][codec]") {
  const SwitchInfo d = decode_switch_info(encode_switch_info(example()).data());
  CHECK(d.linear_fdb_cap == 0xC000);
  CHECK(d.multicast_fdb_cap == 0x1000);
  CHECK(d.linear_fdb_top == 0x0012);
  CHECK(d.default_multicast_primary_port == 0xFF);
  CHECK(d.default_multicast_not_primary_port == 0xFF);
  CHECK(d.life_time_value == 18);
  CHECK(d.port_state_change);
  CHECK(d.optimized_sl_to_vl_mapping_programming == 1);
  CHECK(d.partition_enforcement_cap == 8);
  CHECK(d.inbound_enforcement_cap);
  CHECK(d.outbound_enforcement_cap);
  CHECK_FALSE(d.filter_raw_inbound_cap);
  CHECK(d.filter_raw_outbound_cap);
  CHECK(d.enhanced_port0);
  CHECK(d.multicast_fdb_top == 0xC01F);
  // All ones in: the reserved bits of byte 16, byte 17 and bytes 20-63 come back as zeros.
  SmpData expected{};
  for (std::size_t i = 0; i < kSwitchInfoBytes; ++i) expected[i] = 0xFF;
  expected[16] = 0xF8;
  expected[17] = 0x00;
  CHECK(encode_switch_info(decode_switch_info(filled(0xFF).data())) == expected);
  SwitchInfo wide;
  wide.life_time_value = 0xFF;
  wide.optimized_sl_to_vl_mapping_programming = 0xFF;
  CHECK(encode_switch_info(wide)[11] == 0xFB);
}
