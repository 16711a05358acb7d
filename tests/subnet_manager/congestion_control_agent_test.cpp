// The Congestion Control Agent: Sets change exactly what Control_Map (or the block) names, Gets
// read it back, and bad requests are answered with the right status and change nothing.
#include <catch2/catch.hpp>

#include "sim/subnet_manager/sm/cc_configuration.h"
#include "sim/subnet_manager/congestion_control/congestion_control_agent.h"

using namespace ibfsim;

namespace {
Mad request(std::uint8_t method, std::uint16_t attr, std::uint32_t mod, const CcMgmtData& data = {}) {
  return encode_cc_mad(make_cc_mad(method, attr, mod, data, 42));
}
}  // namespace

TEST_CASE("switch agent: a Set applies only the parts its Control_Map names and answers GetResp", "[subnet_manager][cc]") {
  SwitchCongestionConfig c;
  c.threshold = 3;
  c.marking_rate = 9;
  c.victim_mask.set(4);
  SwitchCongestionSetting s;
  s.control_map = kSwCcControlThreshold;  // Threshold and Packet_Size only
  s.threshold = 12;
  s.packet_size = 7;
  s.marking_rate = 100;       // not in the map: ignored
  s.victim_mask.set(1);       // not in the map: ignored
  const CcMad r = decode_cc_mad(switch_cc_agent(request(IB_MAD_METHOD_SET, IB_MAD_ATTR_SW_CONG_SETTING, 0,
                                                        encode_switch_congestion_setting(s)),
                                                c, 36));
  CHECK(r.header.method == IB_MAD_METHOD_GET_RESP);
  CHECK(r.header.status == 0);
  CHECK(r.header.transaction_id == 42);
  CHECK(c.threshold == 12);
  CHECK(c.packet_size == 7);
  CHECK(c.marking_rate == 9);
  CHECK(c.victim_mask.test(4));
  CHECK_FALSE(c.victim_mask.test(1));
  const SwitchCongestionSetting back = decode_switch_congestion_setting(r.data.data());
  CHECK(back.control_map == kSwCcControlAll);
  CHECK(back.threshold == 12);
  CHECK(back.marking_rate == 9);
  CHECK(back.victim_mask.test(4));
}

TEST_CASE("switch agent: SwitchPortCongestionSetting overrides one port's marking and credit starvation", "[subnet_manager][cc]") {
  SwitchCongestionConfig c;
  c.threshold = 4;
  c.packet_size = 1;
  c.marking_rate = 2;
  SwitchPortCongestionSetting s{};
  s[3] = {true, false, 15, 8, 0};  // port 3 (block 0)
  s[5] = {true, true, 6, 0, 0};    // port 5: CS_Threshold 6
  s[6] = {false, false, 9, 9, 9};  // not valid: no change
  const CcMad r = decode_cc_mad(switch_cc_agent(
      request(IB_MAD_METHOD_SET, IB_MAD_ATTR_SW_PORT_CONG_SETTING, 0, encode_switch_port_congestion_setting(s)), c, 36));
  REQUIRE(r.header.status == 0);
  CHECK(c.port(3).threshold == 15);
  CHECK(c.port(3).packet_size == 8);
  CHECK(c.port(3).marking_rate == 0);
  CHECK(c.port(5).cs_threshold == 6);
  CHECK(c.port(5).threshold == 4);
  CHECK(c.port(6).threshold == 4);
  CHECK(c.port(6).packet_size == 1);
  const SwitchPortCongestionSetting back = decode_switch_port_congestion_setting(r.data.data());
  CHECK_FALSE(back[0].valid);  // port 0 has no element
  CHECK(back[3].valid);
  CHECK(back[3].threshold == 15);
  CHECK(back[4].threshold == 4);
  // Block 1 holds ports 32..63: a 36-port switch has it, a 31-port one does not.
  CHECK(decode_cc_mad(switch_cc_agent(request(IB_MAD_METHOD_GET, IB_MAD_ATTR_SW_PORT_CONG_SETTING, 1), c, 36)).header.status == 0);
  CHECK(decode_cc_mad(switch_cc_agent(request(IB_MAD_METHOD_GET, IB_MAD_ATTR_SW_PORT_CONG_SETTING, 1), c, 31)).header.status ==
        IB_MAD_STATUS_INVALID_FIELD);
}

