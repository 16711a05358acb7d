// PortInfo codec: a hand-built active 4x EDR port (LID 0x0012, LMC 2) byte for byte, every field
// decoded back, reserved bits, and masking of sub-byte fields.
#include <catch2/catch.hpp>

#include "sim/subnet_manager/mad/port_info.h"
#include "tests/subnet_manager/smp_data.h"

using namespace ibfsim;
using ibfsim::test::filled;
using ibfsim::test::smp_data;

namespace {
PortInfo active_edr_port() {
  PortInfo pi;
  pi.m_key = 0x0102030405060708;
  pi.gid_prefix = 0xFE80000000000000;
  pi.lid = 0x0012;
  pi.master_sm_lid = 0x0001;
  pi.capability_mask = IB_PORT_CAP_HAS_CLIENT_REREG | IB_PORT_CAP_HAS_COM_MGT |
                       IB_PORT_CAP_HAS_SL_MAP | IB_PORT_CAP_HAS_TRAP;  // 0x02010048
  pi.diag_code = 0;
  pi.m_key_lease_period = 15;
  pi.local_port_num = 1;
  pi.link_width_enabled = IB_LINK_WIDTH_ACTIVE_1X | IB_LINK_WIDTH_ACTIVE_4X;
  pi.link_width_supported = IB_LINK_WIDTH_ACTIVE_1X | IB_LINK_WIDTH_ACTIVE_4X;
  pi.link_width_active = IB_LINK_WIDTH_ACTIVE_4X;
  pi.link_speed_supported = 0x7;  // 2.5, 5 and 10 Gb/s
  pi.port_state = IB_LINK_ACTIVE;
  pi.port_physical_state = IB_PORT_PHYS_STATE_LINKUP;
  pi.link_down_default_state = IB_PORT_PHYS_STATE_POLLING;
  pi.m_key_protect_bits = 1;
  pi.lmc = 2;
  pi.link_speed_active = IB_LINK_SPEED_ACTIVE_10;
  pi.link_speed_enabled = 0x7;
  pi.neighbor_mtu = IB_MTU_LEN_4096;
  pi.master_sm_sl = 0;
  pi.vl_cap = 4;  // VL0-VL7
  pi.init_type = 0;
  pi.vl_high_limit = 0;
  pi.vl_arbitration_high_cap = 8;
  pi.vl_arbitration_low_cap = 8;
  pi.init_type_reply = 0;
  pi.mtu_cap = IB_MTU_LEN_4096;
  pi.vl_stall_count = 7;
  pi.hoq_life = 19;
  pi.operational_vls = 4;
  pi.partition_enforcement_inbound = true;
  pi.partition_enforcement_outbound = true;
  pi.m_key_violations = 1;
  pi.p_key_violations = 2;
  pi.q_key_violations = 3;
  pi.guid_cap = 32;
  pi.client_reregister = true;
  pi.subnet_timeout = 18;
  pi.resp_time_value = 16;
  pi.local_phy_errors = 8;
  pi.overrun_errors = 8;
  pi.max_credit_hint = 0x1234;
  pi.link_round_trip_latency = 0xABCDEF;
  pi.capability_mask2 = 0x0002;
  pi.link_speed_ext_active = IB_LINK_SPEED_EXT_ACTIVE_25;  // EDR
  pi.link_speed_ext_supported = 0x3;                       // FDR and EDR
  pi.link_speed_ext_enabled = 0x3;
  return pi;
}
}  // namespace

TEST_CASE("PortInfo of an active 4x EDR port with LID 0x0012 and LMC 2, byte for byte",
          "[subnet_manager][codec]") {
  CHECK(IB_MAD_ATTR_PORT_INFO == 0x0015);
  const SmpData expected = smp_data({
      0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,  // 0 M_Key
      0xFE, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // 8 GidPrefix
      0x00, 0x12, 0x00, 0x01,                          // 16 LID, MasterSMLID
      0x02, 0x01, 0x00, 0x48,                          // 20 CapabilityMask
      0x00, 0x00, 0x00, 0x0F,                          // 24 DiagCode, M_KeyLeasePeriod
      0x01, 0x03, 0x03, 0x02,                          // 28 port 1, widths: enabled/supported 1x+4x, active 4x
      0x74,                                            // 32 speeds supported 0111 | state Active 0100
      0x52,                                            // 33 phys LinkUp 0101 | down default Polling 0010
      0x42,                                            // 34 protect bits 01, reserved 000, LMC 010
      0x47,                                            // 35 speed active 10 Gb/s 0100 | enabled 0111
      0x50,                                            // 36 NeighborMTU 4096 | MasterSMSL 0
      0x40,                                            // 37 VLCap VL0-7 | InitType 0
      0x00, 0x08, 0x08,                                // 38 VLHighLimit, VLArbHighCap, VLArbLowCap
      0x05,                                            // 41 InitTypeReply 0 | MTUCap 4096
      0xF3,                                            // 42 VLStallCount 111 | HOQLife 10011
      0x4C,                                            // 43 OperationalVLs 4 | PartEnf in, out
      0x00, 0x01, 0x00, 0x02, 0x00, 0x03,              // 44 M_Key/P_Key/Q_Key violations
      0x20,                                            // 50 GUIDCap
      0x92,                                            // 51 ClientReregister | SubnetTimeOut 18
      0x10,                                            // 52 RespTimeValue 16
      0x88,                                            // 53 LocalPhyErrors 8 | OverrunErrors 8
      0x12, 0x34,                                      // 54 MaxCreditHint
      0x00, 0xAB, 0xCD, 0xEF,                          // 56 reserved, LinkRoundTripLatency
      0x00, 0x02,                                      // 60 CapabilityMask2
      0x23,                                            // 62 LinkSpeedExtActive EDR | ExtSupported FDR+EDR
      0x03});                                          // 63 LinkSpeedExtEnabled
  CHECK(encode_port_info(active_edr_port()) == expected);
}

