// The pure SMA (sim/subnet_manager/sma/sma.h): Get and Set of every attribute on a hand-built node
// state, the status of each refusal, M_Key protection and what a refused Set leaves unchanged.
#include <catch2/catch.hpp>

#include "sim/subnet_manager/mad/directed_route.h"
#include "sim/subnet_manager/mad/node_description.h"
#include "sim/subnet_manager/sma/sma.h"

using namespace ibfsim;

namespace {

// A 4-port switch: port 3's link is up in Init, the others are down. Port 0 holds LID 0.
SmaState small_switch() {
  SmaState s;
  s.node_info.node_type = IB_NODE_TYPE_SWITCH;
  s.node_info.num_ports = 4;
  s.node_info.node_guid = 0x0002c90300000011ull;
  s.description = "sw1";
  s.ports.resize(5);
  s.ports[0].guid = 0x0002c90300000011ull;
  for (unsigned p = 0; p <= 4; ++p) {
    SmaPort& port = s.ports[p];
    port.p_keys.assign(32, 0);
    port.p_keys[0] = 0xFFFF;
    port.info.mtu_cap = IB_MTU_LEN_4096;
    port.info.neighbor_mtu = IB_MTU_LEN_4096;
    port.info.vl_cap = 4;            // VL0-7
    port.info.operational_vls = 4;
    port.info.vl_arbitration_low_cap = 32;
    port.info.vl_arbitration_high_cap = 8;
    port.info.port_state = IB_LINK_DOWN;
  }
  s.ports[0].info.port_state = IB_LINK_ACTIVE;
  s.ports[3].info.port_state = IB_LINK_INIT;
  s.sl_to_vl.assign(5, std::vector<SlToVlMappingTable>(5));
  s.switch_info.linear_fdb_cap = 0xC000;
  s.switch_info.multicast_fdb_cap = 0x4000;
  s.switch_info.optimized_sl_to_vl_mapping_programming = 1;
  return s;
}

SmaState small_ca() {
  SmaState s;
  s.node_info.node_type = IB_NODE_TYPE_CA;
  s.node_info.num_ports = 2;
  s.node_info.node_guid = 0x0002c90301000005ull;
  s.ports.resize(3);
  for (unsigned p = 1; p <= 2; ++p) {
    s.ports[p].guid = 0x0002c90301000005ull + p;
    s.ports[p].p_keys.assign(32, 0);
    s.ports[p].info.mtu_cap = IB_MTU_LEN_2048;
    s.ports[p].info.vl_cap = 3;
    s.ports[p].info.operational_vls = 3;
    s.ports[p].info.port_state = IB_LINK_INIT;
  }
  s.sl_to_vl.assign(1, std::vector<SlToVlMappingTable>(3));
  return s;
}

Smp request(std::uint8_t method, std::uint16_t attr, std::uint32_t mod, SmpData data = {}) {
  Smp r = make_dr_request(method, attr, mod, 7, {1, 3});
  r.hop_pointer = 3;  // as it is when the walk reached the node
  r.data = data;
  return r;
}

}  // namespace

TEST_CASE("the SMA answers NodeInfo and NodeDescription Gets with the port the SMP came in on") {
  SmaState s = small_switch();
  const SmaResult r = sma_process(s, request(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 0), 3);
  REQUIRE(r.respond);
  CHECK(r.response.method == IB_MAD_METHOD_GET_RESP);
  CHECK(r.response.direction);
  CHECK(r.response.status == 0);
  CHECK(r.response.transaction_id == 7);
  const NodeInfo ni = decode_node_info(r.response.data.data());
  CHECK(ni.node_type == IB_NODE_TYPE_SWITCH);
  CHECK(ni.num_ports == 4);
  CHECK(ni.local_port_num == 3);
  CHECK(ni.port_guid == 0x0002c90300000011ull);

  SmaState ca = small_ca();
  const NodeInfo cai = decode_node_info(sma_process(ca, request(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 0), 2).response.data.data());
  CHECK(cai.local_port_num == 2);
  CHECK(cai.port_guid == 0x0002c90301000007ull);  // node GUID + port

  const SmaResult nd = sma_process(s, request(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_DESC, 0), 3);
  CHECK(decode_node_description(nd.response.data.data()).text == "sw1");
}

