// The switch's multicast replicator (multicast_replicator.h): one copy per cabled port of the group
// but the input, each on its own output at the cut-through time, a copy that cannot go dropped
// alone at its output, and the original retired once every copy is done. A switch on a bench
// (switch_bench.h), no fabric.
#include <catch2/catch.hpp>

#include "sim/core/calendar_process.h"
#include "tests/network/switch_bench.h"

using namespace ibfsim;
using namespace ibfsim::test;

TEST_CASE("multicast replicator: a copy per port of the group but the input, a copy whose SL maps to VL15 "
          "dropped alone at its output, the original retired when the copies are done",
          "[network][multicast]") {
  SwitchConfig c;
  c.num_ports = 5;
  c.latency = 100 * kNs;
  c.mft.set(0xC001, {1, 2, 3, 4, 5});  // port 5 is not cabled
  auto& b = *new SwitchBench(c, PortBuffers{});
  for (PortNum p = 1; p <= 4; ++p) b.cable(p);
  SlToVlTable to_vl15 = SlToVlTable::identity_modulo(1);
  to_vl15.set(0, kVl15);
  b.sw->set_sl_to_vl(1, 3, to_vl15);
  StartLog log2, log4;
  b.sw->port(2).set_capture(&log2);
  b.sw->port(4).set_capture(&log4);
  // 2 KiB payload, 65 edges: both copies cut through at edge 430 (1.1 us lies in edge 429.6875).
  b.arrive(1, b.packet(7, 0xC001, 2048), 1 * kUs, 1 * kUs + 65 * kEdrEdge);
  std::size_t depth_on_wire = 0;
  probe_at(*b.sw, 431 * kEdrEdge, [&] { depth_on_wire = b.sw->queue_depth(1, 0); });
  CalendarProcess::run_for(5 * kUs);
  ScheduledModule::rethrow_failure();
  REQUIRE(log2.starts.size() == 1);
  REQUIRE(log4.starts.size() == 1);
  CHECK(log2.starts[0].at == 430 * kEdrEdge);
  CHECK(log4.starts[0].at == 430 * kEdrEdge);
  CHECK(b.peer->arrivals_on(2).size() == 1);
  CHECK(b.peer->arrivals_on(4).size() == 1);
  CHECK(b.peer->arrivals_on(3).empty());
  CHECK(b.peer->arrivals_on(1).empty());
  CHECK(b.sw->port_discards(3, DropReason::kSlToVlDrop) == 1);  // the copy, at its output
  CHECK(b.sw->stats().discarded == 0);                          // the original is no drop
  CHECK(b.sw->stats().forwarded == 2);
  CHECK(b.ledger.created_count() == 2);  // the copies
  CHECK(b.ledger.replicated_count() == 1);
  CHECK(depth_on_wire == 1);  // the original stays while its copies are on the wire ...
  CHECK(b.sw->queue_depth(1, 0) == 0);  // ... and leaves after
  CHECK(b.sw->port(1).rx_buffer(0).occupied() == 0);
}
