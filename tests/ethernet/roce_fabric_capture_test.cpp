// A capture of RoCE v2 frames crossing Ethernet switches in time (h1 - sw1 - sw2 - h2), written by
// every port's transmitter as it starts a frame, decoded by tshark: every frame Ethernet / IPv4 /
// UDP / InfiniBand, none malformed, the FCS and the IPv4 checksum good on every hop (the switches
// rewrite MACs and TTL), the TTL one less per hop, in time order.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "sim/core/time.h"
#include "sim/ethernet/ethernet_link.h"
#include "sim/ethernet/ethernet_switch.h"
#include "sim/report/pcap_writer.h"
#include "sim/transport/opcode.h"
#include "tests/support/roce_endpoint.h"
#include "tests/support/run_command.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {

constexpr const char* kTshark = "/usr/bin/tshark";

// Every frame a port starts, into one Ethernet capture (records are added in start order per
// port; the writer orders them by time when it closes).
struct Capture final : FrameCaptureSink {
  explicit Capture(const std::string& path) : writer(path, PcapLinkType::kEthernet) {}
  void capture_frame(Time start, const Packet& p, std::uint32_t link_id) override {
    p.write_frame(bytes);
    writer.add_ethernet(start, bytes.data(), bytes.size(), link_id);
  }
  PcapWriter writer;
  std::vector<std::uint8_t> bytes;
};

MacAddress mac(unsigned a, unsigned b) { return {0x02, 0, 0, 0, static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b)}; }

EthernetSwitchConfig config(unsigned sw, const MacAddress& left, const MacAddress& right) {
  EthernetSwitchConfig c;
  c.num_ports = 2;
  c.port_macs = {mac(sw, 1), mac(sw, 2)};
  c.neighbour_macs = {left, right};
  c.routes.add(*parse_ip_prefix("10.0.1.0/24"), {1});
  c.routes.add(*parse_ip_prefix("10.0.2.0/24"), {2});
  c.latency = 300 * kNs;
  return c;
}

}  // namespace