TEST_CASE("PortInfo decodes every field of the hand-built port", "[subnet_manager][codec]") {
  const PortInfo p = decode_port_info(encode_port_info(active_edr_port()).data());
  CHECK(p.m_key == 0x0102030405060708);
  CHECK(p.gid_prefix == 0xFE80000000000000);
  CHECK(p.lid == 0x0012);
  CHECK(p.master_sm_lid == 0x0001);
  CHECK(p.capability_mask == 0x02010048);
  CHECK(p.diag_code == 0);
  CHECK(p.m_key_lease_period == 15);
  CHECK(p.local_port_num == 1);
  CHECK(p.link_width_enabled == 3);
  CHECK(p.link_width_supported == 3);
  CHECK(p.link_width_active == IB_LINK_WIDTH_ACTIVE_4X);
  CHECK(p.link_speed_supported == 7);
  CHECK(p.port_state == IB_LINK_ACTIVE);
  CHECK(p.port_physical_state == IB_PORT_PHYS_STATE_LINKUP);
  CHECK(p.link_down_default_state == IB_PORT_PHYS_STATE_POLLING);
  CHECK(p.m_key_protect_bits == 1);
  CHECK(p.lmc == 2);
  CHECK(p.link_speed_active == IB_LINK_SPEED_ACTIVE_10);
  CHECK(p.link_speed_enabled == 7);
  CHECK(p.neighbor_mtu == IB_MTU_LEN_4096);
  CHECK(p.master_sm_sl == 0);
  CHECK(p.vl_cap == 4);
  CHECK(p.init_type == 0);
  CHECK(p.vl_high_limit == 0);
  CHECK(p.vl_arbitration_high_cap == 8);
  CHECK(p.vl_arbitration_low_cap == 8);
  CHECK(p.init_type_reply == 0);
  CHECK(p.mtu_cap == IB_MTU_LEN_4096);
  CHECK(p.vl_stall_count == 7);
  CHECK(p.hoq_life == 19);
  CHECK(p.operational_vls == 4);
  CHECK(p.partition_enforcement_inbound);
  CHECK(p.partition_enforcement_outbound);
  CHECK_FALSE(p.filter_raw_inbound);
  CHECK_FALSE(p.filter_raw_outbound);
  CHECK(p.m_key_violations == 1);
  CHECK(p.p_key_violations == 2);
  CHECK(p.q_key_violations == 3);
  CHECK(p.guid_cap == 32);
  CHECK(p.client_reregister);
  CHECK_FALSE(p.multicast_pkey_trap_suppression_enabled);
  CHECK(p.subnet_timeout == 18);
  CHECK(p.resp_time_value == 16);
  CHECK(p.local_phy_errors == 8);
  CHECK(p.overrun_errors == 8);
  CHECK(p.max_credit_hint == 0x1234);
  CHECK(p.link_round_trip_latency == 0xABCDEF);
  CHECK(p.capability_mask2 == 0x0002);
  CHECK(p.link_speed_ext_active == IB_LINK_SPEED_EXT_ACTIVE_25);
  CHECK(p.link_speed_ext_supported == 3);
  CHECK(p.link_speed_ext_enabled == 3);
}

TEST_CASE("PortInfo drops exactly its reserved bits: 34 bits 5-3, 51 bit 5, 52 bits 7-5, 56, 63 "
          "bits 7-5",
          "[subnet_manager][codec]") {
  SmpData expected = filled(0xFF);
  expected[34] = 0xC7;
  expected[51] = 0xDF;
  expected[52] = 0x1F;
  expected[56] = 0x00;
  expected[63] = 0x1F;
  const PortInfo all = decode_port_info(filled(0xFF).data());
  CHECK(encode_port_info(all) == expected);
  CHECK(all.multicast_pkey_trap_suppression_enabled);
  CHECK(all.link_round_trip_latency == 0xFFFFFF);
  CHECK(all.lmc == 7);
  CHECK(all.hoq_life == 31);
  CHECK(all.vl_stall_count == 7);
}

TEST_CASE("PortInfo masks oversized sub-byte fields instead of spilling into neighbours",
          "[subnet_manager][codec]") {
  PortInfo pi;
  pi.port_state = 0x14;            // 4 bits
  pi.lmc = 0x0A;                   // 3 bits
  pi.m_key_protect_bits = 0x05;    // 2 bits
  pi.hoq_life = 0x3F;              // 5 bits
  pi.vl_stall_count = 0x09;        // 3 bits
  pi.subnet_timeout = 0x3F;        // 5 bits
  pi.link_round_trip_latency = 0x12345678;
  const SmpData d = encode_port_info(pi);
  CHECK(d[32] == 0x04);
  CHECK(d[34] == 0x42);
  CHECK(d[42] == 0x3F);
  CHECK(d[51] == 0x1F);
  CHECK(d[56] == 0x00);
  CHECK(d[57] == 0x34);
  CHECK(d[58] == 0x56);
  CHECK(d[59] == 0x78);
}
