// RED/ECN marking (ethernet/ecn_marking.h): the marking chance of a queue length, which frames may
// be marked and how (ECN bits, IPv4 checksum; the RoCE ICRC stays good, the switch's rewrite
// recomputes the FCS), and the per-switch marker's queues, draws and counters.
#include <catch2/catch.hpp>

#include <vector>

#include "sim/ethernet/ecn_marking.h"
#include "sim/ethernet/ip_traffic_class.h"
#include "sim/ethernet/ipv4_header.h"
#include "sim/ethernet/l3_forwarding.h"
#include "sim/transport/roce/roce_frame.h"

using namespace ibfsim;

namespace {
// A RoCE v2 SEND Only frame with 256 bytes of payload, ECN as given.
std::vector<std::uint8_t> roce_frame(std::uint8_t e, bool v6 = false) {
  RoceAddressing a;
  a.src_mac = {2, 0, 0, 0, 1, 1};
  a.dst_mac = {2, 0, 1, 0, 1, 1};
  a.src_ip = v6 ? IpAddress::v6({0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}) : IpAddress::v4(10, 0, 1, 1);
  a.dst_ip = v6 ? IpAddress::v6({0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}) : IpAddress::v4(10, 0, 1, 2);
  a.dscp = 26;
  a.ecn = e;
  TransportHeaders h;
  h.bth.opcode = 0x04;  // RC SEND Only
  h.bth.dest_qp = 0x123;
  h.bth.psn = 7;
  std::vector<std::uint8_t> payload(256);
  for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<std::uint8_t>(i * 7);
  return build_roce_frame(a, h, 256, payload.data());
}
}  // namespace

TEST_CASE("ECN marking chance: 0 below Kmin, linear to Pmax at Kmax, 1 above", "[ethernet][ecn]") {
  EcnMarkingConfig c;  // the DCQCN paper's 5 KB, 200 KB, 1 %
  CHECK(c.kmin_bytes == 5120);
  CHECK(c.kmax_bytes == 204800);
  CHECK(ecn_mark_probability(c, 0) == 0.0);
  CHECK(ecn_mark_probability(c, 5119) == 0.0);
  CHECK(ecn_mark_probability(c, 5120) == 0.0);
  CHECK(ecn_mark_probability(c, (5120 + 204800) / 2) == 0.005);
  CHECK(ecn_mark_probability(c, 204800) == 0.01);
  CHECK(ecn_mark_probability(c, 204801) == 1.0);
  // The draw decides only strictly between 0 and 1.
  CHECK_FALSE(ecn_should_mark(c, 5119, 0.0));
  CHECK(ecn_should_mark(c, 104960, 0.0049));
  CHECK_FALSE(ecn_should_mark(c, 104960, 0.005));
  CHECK(ecn_should_mark(c, 204801, 0.999));
  // Kmin = Kmax: a step from 0 to Pmax at Kmin, 1 above.
  c.kmin_bytes = c.kmax_bytes = 1000;
  CHECK(ecn_mark_probability(c, 999) == 0.0);
  CHECK(ecn_mark_probability(c, 1000) == 0.01);
  CHECK(ecn_mark_probability(c, 1001) == 1.0);
}

TEST_CASE("ECN marking rewrites ECT(0) and ECT(1) to CE, IPv4 checksum kept right and the RoCE ICRC good",
          "[ethernet][ecn]") {
  for (const bool v6 : {false, true}) {
    for (const std::uint8_t e : {ecn::kEct0, ecn::kEct1}) {
      std::vector<std::uint8_t> f = roce_frame(e, v6);
      REQUIRE(frame_ecn(f.data(), f.size()) == e);
      const std::vector<std::uint8_t> before = f;
      CHECK(mark_frame_ce(f.data(), f.size()));
      CHECK(frame_ecn(f.data(), f.size()) == ecn::kCe);
      // Only the ECN bits changed (IP byte 1 in either version), and the IPv4 checksum with them.
      constexpr std::size_t ip = 14;
      CHECK((f[ip + 1] ^ before[ip + 1]) == (e ^ ecn::kCe) << (v6 ? 4 : 0));  // ECT(0) 10 or ECT(1) 01 -> CE 11
      for (std::size_t i = 0; i < f.size(); ++i)
        if (i != ip + 1 && (v6 || (i != ip + 10 && i != ip + 11))) CHECK(f[i] == before[i]);
      if (!v6) CHECK(ipv4_checksum_ok(f.data() + 14));
      // The FCS is the switch's to recompute (its next-hop rewrite does); the ICRC stays good.
      l3_rewrite(f, {2, 0, 1, 0, 1, 2}, {2, 0, 0, 0, 1, 2});
      const ParsedRoceFrame r = parse_roce_frame(f.data(), f.size());
      INFO("v6 " << v6 << " error " << roce_frame_error_name(r.error));
      REQUIRE(r.ok());
      CHECK((v6 ? traffic_class_ecn(r.ipv6.tclass) : r.ipv4.ecn) == ecn::kCe);
      CHECK((v6 ? traffic_class_dscp(r.ipv6.tclass) : r.ipv4.dscp) == 26);
      // CE stays CE: nothing more to mark.
      CHECK_FALSE(mark_frame_ce(f.data(), f.size()));
    }
  }
  // Not-ECT is never marked, and a frame that is not IP has no ECN.
  std::vector<std::uint8_t> f = roce_frame(ecn::kNotEct);
  const std::vector<std::uint8_t> before = f;
  CHECK_FALSE(mark_frame_ce(f.data(), f.size()));
  CHECK(f == before);
  f[12] = 0x88;  // EtherType 0x8808: MAC control
  f[13] = 0x08;
  CHECK(frame_ecn(f.data(), f.size()) == -1);
  CHECK_FALSE(mark_frame_ce(f.data(), f.size()));
}

