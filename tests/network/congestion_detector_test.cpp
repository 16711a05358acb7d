// The switch's congestion detection and FECN marking (congestion_detector.h, fecn_marker.h).
#include <catch2/catch.hpp>

#include <cstdlib>

#include "sim/link/vcrc.h"
#include "sim/network/congestion_detector.h"
#include "sim/network/fecn_marker.h"
#include "sim/transport/icrc.h"
#include "sim/transport/ud_send_packet.h"

using namespace ibfsim;

namespace {
SwitchCongestionConfig config(std::uint8_t threshold, std::uint8_t packet_size, std::uint16_t rate) {
  SwitchCongestionConfig c;
  c.threshold = threshold;
  c.packet_size = packet_size;
  c.marking_rate = rate;
  return c;
}
}  // namespace

TEST_CASE("Threshold T sets the queue level at ceil((16 - T) x B / 16) blocks", "[network][cc]") {
  CHECK(CongestionDetector::queue_level_blocks(8, 128) == 64);
  CHECK(CongestionDetector::queue_level_blocks(1, 128) == 120);
  CHECK(CongestionDetector::queue_level_blocks(15, 128) == 8);
  CHECK(CongestionDetector::queue_level_blocks(15, 100) == 7);  // 6.25 -> 7
  CHECK(CongestionDetector::queue_level_blocks(0, 128) == ~0u);
  CHECK(CongestionDetector::starvation_level_blocks(4, 128) == 32);
}

TEST_CASE("a packet meets congestion when the queue ahead of it for its port and VL reaches the level",
          "[network][cc]") {
  CongestionDetector d(config(8, 1, 0), 4, 128, RngStream(1, 1));  // level 64 blocks
  CHECK_FALSE(d.arrive(2, 0, 33));  // 0 ahead
  CHECK_FALSE(d.arrive(2, 0, 33));  // 33 ahead
  CHECK(d.arrive(2, 0, 33));        // 66 ahead
  CHECK_FALSE(d.arrive(1, 0, 33));  // other ports and VLs are apart
  CHECK_FALSE(d.arrive(2, 1, 33));
  CHECK(d.queued_blocks(2, 0) == 99);
  d.dequeued(2, 0, 33);
  CHECK(d.arrive(2, 0, 33));  // 66 ahead again
  d.dequeued(2, 0, 33);
  d.dequeued(2, 0, 33);
  CHECK_FALSE(d.arrive(2, 0, 33));  // 33 ahead
  CHECK(d.stats(2).congested_root == 2);
  // The mark is applied as the packet leaves; the count is of packets that left marked.
  CHECK(d.depart(2, 0, 33, true, 100, 128));
  CHECK_FALSE(d.depart(2, 0, 33, false, 100, 128));
  CHECK(d.stats(2).fecn_marked == 1);
}

TEST_CASE("packets smaller than Packet_Size credits are never marked", "[network][cc]") {
  CongestionDetector d(config(15, 4, 0), 2, 128, RngStream(1, 1));  // level 8
  d.enqueued(1, 3, 100);
  CHECK_FALSE(d.arrive(1, 3, 3));  // 3 credits < 4
  CHECK(d.arrive(1, 3, 4));
  CHECK(d.stats(1).too_small == 1);
  CHECK(d.stats(1).eligible == 1);
}

TEST_CASE("Marking_Rate R marks an eligible packet with probability 1 / (R + 1), R 0 every one", "[network][cc]") {
  CongestionDetector d(config(15, 0, 3), 2, 128, RngStream(7, 9));
  d.enqueued(1, 0, 1000);
  const int n = 40000;
  int marked = 0, gaps_of_zero = 0, last = -1;
  for (int i = 0; i < n; ++i) {
    if (d.arrive(1, 0, 10)) {
      ++marked;
      if (last == i - 1) ++gaps_of_zero;
      last = i;
    }
  }
  // Binomial(40000, 1/4): mean 10000, standard deviation sqrt(40000 x 1/4 x 3/4) = 86.6; 5 sigma.
  CHECK(std::abs(marked - 10000) < 433);
  CHECK(d.stats(1).eligible == static_cast<std::uint64_t>(n));
  // Not a fixed pattern: back-to-back marks happen (1 in 4 of the marks, about 2500).
  CHECK(gaps_of_zero > 2000);
  CongestionDetector e(config(15, 0, 0), 2, 128, RngStream(7, 9));
  e.enqueued(1, 0, 1000);
  for (int i = 0; i < 100; ++i) CHECK(e.arrive(1, 0, 10));
}