TEST_CASE("tshark decodes RoCE v2 frames captured on every hop through two switches, none malformed",
          "[ethernet][roce][capture]") {
  if (!std::filesystem::exists(kTshark)) {
    WARN("SKIPPED: " << kTshark << " is not installed (scripts/bootstrap.sh installs it)");
    return;
  }
  init_time_resolution();
  const std::string pcap = scratch_dir("roce_fabric_capture") + "/line.pcap";
  PacketPool pool;
  PacketLedger ledger;
  const MacAddress h1_mac = mac(0, 1), h2_mac = mac(0, 2);
  RoceEndpoint h1("h1", pool, ledger), h2("h2", pool, ledger);
  EthernetSwitch sw1("sw1", config(1, h1_mac, mac(2, 1)), pool, ledger);
  EthernetSwitch sw2("sw2", config(2, mac(1, 2), h2_mac), pool, ledger);
  const EthernetRate rate{EthernetSpeed::k100G, true};
  EthernetLink l1(h1.port(), h1, sw1.port(1), sw1, rate, 125, 100 * kNs, 1, 2);
  EthernetLink l2(sw1.port(2), sw1, sw2.port(1), sw2, rate, 125, 100 * kNs, 3, 4);
  EthernetLink l3(sw2.port(2), sw2, h2.port(), h2, rate, 125, 100 * kNs, 5, 6);
  Capture cap(pcap);
  for (EthernetPort* p : {&h1.port(), &sw1.port(2), &sw2.port(2)}) p->set_capture(&cap);

  RoceAddressing a;
  a.src_mac = h1_mac;
  a.dst_mac = mac(1, 1);
  a.src_ip = IpAddress::v4(10, 0, 1, 1);
  a.dst_ip = IpAddress::v4(10, 0, 2, 1);
  a.dscp = 26;
  a.udp_src_port = roce_udp_source_port(0x11, 0x12);
  std::vector<std::vector<std::uint8_t>> frames;
  for (unsigned i = 0; i < 4; ++i) {
    TransportHeaders h;
    h.bth.opcode = static_cast<std::uint8_t>(kOpcodeRcBase + (i == 0 ? op::kRdmaWriteFirst
                                                              : i == 3 ? op::kRdmaWriteLast : op::kRdmaWriteMiddle));
    h.bth.dest_qp = 0x12;
    h.bth.psn = i;
    if (i == 0) h.reth = {0x10000000, 0x1234, 4 * 1024};
    frames.push_back(build_roce_frame(a, h, 1024, nullptr));
  }
  TransportHeaders send;
  send.bth.opcode = kOpcodeRcBase + op::kSendOnly;  // 58 bytes of content: 2 of Ethernet pad
  send.bth.dest_qp = 0x12;
  send.bth.psn = 4;
  frames.push_back(build_roce_frame(a, send, 0, nullptr));
  h1.send_at(0, frames);
  CalendarProcess::run_for(10 * kUs);
  REQUIRE(h2.received().size() == 5);
  cap.writer.close();
  REQUIRE(cap.writer.frames_written() == 15);

  const std::string cmd = std::string(kTshark) + " -n -r " + pcap +
                          " -o eth.fcs:Always -o eth.check_fcs:TRUE -o ip.check_checksum:TRUE"
                          // Wireshark's heuristics would guess the upper protocols of an RDMA
                          // payload (a SEND of zero bytes looks like a broken RPC-over-RDMA call).
                          " --disable-heuristic rpcrdma_infiniband --disable-heuristic smb_direct_infiniband"
                          " --disable-heuristic iser_infiniband --disable-heuristic nvme_rdma"
                          " --disable-heuristic sdp_infiniband --disable-heuristic lnet_ib"
                          " --disable-heuristic smcr_infiniband --disable-heuristic fc_infiniband"
                          " --disable-heuristic eth_over_ib"
                          " -T fields -E separator=';' -e frame.protocols -e frame.len -e eth.fcs.status"
                          " -e ip.checksum.status -e ip.ttl -e infiniband.bth.psn -e _ws.malformed"
                          " -e _ws.expert.severity 2>/dev/null";
  const CommandResult ts = run_command("(" + cmd + ")");
  INFO(cmd << "\n" << ts.output.substr(0, 3000));
  REQUIRE(ts.exit_code == 0);
  std::istringstream in(ts.output);
  std::string line;
  std::vector<int> ttl_count(65);
  int rows = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> c;
    std::istringstream ls(line);
    std::string cell;
    while (std::getline(ls, cell, ';')) c.push_back(cell);
    while (c.size() < 8) c.emplace_back();
    INFO("frame " << rows + 1 << ": " << line);
    const bool send_only = std::stoul(c[5]) == 4;
    CHECK(c[0] == std::string("eth:ethertype:ip:udp:infiniband") + (send_only ? "" : ":data"));
    CHECK(std::stoul(c[1]) == (send_only ? 64u : 1024u + 14 + 20 + 8 + 12 + 4 + 4 + (std::stoul(c[5]) == 0 ? 16 : 0)));
    CHECK(c[2] == "1");  // FCS good
    CHECK(c[3] == "1");  // IPv4 checksum good
    const unsigned ttl = std::stoul(c[4]);
    REQUIRE(ttl >= 62);
    REQUIRE(ttl <= 64);
    ++ttl_count[ttl];
    CHECK(c[6].empty());  // not malformed
    CHECK(c[7].empty());  // no expert information
    ++rows;
  }
  CHECK(rows == 15);
  // Five frames on each of the three links: TTL 64 from h1, 63 after sw1, 62 after sw2.
  CHECK(ttl_count[64] == 5);
  CHECK(ttl_count[63] == 5);
  CHECK(ttl_count[62] == 5);
}