TEST_CASE("the SMA answers unsupported attributes, methods, versions and modifiers with their status") {
  SmaState s = small_switch();
  auto status = [&](const Smp& r) {
    const SmaResult res = sma_process(s, r, 3);
    REQUIRE(res.respond);
    // GetResp for Get and Set, the method with its response bit otherwise.
    CHECK(res.response.method == (r.method == IB_MAD_METHOD_SET ? IB_MAD_METHOD_GET_RESP : (r.method | 0x80)));
    return res.response.status;
  };
  CHECK(status(request(IB_MAD_METHOD_GET, 0x0014, 0)) == IB_MAD_STATUS_UNSUP_METHOD_ATTR);  // GUIDInfo
  CHECK(status(request(IB_MAD_METHOD_GET, IB_MAD_ATTR_SM_INFO, 0)) == IB_MAD_STATUS_UNSUP_METHOD_ATTR);  // no SM here
  CHECK(status(request(IB_MAD_METHOD_SET, IB_MAD_ATTR_NODE_INFO, 0)) == IB_MAD_STATUS_UNSUP_METHOD_ATTR);  // read-only
  CHECK(status(request(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 1)) == IB_MAD_STATUS_INVALID_FIELD);
  CHECK(status(request(IB_MAD_METHOD_GET, IB_MAD_ATTR_PORT_INFO, 5)) == IB_MAD_STATUS_INVALID_FIELD);  // 4 ports
  CHECK(status(request(IB_MAD_METHOD_GET, IB_MAD_ATTR_PORT_INFO, 4)) == 0);
  CHECK(status(request(IB_MAD_METHOD_GET, IB_MAD_ATTR_LIN_FWD_TBL, 767)) == 0);  // LIDs 49088..49151
  CHECK(status(request(IB_MAD_METHOD_GET, IB_MAD_ATTR_LIN_FWD_TBL, 768)) == IB_MAD_STATUS_INVALID_FIELD);
  // VL arbitration: low cap 32 has block 1 only, high cap 8 has block 3 only.
  CHECK(status(request(IB_MAD_METHOD_GET, IB_MAD_ATTR_VL_ARBITRATION, (1u << 16) | 2)) == 0);
  CHECK(status(request(IB_MAD_METHOD_GET, IB_MAD_ATTR_VL_ARBITRATION, (2u << 16) | 2)) == IB_MAD_STATUS_INVALID_FIELD);
  CHECK(status(request(IB_MAD_METHOD_GET, IB_MAD_ATTR_VL_ARBITRATION, (3u << 16) | 2)) == 0);
  CHECK(status(request(IB_MAD_METHOD_GET, IB_MAD_ATTR_VL_ARBITRATION, (4u << 16) | 2)) == IB_MAD_STATUS_INVALID_FIELD);
  CHECK(status(request(IB_MAD_METHOD_GET, IB_MAD_ATTR_VL_ARBITRATION, (1u << 16) | 0)) == IB_MAD_STATUS_INVALID_FIELD);
  CHECK(status(request(IB_MAD_METHOD_GET, IB_MAD_ATTR_P_KEY_TABLE, (4u << 16) | 0)) == 0);
  CHECK(status(request(IB_MAD_METHOD_GET, IB_MAD_ATTR_P_KEY_TABLE, (4u << 16) | 1)) == IB_MAD_STATUS_INVALID_FIELD);
  CHECK(status(request(IB_MAD_METHOD_GET, IB_MAD_ATTR_SLVL_TABLE, (5u << 8) | 1)) == IB_MAD_STATUS_INVALID_FIELD);
  // MFT: 4 ports need one mask position (ports 0..15); block 511 is the last of 0x4000 MLIDs.
  CHECK(status(request(IB_MAD_METHOD_GET, IB_MAD_ATTR_MCAST_FWD_TBL, 511)) == 0);
  CHECK(status(request(IB_MAD_METHOD_GET, IB_MAD_ATTR_MCAST_FWD_TBL, (1u << 28) | 0)) == IB_MAD_STATUS_INVALID_FIELD);
  Smp v2 = request(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 0);
  v2.class_version = 2;
  CHECK(status(v2) == IB_MAD_STATUS_UNSUP_CLASS_VER);
  CHECK(status(request(IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_NODE_INFO, 0)) == IB_MAD_STATUS_UNSUP_METHOD);
  // Answers and traps are not requests: no answer.
  CHECK_FALSE(sma_process(s, request(IB_MAD_METHOD_GET_RESP, IB_MAD_ATTR_NODE_INFO, 0), 3).respond);
  CHECK_FALSE(sma_process(s, request(IB_MAD_METHOD_TRAP, 0x0002, 0), 3).respond);
  SmaState ca = small_ca();
  const SmaResult sw_only = sma_process(ca, request(IB_MAD_METHOD_GET, IB_MAD_ATTR_SWITCH_INFO, 0), 1);
  CHECK(sw_only.response.status == IB_MAD_STATUS_UNSUP_METHOD_ATTR);
}

