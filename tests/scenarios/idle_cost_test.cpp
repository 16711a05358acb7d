// Idle links and switches cost nothing: in an 8-host fabric where one packet travels h1 -> h2,
// the whole simulation runs exactly the actions that packet and link initialisation need, however
// long the simulated time.
#include <catch2/catch.hpp>

#include "sim/core/calendar_process.h"
#include "tests/support/fabric_harness.h"
#include "tests/support/fire_at.h"

using namespace ibfsim;
using namespace ibfsim::test;

TEST_CASE("an idle fabric runs no actions: one packet in 10 ms costs a fixed, counted number",
          "[scenarios][events]") {
  Fabric& f = build_fabric(std::string(
      "nodes: [{name: sw1, type: switch}, {name: h1, type: hca}, {name: h2, type: hca}, {name: h3, type: hca},"
      " {name: h4, type: hca}, {name: h5, type: hca}, {name: h6, type: hca}, {name: h7, type: hca},"
      " {name: h8, type: hca}]\n"
      "cables: [{from: h1/1, to: sw1/1}, {from: h2/1, to: sw1/2}, {from: h3/1, to: sw1/3}, {from: h4/1, to: sw1/4},"
      " {from: h5/1, to: sw1/5}, {from: h6/1, to: sw1/6}, {from: h7/1, to: sw1/7}, {from: h8/1, to: sw1/8}]\n"));
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  Poster post;
  aim(post, h1, h2, 1024);
  fire_at(h1, 5 * kMs, &post);
  run_for(f, 10 * kMs);
  // Link training: one event per cable when it is over (8). Link init: 16 ports each send one FC
  // packet per operational VL (8) -> 128 arrivals. The periodic flow-control refreshes of the idle
  // links (every 65,536 edges) are accounted lazily: no actions.
  // The packet: post (1), h1 tx done (1), switch head (1), switch eligible (1), switch tx done (1),
  // h2 head (1), h2 consume (1), FC switch->h1 arrives (1), FC h2->switch arrives (1) = 9.
  CHECK(CalendarProcess::total_events() == 8 + 16 * 8 + 9);
  CHECK(f.ledger().delivered_count() == 1);
}
