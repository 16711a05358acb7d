// The switch's output unit (output_unit.h): round robin among the inputs requesting a VL, moving
// past each input served, and a VL none of whose requests fits its credits reported blocked. A
// switch on a bench (switch_bench.h), no fabric.
#include <catch2/catch.hpp>

#include "sim/core/calendar_process.h"
#include "tests/network/switch_bench.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {
SwitchConfig four_ports() {
  SwitchConfig c;
  c.num_ports = 4;
  c.latency = 100 * kNs;
  return c;
}
}  // namespace

TEST_CASE("output unit: the inputs requesting a VL are served round robin, from the one after the input "
          "served last", "[network][output_unit]") {
  auto& b = *new SwitchBench(four_ports(), PortBuffers{1, 512, 10});
  for (PortNum p = 1; p <= 4; ++p) b.cable(p);
  StartLog log;
  b.sw->port(4).set_capture(&log);
  // A (input 2, 4 KiB payload: 129 edges) is on port 4 from edge 430 to 559. Meanwhile B1 and B3
  // (inputs 1 and 3, 65 edges each) request port 4 (eligible at edge 508), and B2 comes in behind
  // A on input 2 (eligible at edge 563, once A has left).
  REQUIRE(b.sw->port(4).symbols_for(4096 + 10) == 129);
  const Time a_tail = 1 * kUs + 129 * kEdrEdge;
  b.arrive(2, b.packet(100, 4, 4096), 1 * kUs, a_tail);
  b.arrive(1, b.packet(1, 4, 2048), 1200 * kNs, 1200 * kNs + 65 * kEdrEdge);
  b.arrive(3, b.packet(3, 4, 2048), 1200 * kNs, 1200 * kNs + 65 * kEdrEdge);
  b.arrive(2, b.packet(2, 4, 2048), 1340 * kNs, 1340 * kNs + 65 * kEdrEdge);
  CalendarProcess::run_for(5 * kUs);
  ScheduledModule::rethrow_failure();
  // After input 2, input 3 goes first although input 1 asked as early; after 3, input 1 before 2.
  REQUIRE(log.starts.size() == 4);
  CHECK(log.starts[0].id == 100);
  CHECK(log.starts[0].at == 430 * kEdrEdge);
  CHECK(log.starts[1].id == 3);
  CHECK(log.starts[1].at == 559 * kEdrEdge);
  CHECK(log.starts[2].id == 1);
  CHECK(log.starts[2].at == 624 * kEdrEdge);
  CHECK(log.starts[3].id == 2);
  CHECK(log.starts[3].at == 689 * kEdrEdge);
}

TEST_CASE("output unit: a VL none of whose requests fits its credits is blocked, one that fits is chosen "
          "ahead of the round robin, VL15 needs no credits", "[network][output_unit]") {
  // The peer's buffers are 10 blocks per VL: the switch's ports have 10 credits.
  auto& b = *new SwitchBench(four_ports(), PortBuffers{1, 10, 10});
  for (PortNum p = 1; p <= 4; ++p) b.cable(p);
  using C = PortOutput::Candidacy;
  std::vector<C> seen;
  std::uint16_t waiting_after = 0xFFFF;
  probe_at(*b.sw, 1 * kUs, [&] {
    OutputUnit& o = b.sw->output_unit(4);
    o.request(0, Requester{1, 0}, 11);
    seen.push_back(o.candidate(0));  // 11 blocks > 10 credits
    o.request(0, Requester{2, 0}, 10);
    seen.push_back(o.candidate(0));  // 10 fit
    o.withdraw(Requester{2, 0});
    seen.push_back(o.candidate(0));
    o.request(kVl15, Requester{3, kVl15}, 50);
    seen.push_back(o.candidate(kVl15));
    o.withdraw(Requester{1, 0});
    o.withdraw(Requester{3, kVl15});
    waiting_after = o.waiting_vls();
  });
  // The same through the switch: input 1's packet (33 blocks) never fits, input 2's (5) goes,
  // although input 1 is first in the round robin.
  b.arrive(1, b.packet(1, 4, 2048), 2 * kUs, 2 * kUs + 65 * kEdrEdge);
  b.arrive(2, b.packet(2, 4, 256), 2 * kUs, 2 * kUs + 9 * kEdrEdge);
  CalendarProcess::run_for(10 * kUs);
  ScheduledModule::rethrow_failure();
  CHECK(seen == std::vector<C>{C::kBlocked, C::kReady, C::kBlocked, C::kReady});
  CHECK(waiting_after == 0);
  const auto got = b.peer->arrivals_on(4);
  REQUIRE(got.size() == 1);
  CHECK(got[0].id == 2);
  CHECK(b.sw->queue_depth(1, 0) == 1);
  CHECK(b.sw->output_unit(4).waiting_vls() == 1);  // still asking for VL0 ...
  CHECK(b.sw->port(4).credit_stall_until(0, 10 * kUs) > 7 * kUs);  // ... stalled since it was alone
}