TEST_CASE("PortInfo Sets program LID, LMC, SMLID and link settings, and walk PortState Init to Armed to Active only") {
  SmaState s = small_switch();
  PortInfo set;
  set.lid = 0x0010;
  set.lmc = 0;
  set.master_sm_lid = 1;
  set.neighbor_mtu = IB_MTU_LEN_2048;
  set.hoq_life = 16;
  set.vl_high_limit = 4;
  set.operational_vls = 3;  // VL0-3, allowed in Init
  set.port_state = IB_LINK_ACTIVE;  // Init -> Active skips Armed: refused, nothing changes
  SmaResult r = sma_process(s, request(IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, 3, encode_port_info(set)), 3);
  CHECK(r.response.status == IB_MAD_STATUS_INVALID_FIELD);
  CHECK_FALSE(r.applied);
  CHECK(s.ports[3].info.neighbor_mtu == IB_MTU_LEN_4096);
  CHECK(s.ports[3].info.port_state == IB_LINK_INIT);

  set.port_state = IB_LINK_ARMED;
  r = sma_process(s, request(IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, 3, encode_port_info(set)), 3);
  CHECK(r.response.status == 0);
  CHECK(r.applied);
  CHECK(r.port == 3);
  const PortInfo got = decode_port_info(r.response.data.data());
  CHECK(got.port_state == IB_LINK_ARMED);
  CHECK(got.neighbor_mtu == IB_MTU_LEN_2048);
  CHECK(got.hoq_life == 16);
  CHECK(got.vl_high_limit == 4);
  CHECK(got.operational_vls == 3);
  CHECK(got.lid == 0);  // an external switch port holds no LID
  CHECK(got.local_port_num == 3);

  set.operational_vls = 4;  // changing VLs once data may flow (Armed) is refused
  set.port_state = IB_LINK_ACTIVE;
  CHECK(sma_process(s, request(IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, 3, encode_port_info(set)), 3).response.status ==
        IB_MAD_STATUS_INVALID_FIELD);
  set.operational_vls = 0;  // no change
  CHECK(sma_process(s, request(IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, 3, encode_port_info(set)), 3).response.status == 0);
  CHECK(s.ports[3].info.port_state == IB_LINK_ACTIVE);
  CHECK(s.ports[3].info.operational_vls == 3);

  // Port 0 takes the switch's LID.
  set.port_state = IB_LINK_NO_CHANGE;
  r = sma_process(s, request(IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, 0, encode_port_info(set)), 3);
  CHECK(r.response.status == 0);
  CHECK(s.ports[0].info.lid == 0x0010);
  CHECK(s.ports[0].info.master_sm_lid == 1);
  set.lid = 0xC000;  // multicast: not a port LID
  CHECK(sma_process(s, request(IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, 0, encode_port_info(set)), 3).response.status ==
        IB_MAD_STATUS_INVALID_FIELD);
  CHECK(s.ports[0].info.lid == 0x0010);
  // MTU above MTUCap, VLs above VLCap, Down and a physical state change are refused.
  SmaState ca = small_ca();
  PortInfo c;
  c.lid = 4;
  c.neighbor_mtu = IB_MTU_LEN_4096;  // MTUCap 2048
  CHECK(sma_process(ca, request(IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, 0, encode_port_info(c)), 1).response.status ==
        IB_MAD_STATUS_INVALID_FIELD);
  c.neighbor_mtu = IB_MTU_LEN_2048;
  c.operational_vls = 4;  // VLCap VL0-3
  CHECK(sma_process(ca, request(IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, 0, encode_port_info(c)), 1).response.status ==
        IB_MAD_STATUS_INVALID_FIELD);
  c.operational_vls = 0;
  c.port_state = IB_LINK_DOWN;
  CHECK(sma_process(ca, request(IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, 0, encode_port_info(c)), 1).response.status ==
        IB_MAD_STATUS_INVALID_FIELD);
  c.port_state = IB_LINK_NO_CHANGE;
  c.port_physical_state = IB_PORT_PHYS_STATE_DISABLED;
  CHECK(sma_process(ca, request(IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, 0, encode_port_info(c)), 1).response.status ==
        IB_MAD_STATUS_INVALID_FIELD);
  c.port_physical_state = 0;
  c.lmc = 2;
  // A CA answers for the port the SMP came in on, whatever the modifier says.
  r = sma_process(ca, request(IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, 0, encode_port_info(c)), 2);
  CHECK(r.response.status == 0);
  CHECK(r.port == 2);
  CHECK(ca.ports[2].info.lid == 4);
  CHECK(ca.ports[2].info.lmc == 2);
  CHECK(ca.ports[1].info.lid == 0);
}

