// The switch's congestion detection and FECN marking (congestion_detector.h, fecn_marker.h).
#include <catch2/catch.hpp>

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

TEST_CASE("a root port marks a departing packet when at least the level waits behind it", "[network][cc]") {
  CongestionDetector d(config(8, 1, 0), 4, 128);  // level 64 blocks
  d.enqueued(2, 0, 33);
  d.enqueued(2, 0, 33);
  d.enqueued(2, 0, 33);
  CHECK(d.queued_blocks(2, 0) == 99);
  CHECK(d.depart(2, 0, 33, 100, 128));  // 66 behind it
  d.dequeued(2, 0, 33);
  CHECK_FALSE(d.depart(2, 0, 33, 100, 128));  // 33 behind
  CHECK(d.stats(2).congested_root == 1);
  CHECK(d.stats(2).fecn_marked == 1);
  CHECK(d.queued_blocks(1, 0) == 0);  // other ports and VLs are apart
}

TEST_CASE("packets smaller than Packet_Size credits are never marked", "[network][cc]") {
  CongestionDetector d(config(15, 4, 0), 2, 128);  // level 8
  d.enqueued(1, 3, 100);
  CHECK_FALSE(d.depart(1, 3, 3, 100, 128));  // 3 credits < 4
  CHECK(d.depart(1, 3, 4, 100, 128));
  CHECK(d.stats(1).too_small == 1);
  CHECK(d.stats(1).fecn_marked == 1);
}

TEST_CASE("Marking_Rate N marks one eligible packet, then passes over N", "[network][cc]") {
  CongestionDetector d(config(15, 0, 2), 2, 128);
  d.enqueued(1, 0, 1000);
  std::string marks;
  for (int i = 0; i < 8; ++i) marks += d.depart(1, 0, 10, 100, 128) ? 'M' : '.';
  CHECK(marks == "M..M..M.");
  CHECK(d.stats(1).eligible == 8);
}

TEST_CASE("a victim port (its packet waited for credits) marks only with its Victim_Mask bit", "[network][cc]") {
  SwitchCongestionConfig c = config(15, 0, 0);
  c.victim_mask.set(2);
  CongestionDetector d(c, 2, 128);
  d.enqueued(1, 0, 100);
  d.enqueued(2, 0, 100);
  d.credit_wait(1, 0);
  d.credit_wait(2, 0);
  CHECK_FALSE(d.depart(1, 0, 10, 100, 128));  // victim, not in the mask
  CHECK(d.depart(2, 0, 10, 100, 128));        // victim, in the mask
  CHECK(d.depart(1, 0, 10, 100, 128));        // no credit wait since: root again
  CHECK(d.stats(1).congested_victim == 1);
  CHECK(d.stats(1).congested_root == 1);
}

TEST_CASE("credit starvation marks on Credit_Mask ports with few credits left, queue or not", "[network][cc]") {
  SwitchCongestionConfig c = config(0, 0, 0);
  c.cs_threshold = 4;  // level: 4 x 128 / 16 = 32 credits
  c.credit_mask.set(1);
  CongestionDetector d(c, 2, 128);
  CHECK(d.depart(1, 0, 10, 31, 128));
  CHECK_FALSE(d.depart(1, 0, 10, 32, 128));
  CHECK_FALSE(d.depart(2, 0, 10, 0, 128));  // not in Credit_Mask
  CHECK(d.stats(1).credit_starved == 1);
  CHECK_FALSE(c.marks(0));
  CHECK(c.marks(2));
}

TEST_CASE("SwitchPortCongestionSetting overrides replace the switch-wide values of their port", "[network][cc]") {
  SwitchCongestionConfig c = config(8, 1, 0);
  c.marking_override.resize(3);
  c.marking_override[2] = {true, 15, 9, 4};
  c.cs_override.resize(3);
  c.cs_override[1] = 6;
  CHECK(c.port(1).threshold == 8);
  CHECK(c.port(1).cs_threshold == 6);
  CHECK(c.port(2).threshold == 15);
  CHECK(c.port(2).packet_size == 9);
  CHECK(c.port(2).marking_rate == 4);
  CongestionDetector d(c, 2, 128);
  d.enqueued(2, 0, 20);
  CHECK(d.depart(2, 0, 10, 100, 128));  // level 8 on port 2, 10 behind
}

TEST_CASE("FECN marking sets BTH byte 4 bit 7, keeps the ICRC valid and rewrites the VCRC", "[network][cc]") {
  // The fact sheet's UD SEND test vector (4.9).
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
