// SKIP ordered sets on a saturated link (sim/phy/skip_schedule.h): one per 4,608 edges however
// busy the line, because a SKIP held back by a packet does not move the schedule.
//
// h1 sends 4 KiB UD packets back to back to h2 over one 1x SDR cable (4 ns per edge, one byte per
// edge): each is LRH 8 + BTH 12 + DETH 8 + 4096 + ICRC 4 + VCRC 2 = 4,130 bytes + 2 delimiters =
// 4,132 edges, so nearly every SKIP falls due while a packet is on the line and goes right after
// it. h2's buffer holds every packet, so credits never stall the line. The link comes up after
// 4,352 SDR edges of training (17,408 ns; no speed change at SDR), edge U = 4,352.
// A schedule that restarted at each SKIP sent would send one every 4,608 edges plus the rest of
// the packet it fell into: about one per 8,250 edges here.
#include <catch2/catch.hpp>

#include "tests/support/fabric_harness.h"
#include "tests/support/fire_at.h"

using namespace ibfsim;
using namespace ibfsim::test;

TEST_CASE("a saturated 1x SDR link sends one SKIP per 4,608 edges", "[scenarios][timing][skip]") {
  Fabric& f = build_fabric("defaults: {link: {speed: SDR, width: 1x, length: 1m}, hca: {buffer_credits: 65535}}\n"
                           "nodes: [{name: h1, type: hca}, {name: h2, type: hca}]\n"
                           "cables: [{from: h1/1, to: h2/1}]\n");
  static Poster poster;
  static Recorder rec;
  aim(poster, *f.hca(0), *f.hca(1), 4096, 200);
  f.hca(0)->set_send_observer(&rec);
  fire_at(*f.hca(0), 20 * kUs, &poster);
  // 200 packets take about 200 x 4,132 x 4 ns = 3.3 ms; stop in the middle of the burst.
  run_for(f, 2 * kMs);
  constexpr std::uint64_t kEdgeFs = 4'000'000, kUp = 4'352, kInterval = 4'608, kPacket = 4'132;
  REQUIRE(f.link_up_times(0).at(0) == kUp * kEdgeFs);
  REQUIRE(rec.injected.size() > 400'000'000'000 / (kPacket * kEdgeFs));
  // Back to back: each packet starts where the one before ended, after the SKIPs and periodic
  // flow-control packets between them.
  std::uint64_t skips_between = 0, fc_gaps = 0;
  for (std::size_t i = 1; i < rec.injected.size(); ++i) {
    const std::uint64_t gap = (rec.injected[i] - rec.injected[i - 1]) / kEdgeFs - kPacket;
    REQUIRE((rec.injected[i] - rec.injected[i - 1]) % kEdgeFs == 0);
    // A SKIP is 4 edges; the flow-control refresh of 8 VLs every 65,536 edges is 8 x 8.
    REQUIRE((gap == 0 || gap == 4 || gap == 8 || gap == 64 || gap == 68 || gap == 72));
    skips_between += (gap % 64) / 4;
    fc_gaps += gap / 64;
  }
  const std::uint64_t first = rec.injected.front() / kEdgeFs, last = rec.injected.back() / kEdgeFs;
  CHECK(first == 5'000);  // posted at 20 us, on an edge, with the line idle
  CHECK(fc_gaps == (last - kUp) / 65'536);
  // Every SKIP due by the last packet's start has gone out: the k-th at or after edge U + k x 4,608.
  const std::uint64_t sent = f.port(0, 1).stats().tx_skips;
  CHECK(sent == (last - kUp) / kInterval);
  // Over the saturated stretch, as many SKIPs as 4,608-edge intervals: the spacing is 4,608 on average.
  CHECK(skips_between == (last - kUp) / kInterval - (first - kUp) / kInterval);
  CHECK(static_cast<double>(last - first) / static_cast<double>(skips_between) == Approx(4608.0).epsilon(0.01));
  // Two SKIPs are never more than an interval plus a packet apart, nor ever back to back here
  // (the interval is longer than a packet).
  CHECK(skips_between > 90);
}