TEST_CASE("LinearForwardingTable blocks of 64 and LinearFDBTop read back what was set") {
  SmaState s = small_switch();
  LinearForwardingTableBlock b;
  for (std::size_t i = 0; i < kLftBlockEntries; ++i) b.ports[i] = static_cast<PortNum>(i % 5);  // ports 0..4
  SmaResult r = sma_process(s, request(IB_MAD_METHOD_SET, IB_MAD_ATTR_LIN_FWD_TBL, 2, encode_linear_forwarding_table(b)), 3);
  CHECK(r.response.status == 0);
  CHECK(r.applied);
  REQUIRE(s.lft.size() == 192);
  CHECK(s.lft[128] == 0);
  CHECK(s.lft[129] == 1);
  CHECK(s.lft[191] == 63 % 5);
  CHECK(s.lft[127] == kNoRoute);  // blocks 0 and 1 were never written
  const auto back = decode_linear_forwarding_table(
      sma_process(s, request(IB_MAD_METHOD_GET, IB_MAD_ATTR_LIN_FWD_TBL, 2), 3).response.data.data());
  CHECK(back.ports == b.ports);
  const auto unset = decode_linear_forwarding_table(
      sma_process(s, request(IB_MAD_METHOD_GET, IB_MAD_ATTR_LIN_FWD_TBL, 9), 3).response.data.data());
  CHECK(unset.ports[0] == kNoRoute);
  b.ports[5] = 5;  // the switch has ports 0..4
  CHECK(sma_process(s, request(IB_MAD_METHOD_SET, IB_MAD_ATTR_LIN_FWD_TBL, 2, encode_linear_forwarding_table(b)), 3)
            .response.status == IB_MAD_STATUS_INVALID_FIELD);
  CHECK(s.lft[133] == 0);  // unchanged: entry 5 of block 2 still holds 5 % 5

  SwitchInfo si;
  si.linear_fdb_top = 191;
  si.life_time_value = 18;
  si.port_state_change = true;  // writing 1 clears it
  s.switch_info.port_state_change = true;
  r = sma_process(s, request(IB_MAD_METHOD_SET, IB_MAD_ATTR_SWITCH_INFO, 0, encode_switch_info(si)), 3);
  CHECK(r.response.status == 0);
  const SwitchInfo got = decode_switch_info(r.response.data.data());
  CHECK(got.linear_fdb_top == 191);
  CHECK(got.life_time_value == 18);
  CHECK_FALSE(got.port_state_change);
  CHECK(got.linear_fdb_cap == 0xC000);  // read-only fields keep their value
  si.linear_fdb_top = 0xC000;
  CHECK(sma_process(s, request(IB_MAD_METHOD_SET, IB_MAD_ATTR_SWITCH_INFO, 0, encode_switch_info(si)), 3).response.status ==
        IB_MAD_STATUS_INVALID_FIELD);
}

