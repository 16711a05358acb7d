// Congestion Control MAD (class 0x21) and its attribute codecs: exact bytes, field by field, from
// the layouts in OpenSM's ib_types.h (ib_cc_mad_t, ib_cong_info_t, ib_sw_cong_setting_t,
// ib_sw_port_cong_setting_element_t, ib_ca_cong_setting_t, ib_cc_tbl_t) and libibmad's field table.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <map>

#include "sim/subnet_manager/congestion_control/ca_congestion_setting.h"
#include "sim/subnet_manager/congestion_control/cc_mad.h"
#include "sim/subnet_manager/congestion_control/congestion_control_table_mad.h"
#include "sim/subnet_manager/congestion_control/congestion_info.h"
#include "sim/subnet_manager/congestion_control/switch_congestion_setting.h"
#include "sim/subnet_manager/congestion_control/switch_port_congestion_setting.h"

using namespace ibfsim;

namespace {
// The management data area: the listed (offset, byte) pairs set, every other byte zero.
CcMgmtData data_with(std::initializer_list<std::pair<std::size_t, std::uint8_t>> bytes) {
  CcMgmtData d{};
  for (const auto& [at, b] : bytes) d[at] = b;
  return d;
}
}  // namespace

TEST_CASE("CC MAD: header, CC_Key at 24, log data at 32, management data at 64", "[subnet_manager][codec][cc]") {
  CcMgmtData data{};
  data[0] = 0xAB;
  data[191] = 0xCD;
  CcMad m = make_cc_mad(IB_MAD_METHOD_SET, IB_MAD_ATTR_SW_CONG_SETTING, 0x00000007, data, 0x1122334455667788ull,
                        0x0102030405060708ull);
  m.log_data[0] = 0xEE;
  const Mad b = encode_cc_mad(m);
  CHECK(b[0] == 1);     // BaseVersion
  CHECK(b[1] == 0x21);  // MgmtClass: Congestion Control
  CHECK(b[2] == 2);     // ClassVersion (what OpenSM sends)
  CHECK(b[3] == 0x02);  // Set
  CHECK(b[8] == 0x11);
  CHECK(b[15] == 0x88);
  CHECK(b[16] == 0x00);
  CHECK(b[17] == 0x14);  // SwitchCongestionSetting
  CHECK(b[23] == 0x07);
  for (std::size_t i = 0; i < 8; ++i) CHECK(b[24 + i] == i + 1);
  CHECK(b[32] == 0xEE);
  CHECK(b[64] == 0xAB);
  CHECK(b[255] == 0xCD);
  const CcMad d = decode_cc_mad(b);
  CHECK(d.cc_key == 0x0102030405060708ull);
  CHECK(d.header.transaction_id == 0x1122334455667788ull);
  CHECK(d.header.attribute_modifier == 7);
  CHECK(d.log_data[0] == 0xEE);
  CHECK(d.data == data);
}

TEST_CASE("CC attribute IDs are those of OpenSM's IB_MAD_ATTR_CONG_* and IB_MAD_ATTR_CC_TBL", "[subnet_manager][codec][cc]") {
  CHECK(IB_MAD_ATTR_CONG_INFO == 0x0011);
  CHECK(IB_MAD_ATTR_CONG_KEY_INFO == 0x0012);
  CHECK(IB_MAD_ATTR_CONG_LOG == 0x0013);
  CHECK(IB_MAD_ATTR_SW_CONG_SETTING == 0x0014);
  CHECK(IB_MAD_ATTR_SW_PORT_CONG_SETTING == 0x0015);
  CHECK(IB_MAD_ATTR_CA_CONG_SETTING == 0x0016);
  CHECK(IB_MAD_ATTR_CC_TBL == 0x0017);
  CHECK(IB_MAD_ATTR_TIME_STAMP == 0x0018);
}

TEST_CASE("CongestionInfo: 16-bit CongestionInfo then ControlTableCap", "[subnet_manager][codec][cc]") {
  CHECK(encode_congestion_info({kCongestionInfoCreditStarvation, 16}) == data_with({{1, 0x01}, {2, 0x10}}));
  const CongestionInfo d = decode_congestion_info(data_with({{0, 0x80}, {1, 0x01}, {2, 3}}).data());
  CHECK(d.congestion_info == 0x8001);
  CHECK(d.control_table_cap == 3);
}

TEST_CASE("SwitchCongestionSetting: masks, packed Threshold and CS_Threshold, rates", "[subnet_manager][codec][cc]") {
  SwitchCongestionSetting s;
  s.control_map = kSwCcControlAll;
  s.victim_mask.set(1).set(2).set(9).set(36);
  s.credit_mask.set(0).set(254);
  s.threshold = 0xA;
  s.packet_size = 4;
  s.cs_threshold = 3;
  s.cs_return_delay = 0x4005;  // shift 1, multiplier 5
  s.marking_rate = 0x0102;
  // Masks are 256-bit numbers, most significant byte first: port p in byte 31 - p/8, bit p % 8.
  // Victim ports 1, 2 -> byte 31 (offset 35) 0x06; port 9 -> byte 30 (offset 34) 0x02;
  // port 36 -> byte 27 (offset 31) 0x10. Credit port 0 -> offset 36 + 31 = 67 0x01; port 254 ->
  // byte 0 (offset 36) bit 6 = 0x40. Threshold in the high nibble of byte 68, CS_Threshold in the
  // high nibble of bytes 70-71.
  const CcMgmtData expected = data_with({{3, 0x1F},
                                         {31, 0x10}, {34, 0x02}, {35, 0x06},
                                         {36, 0x40}, {67, 0x01},
                                         {68, 0xA0}, {69, 0x04}, {70, 0x30}, {71, 0x00},
                                         {72, 0x40}, {73, 0x05}, {74, 0x01}, {75, 0x02}});
  CHECK(encode_switch_congestion_setting(s) == expected);
  const SwitchCongestionSetting d = decode_switch_congestion_setting(expected.data());
  CHECK(d.control_map == 0x1F);
  CHECK(d.victim_mask == s.victim_mask);
  CHECK(d.credit_mask == s.credit_mask);
  CHECK(d.threshold == 0xA);
  CHECK(d.packet_size == 4);
  CHECK(d.cs_threshold == 3);
  CHECK(d.cs_return_delay == 0x4005);
  CHECK(d.marking_rate == 0x0102);
}

