// Zero-load latency of one UD packet h1 -> sw1 -> h2, computed by hand from the line rates and
// compared with the simulator to the femtosecond. The hand computation uses only the physical
// facts (baud rate, code, lanes, cable delay) and the documented timing rules:
//  * a packet of B bytes plus 2 delimiter slots is striped over the lanes in code units (1 byte
//    per lane for 8b/10b, an 8-byte block per lane for 64b/66b) and starts on a clock edge;
//  * cable delay (5 ns/m) is rounded up to whole edges;
//  * the switch has the LRH once the delimiter and 8 LRH bytes are in, and may start at the
//    first output edge >= head + latency whose end is >= tail + latency (cut-through).
// The links train first (link_training.h): each timeline below is computed for a packet posted at
// 1 us and the test posts it at 1 us + S, where S is the training time rounded up to a whole
// number of `grain` (edges whose span is a whole number of fs), so every time moves by exactly S.
#include <catch2/catch.hpp>

#include <algorithm>

#include "tests/support/fabric_harness.h"
#include "tests/support/fire_at.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {

// Runs one packet of `payload` bytes posted at 1 us + S through h1 -(len1)- sw1 -(len2)- h2 and
// returns what h2 delivered, with every time moved back by S (see the top of this file).
Delivery run_one(const std::string& speed, const std::string& len1, const std::string& len2, std::uint32_t payload,
                 Time grain) {
  Fabric& f = build_fabric("defaults: {link: {speed: " + speed + ", width: 4x}, switch: {latency: 100ns}}\n"
                           "nodes: [{name: sw1, type: switch, ports: 4}, {name: h1, type: hca}, {name: h2, type: hca}]\n"
                           "cables: [{from: h1/1, to: sw1/1, length: " + len1 + "}, {from: h2/1, to: sw1/2, length: " +
                           len2 + "}]\n");
  static Poster poster;
  static Recorder rec;
  aim(poster, *f.hca(1), *f.hca(2), payload);
  f.hca(2)->set_delivery_observer(&rec);
  const Time trained = std::max(f.training(0).duration, f.training(1).duration);
  const Time shift = shift_past(trained, grain);
  fire_at(*f.hca(1), 1 * kUs + shift, &poster);
  run_for(f, 100 * kUs);
  REQUIRE(rec.delivered.size() == 1);
  REQUIRE(f.link_up_times(0).at(0) == f.training(0).duration);
  Delivery d = rec.delivered[0];
  d.created -= shift;
  d.injected -= shift;
  d.delivered -= shift;
  return d;
}

}  // namespace

TEST_CASE("zero-load latency through one switch, 4x QDR (8b/10b), exact to the femtosecond", "[scenarios][timing]") {
  // QDR: 10 Gbaud, 10 bits per byte -> 1 ns per byte per lane; 4 lanes -> 4 bytes per 1 ns edge.
  // Packet: LRH 8 + BTH 12 + DETH 8 + payload 257 + pad 3 + ICRC 4 + VCRC 2 = 294 bytes;
  // 294 + 2 delimiters = 296 slots = 74 edges = 74 ns on every link.
  // Cables 3 m and 1.3 m: 15 ns and 6.5 ns -> 15 and 7 edges.
  // Posted at 1 us (the initial flow-control packets arrived long before): starts at edge 1000.
  // Switch head: LRH in after ceil(9 / 4) = 3 edges -> 1000 + 15 + 3 = 1018 ns; tail 1000 + 15 + 74 = 1089 ns.
  // Output: first edge >= 1018 + 100 = 1118, and end >= 1089 + 100 = 1189 -> start >= 1115: start 1118 ns.
  // Tail at h2: 1118 + 7 + 74 = 1199 ns.
  Delivery r = run_one("QDR", "3m", "1.3m", 257, 1 * kNs);
  CHECK(r.created == 1'000'000'000);
  CHECK(r.injected == 1'000'000'000);
  CHECK(r.delivered == 1'199'000'000);
}

TEST_CASE("zero-load latency through one switch, 4x FDR (64b/66b), exact to the femtosecond", "[scenarios][timing]") {
  // FDR: 14.0625 Gbaud, one 66-bit block of 8 bytes per lane -> edge = 66 / 14.0625e9 s
  //      = 14,080,000/3 fs (4.69333... ns), edge n at floor(n * 14,080,000 / 3) fs; 32 bytes per edge.
  // Packet with 256 bytes of payload: 8 + 12 + 8 + 256 + 0 + 4 + 2 = 290 bytes + 2 slots = 292
  //      -> ceil(292 / 32) = 10 edges.
  // Cables 3 m (15 ns -> ceil(15e6 / 4,693,333.3) = 4 edges) and 1 m (5 ns -> 2 edges).
  // Posted at 1 us = 1e9 fs: first edge >= 1e9 is ceil(1e9 * 3 / 14,080,000) = 214,
  //      at floor(214 * 14,080,000 / 3) = 1,004,373,333 fs.
  // Switch head: LRH in after ceil(9 / 32) = 1 edge -> edge 214 + 4 + 1 = 219 = 1,027,840,000 fs;
  //      tail at edge 214 + 4 + 10 = 228 = 1,070,080,000 fs.
  // Output: edge >= 1,127,840,000 fs -> ceil(240.31) = 241; end >= 1,170,080,000 -> edge 250 - 10 = 240.
  //      Start at edge 241; tail at h2 at edge 241 + 2 + 10 = 253 = floor(253 * 14,080,000 / 3)
  //      = 1,187,413,333 fs.
  Delivery r = run_one("FDR", "3m", "1m", 256, 14'080'000);  // 3 edges
  CHECK(r.injected == 1'004'373'333);
  CHECK(r.delivered == 1'187'413'333);
  CHECK(r.delivered - r.created == 187'413'333);
}

TEST_CASE("zero-load latency through one switch, 4x EDR (64b/66b), exact to the femtosecond", "[scenarios][timing]") {
  // EDR: 25.78125 Gbaud, 66-bit blocks -> 2.56 ns per edge, 32 bytes per edge.
  // 2 KiB payload: 8 + 12 + 8 + 2048 + 4 + 2 = 2082 bytes + 2 = 2084 slots -> 66 edges (168.96 ns).
  // 2 m cables: 10 ns -> ceil(3.906) = 4 edges. Posted at 1 us: edge ceil(1000 / 2.56) = 391 (1000.96 ns).
  // Head at switch: 391 + 4 + 1 = 396; tail 391 + 4 + 66 = 461 (1180.16 ns).
  // Output: time >= 396 * 2.56 + 100 = 1113.76 ns -> edge 436 (1116.16 ns); end >= 1280.16 ns -> edge 501 - 66 = 435.
  // Start at edge 436; tail at h2 at edge 436 + 4 + 66 = 506 = 1295.36 ns.
  Delivery r = run_one("EDR", "2m", "2m", 2048, 2'560'000);
  CHECK(r.injected == 1'000'960'000);
  CHECK(r.delivered == 1'295'360'000);
}