TEST_CASE("a port out of credits since its queue was last empty is a victim: it marks only with its Victim_Mask bit",
          "[network][cc]") {
  SwitchCongestionConfig c = config(15, 0, 0);
  c.victim_mask.set(2);
  CongestionDetector d(c, 2, 128, RngStream(1, 1));
  d.enqueued(1, 0, 40);
  d.enqueued(2, 0, 40);
  d.credit_wait(1, 0);
  d.credit_wait(2, 0);
  CHECK_FALSE(d.arrive(1, 0, 10));  // victim, not in the mask
  CHECK(d.arrive(2, 0, 10));        // victim, in the mask
  d.depart(1, 0, 10, false, 100, 128);
  CHECK_FALSE(d.arrive(1, 0, 10));  // still the queue that built without credits
  d.dequeued(1, 0, 60);             // the queue empties
  d.enqueued(1, 0, 40);
  CHECK(d.arrive(1, 0, 10));        // a new queue, with credits: root
  CHECK(d.stats(1).congested_victim == 2);
  CHECK(d.stats(1).congested_root == 1);
}

TEST_CASE("credit starvation marks on Credit_Mask ports with few credits left, queue or not", "[network][cc]") {
  SwitchCongestionConfig c = config(0, 0, 0);
  c.cs_threshold = 4;  // level: 4 x 128 / 16 = 32 credits
  c.credit_mask.set(1);
  CongestionDetector d(c, 2, 128, RngStream(1, 1));
  CHECK(d.depart(1, 0, 10, false, 31, 128));
  CHECK_FALSE(d.depart(1, 0, 10, false, 32, 128));
  CHECK_FALSE(d.depart(2, 0, 10, false, 0, 128));  // not in Credit_Mask
  CHECK(d.stats(1).credit_starved == 1);
  CHECK(d.stats(1).fecn_marked == 1);
  CHECK_FALSE(c.marks(0));
  CHECK(c.marks(2));
}

TEST_CASE("SwitchPortCongestionSetting overrides replace the switch-wide values of their port", "[network][cc]") {
  SwitchCongestionConfig c = config(8, 1, 0);
  c.marking_override.resize(3);
  c.marking_override[2] = {true, 15, 9, 0};
  c.cs_override.resize(3);
  c.cs_override[1] = 6;
  CHECK(c.port(1).threshold == 8);
  CHECK(c.port(1).cs_threshold == 6);
  CHECK(c.port(2).threshold == 15);
  CHECK(c.port(2).packet_size == 9);
  CHECK(c.port(2).marking_rate == 0);
  CongestionDetector d(c, 2, 128, RngStream(1, 1));
  d.enqueued(2, 0, 10);
  d.enqueued(1, 0, 10);
  CHECK(d.arrive(2, 0, 10));        // level 8 on port 2
  CHECK_FALSE(d.arrive(1, 0, 10));  // level 64 on port 1
}

TEST_CASE("FECN marking sets BTH byte 4 bit 7, keeps the ICRC valid and rewrites the VCRC", "[network][cc]") {
  // The UD SEND reference packet (docs/compliance.md, "Reference packets").
  Packet p;
  UdSendFields f;
  f.dlid = 2;
  f.slid = 1;
  f.se = true;
  f.dest_qp = 0x12;
  f.psn = 1;
  f.q_key = 0x1234;
  f.src_qp = 0x11;
  const std::string text = "hello, fabric";
  build_ud_send(p, f, static_cast<std::uint32_t>(text.size()), reinterpret_cast<const std::uint8_t*>(text.data()));
  const auto icrc = p.icrc;
  CHECK(p.header[12] == 0x00);
  CHECK_FALSE(packet_fecn(p));
  REQUIRE(mark_fecn(p));
  CHECK(p.header[12] == 0x80);
  CHECK(packet_fecn(p));
  CHECK(p.icrc == icrc);  // BTH byte 4 is masked out of the ICRC
  CHECK(icrc_ok(p));
  CHECK(vcrc_ok(p));
  CHECK(p.vcrc != std::array<std::uint8_t, 2>{0x4d, 0x3e});  // the vector's VCRC changed with the byte
  // A raw packet has no BTH: nothing to mark.
  Packet raw;
  raw.header_len = 8;
  raw.header[1] = 0x00;  // LNH 0
  CHECK_FALSE(mark_fecn(raw));
}
