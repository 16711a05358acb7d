// A capture of the RoCE v2 frames two real HCAs exchange through two Ethernet switches (an RC
// WRITE of 8 KiB and its ACK, a SEND of 16 bytes and its ACK), written by every port's transmitter
// as it starts a frame, decoded by tshark: every frame Ethernet / IPv4 / UDP / InfiniBand, none
// malformed, FCS and IPv4 checksum good on every hop; the ICRC tshark reads in each frame is the
// one parse_roce_frame checked as good.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sim/core/big_endian.h"
#include "sim/report/pcap_writer.h"
#include "sim/transport/roce/roce_frame.h"
#include "tests/support/roce_hca_line.h"
#include "tests/support/run_command.h"
#include "tests/support/verbs_harness.h"

using namespace ibfsim;
using namespace ibfsim::test;
using namespace ibfsim::verbs;

namespace {

constexpr const char* kTshark = "/usr/bin/tshark";

struct Capture final : FrameCaptureSink {
  explicit Capture(const std::string& path) : writer(path, PcapLinkType::kEthernet) {}
  void capture_frame(Time start, const Packet& p, std::uint32_t link_id) override {
    p.write_frame(bytes);
    writer.add_ethernet(start, bytes.data(), bytes.size(), link_id);
    // Our own receiver's verdict on the same bytes (FCS, IP, UDP, ICRC), and the ICRC it checked.
    const ParsedRoceFrame f = parse_roce_frame(bytes.data(), bytes.size());
    ok = ok && f.ok();
    if (f.ok()) icrcs.insert(load_be32(bytes.data() + f.layout.icrc_at));
  }
  bool ok = true;
  std::multiset<std::uint32_t> icrcs;
  PcapWriter writer;
  std::vector<std::uint8_t> bytes;
};

}  // namespace

TEST_CASE("tshark decodes the RoCE v2 frames of two real HCAs on every hop, none malformed, ICRC good",
          "[ethernet][roce][hca][capture]") {
  if (!std::filesystem::exists(kTshark)) {
    WARN("SKIPPED: " << kTshark << " is not installed (scripts/bootstrap.sh installs it)");
    return;
  }
  init_time_resolution();
  const std::string pcap = scratch_dir("roce_hca_capture") + "/hca_line.pcap";
  RoceHcaLine t(EthernetRate{EthernetSpeed::k100G, true});
  Capture cap(pcap);
  for (EthernetPort* p : {&t.h1.ethernet_port(), &t.sw1.port(2), &t.sw2.port(2), &t.h2.ethernet_port(),
                          &t.sw2.port(1), &t.sw1.port(1)})
    p->set_capture(&cap);
  Endpoint a = make_endpoint(t.h1, IBV_QPT_RC, 1 << 16, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(t.h2, IBV_QPT_RC, 1 << 16, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  connect(a, b);
  ibv_recv_wr rwr;
  rwr.sg_list = {b.sge(0, 64)};
  REQUIRE(t.h2.post_recv(*b.qp, rwr) == 0);
  REQUIRE(t.h1.post_send(*a.qp, write_wr(a, b, 0, 8192, 1)) == 0);
  ibv_send_wr send;
  send.opcode = IBV_WR_SEND;
  send.send_flags = IBV_SEND_SIGNALED;
  send.sg_list = {a.sge(0, 16)};
  REQUIRE(t.h1.post_send(*a.qp, send) == 0);
  CalendarProcess::run_for(20 * kUs);
  REQUIRE(a.poll_all().size() == 2);
  cap.writer.close();
  const std::uint64_t frames = cap.writer.frames_written();
  // Three data frames (WRITE First, WRITE Last, SEND Only) and at least one ACK, each on 3 links.
  REQUIRE(frames >= 12);
  REQUIRE(frames % 3 == 0);
  CHECK(cap.ok);

  const std::string cmd = std::string(kTshark) + " -n -r " + pcap +
                          " -o eth.fcs:Always -o eth.check_fcs:TRUE -o ip.check_checksum:TRUE"
                          " --disable-heuristic rpcrdma_infiniband --disable-heuristic smb_direct_infiniband"
                          " --disable-heuristic iser_infiniband --disable-heuristic nvme_rdma"
                          " --disable-heuristic sdp_infiniband --disable-heuristic lnet_ib"
                          " --disable-heuristic smcr_infiniband --disable-heuristic fc_infiniband"
                          " --disable-heuristic eth_over_ib"
                          " -T fields -E separator=';' -e frame.protocols -e eth.fcs.status"
                          " -e ip.checksum.status -e udp.dstport -e infiniband.bth.opcode -e _ws.malformed"
                          " -e _ws.expert.severity -e infiniband.invariant.crc 2>/dev/null";
  const CommandResult ts = run_command("(" + cmd + ")");
  INFO(cmd << "\n" << ts.output.substr(0, 3000));
  REQUIRE(ts.exit_code == 0);
  std::istringstream in(ts.output);
  std::string line;
  std::uint64_t rows = 0, acks = 0;
  std::multiset<std::uint32_t> tshark_icrcs;
  while (std::getline(in, line)) {
    std::vector<std::string> c;
    std::istringstream ls(line);
    std::string cell;
    while (std::getline(ls, cell, ';')) c.push_back(cell);
    while (c.size() < 8) c.emplace_back();
    INFO("frame " << rows + 1 << ": " << line);
    CHECK(c[0].rfind("eth:ethertype:ip:udp:infiniband", 0) == 0);
    CHECK(c[1] == "1");  // FCS good
    CHECK(c[2] == "1");  // IPv4 checksum good
    CHECK(c[3] == "4791");
    CHECK(c[5].empty());  // not malformed
    CHECK(c[6].empty());  // no expert information (a bad ICRC would be one)
    // Wireshark does not verify the ICRC: where it reads one (big-endian) is where ours stood.
    if (!c[7].empty()) tshark_icrcs.insert(static_cast<std::uint32_t>(std::stoul(c[7], nullptr, 0)));
    if (c[4] == "17") ++acks;  // RC Acknowledge
    ++rows;
  }
  CHECK(rows == frames);
  CHECK(acks >= 3);
  CHECK(tshark_icrcs == cap.icrcs);
}
