// DCQCN end to end on real HCAs (RoceHcaFabric): switches mark CE at egress (ecn_marking.h), the
// receiving HCA's notification point answers with CNPs, the sending HCA's reaction point cuts and
// paces its QP (hca_dcqcn.h). One flow: the first CNP's time and the first cut, exact. Two flows
// from two senders into one receiver: their rates converge to within 10 % of each other and the
// bottleneck queue stays bounded.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "sim/ethernet/ethernet_frame_timing.h"
#include "sim/fabric/roce_hca_fabric.h"
#include "sim/transport/roce/roce_frame.h"
#include "tests/support/fire_at.h"
#include "tests/support/verbs_harness.h"

using namespace ibfsim;
using namespace ibfsim::test;
using namespace ibfsim::verbs;

namespace {
// The frames one transmitter starts: when its first byte after the SFD left, and what it was.
struct FrameLog final : FrameCaptureSink {
  struct Entry {
    Time start;
    std::size_t bytes;
    ParsedRoceFrame f;
  };
  void capture_frame(Time start, const Packet& p, std::uint32_t) override {
    p.write_frame(buf);
    frames.push_back({start, buf.size(), parse_roce_frame(buf.data(), buf.size())});
  }
  const Entry* first_cnp() const {
    for (const Entry& e : frames)
      if (e.f.cnp) return &e;
    return nullptr;
  }
  std::vector<std::uint8_t> buf;
  std::vector<Entry> frames;
};

constexpr Time kBytePeriod = 80 * kPs;     // 100GbE
constexpr std::uint64_t kProp = 125;      // edges of cable (RoceHcaFabricOptions' default)
constexpr std::uint64_t kLine = 100'000'000'000;
}  // namespace