TEST_CASE("CA agent: CACongestionSetting entries of the SLs in Control_Map, and Port_Control", "[subnet_manager][cc]") {
  CaCongestionConfig c;
  c.sl[0] = {100, 1, 0, 0};
  CaCongestionSetting s;
  s.port_control = kCaCcPortControlPerSl;
  s.control_map = 0x0004;  // SL 2 only
  s.entries[0] = {7, 7, 7, 7};
  s.entries[2] = {20, 3, 9, 1};
  const CcMad r = decode_cc_mad(ca_cc_agent(request(IB_MAD_METHOD_SET, IB_MAD_ATTR_CA_CONG_SETTING, 0,
                                                    encode_ca_congestion_setting(s)), c));
  REQUIRE(r.header.status == 0);
  CHECK(c.per_sl);
  CHECK(c.sl[0].ccti_timer == 100);
  CHECK(c.sl[2].ccti_timer == 20);
  CHECK(c.sl[2].ccti_increase == 3);
  CHECK(c.sl[2].trigger_threshold == 9);
  CHECK(c.sl[2].ccti_min == 1);
  const CaCongestionSetting back = decode_ca_congestion_setting(r.data.data());
  CHECK(back.control_map == 0xFFFF);
  CHECK(back.entries[2].ccti_increase == 3);
}

TEST_CASE("CA agent: CongestionControlTable blocks fill entries 64 x block onward and set CCTI_Limit", "[subnet_manager][cc]") {
  CaCongestionConfig c;
  CongestionControlTableBlock b;
  b.ccti_limit = 70;
  b.entries[0] = {1, 2};
  b.entries[6] = {3, 4};
  REQUIRE(decode_cc_mad(ca_cc_agent(request(IB_MAD_METHOD_SET, IB_MAD_ATTR_CC_TBL, 1,
                                            encode_congestion_control_table_block(b)), c))
              .header.status == 0);
  CHECK(c.cct.ccti_limit == 70);
  REQUIRE(c.cct.entries.size() == 128);
  CHECK(c.cct.entries[64] == CctEntry{1, 2});
  CHECK(c.cct.entries[70] == CctEntry{3, 4});
  CHECK(c.cct.entries[0] == CctEntry{0, 0});
  CHECK(c.cct.at(70) == CctEntry{3, 4});
  CHECK(c.cct.at(200) == CctEntry{3, 4});  // past the limit: the limit's entry
  const CcMad r = decode_cc_mad(ca_cc_agent(request(IB_MAD_METHOD_GET, IB_MAD_ATTR_CC_TBL, 1), c));
  CHECK(decode_congestion_control_table_block(r.data.data()).entries[6] == CctEntry{3, 4});
  // ControlTableCap is 16 blocks: block 16, or a limit of 1024 or more, is an invalid field.
  CHECK(decode_cc_mad(ca_cc_agent(request(IB_MAD_METHOD_GET, IB_MAD_ATTR_CC_TBL, 16), c)).header.status ==
        IB_MAD_STATUS_INVALID_FIELD);
  b.ccti_limit = 1024;
  CHECK(decode_cc_mad(ca_cc_agent(request(IB_MAD_METHOD_SET, IB_MAD_ATTR_CC_TBL, 0,
                                          encode_congestion_control_table_block(b)), c))
            .header.status == IB_MAD_STATUS_INVALID_FIELD);
  CHECK(c.cct.ccti_limit == 70);  // unchanged
  const CongestionInfo ci = decode_congestion_info(
      decode_cc_mad(ca_cc_agent(request(IB_MAD_METHOD_GET, IB_MAD_ATTR_CONG_INFO, 0), c)).data.data());
  CHECK(ci.control_table_cap == 16);
}