TEST_CASE("ECN marker: egress queue bytes at enqueue decide, Not-ECT frames take no draw, marks counted per port",
          "[ethernet][ecn]") {
  EcnMarkingConfig c;
  c.enabled = true;
  c.kmin_bytes = 1000;
  c.kmax_bytes = 3000;
  c.pmax = 0.5;
  EcnMarker m(c, 3, 42, kEcnMarkStream);
  const std::vector<std::uint8_t> ect = roce_frame(ecn::kEct0);
  const std::uint64_t bytes = ect.size();
  REQUIRE(bytes == 14 + 20 + 8 + 12 + 256 + 4 + 4);
  std::vector<std::uint8_t> f = ect;
  // An empty queue (and one below Kmin) never marks.
  CHECK_FALSE(m.enqueue(f.data(), f.size(), 2, 3, bytes));
  CHECK_FALSE(m.enqueue(f.data(), f.size(), 2, 3, bytes));
  CHECK(m.queue_bytes(2, 3) == 2 * bytes);
  CHECK(m.queue_bytes(2, 0) == 0);
  // Above Kmax (3 x 318 + ... > 3000 after ten frames): every ECT frame is marked.
  for (int i = 0; i < 8; ++i) {
    f = ect;
    m.enqueue(f.data(), f.size(), 2, 3, bytes);
  }
  REQUIRE(m.queue_bytes(2, 3) == 10 * bytes);  // 3180 > 3000
  f = ect;
  CHECK(m.enqueue(f.data(), f.size(), 2, 3, bytes));
  CHECK(frame_ecn(f.data(), f.size()) == ecn::kCe);
  // Another priority's queue of the same port is empty: no mark.
  f = ect;
  CHECK_FALSE(m.enqueue(f.data(), f.size(), 2, 5, bytes));
  // A Not-ECT frame above Kmax passes unmarked.
  std::vector<std::uint8_t> n = roce_frame(ecn::kNotEct);
  CHECK_FALSE(m.enqueue(n.data(), n.size(), 2, 3, bytes));
  CHECK(m.marked(2) >= 1);
  CHECK(m.marked(1) == 0);
  CHECK(m.queue_peak_bytes(2) == 12 * bytes);
  for (int i = 0; i < 12; ++i) m.dequeue(2, 3, bytes);
  CHECK(m.queue_bytes(2, 3) == 0);
  // Same seed, same draws: two markers given the same frames mark the same ones.
  auto run = [&](std::uint64_t seed) {
    EcnMarker k(c, 1, seed, kEcnMarkStream + 4);
    std::vector<bool> marks;
    for (int i = 0; i < 40; ++i) {
      std::vector<std::uint8_t> g = ect;
      marks.push_back(k.enqueue(g.data(), g.size(), 1, 0, 100));  // 0 .. 3900 bytes: through the ramp
    }
    return std::make_pair(marks, k.marked(1));
  };
  const auto a = run(7), b = run(7);
  CHECK(a == b);
  // From 3001 bytes on (frame 31 onward) every frame is marked; below 1000 none.
  for (int i = 0; i <= 10; ++i) CHECK_FALSE(a.first[i]);
  for (int i = 31; i < 40; ++i) CHECK(a.first[i]);
  CHECK(a.second >= 9);
}
