#include <catch2/catch.hpp>

#include <vector>

#include "sim/core/rng.h"
#include "sim/phy/bit_exact_link.h"
#include "sim/phy/serialization.h"
#include "sim/phy/skip_schedule.h"

using namespace ibfsim;

TEST_CASE("a packet starts after the SKIPs due before it, and after one due on its own start edge", "[phy][skip]") {
  SkipScheduler s(100);
  // Idle from 0: SKIPs at 100 and 200 (4 edges each) are over by 250.
  SkipPlacement p = place_after_skips(s, 0, 250, kSkipEdges8b10b);
  CHECK(p.start == 250);
  CHECK(p.skips == 2);
  CHECK(s.next_due() == 300);
  // Due on the edge the packet could start: the SKIP goes first.
  p = place_after_skips(s, 300, 300, kSkipEdges8b10b);
  CHECK(p.start == 304);
  CHECK(p.skips == 1);
  // Due at 400 while a packet is on the line until 420: it goes at 420, the next packet at 424;
  // the schedule does not move (the next is due at 500, not 520).
  p = place_after_skips(s, 420, 420, kSkipEdges8b10b);
  CHECK(p.start == 424);
  CHECK(s.next_due() == 500);
  // A SKIP that starts just before the packet could start delays it to the SKIP's end.
  p = place_after_skips(s, 500, 500, kSkipEdges8b10b);
  CHECK(p.start == 504);
  p = place_after_skips(s, 590, 601, kSkipEdges8b10b);
  CHECK(p.start == 604);
  CHECK(p.skips == 1);
  CHECK(s.next_due() == 700);
  // 64b/66b: one edge per SKIP. Off: nothing.
  SkipScheduler b(50);
  CHECK(place_after_skips(b, 0, 50, kSkipEdges64b66b).start == 51);
  SkipScheduler off(0);
  p = place_after_skips(off, 10, 1'000'000, kSkipEdges8b10b);
  CHECK(p.start == 1'000'000);
  CHECK(p.skips == 0);
  // A long idle costs one step: 10,000 SKIPs, the last at 1,000,000.
  SkipScheduler l(100);
  p = place_after_skips(l, 0, 1'000'050, kSkipEdges8b10b);
  CHECK(p.skips == 10'000);
  CHECK(p.start == 1'000'050);
  CHECK(place_after_skips(l, 1'000'050, 1'000'002, kSkipEdges8b10b).start == 1'000'050);
}

TEST_CASE("SKIPs held back by a packet go back to back after it, and the schedule keeps its grid", "[phy][skip]") {
  SkipScheduler t(100);
  CHECK(place_after_skips(t, 0, 0, kSkipEdges8b10b).start == 0);
  // A packet on the line from 0 to 250 held the SKIPs due at 100 and 200: both go at 250.
  SkipPlacement p = place_after_skips(t, 250, 250, kSkipEdges8b10b);
  CHECK(p.start == 258);
  CHECK(p.skips == 2);
  CHECK(t.next_due() == 300);
  // With an interval barely longer than a SKIP, a backlog catches up one edge per SKIP: due at
  // 5, 10, ..., 35 go at 12, 16, ..., 36; the one due at 40 goes on its edge; the packet at 44.
  SkipScheduler tight(5);
  p = place_after_skips(tight, 12, 12, kSkipEdges8b10b);
  CHECK(p.skips == 8);
  CHECK(p.start == 44);
  CHECK(tight.next_due() == 45);
}

TEST_CASE("a saturated line sends exactly one SKIP per interval", "[phy][skip]") {
  // Packets back to back, 200 to 4,300 edges long (a 4 KiB packet on 1x 8b/10b is 4,224 edges):
  // by the time the line has run T edges, the SKIPs due before T have gone out, except at most
  // the ones a packet on the line still holds back. A schedule that restarted at every sent SKIP
  // fell behind by half a packet per interval.
  RngStream rng(11, 2);
  SkipScheduler s(kDefaultSkipIntervalEdges);
  std::uint64_t free = 0, skips = 0;
  for (int n = 0; n < 20'000; ++n) {
    const SkipPlacement p = place_after_skips(s, free, free, kSkipEdges8b10b);
    skips += p.skips;
    free = p.start + 200 + rng.below(4'100);
    // The SKIPs due before this packet started have gone; those due while it runs wait for it.
    REQUIRE(skips == p.start / kDefaultSkipIntervalEdges);
  }
  CHECK(free > 40'000'000);
}

TEST_CASE("the timing model's SKIP placement agrees with the bit-exact PHY on every packet start", "[phy][skip]") {
  RngStream rng(7, 3);
  for (LinkSpeed speed : {LinkSpeed::kQdr, LinkSpeed::kEdr})
    for (unsigned w : {1u, 4u})
      for (std::uint64_t interval : {37u, 200u, 4608u}) {
        INFO(link_speed_info(speed).name << " " << w << "x, SKIP every " << interval);
        BitExactLinkConfig cfg;
        cfg.rate = LinkRate{speed, w};
        cfg.skip_interval_edges = interval;
        BitExactLink link(cfg);
        SkipScheduler timing(interval);
        const unsigned k = skip_edges(cfg.rate.info().line_code);
        std::uint64_t free = 0, skips = 0;
        for (int n = 0; n < 400; ++n) {
          const bool fc = rng.below(3) == 0;
          std::vector<std::uint8_t> bytes(fc ? 6 : 4 * (6 + rng.below(n % 5 == 0 ? 300 : 40)) + 2);
          // Back to back, just after the line frees, or after an idle gap of up to 3 intervals.
          const std::uint64_t earliest = rng.below(2) ? free : free + rng.below(3 * interval);
          const SkipPlacement p = place_after_skips(timing, free, earliest, k);
          skips += p.skips;
          const std::uint64_t start = link.send(bytes, fc ? FrameKind::kLink : FrameKind::kData, FrameEnd::kGood, earliest);
          REQUIRE(start == p.start);
          free = start + symbols_for_packet(cfg.rate, bytes.size());
          REQUIRE(link.next_free_edge() == free);
        }
        CHECK(link.skips_sent() == skips);
        CHECK(skips > 10);
        for (const auto& f : link.take_frames()) CHECK(f.ok());
      }
}
