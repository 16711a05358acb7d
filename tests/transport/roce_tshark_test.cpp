// RoCE v2 frames written to an Ethernet capture (LINKTYPE_ETHERNET) and decoded by tshark: every
// frame is Ethernet / [802.1Q] / IP / UDP / InfiniBand (Wireshark's dissector on UDP 4791), none
// malformed, the FCS, IPv4 and UDP checksums good by tshark's own checks, and the decoded fields
// those the codecs wrote. Wireshark 4.0 shows the ICRC but does not check it; the ICRC is checked
// against a NIC's and scapy's in roce_frame_test.cpp, and here against tshark's view of where it is.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "sim/core/big_endian.h"
#include "sim/report/pcap_writer.h"
#include "sim/transport/opcode.h"
#include "sim/transport/roce/roce_cnp.h"
#include "sim/transport/roce/roce_frame.h"
#include "tests/support/run_command.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {

constexpr const char* kTshark = "/usr/bin/tshark";

std::vector<std::vector<std::string>> rows_of(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream ls(line);
    while (std::getline(ls, cell, ';')) cells.push_back(cell);
    if (!line.empty() && line.back() == ';') cells.emplace_back();
    rows.push_back(cells);
  }
  return rows;
}

std::uint64_t num(const std::string& s) { return std::stoull(s, nullptr, 0); }

struct Sent {
  std::vector<std::uint8_t> frame;
  std::string src_ip, dst_ip;
  bool v6 = false;
  std::optional<VlanTag> vlan;
  std::uint8_t dscp = 0, ecn = 0;
  std::uint16_t sport = 0;
  std::uint8_t opcode = 0;
  Qpn dest_qp = 0;
  Psn psn = 0;
};

Sent frame(const RoceAddressing& a, const TransportHeaders& h, std::uint32_t payload_len) {
  Sent s;
  s.frame = build_roce_frame(a, h, payload_len, nullptr);
  s.src_ip = ip_text(a.src_ip);
  s.dst_ip = ip_text(a.dst_ip);
  s.v6 = a.src_ip.version == IpVersion::kV6;
  s.vlan = a.vlan;
  s.dscp = a.dscp;
  s.ecn = a.ecn;
  s.sport = a.udp_src_port;
  s.opcode = h.bth.opcode;
  s.dest_qp = h.bth.dest_qp;
  s.psn = h.bth.psn;
  return s;
}

RoceAddressing addressing(bool v6, bool tagged, Qpn local, Qpn remote) {
  RoceAddressing a;
  a.dst_mac = {0x02, 0, 0, 0, 0, 0x02};
  a.src_mac = {0x02, 0, 0, 0, 0, 0x01};
  if (tagged) a.vlan = VlanTag{3, false, 100};
  a.src_ip = v6 ? *parse_ip_address("fd00::1") : IpAddress::v4(10, 0, 0, 1);
  a.dst_ip = v6 ? *parse_ip_address("fd00::2") : IpAddress::v4(10, 0, 0, 2);
  a.dscp = 26;
  a.ecn = ecn::kEct0;
  a.flow_label = roce_flow_label(local, remote);
  a.udp_src_port = roce_udp_source_port(local, remote);
  return a;
}

}  // namespace

