// SA MADs (class 0x03) as GMPs in a capture, decoded by tshark (stock Debian 12 Wireshark 4.0):
// its SA dissector must read back the SA header and every record field we encoded, with no
// malformed packet, which checks the layouts against an implementation written apart from ours.
#include <catch2/catch.hpp>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "sim/core/packet.h"
#include "sim/report/erf_record.h"
#include "sim/report/pcap_writer.h"
#include "sim/subnet_manager/mad/gmp_packet.h"
#include "sim/subnet_manager/sa/mc_member_record.h"
#include "sim/subnet_manager/sa/node_record.h"
#include "sim/subnet_manager/sa/path_record.h"
#include "sim/subnet_manager/sa/port_info_record.h"
#include "sim/subnet_manager/sa/sa_mad.h"
#include "tests/support/run_command.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {

const std::vector<std::string> kFields = {
    "frame.len", "infiniband.bth.destqp", "infiniband.deth.srcqp", "infiniband.mad.mgmtclass",
    "infiniband.mad.classversion", "infiniband.mad.method", "infiniband.mad.status",
    "infiniband.mad.transactionid", "infiniband.mad.attributeid", "infiniband.rmpp.rmppversion",
    "infiniband.rmpp.rmpptype", "infiniband.rmpp.rmppflags", "infiniband.rmpp.segmentnumber",
    "infiniband.rmpp.payloadlength", "infiniband.sa.smkey", "infiniband.sa.attributeoffset",
    "infiniband.sa.componentmask",
    // PathRecord
    "infiniband.pathrecord.dgid", "infiniband.pathrecord.sgid", "infiniband.pathrecord.dlid",
    "infiniband.pathrecord.slid", "infiniband.pathrecord.rawtraffic", "infiniband.pathrecord.flowlabel",
    "infiniband.pathrecord.hoplimit", "infiniband.pathrecord.tclass", "infiniband.pathrecord.reversible",
    "infiniband.pathrecord.numbpath", "infiniband.pathrecord.p_key", "infiniband.pathrecord.sl",
    "infiniband.pathrecord.mtuselector", "infiniband.pathrecord.mtu", "infiniband.pathrecord.rateselector",
    "infiniband.pathrecord.rate", "infiniband.pathrecord.packetlifetimeselector",
    "infiniband.pathrecord.packetlifetime", "infiniband.pathrecord.preference",
    // NodeRecord and PortInfoRecord
    "infiniband.sa.lid", "infiniband.nodeinfo.nodetype", "infiniband.nodeinfo.numports",
    "infiniband.nodeinfo.nodeguid", "infiniband.nodeinfo.portguid", "infiniband.nodeinfo.localportnum",
    "infiniband.nodedescription.nodestring", "infiniband.sa.endportlid", "infiniband.sa.portnum",
    "infiniband.portinfo.lid", "infiniband.portinfo.neighbormtu", "infiniband.portinfo.portstate",
    // MCMemberRecord
    "infiniband.mcmemberrecord.mgid", "infiniband.mcmemberrecord.portgid", "infiniband.mcmemberrecord.q_key",
    "infiniband.mcmemberrecord.mlid", "infiniband.mcmemberrecord.mtuselector", "infiniband.mcmemberrecord.mtu",
    "infiniband.mcmemberrecord.tclass", "infiniband.mcmemberrecord.p_key", "infiniband.mcmemberrecord.rate",
    "infiniband.mcmemberrecord.packetlifetime", "infiniband.mcmemberrecord.sl",
    "infiniband.mcmemberrecord.flowlabel", "infiniband.mcmemberrecord.hoplimit", "infiniband.mcmemberrecord.scope",
    "infiniband.mcmemberrecord.joinstate", "infiniband.mcmemberrecord.proxyjoin", "_ws.malformed"};

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
  CommandResult r = run_command("(" + cmd + " 2>/dev/null)");
  INFO(cmd << "\n" << r.output.substr(0, 3000));
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

