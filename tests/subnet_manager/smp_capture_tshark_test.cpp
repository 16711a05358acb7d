// SMPs written to a capture and decoded by tshark (stock Debian 12 Wireshark 4.0): Wireshark's
// own SMP and attribute dissectors must read back every field we encoded, which checks the
// layouts against an implementation written independently from ours.
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "sim/core/packet.h"
#include "sim/report/erf_record.h"
#include "sim/report/pcap_writer.h"
#include "sim/subnet_manager/mad/directed_route.h"
#include "sim/subnet_manager/mad/linear_forwarding_table.h"
#include "sim/subnet_manager/mad/multicast_forwarding_table.h"
#include "sim/subnet_manager/mad/node_description.h"
#include "sim/subnet_manager/mad/node_info.h"
#include "sim/subnet_manager/mad/p_key_table.h"
#include "sim/subnet_manager/mad/port_info.h"
#include "sim/subnet_manager/mad/sl_to_vl_mapping_table.h"
#include "sim/subnet_manager/mad/sm_info.h"
#include "sim/subnet_manager/mad/smp_packet.h"
#include "sim/subnet_manager/mad/switch_info.h"
#include "sim/subnet_manager/mad/vl_arbitration_table.h"
#include "tests/support/run_command.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {

const std::vector<std::string> kFields = {
    "frame.len", "infiniband.lrh.vl", "infiniband.lrh.dlid", "infiniband.lrh.slid",
    "infiniband.lrh.pktlen", "infiniband.bth.opcode", "infiniband.bth.destqp",
    "infiniband.deth.srcqp", "infiniband.mad.baseversion", "infiniband.mad.mgmtclass",
    "infiniband.mad.classversion", "infiniband.mad.method", "infiniband.mad.status",
    "infiniband.mad.transactionid", "infiniband.mad.attributeid",
    "infiniband.mad.attributemodifier", "infiniband.smplid.mkey",
    "infiniband.smpdirected.smpstatus", "infiniband.smpdirected.hoppointer",
    "infiniband.smpdirected.hopcount", "infiniband.smpdirected.drslid",
    "infiniband.smpdirected.drdlid", "infiniband.smpdirected.initialpath",
    "infiniband.smpdirected.returnpath",
    // NodeInfo
    "infiniband.nodeinfo.baseversion", "infiniband.nodeinfo.classversion",
    "infiniband.nodeinfo.nodetype", "infiniband.nodeinfo.numports",
    "infiniband.nodeinfo.systemimageguid", "infiniband.nodeinfo.nodeguid",
    "infiniband.nodeinfo.portguid", "infiniband.nodeinfo.partitioncap",
    "infiniband.nodeinfo.deviceid", "infiniband.nodeinfo.revision",
    "infiniband.nodeinfo.localportnum", "infiniband.nodeinfo.vendorid",
    // PortInfo
    "infiniband.portinfo.m_key", "infiniband.portinfo.guid", "infiniband.portinfo.lid",
    "infiniband.portinfo.mastersmlid", "infiniband.portinfo.capabilitymask",
    "infiniband.portinfo.diagcode", "infiniband.portinfo.m_keyleaseperiod",
    "infiniband.portinfo.localportnum", "infiniband.portinfo.linkwidthenabled",
    "infiniband.portinfo.linkwidthsupported", "infiniband.portinfo.linkwidthactive",
    "infiniband.portinfo.linkspeedsupported", "infiniband.portinfo.portstate",
    "infiniband.portinfo.portphysicalstate", "infiniband.portinfo.linkdowndefaultstate",
    "infiniband.portinfo.m_keyprotectbits", "infiniband.portinfo.lmc",
    "infiniband.portinfo.linkspeedactive", "infiniband.portinfo.linkspeedenabled",
    "infiniband.portinfo.neighbormtu", "infiniband.portinfo.mastersmsl",
    "infiniband.portinfo.vlcap", "infiniband.portinfo.inittype",
    "infiniband.portinfo.vlhighlimit", "infiniband.portinfo.vlarbitrationhighcap",
    "infiniband.portinfo.vlarbitrationlowcap", "infiniband.portinfo.inittypereply",
    "infiniband.portinfo.mtucap", "infiniband.portinfo.vlstallcount",
    "infiniband.portinfo.hoqlife", "infiniband.portinfo.operationalvls",
    "infiniband.portinfo.partitionenforcementinbound",
    "infiniband.portinfo.partitionenforcementoutbound", "infiniband.portinfo.filterrawinbound",
    "infiniband.portinfo.filterrawoutbound", "infiniband.portinfo.m_keyviolations",
    "infiniband.portinfo.p_keyviolations", "infiniband.portinfo.q_keyviolations",
    "infiniband.portinfo.guidcap", "infiniband.portinfo.clientreregister",
    "infiniband.portinfo.subnettimeout", "infiniband.portinfo.resptimevalue",
    "infiniband.portinfo.localphyerrors", "infiniband.portinfo.overrunerrors",
    "infiniband.portinfo.maxcredithint", "infiniband.portinfo.linkroundtriplatency",
    // SwitchInfo
    "infiniband.switchinfo.linearfdbcap", "infiniband.switchinfo.randomfdbcap",
    "infiniband.switchinfo.multicastfdbcap", "infiniband.switchinfo.linearfdbtop",
    "infiniband.switchinfo.defaultport", "infiniband.switchinfo.defaultmulticastprimaryport",
    "infiniband.switchinfo.defaultmulticastnotprimaryport", "infiniband.switchinfo.lifetimevalue",
    "infiniband.switchinfo.portstatechange",
    "infiniband.switchinfo.optimizedsltovlmappingprogramming",
    "infiniband.switchinfo.lidsperport", "infiniband.switchinfo.partitionenforcementcap",
    "infiniband.switchinfo.inboundenforcementcap", "infiniband.switchinfo.outboundenforcementcap",
    "infiniband.switchinfo.filterrawinboundcap", "infiniband.switchinfo.filterrawoutboundcap",
    "infiniband.switchinfo.enhancedportzero",
    // SMInfo
    "infiniband.sminfo.guid", "infiniband.sminfo.sm_key", "infiniband.sminfo.actcount",
    "infiniband.sminfo.priority", "infiniband.sminfo.smstate",
    // Tables and NodeDescription
    "infiniband.nodedescription.nodestring", "infiniband.linearforwardingtable.port",
    "infiniband.multicastforwardingtable.portmask", "infiniband.p_keytable.membershiptype",
    "infiniband.p_keytable.p_keybase", "infiniband.sltovlmappingtable.sltovlhighbits",
    "infiniband.sltovlmappingtable.sltovllowbits", "infiniband.vlarbitrationtable.vl",
    "infiniband.vlarbitrationtable.weight", "_ws.malformed", "_ws.expert"};