// h1_1 WRITEs 64 KB to h1_2 through sw1, whose egress queues mark every ECN-capable frame that
// finds more than 1,000 bytes ahead of it (Kmin 0, Kmax 1,000, Pmax 1): the first frame finds an
// empty queue, the second finds the first still leaving and is marked. No FEC: times are sums. The receiver's CNP leaves
// as that frame's tail arrives, the sender's QP is cut from 100 to 50 Gb/s as the CNP's tail
// arrives, and its next frame waits twice its line time after the one before.
TEST_CASE("DCQCN on RoCE HCAs: one flow through a marked queue, the first CNP and the first cut exact",
          "[ethernet][roce][dcqcn]") {
  init_time_resolution();
  PacketPool pool;
  PacketLedger ledger;
  RoceHcaFabricOptions o;
  o.rate = EthernetRate{EthernetSpeed::k100G, false};  // no FEC: arrival times are plain sums
  o.ecn.enabled = true;
  o.ecn.kmin_bytes = 0;
  o.ecn.kmax_bytes = 1000;
  o.ecn.pmax = 1.0;
  o.hca.dcqcn = DcqcnConfig{};
  RoceHcaFabric f(ethernet_line(1, 2, 1), o, pool, ledger);
  Hca& a_hca = f.hca("h1_1");
  Hca& b_hca = f.hca("h1_2");
  EthernetSwitch& sw = *f.switch_at(f.plan().find("sw1"));
  Endpoint a = make_endpoint(a_hca, IBV_QPT_RC, 1 << 16, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(b_hca, IBV_QPT_RC, 1 << 16, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  connect(a, b);
  FrameLog sent, to_b, from_b, to_a;
  a_hca.ethernet_port().set_capture(&sent);
  sw.port(2).set_capture(&to_b);
  b_hca.ethernet_port().set_capture(&from_b);
  sw.port(1).set_capture(&to_a);
  REQUIRE(a_hca.post_send(*a.qp, write_wr(a, b, 0, 1 << 16, 1)) == 0);
  CalendarProcess::run_for(20 * kUs);

  // Data leaves ECN-capable; the first frame to the receiver is unmarked, the second marked.
  REQUIRE(sent.frames.size() >= 2);
  CHECK(sent.frames[0].f.ipv4.ecn == ecn::kEct0);
  REQUIRE(to_b.frames.size() == 16);
  CHECK(to_b.frames[0].f.ipv4.ecn == ecn::kEct0);
  CHECK(to_b.frames[1].f.ipv4.ecn == ecn::kCe);
  // Frames 2 to 5 found the one ahead still leaving (back to back: 335.52 ns apart, each leaving
  // the switch 300 ns after its head came); from frame 6 on h1_1 is paced at 50 Gb/s, 668.48 ns
  // apart, and each frame finds the queue empty.
  CHECK(to_b.frames[4].f.ipv4.ecn == ecn::kCe);
  CHECK(to_b.frames[5].f.ipv4.ecn == ecn::kEct0);
  CHECK(sw.ecn().marked(2) == 4);
  CHECK(sw.ecn().marked(1) == 0);   // the ACKs (ECN-capable too) found h1_1's queue empty
  // The notification point: 4 CE-marked frames within 50 us, one CNP.
  const HcaDcqcn& np = *b_hca.dcqcn();
  CHECK(np.notification_point().counters().ce_marked == 4);
  CHECK(np.notification_point().counters().suppressed == 3);
  CHECK(np.notification_point().counters().cnps == 1);
  CHECK(np.counters().cnps_sent == 1);
  // The CNP leaves as the marked frame's tail arrives: its last byte left the switch at its start
  // + its bytes, and crossed the cable; the CNP's first byte after the SFD follows 8 edges later.
  const FrameLog::Entry* cnp = from_b.first_cnp();
  REQUIRE(cnp != nullptr);
  const FrameLog::Entry& marked = to_b.frames[1];
  CHECK(cnp->start == marked.start + (marked.bytes + kProp + kEthernetPreambleBytes) * kBytePeriod);
  CHECK(cnp->start == 1'527'520'000);
  CHECK(cnp->bytes == 78);  // IPv4, untagged: 14 + 20 + 8 + 12 + 16 + 4 + 4
  CHECK(cnp->f.ipv4.dscp == 48);
  CHECK(cnp->f.ipv4.ecn == ecn::kNotEct);
  CHECK(cnp->f.h.bth.dest_qp == a.qp->qpn());
  CHECK(cnp->f.h.bth.becn);
  CHECK(cnp->f.ipv4.dst == std::array<std::uint8_t, 4>{10, 0, 1, 1});
  // The reaction point: one cut, from the line rate to half of it, as the CNP's tail arrives at
  // h1_1 (its deadlines are 55 us after the cut).
  const FrameLog::Entry* cnp_at_a = to_a.first_cnp();
  REQUIRE(cnp_at_a != nullptr);
  const Time cut = cnp_at_a->start + (cnp_at_a->bytes + kProp) * kBytePeriod;
  const DcqcnReactionPoint* rp = a_hca.dcqcn()->reaction_point(a.qp->qpn());
  REQUIRE(rp != nullptr);
  CHECK(rp->counters().cuts == 1);
  CHECK(rp->rate_bps() == kLine / 2);
  CHECK(rp->target_bps() == kLine);
  CHECK(rp->alpha_deadline() == cut + 55 * kUs);
  CHECK(cut == 1'857'440'000);
  // The first frame h1_1 starts after the cut is paced at 50 Gb/s: the next starts twice its line
  // time (preamble, frame, gap at 100 Gb/s) after it; the frames before went back to back.
  const auto after = std::find_if(sent.frames.begin(), sent.frames.end(), [&](const auto& e) { return e.start > cut; });
  REQUIRE(after != sent.frames.end());
  REQUIRE(after + 1 != sent.frames.end());
  CHECK((after + 1)->start - after->start == 2 * ethernet_wire_edges(after->bytes) * kBytePeriod);
  CHECK(std::prev(after)->start - std::prev(after, 2)->start == ethernet_wire_edges(std::prev(after, 2)->bytes) * kBytePeriod);
  CHECK(a_hca.dcqcn()->counters().cnps_received == 1);
  const auto wc = a.poll_all();
  REQUIRE(wc.size() == 1);
  CHECK(wc[0].status == IBV_WC_SUCCESS);
  CHECK(ledger.dropped_total() == 0);
}

namespace {
// Samples every `period` what each of two senders has sent so far (its port's bytes) and its QP's
// current rate (a test probe on the receiver's calendar).
struct RateSampler {
  Hca* hca[2];
  Qpn qpn[2];
  Time period;
  ScheduledModule* on;
  std::vector<Time> t;
  std::vector<std::uint64_t> bytes[2];
  std::vector<std::uint64_t> rate[2];
  void fire() {
    t.push_back(on->now());
    for (int i = 0; i < 2; ++i) {
      bytes[i].push_back(hca[i]->ethernet_port().stats().tx_bytes);
      rate[i].push_back(hca[i]->dcqcn()->rate_bps(qpn[i]));
    }
    fire_at(*on, on->now() + period, this);
  }
};
}  // namespace

// Two senders WRITE to one receiver through one switch (the switch's port to the receiver is the
// bottleneck, 100 Gb/s for 200 offered), with the DCQCN paper's marking (Kmin 5 KB, Kmax 200 KB,
// Pmax 1 %) and reaction point defaults. h1_1 starts alone at full rate; h1_2 joins 100 us later.
// Their throughputs, over 1 ms windows from h1_2's start, come within 10 % of each other at the
// end of the window this test asserts; the bottleneck queue stays bounded, nothing is dropped and
// the bottleneck stays busy. (Within 10 % is reached, not kept: with these parameters the two
// throughputs keep drifting apart and back by up to about 20 %, over milliseconds, and still do
// over 100 ms: isolated CNPs, about one per millisecond per flow, are undone by fast recovery
// (dcqcn_test.cpp, "an isolated cut is undone"), so nothing pulls the rates together; docs/scenario.md.)
TEST_CASE("DCQCN on RoCE HCAs: two flows into one receiver converge to within 10 % of equal rates",
          "[ethernet][roce][dcqcn][long]") {
  init_time_resolution();
  PacketPool pool;
  PacketLedger ledger;
  RoceHcaFabricOptions o;
  o.ecn.enabled = true;
  o.hca.dcqcn = DcqcnConfig{};
  o.seed = 1;
  RoceHcaFabric f(ethernet_line(1, 3, 1), o, pool, ledger);
  Hca& s1 = f.hca("h1_1");
  Hca& s2 = f.hca("h1_2");
  Hca& rx = f.hca("h1_3");
  EthernetSwitch& sw = *f.switch_at(f.plan().find("sw1"));
  constexpr std::uint32_t kMsg = 1 << 20;
  constexpr unsigned kWrites = 1000;  // 1 GB each: more than the run sends
  Endpoint a1 = make_endpoint(s1, IBV_QPT_RC, kMsg, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b1 = make_endpoint(rx, IBV_QPT_RC, kMsg, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  Endpoint a2 = make_endpoint(s2, IBV_QPT_RC, kMsg, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b2 = make_endpoint(rx, IBV_QPT_RC, kMsg, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  connect(a1, b1);
  connect(a2, b2);
  for (unsigned i = 0; i < kWrites; ++i) REQUIRE(s1.post_send(*a1.qp, write_wr(a1, b1, 0, kMsg, i)) == 0);
  constexpr Time kJoin = 100 * kUs;
  At start2([&] {
    for (unsigned i = 0; i < kWrites; ++i) REQUIRE(s2.post_send(*a2.qp, write_wr(a2, b2, 0, kMsg, i)) == 0);
  });
  fire_at(s2, kJoin, &start2);
  RateSampler rs{{&s1, &s2}, {a1.qp->qpn(), a2.qp->qpn()}, 10 * kUs, &rx, {}, {}, {}};
  fire_at(rx, kJoin, &rs);
  constexpr Time kRun = 23 * kMs;
  CalendarProcess::run_for(kRun);

  // Throughput per 1 ms window (100 samples), in Mb/s.
  constexpr std::size_t kWindow = 100;
  std::vector<Time> end;
  std::vector<std::uint64_t> mbps[2];
  for (std::size_t i = kWindow; i < rs.t.size(); i += kWindow) {
    end.push_back(rs.t[i]);
    for (int k = 0; k < 2; ++k) mbps[k].push_back((rs.bytes[k][i] - rs.bytes[k][i - kWindow]) * 8 / 1000);  // bits per ms / 1000
  }
  std::size_t w = 0;
  const auto within = [&](std::size_t i) {
    const double x = static_cast<double>(mbps[0][i]), y = static_cast<double>(mbps[1][i]);
    return std::abs(x - y) <= 0.1 * std::max(x, y);
  };
  while (w < end.size() && !within(w)) ++w;
  std::string series;
  for (std::size_t i = 0; i < end.size(); ++i) series += std::to_string(mbps[0][i]) + "/" + std::to_string(mbps[1][i]) + " ";
  INFO("Mb/s per 1 ms window: " << series);
  REQUIRE(w < end.size());
  const Time converged = end[w] - kJoin;
  INFO("converged " << converged << " fs after h1_2 joined: " << mbps[0][w] << " and " << mbps[1][w] << " Mb/s");
  CHECK(converged == 22 * kMs);  // the window from 21 to 22 ms after h1_2 joined: 47,435 and 50,761 Mb/s
  // The bottleneck carried at least 85 Gb/s of their data in that window.
  CHECK(mbps[0][w] + mbps[1][w] >= 85'000);
  // Both were cut; the bottleneck queue (sw1 port 3) stayed bounded, nothing was dropped, and the
  // bottleneck was busy.
  CHECK(s1.dcqcn()->reaction_point(a1.qp->qpn())->counters().cuts > 0);
  CHECK(s2.dcqcn()->reaction_point(a2.qp->qpn())->counters().cuts > 0);
  INFO("peak " << sw.ecn().queue_peak_bytes(3) << " marked " << sw.ecn().marked(3));
  // The peak came as h1_2 joined at full rate, before either was cut.
  CHECK(sw.ecn().queue_peak_bytes(3) == 382'536);
  CHECK(sw.ecn().marked(3) == 284);
  CHECK(sw.stats().dropped_total() == 0);
  CHECK(ledger.dropped_total() == 0);
  const double busy = static_cast<double>(sw.port(3).stats().tx_busy) / static_cast<double>(kRun);
  INFO("bottleneck busy " << busy);
  CHECK(busy > 0.85);
}

namespace {
// ns-3's model of ConnectX DCQCN as the HPCC repository configures it (alibaba-edu/High-Precision-
// Congestion-Control, simulation/run.py and mix/config.txt): alpha updated every 1 us, the rate
// timer 300 us, one fast-recovery stage, no byte counter, R_AI 20 and R_HAI 200 Mb/s (5 and 50 per
// 25 Gb/s of host link), the target clamped only after a timer increase (CLAMP_TARGET_RATE 0), a
// cut at most every 4 us (here: a CNP at most every 4 us); its marking for a 100 Gb/s link: Kmin
// 400 KB, Kmax 1,600 KB, Pmax 0.2.
RoceHcaFabricOptions ns3_connectx_options() {
  RoceHcaFabricOptions o;
  o.ecn.enabled = true;
  o.ecn.kmin_bytes = 400'000;
  o.ecn.kmax_bytes = 1'600'000;
  o.ecn.pmax = 0.2;
  DcqcnConfig c;
  c.alpha_period = 1 * kUs;
  c.increase_period = 300 * kUs;
  c.increase_bytes = 0;
  c.fast_recovery_steps = 1;
  c.additive_increase_bps = 20'000'000;
  c.hyper_increase_bps = 200'000'000;
  c.clamp_target_rate = false;
  c.min_cnp_interval = 4 * kUs;
  o.hca.dcqcn = c;
  o.seed = 1;
  return o;
}

// Two senders WRITE into one receiver through sw1 (h1_2 joins `join` after h1_1); what each sent
// per 1 ms from h1_2's start, in Mb/s.
struct TwoFlows {
  std::vector<std::uint64_t> mbps[2];
  std::uint64_t cnps[2] = {0, 0};
  std::uint64_t dropped = 0;
};
TwoFlows run_two_flows(const RoceHcaFabricOptions& o, Time join, Time run) {
  PacketPool pool;
  PacketLedger ledger;
  RoceHcaFabric f(ethernet_line(1, 3, 1), o, pool, ledger);
  Hca& s1 = f.hca("h1_1");
  Hca& s2 = f.hca("h1_2");
  Hca& rx = f.hca("h1_3");
  constexpr std::uint32_t kMsg = 1 << 20;
  constexpr unsigned kWrites = 1000;  // 1 GB each: more than the run sends
  Endpoint a1 = make_endpoint(s1, IBV_QPT_RC, kMsg, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b1 = make_endpoint(rx, IBV_QPT_RC, kMsg, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  Endpoint a2 = make_endpoint(s2, IBV_QPT_RC, kMsg, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b2 = make_endpoint(rx, IBV_QPT_RC, kMsg, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  connect(a1, b1);
  connect(a2, b2);
  for (unsigned i = 0; i < kWrites; ++i) REQUIRE(s1.post_send(*a1.qp, write_wr(a1, b1, 0, kMsg, i)) == 0);
  At start2([&] {
    for (unsigned i = 0; i < kWrites; ++i) REQUIRE(s2.post_send(*a2.qp, write_wr(a2, b2, 0, kMsg, i)) == 0);
  });
  fire_at(s2, join, &start2);
  RateSampler rs{{&s1, &s2}, {a1.qp->qpn(), a2.qp->qpn()}, 10 * kUs, &rx, {}, {}, {}};
  fire_at(rx, join, &rs);
  CalendarProcess::run_for(run);
  TwoFlows r;
  for (std::size_t i = 100; i < rs.t.size(); i += 100)
    for (int k = 0; k < 2; ++k) r.mbps[k].push_back((rs.bytes[k][i] - rs.bytes[k][i - 100]) * 8 / 1000);
  r.cnps[0] = s1.dcqcn()->reaction_point(a1.qp->qpn())->counters().cnps;
  r.cnps[1] = s2.dcqcn()->reaction_point(a2.qp->qpn())->counters().cnps;
  r.dropped = ledger.dropped_total();
  return r;
}

// Within 10 %: |x - y| <= 0.1 x max(x, y), over the `w` 1 ms windows ending with window `i`.
bool within_10_percent(const TwoFlows& r, std::size_t i, std::size_t w) {
  std::uint64_t x = 0, y = 0;
  for (std::size_t k = i + 1 - w; k <= i; ++k) {
    x += r.mbps[0][k];
    y += r.mbps[1][k];
  }
  const double a = static_cast<double>(x), b = static_cast<double>(y);
  return std::abs(a - b) <= 0.1 * std::max(a, b);
}
}  // namespace

// ns-3's ConnectX parameter set (above): h1_2 joins 100 us after h1_1; their throughputs over the
// first 1 ms windows after the join: 36,058 / 17,330 Mb/s, then 36,557 / 38,686 Mb/s, within 10 %, 2 ms
// after the join. Nothing is dropped.
TEST_CASE("DCQCN on RoCE HCAs: with ns-3's ConnectX parameters two flows come within 10 % 2 ms after the join",
          "[ethernet][roce][dcqcn]") {
  init_time_resolution();
  const TwoFlows r = run_two_flows(ns3_connectx_options(), 100 * kUs, 2100 * kUs + 10 * kUs);
  std::string series;
  for (std::size_t i = 0; i < r.mbps[0].size(); ++i) series += std::to_string(r.mbps[0][i]) + "/" + std::to_string(r.mbps[1][i]) + " ";
  INFO("Mb/s per 1 ms window: " << series);
  REQUIRE(r.mbps[0].size() == 2);
  CHECK_FALSE(within_10_percent(r, 0, 1));
  CHECK(within_10_percent(r, 1, 1));
  CHECK(r.mbps[0][0] == 36'058);
  CHECK(r.mbps[1][0] == 17'330);
  CHECK(r.mbps[0][1] == 36'557);
  CHECK(r.mbps[1][1] == 38'686);
  CHECK(r.dropped == 0);
}

// The same over 50 ms: averaged over 5 ms (sliding by 1 ms), the two throughputs are within 10 %
// from the first such window (the one ending 6 ms after the join) to the end of the run; with
// 1 ms windows a few windows reach 11 to 15 % (the throughputs alternate between about 44 and
// 53 Gb/s from one millisecond to the next, both flows together).
TEST_CASE("DCQCN on RoCE HCAs: with ns-3's ConnectX parameters two flows stay within 10 % over 5 ms windows for 50 ms",
          "[ethernet][roce][dcqcn][long]") {
  init_time_resolution();
  const TwoFlows r = run_two_flows(ns3_connectx_options(), 100 * kUs, 50 * kMs + 100 * kUs + 10 * kUs);
  std::string series;
  for (std::size_t i = 0; i < r.mbps[0].size(); ++i) series += std::to_string(r.mbps[0][i]) + "/" + std::to_string(r.mbps[1][i]) + " ";
  INFO("Mb/s per 1 ms window: " << series);
  REQUIRE(r.mbps[0].size() == 50);
  constexpr std::size_t kW = 5;
  CHECK_FALSE(within_10_percent(r, kW - 1, kW));
  std::size_t outside = 0;
  for (std::size_t i = kW; i < r.mbps[0].size(); ++i) outside += within_10_percent(r, i, kW) ? 0 : 1;
  CHECK(outside == 0);
  CHECK(r.cnps[0] == 744);
  CHECK(r.cnps[1] == 737);
  CHECK(r.dropped == 0);
}