TEST_CASE("SL to VL tables: per port pair, or every pair at once with the all-ports bits") {
  SmaState s = small_switch();
  SlToVlMappingTable t;
  for (unsigned sl = 0; sl < 16; ++sl) t.vl_of_sl[sl] = static_cast<std::uint8_t>(sl % 4);
  SlToVlAttributeModifier m{1, 2, false, false};
  SmaResult r = sma_process(s, request(IB_MAD_METHOD_SET, IB_MAD_ATTR_SLVL_TABLE, encode_sl_to_vl_attribute_modifier(m),
                                       encode_sl_to_vl_mapping_table(t)), 3);
  CHECK(r.response.status == 0);
  CHECK(s.sl_to_vl[1][2].vl_of_sl[5] == 1);
  CHECK(s.sl_to_vl[2][1].vl_of_sl[5] == 0);
  t.vl_of_sl[5] = 15;
  m = SlToVlAttributeModifier{0, 0, true, true};
  r = sma_process(s, request(IB_MAD_METHOD_SET, IB_MAD_ATTR_SLVL_TABLE, encode_sl_to_vl_attribute_modifier(m),
                             encode_sl_to_vl_mapping_table(t)), 3);
  CHECK(r.response.status == 0);
  for (unsigned in = 0; in <= 4; ++in)
    for (unsigned out = 0; out <= 4; ++out) CHECK(s.sl_to_vl[in][out].vl_of_sl[5] == 15);
  // Without the optimized programming capability the bits are refused.
  s.switch_info.optimized_sl_to_vl_mapping_programming = 0;
  CHECK(sma_process(s, request(IB_MAD_METHOD_SET, IB_MAD_ATTR_SLVL_TABLE, encode_sl_to_vl_attribute_modifier(m),
                               encode_sl_to_vl_mapping_table(t)), 3).response.status == IB_MAD_STATUS_INVALID_FIELD);
}

TEST_CASE("VLArbitration blocks keep only the entries within the port's capacity") {
  SmaState s = small_switch();
  VlArbitrationTableBlock b;
  for (std::size_t i = 0; i < kVlArbBlockEntries; ++i) b.entries[i] = VlArbEntry{static_cast<std::uint8_t>(i % 8), 10};
  const SmaResult r = sma_process(
      s, request(IB_MAD_METHOD_SET, IB_MAD_ATTR_VL_ARBITRATION, (3u << 16) | 2, encode_vl_arbitration_table(b)), 3);
  CHECK(r.response.status == 0);
  CHECK(r.port == 2);
  const auto got = decode_vl_arbitration_table(r.response.data.data());
  CHECK(got.entries[7].weight == 10);  // high cap 8: entries 0..7
  CHECK(got.entries[7].vl == 7);
  CHECK(got.entries[8].weight == 0);
}

TEST_CASE("the SMA ignores a SubnSet with a wrong M_Key, counts the violation, and hides the key from a level-1 Get") {
  SmaState s = small_switch();
  PortInfo set;
  set.lid = 9;
  set.neighbor_mtu = IB_MTU_LEN_4096;
  set.m_key = 0x1122334455667788ull;
  set.m_key_protect_bits = 1;
  // No M_Key yet: any key is fine.
  REQUIRE(sma_process(s, request(IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, 0, encode_port_info(set)), 3).response.status == 0);
  set.lid = 10;
  Smp wrong = request(IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, 0, encode_port_info(set));
  wrong.m_key = 0x99;
  const SmaResult ignored = sma_process(s, wrong, 3);
  CHECK_FALSE(ignored.respond);
  CHECK_FALSE(ignored.applied);
  CHECK(s.ports[0].info.lid == 9);
  CHECK(s.ports[0].info.m_key_violations == 1);
  // A Get with the wrong key at protection level 1 is answered, with the M_Key hidden.
  Smp get = request(IB_MAD_METHOD_GET, IB_MAD_ATTR_PORT_INFO, 0);
  get.m_key = 0x99;
  SmaResult r = sma_process(s, get, 3);
  REQUIRE(r.respond);
  CHECK(decode_port_info(r.response.data.data()).m_key == 0);
  CHECK(decode_port_info(r.response.data.data()).m_key_violations == 1);
  get.m_key = 0x1122334455667788ull;
  CHECK(decode_port_info(sma_process(s, get, 3).response.data.data()).m_key == 0x1122334455667788ull);
  // The right key: the Set goes through.
  wrong.m_key = 0x1122334455667788ull;
  CHECK(sma_process(s, wrong, 3).response.status == 0);
  CHECK(s.ports[0].info.lid == 10);
}