using Row = std::map<std::string, std::string>;

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  if (!s.empty() && s.back() == sep) out.emplace_back();
  return out;
}

std::vector<Row> tshark(const std::string& pcap) {
  std::string cmd = "/usr/bin/tshark -n -r '" + pcap + "' -T fields -E separator=';'";
  for (const auto& f : kFields) cmd += " -e " + f;
  CommandResult r = run_command("(" + cmd + " 2>/dev/null)");  // stderr: the root warning
  INFO(cmd << "\n" << r.output.substr(0, 2000));
  REQUIRE(r.exit_code == 0);
  std::vector<Row> rows;
  for (const auto& line : split(r.output, '\n')) {
    if (line.empty()) continue;
    const auto cells = split(line, ';');
    REQUIRE(cells.size() == kFields.size());
    Row row;
    for (std::size_t i = 0; i < cells.size(); ++i) row[kFields[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

// A field's value as a number (tshark prints hex fields as 0x.., others in decimal).
std::uint64_t num(const Row& row, const std::string& field) {
  INFO(field << " = '" << row.at(field) << "'");
  REQUIRE_FALSE(row.at(field).empty());
  return std::stoull(row.at(field), nullptr, 0);
}

// A repeated field's values, in order.
std::vector<std::uint64_t> nums(const Row& row, const std::string& field) {
  std::vector<std::uint64_t> out;
  for (const auto& v : split(row.at(field), ',')) out.push_back(std::stoull(v, nullptr, 0));
  return out;
}

std::string hex_bytes(const SmpPath& path) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (std::uint8_t b : path) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

NodeInfo switch36() {
  NodeInfo ni;
  ni.node_type = IB_NODE_TYPE_SWITCH;
  ni.num_ports = 36;
  ni.system_image_guid = 0x0002C90300ABCDEF;
  ni.node_guid = 0x0002C90300ABCDF0;
  ni.port_guid = 0x0002C90300ABCDF1;
  ni.partition_cap = 8;
  ni.device_id = 0xCB20;
  ni.revision = 0xA0;
  ni.local_port_num = 5;
  ni.vendor_id = 0x0002C9;
  return ni;
}

PortInfo edr_port() {
  PortInfo pi;
  pi.m_key = 0x0102030405060708;
  pi.gid_prefix = 0xFE80000000000000;
  pi.lid = 0x0012;
  pi.master_sm_lid = 0x0001;
  pi.capability_mask = 0x02010048;
  pi.diag_code = 0x0203;
  pi.m_key_lease_period = 15;
  pi.local_port_num = 1;
  pi.link_width_enabled = 3;
  pi.link_width_supported = 3;
  pi.link_width_active = IB_LINK_WIDTH_ACTIVE_4X;
  pi.link_speed_supported = 7;
  pi.port_state = IB_LINK_ACTIVE;
  pi.port_physical_state = IB_PORT_PHYS_STATE_LINKUP;
  pi.link_down_default_state = IB_PORT_PHYS_STATE_POLLING;
  pi.m_key_protect_bits = 1;
  pi.lmc = 2;
  pi.link_speed_active = IB_LINK_SPEED_ACTIVE_10;
  pi.link_speed_enabled = 7;
  pi.neighbor_mtu = IB_MTU_LEN_4096;
  pi.master_sm_sl = 3;
  pi.vl_cap = 4;
  pi.init_type = 1;
  pi.vl_high_limit = 9;
  pi.vl_arbitration_high_cap = 8;
  pi.vl_arbitration_low_cap = 16;
  pi.init_type_reply = 2;
  pi.mtu_cap = IB_MTU_LEN_4096;
  pi.vl_stall_count = 7;
  pi.hoq_life = 19;
  pi.operational_vls = 4;
  pi.partition_enforcement_inbound = true;
  pi.filter_raw_outbound = true;
  pi.m_key_violations = 1;
  pi.p_key_violations = 2;
  pi.q_key_violations = 3;
  pi.guid_cap = 32;
  pi.client_reregister = true;
  pi.subnet_timeout = 18;
  pi.resp_time_value = 16;
  pi.local_phy_errors = 8;
  pi.overrun_errors = 6;
  pi.max_credit_hint = 0x1234;
  pi.link_round_trip_latency = 0xABCDEF;
  pi.link_speed_ext_active = IB_LINK_SPEED_EXT_ACTIVE_25;
  pi.link_speed_ext_supported = 3;
  pi.link_speed_ext_enabled = 3;
  return pi;
}

SwitchInfo switch_info() {
  SwitchInfo si;
  si.linear_fdb_cap = 0xC000;
  si.random_fdb_cap = 0x0010;
  si.multicast_fdb_cap = 0x1000;
  si.linear_fdb_top = 0x0012;
  si.default_port = 1;
  si.default_multicast_primary_port = 2;
  si.default_multicast_not_primary_port = 3;
  si.life_time_value = 18;
  si.port_state_change = true;
  si.optimized_sl_to_vl_mapping_programming = 1;
  si.lids_per_port = 4;
  si.partition_enforcement_cap = 8;
  si.inbound_enforcement_cap = true;
  si.filter_raw_inbound_cap = true;
  si.enhanced_port0 = true;
  si.multicast_fdb_top = 0xC01F;
  return si;
}

// A GetResp that walked back from the far end of `path`, as the first switch sends it on.
Smp walked_response(std::uint16_t attribute_id, std::uint32_t modifier, const SmpData& data) {
  Smp smp = make_dr_request(IB_MAD_METHOD_GET, attribute_id, modifier, 0x1122334455667788,
                            {1, 10, 17});
  const DrNode ca{false, 1}, sw{true, 36};
  REQUIRE(dr_route(smp, ca, kDrLocal).action == DrAction::kForward);
  REQUIRE(dr_route(smp, sw, 3).action == DrAction::kForward);
  REQUIRE(dr_route(smp, sw, 4).action == DrAction::kForward);
  REQUIRE(dr_route(smp, ca, 1).action == DrAction::kProcess);
  Smp resp = make_smp_response(smp);
  resp.data = data;
  REQUIRE(dr_route(resp, ca, kDrLocal).action == DrAction::kForward);
  REQUIRE(dr_route(resp, sw, 17).action == DrAction::kForward);
  return resp;  // HopPointer 2 on the link from S2 to S1
}

Smp lid_routed_set(std::uint16_t attribute_id, std::uint32_t modifier, const SmpData& data) {
  Smp smp;
  smp.mgmt_class = IB_MCLASS_SUBN_LID;
  smp.method = IB_MAD_METHOD_SET;
  smp.transaction_id = 0x42;
  smp.attribute_id = attribute_id;
  smp.attribute_modifier = modifier;
  smp.m_key = 0x0A0B0C0D0E0F1011;
  smp.data = data;
  return smp;
}

}  // namespace

TEST_CASE("tshark decodes our SMPs and every attribute field as encoded",
          "[subnet_manager][capture]") {
  const std::string dir = scratch_dir("smp_capture");
  const std::string pcap = dir + "/smps.pcap";

  MulticastForwardingTableBlock mft;
  mft.port_masks[0] = 0x0012;
  mft.port_masks[31] = 0x8001;
  LinearForwardingTableBlock lft;
  for (std::size_t i = 0; i < kLftBlockEntries; ++i) lft.ports[i] = static_cast<PortNum>(i % 37);
  PKeyTableBlock pkeys;
  pkeys.p_keys[0] = 0xFFFF;
  pkeys.p_keys[1] = 0x0005;
  SlToVlMappingTable sl2vl;
  for (unsigned sl = 0; sl < 16; ++sl) sl2vl.vl_of_sl[sl] = static_cast<std::uint8_t>(15 - sl);
  VlArbitrationTableBlock vlarb;
  for (std::size_t i = 0; i < kVlArbBlockEntries; ++i)
    vlarb.entries[i] = {static_cast<std::uint8_t>(i % 8), static_cast<std::uint8_t>(4 * i)};
  SmInfo sm;
  sm.guid = 0x0002C90300000001;
  sm.sm_key = 0x1122334455667788;
  sm.act_count = 0x00010203;
  sm.priority = 14;
  sm.sm_state = IB_SMINFO_STATE_MASTER;

  const std::vector<Smp> smps = {
      walked_response(IB_MAD_ATTR_NODE_INFO, 0, encode_node_info(switch36())),
      walked_response(IB_MAD_ATTR_PORT_INFO, 1, encode_port_info(edr_port())),
      walked_response(IB_MAD_ATTR_SM_INFO, 0, encode_sm_info(sm)),
      lid_routed_set(IB_MAD_ATTR_SWITCH_INFO, 0, encode_switch_info(switch_info())),
      lid_routed_set(IB_MAD_ATTR_NODE_DESC, 0, encode_node_description({"leaf01 HCA-1"})),
      lid_routed_set(IB_MAD_ATTR_LIN_FWD_TBL, 1, encode_linear_forwarding_table(lft)),
      lid_routed_set(IB_MAD_ATTR_MCAST_FWD_TBL, encode_mft_attribute_modifier({1, 2}),
                     encode_multicast_forwarding_table(mft)),
      lid_routed_set(IB_MAD_ATTR_P_KEY_TABLE, 0, encode_p_key_table(pkeys)),
      lid_routed_set(IB_MAD_ATTR_SLVL_TABLE, 0x0102, encode_sl_to_vl_mapping_table(sl2vl)),
      lid_routed_set(IB_MAD_ATTR_VL_ARBITRATION, 0x00010005, encode_vl_arbitration_table(vlarb)),
  };
  {
    PcapWriter w(pcap);
    std::vector<std::uint8_t> frame;
    Time t = 0;
    for (const Smp& smp : smps) {
      Packet p;
      if (smp.directed())
        build_smp_packet(p, encode_smp(smp), kLidPermissive, kLidPermissive);
      else
        build_smp_packet(p, encode_smp(smp), 0x0012, 0x0001);
      p.write_frame(frame);
      w.add(t += kUs, kErfTypeInfiniband, frame.data(), frame.size(), 0);
    }
    w.close();
  }
  const auto rows = tshark(pcap);
  REQUIRE(rows.size() == smps.size());

  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    const Smp& smp = smps[i];
    INFO("frame " << i + 1);
    CHECK(num(r, "frame.len") == 290);
    CHECK(num(r, "infiniband.lrh.vl") == 15);
    CHECK(num(r, "infiniband.lrh.pktlen") == 72);
    CHECK(num(r, "infiniband.bth.opcode") == 0x64);
    CHECK(num(r, "infiniband.bth.destqp") == 0);
    CHECK(num(r, "infiniband.deth.srcqp") == 0);
    CHECK(num(r, "infiniband.mad.baseversion") == 1);
    CHECK(num(r, "infiniband.mad.mgmtclass") == smp.mgmt_class);
    CHECK(num(r, "infiniband.mad.classversion") == 1);
    CHECK(num(r, "infiniband.mad.method") == smp.method);
    CHECK(num(r, "infiniband.mad.transactionid") == smp.transaction_id);
    CHECK(num(r, "infiniband.mad.attributeid") == smp.attribute_id);
    CHECK(num(r, "infiniband.mad.attributemodifier") == smp.attribute_modifier);
    CHECK(r.at("_ws.malformed").empty());
    if (smp.directed()) {
      CHECK(num(r, "infiniband.lrh.dlid") == 0xFFFF);
      CHECK(num(r, "infiniband.lrh.slid") == 0xFFFF);
      CHECK(num(r, "infiniband.smpdirected.smpstatus") == 0x8000);  // D = 1, status 0
      CHECK(num(r, "infiniband.smpdirected.hoppointer") == 2);
      CHECK(num(r, "infiniband.smpdirected.hopcount") == 3);
      CHECK(num(r, "infiniband.smpdirected.drslid") == 0xFFFF);
      CHECK(num(r, "infiniband.smpdirected.drdlid") == 0xFFFF);
      CHECK(r.at("infiniband.smpdirected.initialpath") == hex_bytes(smp.initial_path));
      CHECK(r.at("infiniband.smpdirected.returnpath") == hex_bytes(smp.return_path));
      CHECK(r.at("infiniband.smpdirected.returnpath").substr(0, 8) == "00030401");
    } else {
      CHECK(num(r, "infiniband.lrh.dlid") == 0x0012);
      CHECK(num(r, "infiniband.lrh.slid") == 0x0001);
      CHECK(num(r, "infiniband.mad.status") == 0);
      CHECK(num(r, "infiniband.smplid.mkey") == 0x0A0B0C0D0E0F1011);
    }
  }

  const NodeInfo ni = switch36();
  const Row& n = rows[0];
  CHECK(num(n, "infiniband.nodeinfo.baseversion") == 1);
  CHECK(num(n, "infiniband.nodeinfo.classversion") == 1);
  CHECK(num(n, "infiniband.nodeinfo.nodetype") == IB_NODE_TYPE_SWITCH);
  CHECK(num(n, "infiniband.nodeinfo.numports") == 36);
  CHECK(num(n, "infiniband.nodeinfo.systemimageguid") == ni.system_image_guid);
  CHECK(num(n, "infiniband.nodeinfo.nodeguid") == ni.node_guid);
  CHECK(num(n, "infiniband.nodeinfo.portguid") == ni.port_guid);
  CHECK(num(n, "infiniband.nodeinfo.partitioncap") == 8);
  CHECK(num(n, "infiniband.nodeinfo.deviceid") == 0xCB20);
  CHECK(num(n, "infiniband.nodeinfo.revision") == 0xA0);
  CHECK(num(n, "infiniband.nodeinfo.localportnum") == 5);
  CHECK(num(n, "infiniband.nodeinfo.vendorid") == 0x0002C9);

  const PortInfo pi = edr_port();
  const Row& p = rows[1];
  const std::vector<std::pair<std::string, std::uint64_t>> port_fields = {
      {"m_key", pi.m_key}, {"guid", pi.gid_prefix}, {"lid", pi.lid},
      {"mastersmlid", pi.master_sm_lid}, {"capabilitymask", pi.capability_mask},
      {"diagcode", pi.diag_code}, {"m_keyleaseperiod", pi.m_key_lease_period},
      {"localportnum", pi.local_port_num}, {"linkwidthenabled", pi.link_width_enabled},
      {"linkwidthsupported", pi.link_width_supported}, {"linkwidthactive", pi.link_width_active},
      {"linkspeedsupported", pi.link_speed_supported}, {"portstate", pi.port_state},
      {"portphysicalstate", pi.port_physical_state},
      {"linkdowndefaultstate", pi.link_down_default_state},
      {"m_keyprotectbits", pi.m_key_protect_bits}, {"lmc", pi.lmc},
      {"linkspeedactive", pi.link_speed_active}, {"linkspeedenabled", pi.link_speed_enabled},
      {"neighbormtu", pi.neighbor_mtu}, {"mastersmsl", pi.master_sm_sl}, {"vlcap", pi.vl_cap},
      {"inittype", pi.init_type}, {"vlhighlimit", pi.vl_high_limit},
      {"vlarbitrationhighcap", pi.vl_arbitration_high_cap},
      {"vlarbitrationlowcap", pi.vl_arbitration_low_cap}, {"inittypereply", pi.init_type_reply},
      {"mtucap", pi.mtu_cap}, {"vlstallcount", pi.vl_stall_count}, {"hoqlife", pi.hoq_life},
      {"operationalvls", pi.operational_vls},
      {"partitionenforcementinbound", pi.partition_enforcement_inbound},
      {"partitionenforcementoutbound", pi.partition_enforcement_outbound},
      {"filterrawinbound", pi.filter_raw_inbound}, {"filterrawoutbound", pi.filter_raw_outbound},
      {"m_keyviolations", pi.m_key_violations}, {"p_keyviolations", pi.p_key_violations},
      {"q_keyviolations", pi.q_key_violations}, {"guidcap", pi.guid_cap},
      {"clientreregister", pi.client_reregister}, {"subnettimeout", pi.subnet_timeout},
      {"resptimevalue", pi.resp_time_value}, {"localphyerrors", pi.local_phy_errors},
      {"overrunerrors", pi.overrun_errors}, {"maxcredithint", pi.max_credit_hint},
      {"linkroundtriplatency", pi.link_round_trip_latency}};
  for (const auto& [name, value] : port_fields) {
    INFO("PortInfo " << name);
    CHECK(num(p, "infiniband.portinfo." + name) == value);
  }

  const Row& s = rows[2];
  CHECK(num(s, "infiniband.sminfo.guid") == sm.guid);
  CHECK(num(s, "infiniband.sminfo.sm_key") == sm.sm_key);
  CHECK(num(s, "infiniband.sminfo.actcount") == sm.act_count);
  CHECK(num(s, "infiniband.sminfo.priority") == 14);
  CHECK(num(s, "infiniband.sminfo.smstate") == IB_SMINFO_STATE_MASTER);

  const SwitchInfo si = switch_info();
  const Row& w = rows[3];
  const std::vector<std::pair<std::string, std::uint64_t>> switch_fields = {
      {"linearfdbcap", si.linear_fdb_cap}, {"randomfdbcap", si.random_fdb_cap},
      {"multicastfdbcap", si.multicast_fdb_cap}, {"linearfdbtop", si.linear_fdb_top},
      {"defaultport", si.default_port},
      {"defaultmulticastprimaryport", si.default_multicast_primary_port},
      {"defaultmulticastnotprimaryport", si.default_multicast_not_primary_port},
      {"lifetimevalue", si.life_time_value}, {"portstatechange", si.port_state_change},
      {"optimizedsltovlmappingprogramming", si.optimized_sl_to_vl_mapping_programming},
      {"lidsperport", si.lids_per_port}, {"partitionenforcementcap", si.partition_enforcement_cap},
      {"inboundenforcementcap", si.inbound_enforcement_cap},
      {"outboundenforcementcap", si.outbound_enforcement_cap},
      {"filterrawinboundcap", si.filter_raw_inbound_cap},
      {"filterrawoutboundcap", si.filter_raw_outbound_cap},
      {"enhancedportzero", si.enhanced_port0}};
  for (const auto& [name, value] : switch_fields) {
    INFO("SwitchInfo " << name);
    CHECK(num(w, "infiniband.switchinfo." + name) == value);
  }

  CHECK(rows[4].at("infiniband.nodedescription.nodestring") == "leaf01 HCA-1");

  std::vector<std::uint64_t> lft_ports(lft.ports.begin(), lft.ports.end());
  CHECK(nums(rows[5], "infiniband.linearforwardingtable.port") == lft_ports);

  // Wireshark's dissector shows only the first 16 of the block's 32 masks (its loop stops at 16
  // although it marks all 64 bytes as the table); OpenSM and libibmad use 32 per block.
  std::vector<std::uint64_t> masks(mft.port_masks.begin(), mft.port_masks.begin() + 16);
  CHECK(nums(rows[6], "infiniband.multicastforwardingtable.portmask") == masks);

  const auto bases = nums(rows[7], "infiniband.p_keytable.p_keybase");
  const auto members = nums(rows[7], "infiniband.p_keytable.membershiptype");
  REQUIRE(bases.size() == kPKeyBlockEntries);
  REQUIRE(members.size() == kPKeyBlockEntries);
  CHECK(bases[0] == 0x7FFF);
  CHECK(members[0] != 0);
  CHECK(bases[1] == 5);
  CHECK(members[1] == 0);

  const auto high = nums(rows[8], "infiniband.sltovlmappingtable.sltovlhighbits");
  const auto low = nums(rows[8], "infiniband.sltovlmappingtable.sltovllowbits");
  REQUIRE(high.size() == 8);
  REQUIRE(low.size() == 8);
  for (unsigned k = 0; k < 8; ++k) {
    CHECK(high[k] == sl2vl.vl_of_sl[2 * k]);
    CHECK(low[k] == sl2vl.vl_of_sl[2 * k + 1]);
  }

  const auto vls = nums(rows[9], "infiniband.vlarbitrationtable.vl");
  const auto weights = nums(rows[9], "infiniband.vlarbitrationtable.weight");
  REQUIRE(vls.size() == kVlArbBlockEntries);
  REQUIRE(weights.size() == kVlArbBlockEntries);
  for (std::size_t i = 0; i < kVlArbBlockEntries; ++i) {
    CHECK(vls[i] == vlarb.entries[i].vl);
    CHECK(weights[i] == vlarb.entries[i].weight);
  }
}
