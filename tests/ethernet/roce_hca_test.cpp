// The HCA on Ethernet: two real HCAs (queue pairs, send and receive engines, verbs) whose ports are
// Ethernet, h1 - sw1 - sw2 - h2 through two L3 switches, the QPs' packets framed as RoCE v2 on the
// way out and checked (FCS, IP, UDP, ICRC, source) on the way in. Figures are computed by hand from
// the HCA's doorbell delay, the frame's bytes, the byte clock (80 ps at 100GbE), the preamble, SFD
// and inter-frame gap, RS-FEC's 640-byte blocks, propagation and the switches' latency.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <vector>

#include "sim/core/time.h"
#include "sim/ethernet/ethernet_link.h"
#include "sim/ethernet/ethernet_switch.h"
#include "sim/transport/hca.h"
#include "sim/transport/packet_fields.h"
#include "sim/transport/roce/roce_frame.h"
#include "tests/support/roce_hca_line.h"
#include "tests/support/verbs_harness.h"

using namespace ibfsim;
using namespace ibfsim::test;
using namespace ibfsim::verbs;

namespace {

struct Starts : SendObserver {
  std::vector<Time> t;
  std::vector<std::size_t> bytes;
  void on_injected(Hca&, const Packet& p) override {
    t.push_back(p.injected);
    bytes.push_back(p.wire_bytes());
  }
};
struct Arrivals : DeliveryObserver {
  std::vector<Time> t;
  std::vector<Psn> psn;
  void on_delivered(Hca&, const Packet& p, Time tail) override {
    t.push_back(tail);
    psn.push_back(packet_psn(p));
  }
};

// One RC SEND of 64 bytes posted at time 0; returns when h2 delivered it to its QP.
Time one_send(bool fec, bool cut_through) {
  init_time_resolution();
  RoceHcaLine t(EthernetRate{EthernetSpeed::k100G, fec}, cut_through);
  Endpoint a = make_endpoint(t.h1, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(t.h2, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  connect(a, b);
  for (std::uint32_t i = 0; i < 64; ++i) t.h1.memory().bytes(a.buf, 64)[i] = static_cast<std::uint8_t>(i);
  ibv_recv_wr rwr;
  rwr.wr_id = 7;
  rwr.sg_list = {b.sge(0, 64)};
  REQUIRE(t.h2.post_recv(*b.qp, rwr) == 0);
  ibv_send_wr wr;
  wr.wr_id = 1;
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.sg_list = {a.sge(0, 64)};
  REQUIRE(t.h1.post_send(*a.qp, wr) == 0);
  Starts starts;
  Arrivals arrivals;
  t.h1.set_send_observer(&starts);
  t.h2.set_delivery_observer(&arrivals);
  CalendarProcess::run_for(20 * kUs);
  // The SEND went out first, as a 126-byte frame (14 + 20 + 8 + BTH 12 + 64 + ICRC 4 + FCS 4).
  REQUIRE(starts.t.size() == 1);
  CHECK(starts.bytes[0] == 126);
  CHECK(starts.t[0] == 250 * kNs);  // the doorbell's 250 ns, on edge 3,125
  REQUIRE(arrivals.t.size() == 1);
  // Both sides complete: the SEND's data landed, and h1 had its ACK (a RoCE frame back).
  const auto wa = a.poll_all();
  const auto wb = b.poll_all();
  REQUIRE(wa.size() == 1);
  CHECK(wa[0].status == IBV_WC_SUCCESS);
  REQUIRE(wb.size() == 1);
  CHECK(wb[0].status == IBV_WC_SUCCESS);
  CHECK(wb[0].byte_len == 64);
  CHECK(wb[0].slid == 1);  // the source IP's LID
  const std::uint8_t* got = t.h2.memory().bytes(b.buf, 64);
  for (std::uint32_t i = 0; i < 64; ++i) CHECK(got[i] == i);
  CHECK(t.h2.stats().payload_mismatches == 0);
  CHECK(t.sw1.stats().forwarded == 2);  // the SEND and the ACK
  CHECK(t.ledger.dropped_total() == 0);
  CHECK(t.ledger.delivered_count() == t.ledger.created_count());
  return arrivals.t[0];
}

}  // namespace

// Zero-load latency HCA to HCA, 100GbE RS(528,514), two cut-through switches (300 ns = 3,750
// edges), 10 ns = 125 edges of cable, 100 ns = 1,250 edges of FEC decoder. The SEND is posted at 0;
// the doorbell takes 250 ns, so h1 starts the preamble on edge s = 3,125 (FEC blocks are counted
// from edge 0, so where a frame falls in them depends on s). The frame is 126 bytes, the switch
// decides on its first 38 (Ethernet 14, IPv4 20, UDP ports 4):
//   sw1 has the head: s + 8 + 38 = 3,171 -> block end ceil(3,171 / 640) x 640 = 3,200, + 1,250 +
//     125 = 4,575; eligible 4,575 + 3,750 = 8,325, starts on edge 8,325
//   sw2 has the head: 8,325 + 46 = 8,371 -> 8,960 + 1,375 = 10,335; eligible 14,085
//   h2 has the tail: 14,085 + 8 + 126 = 14,219 -> 14,720 + 1,375 = 16,095 edges
//   = 16,095 x 80,000 fs = 1,287,600,000 fs; an ideal host interface delivers it then.
TEST_CASE("RoCE HCA: one RC SEND HCA to HCA through two cut-through switches at 100GbE RS-FEC in 1287.6 ns",
          "[ethernet][roce][hca]") {
  CHECK(one_send(true, true) == 1'287'600'000);
}

// Without FEC, nothing is quantised: from s = 3,125, sw1's head at s + 46 + 125 = 3,296, eligible
// 7,046; sw2's head at 7,046 + 171 = 7,217, eligible 10,967; h2's tail at 10,967 + 134 + 125 =
// 11,226 edges = 898,080,000 fs. Store-and-forward waits for each switch's tail instead: sw1 at
// s + 134 + 125 = 3,384, eligible 7,134; sw2 at 7,134 + 259 = 7,393, eligible 11,143; h2 at
// 11,143 + 259 = 11,402 edges = 912,160,000 fs.
// (A SystemC simulation per process: one run per test case.)
TEST_CASE("RoCE HCA: one RC SEND through two cut-through switches at 100GbE without FEC in 898.08 ns",
          "[ethernet][roce][hca]") {
  CHECK(one_send(false, true) == 898'080'000);
}

TEST_CASE("RoCE HCA: one RC SEND through two store-and-forward switches at 100GbE without FEC in 912.16 ns",
          "[ethernet][roce][hca]") {
  CHECK(one_send(false, false) == 912'160'000);
}

namespace {
// Eight RC RDMA WRITEs of 64 KiB (4,096-byte MTU: 16 packets each) posted at once; returns the
// arrival times at h2's QP and checks the frames' sizes and the data.
void write_bandwidth(bool fec) {
  init_time_resolution();
  RoceHcaLine t(EthernetRate{EthernetSpeed::k100G, fec});
  Endpoint a = make_endpoint(t.h1, IBV_QPT_RC, 8 << 16, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(t.h2, IBV_QPT_RC, 8 << 16, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  connect(a, b);
  std::vector<std::uint8_t> data(8 << 16);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 7 + (i >> 12));
  std::copy(data.begin(), data.end(), t.h1.memory().bytes(a.buf, data.size()));
  for (unsigned m = 0; m < 8; ++m) REQUIRE(t.h1.post_send(*a.qp, write_wr(a, b, m << 16, 65536, m)) == 0);
  Starts starts;
  Arrivals arrivals;
  t.h1.set_send_observer(&starts);
  t.h2.set_delivery_observer(&arrivals);
  CalendarProcess::run_for(200 * kUs);
  REQUIRE(starts.t.size() == 128);
  // WRITE First: 14 + 20 + 8 + BTH 12 + RETH 16 + 4,096 + ICRC 4 + FCS 4 = 4,174 bytes; Middle
  // and Last 4,158.
  for (std::size_t i = 0; i < 128; ++i) CHECK(starts.bytes[i] == (i % 16 == 0 ? 4174u : 4158u));
  REQUIRE(arrivals.t.size() == 128);
  for (std::size_t i = 0; i < 128; ++i) CHECK(arrivals.psn[i] == 0x100 + i);  // in order, none lost
  // The wire bound: a message is 4,174 + 15 x 4,158 = 66,544 frame bytes + 16 x (8 preamble/SFD +
  // 12 gap) = 66,864 edges of 80 ps = 5,349.12 ns for 65,536 bytes: 98.0139 Gb/s. The HCA stages
  // each packet while the one before it is on the wire, so it sends back to back: between the
  // last packets of the first and the eighth message, 7 x 66,864 edges; with FEC the arrivals are
  // shifted by up to a 640-byte block each, within 0.2 %.
  const Time span = arrivals.t[127] - arrivals.t[15];
  const double gbps = 7.0 * 65536 * 8 / (static_cast<double>(span) / kNs);
  const double bound = 65536.0 * 8 / (66864 * 0.08);
  CHECK(bound == Approx(98.0139).epsilon(1e-5));
  CHECK(gbps == Approx(bound).epsilon(0.002));
  CHECK(gbps <= bound * 1.0005);
  if (!fec) CHECK(span == 7 * 66864 * k100GEdge);
  // At the sender: every frame starts as the one before it and its gap end.
  for (std::size_t i = 1; i < 128; ++i) CHECK(starts.t[i] - starts.t[i - 1] == (starts.bytes[i - 1] + 20) * k100GEdge);
  const std::uint8_t* got = t.h2.memory().bytes(b.buf, data.size());
  CHECK(std::equal(data.begin(), data.end(), got));
  const auto wa = a.poll_all();
  REQUIRE(wa.size() == 8);
  for (const auto& wc : wa) CHECK(wc.status == IBV_WC_SUCCESS);
  CHECK(t.sw1.stats().dropped_total() == 0);
  CHECK(t.ledger.dropped_total() == 0);
}
}  // namespace

TEST_CASE("RoCE HCA: RC WRITEs of 64 KiB over 100GbE RS-FEC within 0.2 % of the wire bound", "[ethernet][roce][hca]") {
  write_bandwidth(true);
}

TEST_CASE("RoCE HCA: RC WRITEs of 64 KiB over 100GbE without FEC at exactly the wire bound", "[ethernet][roce][hca]") {
  write_bandwidth(false);
}