std::uint64_t num(const Row& row, const std::string& field) {
  INFO(field << " = '" << row.at(field) << "'");
  REQUIRE_FALSE(row.at(field).empty());
  return std::stoull(row.at(field), nullptr, 0);
}

PathRecord path() {
  PathRecord r;
  r.dgid = gid_of(kDefaultGidPrefix, 0x0002C90300000002);
  r.sgid = gid_of(kDefaultGidPrefix, 0x0002C90300000001);
  r.dlid = 2;
  r.slid = 1;
  r.flow_label = 0x12345;
  r.hop_limit = 0;
  r.tclass = 0x10;
  r.reversible = true;
  r.num_path = 1;
  r.p_key = 0xFFFF;
  r.sl = 3;
  r.mtu_selector = IB_PATH_SELECTOR_EXACTLY;
  r.mtu = 5;
  r.rate_selector = IB_PATH_SELECTOR_EXACTLY;
  r.rate = 16;
  r.packet_life_time_selector = IB_PATH_SELECTOR_EXACTLY;
  r.packet_life_time = 18;
  return r;
}

McMemberRecord member() {
  McMemberRecord r;
  r.mgid = gid_of(0xFF12401BFFFF0000, 0x00000000FFFFFFFF);
  r.port_gid = gid_of(kDefaultGidPrefix, 0x0002C90300000001);
  r.q_key = 0x0B1B;
  r.mlid = 0xC000;
  r.mtu_selector = IB_PATH_SELECTOR_EXACTLY;
  r.mtu = 4;
  r.tclass = 0;
  r.p_key = 0xFFFF;
  r.rate_selector = IB_PATH_SELECTOR_EXACTLY;
  r.rate = 7;
  r.packet_life_time_selector = IB_PATH_SELECTOR_EXACTLY;
  r.packet_life_time = 18;
  r.sl = 2;
  r.flow_label = 0xABCDE;
  r.hop_limit = 0x40;
  r.scope = 2;
  r.join_state = IB_MC_REC_STATE_FULL_MEMBER;
  return r;
}

}  // namespace