TEST_CASE("M_Key lease: a violation starts the timer, the valid key stops it, and once it runs out the protection "
          "bits fall to 0 (at the next SMP)") {
  SmaState s = small_switch();
  constexpr std::uint64_t kKey = 0x1122334455667788ull;
  PortInfo set;
  set.lid = 9;
  set.neighbor_mtu = IB_MTU_LEN_4096;
  set.m_key = kKey;
  set.m_key_protect_bits = 2;
  set.m_key_lease_period = 3;  // seconds
  Smp keyed = request(IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, 0, encode_port_info(set));
  keyed.m_key = kKey;
  REQUIRE(sma_process(s, keyed, 3, 1 * kSec).response.status == 0);
  Smp get = request(IB_MAD_METHOD_GET, IB_MAD_ATTR_PORT_INFO, 0);
  get.m_key = 0x99;
  // A refused Get (level 2) at 10 s starts the lease: it would run out at 13 s.
  const SmaResult refused = sma_process(s, get, 3, 10 * kSec);
  CHECK_FALSE(refused.respond);
  CHECK(refused.m_key_violation);
  CHECK(refused.port == 0);
  CHECK(s.ports[0].m_key_lease_ends == 13 * kSec);
  // A second violation does not restart it.
  CHECK(sma_process(s, get, 3, 12 * kSec).m_key_violation);
  CHECK(s.ports[0].m_key_lease_ends == 13 * kSec);
  // The SM's valid key at 12.5 s stops it: at 20 s the port is still protected.
  Smp sm_get = get;
  sm_get.m_key = kKey;
  REQUIRE(sma_process(s, sm_get, 3, 12 * kSec + 500 * kMs).respond);
  CHECK(s.ports[0].m_key_lease_ends == 0);
  CHECK(sma_process(s, get, 3, 20 * kSec).m_key_violation);  // and this starts it again: ends at 23 s
  CHECK(s.ports[0].info.m_key_protect_bits == 2);
  CHECK(s.ports[0].info.m_key_violations == 3);
  // No SM speaks up: at 23 s the protection lapses, and a Get with any key reads the M_Key (level 0).
  const SmaResult late = sma_process(s, get, 3, 23 * kSec);
  REQUIRE(late.respond);
  CHECK_FALSE(late.m_key_violation);
  CHECK(s.ports[0].info.m_key_protect_bits == 0);
  CHECK(decode_port_info(late.response.data.data()).m_key == kKey);
  // A Set with a wrong key is refused still (the M_Key stays; only the protection level lapsed).
  Smp wrong_set = keyed;
  wrong_set.m_key = 0x99;
  CHECK(sma_process(s, wrong_set, 3, 24 * kSec).m_key_violation);
}

TEST_CASE("M_Key lease period 0: the protection never lapses") {
  SmaState s = small_ca();
  PortInfo set;
  set.lid = 5;
  set.neighbor_mtu = IB_MTU_LEN_2048;
  set.m_key = 0xABCD;
  set.m_key_protect_bits = 2;
  Smp keyed = request(IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, 0, encode_port_info(set));
  REQUIRE(sma_process(s, keyed, 1, 0).response.status == 0);
  Smp get = request(IB_MAD_METHOD_GET, IB_MAD_ATTR_PORT_INFO, 0);
  get.m_key = 0x99;
  const SmaResult r = sma_process(s, get, 1, 1 * kSec);
  CHECK(r.m_key_violation);
  CHECK(r.port == 1);  // a CA's own port
  CHECK(s.ports[1].m_key_lease_ends == 0);
  CHECK(sma_process(s, get, 1, 100000 * kSec).m_key_violation);
  CHECK(s.ports[1].info.m_key_protect_bits == 2);
  CHECK(s.ports[1].info.m_key_violations == 2);
}