TEST_CASE("CC agents reject a wrong class version, other methods, foreign or read-only attributes", "[subnet_manager][cc]") {
  SwitchCongestionConfig sw;
  CaCongestionConfig ca;
  CcMad v1 = make_cc_mad(IB_MAD_METHOD_GET, IB_MAD_ATTR_CONG_INFO, 0, {});
  v1.header.class_version = 1;
  CHECK(decode_cc_mad(switch_cc_agent(encode_cc_mad(v1), sw, 8)).header.status == IB_MAD_STATUS_UNSUP_CLASS_VER);
  CHECK(decode_cc_mad(ca_cc_agent(request(IB_MAD_METHOD_SEND, IB_MAD_ATTR_CONG_INFO, 0), ca)).header.status ==
        IB_MAD_STATUS_UNSUP_METHOD);
  CHECK(decode_cc_mad(ca_cc_agent(request(IB_MAD_METHOD_GET, IB_MAD_ATTR_SW_CONG_SETTING, 0), ca)).header.status ==
        IB_MAD_STATUS_UNSUP_METHOD_ATTR);
  CHECK(decode_cc_mad(switch_cc_agent(request(IB_MAD_METHOD_GET, IB_MAD_ATTR_CC_TBL, 0), sw, 8)).header.status ==
        IB_MAD_STATUS_UNSUP_METHOD_ATTR);
  CHECK(decode_cc_mad(switch_cc_agent(request(IB_MAD_METHOD_SET, IB_MAD_ATTR_CONG_INFO, 0), sw, 8)).header.status ==
        IB_MAD_STATUS_UNSUP_METHOD_ATTR);
  const CcMad info = decode_cc_mad(switch_cc_agent(request(IB_MAD_METHOD_GET, IB_MAD_ATTR_CONG_INFO, 0), sw, 8));
  CHECK(info.header.status == 0);
  CHECK(decode_congestion_info(info.data.data()).congestion_info == kCongestionInfoCreditStarvation);
}

TEST_CASE("the SM's plan: Victim_Mask on the ports facing CAs, per-port blocks, CCT in 64-entry blocks", "[subnet_manager][cc]") {
  CongestionControlSettings s;
  s.threshold = 6;
  s.packet_size = 2;
  s.marking_rate = 3;
  s.port_overrides.push_back({7, 33, std::uint8_t{15}, std::nullopt, std::nullopt, std::nullopt});
  s.port_overrides.push_back({7, 2, std::nullopt, std::nullopt, std::uint8_t{5}, std::nullopt});  // CS_Threshold
  s.port_overrides.push_back({8, 1, std::uint8_t{1}, std::nullopt, std::nullopt, std::nullopt});  // another switch
  std::vector<bool> hca_port(37, false);
  hca_port[1] = hca_port[3] = true;
  const SwitchCcPlan plan = switch_cc_plan(s, 7, 36, hca_port);
  CHECK(plan.setting.control_map == kSwCcControlAll);
  CHECK(plan.setting.victim_mask.count() == 2);
  CHECK(plan.setting.victim_mask.test(1));
  CHECK(plan.setting.victim_mask.test(3));
  CHECK(plan.setting.credit_mask.none());
  REQUIRE(plan.port_blocks.size() == 2);
  CHECK(plan.port_blocks[0].first == 1);  // port 33 is element 1 of block 1
  CHECK(plan.port_blocks[0].second[1].valid);
  CHECK(plan.port_blocks[0].second[1].threshold == 15);
  CHECK(plan.port_blocks[0].second[1].packet_size == 2);  // the switch's value
  CHECK(plan.port_blocks[0].second[1].marking_rate == 3);
  CHECK(plan.port_blocks[1].first == 0);
  CHECK(plan.port_blocks[1].second[2].credit_starvation);
  CHECK(plan.port_blocks[1].second[2].threshold == 5);
  // Applied through the agent, the MADs leave the switch with what the plan says.
  SwitchCongestionConfig c;
  std::uint64_t tid = 1;
  for (const Mad& m : switch_cc_mads(plan, &tid)) REQUIRE(decode_cc_mad(switch_cc_agent(m, c, 36)).header.status == 0);
  CHECK(tid == 4);
  CHECK(c.port(33).threshold == 15);
  CHECK(c.port(2).cs_threshold == 5);
  CHECK(c.port(2).threshold == 6);
  CHECK(c.port(1).victim);
  CHECK_FALSE(c.port(2).victim);

  s.cct = linear_cct(100, 2, 3);  // 101 entries: two blocks
  const CaCcPlan ca = ca_cc_plan(s);
  REQUIRE(ca.cct_blocks.size() == 2);
  CHECK(ca.cct_blocks[1].ccti_limit == 100);
  CHECK(ca.cct_blocks[1].entries[36] == CctEntry{2, 300});  // entry 100
  CHECK(ca.cct_blocks[1].entries[37] == CctEntry{});        // past the limit
  CaCongestionConfig cc;
  for (const Mad& m : ca_cc_mads(ca, &tid)) REQUIRE(decode_cc_mad(ca_cc_agent(m, cc)).header.status == 0);
  CHECK(cc.cct.ccti_limit == 100);
  CHECK(cc.cct.at(100) == CctEntry{2, 300});
  CHECK(cc.cct.at(1) == CctEntry{2, 3});
}