TEST_CASE("tshark decodes our SA MADs, their RMPP and SA headers and every record field", "[subnet_manager][capture]") {
  const std::string dir = scratch_dir("sa_capture");
  const std::string pcap = dir + "/sa.pcap";

  std::vector<SaMad> mads;
  // 1: a PathRecord query (GetTable by SGID, DGID, NumbPath), as libibumad clients send it.
  SaMad q = make_sa_request(IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_PATH_RECORD,
                            IB_PR_COMPMASK_DGID | IB_PR_COMPMASK_SGID | IB_PR_COMPMASK_NUMBPATH,
                            encode_path_record(path()), 0x0000000100000001);
  q.sm_key = 0;
  mads.push_back(q);
  // 2: its answer: one record in one RMPP segment.
  SaMad a = make_sa_response(q, IB_MAD_STATUS_SUCCESS);
  a.rmpp = {kRmppVersion, IB_RMPP_TYPE_DATA, 0, IB_RMPP_FLAG_ACTIVE | IB_RMPP_FLAG_FIRST | IB_RMPP_FLAG_LAST, 0, 1,
            static_cast<std::uint32_t>(kSaHeaderBytes + 64)};
  a.attribute_offset = 8;
  a.data = encode_path_record(path());
  mads.push_back(a);
  // 3: a NodeRecord GetResp.
  NodeRecord nr;
  nr.lid = 0x0005;
  nr.node_info.node_type = IB_NODE_TYPE_CA;
  nr.node_info.num_ports = 2;
  nr.node_info.node_guid = 0x0002C90300000010;
  nr.node_info.port_guid = 0x0002C90300000011;
  nr.node_info.local_port_num = 1;
  nr.description.text = "h1 HCA-1";
  SaMad n = make_sa_request(IB_MAD_METHOD_GET_RESP, IB_MAD_ATTR_NODE_RECORD, IB_NR_COMPMASK_LID,
                            encode_node_record(nr), 3);
  mads.push_back(n);
  // 4: a PortInfoRecord GetResp.
  PortInfoRecord pr;
  pr.endport_lid = 0x0005;
  pr.port_num = 1;
  pr.port_info.lid = 0x0005;
  pr.port_info.neighbor_mtu = IB_MTU_LEN_4096;
  pr.port_info.port_state = IB_LINK_ACTIVE;
  pr.port_info.local_port_num = 1;
  mads.push_back(make_sa_request(IB_MAD_METHOD_GET_RESP, IB_MAD_ATTR_PORTINFO_RECORD,
                                 IB_PIR_COMPMASK_LID | IB_PIR_COMPMASK_PORTNUM, encode_port_info_record(pr), 4));
  // 5: an MCMemberRecord join (Set).
  mads.push_back(make_sa_request(IB_MAD_METHOD_SET, IB_MAD_ATTR_MCMEMBER_RECORD,
                                 IB_MCR_COMPMASK_MGID | IB_MCR_COMPMASK_PORT_GID | IB_MCR_COMPMASK_JOIN_STATE,
                                 encode_mc_member_record(member()), 5));
  {
    PcapWriter w(pcap);
    std::vector<std::uint8_t> frame;
    Time t = 0;
    for (const SaMad& m : mads) {
      Packet p;
      GmpAddress addr;
      addr.dlid = 1;
      addr.slid = 5;
      build_gmp_packet(p, encode_sa_mad(m), addr);
      p.write_frame(frame);
      w.add(t += kUs, kErfTypeInfiniband, frame.data(), frame.size(), 0);
    }
    w.close();
  }
  const auto rows = tshark(pcap);
  REQUIRE(rows.size() == mads.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    INFO("frame " << i + 1);
    const Row& r = rows[i];
    CHECK(num(r, "frame.len") == 290);
    CHECK(num(r, "infiniband.bth.destqp") == 1);
    CHECK(num(r, "infiniband.deth.srcqp") == 1);
    CHECK(num(r, "infiniband.mad.mgmtclass") == 3);
    CHECK(num(r, "infiniband.mad.classversion") == 2);
    CHECK(num(r, "infiniband.mad.method") == mads[i].header.method);
    CHECK(num(r, "infiniband.mad.transactionid") == mads[i].header.transaction_id);
    CHECK(num(r, "infiniband.mad.attributeid") == mads[i].header.attribute_id);
    CHECK(num(r, "infiniband.sa.componentmask") == mads[i].component_mask);
    CHECK(num(r, "infiniband.sa.attributeoffset") == mads[i].attribute_offset);
    CHECK(r.at("_ws.malformed").empty());
  }
  const PathRecord pr0 = path();
  for (std::size_t i : {0, 1}) {
    INFO("frame " << i + 1);
    const Row& r = rows[i];
    CHECK(r.at("infiniband.pathrecord.dgid") == "fe80::2:c903:0:2");
    CHECK(r.at("infiniband.pathrecord.sgid") == "fe80::2:c903:0:1");
    CHECK(num(r, "infiniband.pathrecord.dlid") == pr0.dlid);
    CHECK(num(r, "infiniband.pathrecord.slid") == pr0.slid);
    CHECK(num(r, "infiniband.pathrecord.rawtraffic") == 0);
    CHECK(num(r, "infiniband.pathrecord.flowlabel") == pr0.flow_label);
    CHECK(num(r, "infiniband.pathrecord.hoplimit") == pr0.hop_limit);
    CHECK(num(r, "infiniband.pathrecord.tclass") == pr0.tclass);
    CHECK(num(r, "infiniband.pathrecord.reversible") == 1);
    CHECK(num(r, "infiniband.pathrecord.numbpath") == 1);
    CHECK(num(r, "infiniband.pathrecord.p_key") == 0xFFFF);
    CHECK(num(r, "infiniband.pathrecord.sl") == 3);
    CHECK(num(r, "infiniband.pathrecord.mtuselector") == 2);
    CHECK(num(r, "infiniband.pathrecord.mtu") == 5);
    CHECK(num(r, "infiniband.pathrecord.rateselector") == 2);
    CHECK(num(r, "infiniband.pathrecord.rate") == 16);
    CHECK(num(r, "infiniband.pathrecord.packetlifetimeselector") == 2);
    CHECK(num(r, "infiniband.pathrecord.packetlifetime") == 18);
    CHECK(num(r, "infiniband.pathrecord.preference") == 0);
  }
  CHECK(num(rows[1], "infiniband.rmpp.rmppversion") == 1);
  CHECK(num(rows[1], "infiniband.rmpp.rmpptype") == 1);
  CHECK(num(rows[1], "infiniband.rmpp.rmppflags") == 7);
  CHECK(num(rows[1], "infiniband.rmpp.segmentnumber") == 1);
  CHECK(num(rows[1], "infiniband.rmpp.payloadlength") == 84);

  const Row& node = rows[2];
  CHECK(num(node, "infiniband.sa.lid") == 5);
  CHECK(num(node, "infiniband.nodeinfo.nodetype") == 1);
  CHECK(num(node, "infiniband.nodeinfo.numports") == 2);
  CHECK(num(node, "infiniband.nodeinfo.nodeguid") == 0x0002C90300000010);
  CHECK(num(node, "infiniband.nodeinfo.portguid") == 0x0002C90300000011);
  CHECK(num(node, "infiniband.nodeinfo.localportnum") == 1);
  CHECK(node.at("infiniband.nodedescription.nodestring") == "h1 HCA-1");

  const Row& port = rows[3];
  CHECK(num(port, "infiniband.sa.endportlid") == 5);
  CHECK(num(port, "infiniband.sa.portnum") == 1);
  CHECK(num(port, "infiniband.portinfo.lid") == 5);
  CHECK(num(port, "infiniband.portinfo.neighbormtu") == 5);
  CHECK(num(port, "infiniband.portinfo.portstate") == IB_LINK_ACTIVE);

  const McMemberRecord m = member();
  const Row& mc = rows[4];
  CHECK(mc.at("infiniband.mcmemberrecord.mgid") == "ff12:401b:ffff::ffff:ffff");
  CHECK(mc.at("infiniband.mcmemberrecord.portgid") == "fe80::2:c903:0:1");
  CHECK(num(mc, "infiniband.mcmemberrecord.q_key") == m.q_key);
  CHECK(num(mc, "infiniband.mcmemberrecord.mlid") == m.mlid);
  CHECK(num(mc, "infiniband.mcmemberrecord.mtuselector") == 2);
  CHECK(num(mc, "infiniband.mcmemberrecord.mtu") == 4);
  CHECK(num(mc, "infiniband.mcmemberrecord.tclass") == 0);
  CHECK(num(mc, "infiniband.mcmemberrecord.p_key") == 0xFFFF);
  CHECK(num(mc, "infiniband.mcmemberrecord.rate") == 7);
  CHECK(num(mc, "infiniband.mcmemberrecord.packetlifetime") == 18);
  CHECK(num(mc, "infiniband.mcmemberrecord.sl") == 2);
  CHECK(num(mc, "infiniband.mcmemberrecord.flowlabel") == 0xABCDE);
  CHECK(num(mc, "infiniband.mcmemberrecord.hoplimit") == 0x40);
  CHECK(num(mc, "infiniband.mcmemberrecord.scope") == 2);
  CHECK(num(mc, "infiniband.mcmemberrecord.joinstate") == 1);
  CHECK(num(mc, "infiniband.mcmemberrecord.proxyjoin") == 0);
}
