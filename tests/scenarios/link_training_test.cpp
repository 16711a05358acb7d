// Link training at fabric build: a failed lane takes a 4x link down to 1x (and the link then
// serialises at 1x), lane reversal is found and changes nothing else, a dead lane 0 keeps the
// link down.
#include <catch2/catch.hpp>

#include "tests/support/fabric_harness.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {
Fabric& two_hosts(const std::string& cable_extra, const std::string& node_extra = "") {
  return build_fabric("defaults: {link: {speed: EDR, width: 4x, length: 2m}}\n"
                      "nodes: [{name: h1, type: hca" + node_extra + "}, {name: h2, type: hca" + node_extra + "}]\n"
                      "cables: [{from: h1/1, to: h2/1" + cable_extra + "}]\n");
}
void send_one(Fabric& f, Poster& p, Recorder& rec) {
  aim(p, *f.hca(0), *f.hca(1), 2048);
  f.hca(1)->set_delivery_observer(&rec);
  f.hca(0)->schedule(1 * kUs, &p, 0);
}
}  // namespace

TEST_CASE("a failed lane trains a 4x link down to 2x where both ends enable 2x, at 2x serialization",
          "[scenarios][training]") {
  Fabric& f = two_hosts(", failed_lanes: [2]");
  REQUIRE(f.training(0).up);
  CHECK(f.training(0).lanes == 2);
  Poster p;
  Recorder rec;
  send_one(f, p, rec);
  run_for(f, 20 * kUs);
  REQUIRE(rec.delivered.size() == 1);
  // 2084 slots over 2 lanes of 8-byte blocks: 131 edges; 2 m = 4 edges of 2.56 ns.
  CHECK(rec.delivered[0].delivered - rec.delivered[0].injected == (131 + 4) * 2'560'000ull);
}

TEST_CASE("a failed lane trains a 4x link down to 1x when the ends enable 1x and 4x, at 1x serialization",
          "[scenarios][training]") {
  Fabric& f = two_hosts(", failed_lanes: [2]", ", widths: [1x, 4x]");
  const TrainingResult& t = f.training(0);
  REQUIRE(t.up);
  CHECK(t.lanes == 1);
  CHECK(t.speed == LinkSpeed::kEdr);
  CHECK(f.hca(0)->port().rate().lanes == 1);
  Poster p;
  Recorder rec;
  send_one(f, p, rec);
  run_for(f, 20 * kUs);
  REQUIRE(rec.delivered.size() == 1);
  // 2082 bytes + 2 delimiters on 1 lane of 8-byte blocks: 261 edges; 2 m = 4 edges of 2.56 ns.
  CHECK(rec.delivered[0].delivered - rec.delivered[0].injected == (261 + 4) * 2'560'000ull);
}

TEST_CASE("lane reversal is found by training and leaves the timing unchanged", "[scenarios][training]") {
  Fabric& f = two_hosts(", lanes_reversed: true");
  CHECK(f.training(0).lane_reversed);
  CHECK(f.training(0).lanes == 4);
  Poster p;
  Recorder rec;
  send_one(f, p, rec);
  run_for(f, 20 * kUs);
  REQUIRE(rec.delivered.size() == 1);
  CHECK(rec.delivered[0].delivered - rec.delivered[0].injected == (66 + 4) * 2'560'000ull);
}

TEST_CASE("a dead lane 0 keeps the link down: nothing is sent", "[scenarios][training]") {
  Fabric& f = two_hosts(", failed_lanes: [0]");
  CHECK_FALSE(f.training(0).up);
  CHECK(f.hca(0)->port().state() == PortState::kDown);
  Poster p;
  Recorder rec;
  send_one(f, p, rec);
  run_for(f, 20 * kUs);
  CHECK(rec.delivered.empty());
  CHECK(f.hca(0)->queued_packets() == 1);
}