TEST_CASE("Victim_Mask of ports 1..36 is OpenSM's example 0x...001ffffffffe", "[subnet_manager][codec][cc]") {
  // OpenSM reads and prints the mask as one 256-bit hex number, bytes in order; a sample
  // configuration for a 36-port switch is 0x...001ffffffffe (leading zeros, 64 digits in all).
  std::bitset<256> m;
  for (unsigned p = 1; p <= 36; ++p) m.set(p);
  std::uint8_t bytes[32];
  encode_port_mask(m, bytes);
  std::string hex;
  for (std::uint8_t b : bytes) hex += fmt::format("{:02x}", b);
  CHECK(hex == std::string(54, '0') + "1ffffffffe");
  CHECK(decode_port_mask(bytes) == m);
}

TEST_CASE("SwitchPortCongestionSetting: 32 four-byte elements, Valid and Control_Type bits", "[subnet_manager][codec][cc]") {
  SwitchPortCongestionSetting s{};
  s[0] = {true, false, 5, 2, 0x0304};   // marking: Threshold 5, Packet_Size 2, Marking_Rate 0x0304
  s[1] = {true, true, 7, 0, 0};         // credit starvation: CS_Threshold 7
  s[31] = {false, false, 15, 9, 0xFFFF};  // not valid: its bits are still carried
  const CcMgmtData expected =
      data_with({{0, 0x85}, {1, 0x02}, {2, 0x03}, {3, 0x04}, {4, 0xC7}, {124, 0x0F}, {125, 0x09}, {126, 0xFF}, {127, 0xFF}});
  CHECK(encode_switch_port_congestion_setting(s) == expected);
  const SwitchPortCongestionSetting d = decode_switch_port_congestion_setting(expected.data());
  CHECK(d[0].valid);
  CHECK_FALSE(d[0].credit_starvation);
  CHECK(d[0].threshold == 5);
  CHECK(d[0].packet_size == 2);
  CHECK(d[0].marking_rate == 0x0304);
  CHECK(d[1].valid);
  CHECK(d[1].credit_starvation);
  CHECK(d[1].threshold == 7);
  CHECK_FALSE(d[31].valid);
  CHECK(d[31].marking_rate == 0xFFFF);
  CHECK_FALSE(d[2].valid);
}

TEST_CASE("CACongestionSetting: Port_Control, Control_Map and 16 eight-byte entries", "[subnet_manager][codec][cc]") {
  CaCongestionSetting s;
  s.port_control = kCaCcPortControlPerSl;
  s.control_map = 0x8003;
  s.entries[0] = {0x0102, 3, 4, 5};
  s.entries[15] = {0xFFEE, 0x10, 0x20, 0x30};
  // Entry s at 4 + 8 s: CCTI_Timer (2), CCTI_Increase, Trigger_Threshold, CCTI_Min, 3 reserved.
  const CcMgmtData expected = data_with({{1, 0x01}, {2, 0x80}, {3, 0x03},
                                         {4, 0x01}, {5, 0x02}, {6, 3}, {7, 4}, {8, 5},
                                         {124, 0xFF}, {125, 0xEE}, {126, 0x10}, {127, 0x20}, {128, 0x30}});
  CHECK(encode_ca_congestion_setting(s) == expected);
  const CaCongestionSetting d = decode_ca_congestion_setting(expected.data());
  CHECK(d.port_control == 1);
  CHECK(d.control_map == 0x8003);
  CHECK(d.entries[0].ccti_timer == 0x0102);
  CHECK(d.entries[0].ccti_increase == 3);
  CHECK(d.entries[0].trigger_threshold == 4);
  CHECK(d.entries[0].ccti_min == 5);
  CHECK(d.entries[15].ccti_timer == 0xFFEE);
  CHECK(d.entries[15].ccti_min == 0x30);
  CHECK(d.entries[7].ccti_timer == 0);
}

TEST_CASE("CongestionControlTable block: CCTI_Limit then 64 entries of shift (2) and multiplier (14)",
          "[subnet_manager][codec][cc]") {
  CongestionControlTableBlock b;
  b.ccti_limit = 127;
  b.entries[1] = {3, 1};       // 11 00000000000001 = 0xC001
  b.entries[2] = {1, 0x3FFF};  // 01 11111111111111 = 0x7FFF
  b.entries[63] = {2, 0x0100}; // 10 00000100000000 = 0x8100
  const CcMgmtData expected =
      data_with({{0, 0x00}, {1, 0x7F}, {6, 0xC0}, {7, 0x01}, {8, 0x7F}, {9, 0xFF}, {130, 0x81}, {131, 0x00}});
  CHECK(encode_congestion_control_table_block(b) == expected);
  const CongestionControlTableBlock d = decode_congestion_control_table_block(expected.data());
  CHECK(d.ccti_limit == 127);
  CHECK(d.entries[0] == CctEntry{0, 0});
  CHECK(d.entries[1] == CctEntry{3, 1});
  CHECK(d.entries[2] == CctEntry{1, 0x3FFF});
  CHECK(d.entries[63] == CctEntry{2, 0x100});
}