TEST_CASE("tshark decodes RoCE v2 frames as Ethernet/IP/UDP/InfiniBand, none malformed, checksums good",
          "[transport][roce][capture]") {
  if (!std::filesystem::exists(kTshark)) {
    WARN("SKIPPED: " << kTshark << " is not installed (scripts/bootstrap.sh installs it)");
    return;
  }
  std::vector<Sent> sent;
  TransportHeaders write;
  write.bth.opcode = kOpcodeRcBase + op::kRdmaWriteFirst;
  write.bth.dest_qp = 0x12;
  write.bth.psn = 0x123456;
  write.reth = {0x7f0012345000, 0xCAFE, 65536};
  sent.push_back(frame(addressing(true, true, 0x11, 0x12), write, 1024));
  write.bth.opcode = kOpcodeRcBase + op::kRdmaWriteMiddle;
  write.bth.psn = 0x123457;
  sent.push_back(frame(addressing(false, false, 0x11, 0x12), write, 1024));
  TransportHeaders ack;
  ack.bth.opcode = kOpcodeRcBase + op::kAcknowledge;
  ack.bth.dest_qp = 0x11;
  ack.bth.psn = 0x123457;
  ack.aeth.msn = 1;
  sent.push_back(frame(addressing(false, true, 0x12, 0x11), ack, 0));
  TransportHeaders send;
  send.bth.opcode = kOpcodeRcBase + op::kSendOnly;  // 58 bytes of content: 2 of Ethernet pad
  send.bth.dest_qp = 0x12;
  send.bth.psn = 5;
  sent.push_back(frame(addressing(false, false, 0x11, 0x12), send, 0));
  TransportHeaders ud;
  ud.bth.opcode = kOpcodeUdSendOnly;
  ud.bth.dest_qp = 0x21;
  ud.bth.psn = 77;
  ud.deth = {0x11111111, 0x22};
  sent.push_back(frame(addressing(true, false, 0x22, 0x21), ud, 257));
  // A CNP back to QP 0x11.
  {
    const RoceAddressing a = addressing(false, true, 0x12, 0x11);
    Sent s;
    s.frame = build_roce_cnp(a, 0x11);
    s.src_ip = ip_text(a.src_ip);
    s.dst_ip = ip_text(a.dst_ip);
    s.vlan = a.vlan;
    s.dscp = a.dscp;
    s.ecn = a.ecn;
    s.sport = a.udp_src_port;
    s.opcode = kOpcodeRoceCnp;
    s.dest_qp = 0x11;
    sent.push_back(s);
  }

  const std::string dir = scratch_dir("roce_tshark");
  const std::string pcap = dir + "/roce.pcap";
  {
    PcapWriter w(pcap, PcapLinkType::kEthernet);
    for (std::size_t i = 0; i < sent.size(); ++i)
      w.add_ethernet((i + 1) * kUs, sent[i].frame.data(), sent[i].frame.size(), 0);
    w.close();
  }
  const std::string cmd =
      std::string(kTshark) + " -n -r " + pcap +
      " -o eth.fcs:Always -o eth.check_fcs:TRUE -o ip.check_checksum:TRUE -o udp.check_checksum:TRUE"
      " --disable-heuristic rpcrdma_infiniband --disable-heuristic smb_direct_infiniband"
      " --disable-heuristic iser_infiniband --disable-heuristic nvme_rdma --disable-heuristic sdp_infiniband"
      " --disable-heuristic lnet_ib --disable-heuristic smcr_infiniband --disable-heuristic fc_infiniband"
      " --disable-heuristic eth_over_ib"
      " -T fields -E separator=';' -e frame.protocols -e frame.len -e eth.fcs.status -e vlan.priority"
      " -e vlan.id -e ip.src -e ip.dst -e ip.dsfield.dscp -e ip.dsfield.ecn -e ip.checksum.status"
      " -e ipv6.src -e ipv6.dst -e ipv6.tclass.dscp -e ipv6.tclass.ecn -e udp.srcport -e udp.dstport"
      " -e udp.checksum.status -e infiniband.bth.opcode -e infiniband.bth.destqp -e infiniband.bth.psn"
      " -e infiniband.invariant.crc -e infiniband.vendor -e _ws.malformed -e _ws.expert.severity 2>/dev/null";
  const CommandResult ts = run_command("(" + cmd + ")");  // tshark's warning as root on stderr
  INFO(cmd << "\n" << ts.output.substr(0, 3000));
  REQUIRE(ts.exit_code == 0);
  const auto rows = rows_of(ts.output);
  REQUIRE(rows.size() == sent.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const Sent& s = sent[i];
    INFO("frame " << i + 1);
    REQUIRE(r.size() == 24);
    const ParsedRoceFrame p = parse_roce_frame(s.frame.data(), s.frame.size());
    REQUIRE(p.ok());
    const std::string stack = s.v6 ? "ipv6" : "ip";
    CHECK(r[0] == std::string("eth:ethertype:") + (s.vlan ? "vlan:ethertype:" : "") + stack + ":udp:infiniband" +
                      (p.payload_len > 0 ? ":data" : ""));
    CHECK(num(r[1]) == s.frame.size());
    // Wireshark's checksum status: 1 good, 3 not present.
    CHECK(r[2] == "1");
    if (s.vlan) {
      CHECK(num(r[3]) == s.vlan->pcp);
      CHECK(num(r[4]) == s.vlan->vid);
    } else {
      CHECK(r[3].empty());
    }
    if (s.v6) {
      CHECK(r[10] == s.src_ip);
      CHECK(r[11] == s.dst_ip);
      CHECK(num(r[12]) == s.dscp);
      CHECK(num(r[13]) == s.ecn);
      CHECK(r[5].empty());
    } else {
      CHECK(r[5] == s.src_ip);
      CHECK(r[6] == s.dst_ip);
      CHECK(num(r[7]) == s.dscp);
      CHECK(num(r[8]) == s.ecn);
      CHECK(r[9] == "1");
    }
    CHECK(num(r[14]) == s.sport);
    CHECK(num(r[15]) == kRoceV2UdpPort);
    // IPv6 carries a computed UDP checksum; IPv4 sends none.
    CHECK(r[16] == (s.v6 ? "1" : "3"));
    CHECK(num(r[17]) == s.opcode);
    CHECK(num(r[18]) == s.dest_qp);
    CHECK(num(r[19]) == s.psn);
    // Where tshark finds the ICRC (read big-endian) is where the codec put it. Wireshark 4.0 does
    // not know the CNP's opcode (it names 129 "Unknown"): it shows the 16 reserved bytes and the
    // ICRC as one unknown header.
    const std::uint32_t icrc = load_be32(s.frame.data() + p.layout.icrc_at);
    if (s.opcode == kOpcodeRoceCnp) {
      CHECK(r[20].empty());
      // (It lists a 4-byte zero field first: "00000000,<the 20 bytes>".)
      CHECK(r[21].substr(r[21].find(',') + 1) == std::string(32, '0') + fmt::format("{:08x}", icrc));
    } else {
      CHECK(num(r[20]) == icrc);
      CHECK(r[21].empty());
    }
    CHECK(r[22].empty());  // not malformed
    CHECK(r[23].empty());  // no expert information of any severity
  }
}
